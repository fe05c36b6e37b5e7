//! How PHP's `json_encode` writes an array of rows: a list as a JSON array,
//! and a list with gaps in its keys (after `unset` or `array_filter`) as an
//! object keyed by those row numbers.

/// Whether `key` is a row number as `json_encode` writes one: `0`, or
/// digits without a leading zero, within PHP's integers. PHP keeps `"01"`
/// or `"+1"` as text, so an object keyed by them is a map by name (of
/// branches, of months), not a list of rows.
pub(crate) fn is_row_number(key: &str) -> bool {
    match key.as_bytes() {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => {
            rest.iter().all(u8::is_ascii_digit) && key.parse::<i64>().is_ok()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_row_number;

    #[test]
    fn only_the_numbers_php_writes_for_a_list() {
        for key in ["0", "1", "42", "9223372036854775807"] {
            assert!(is_row_number(key), "{key}");
        }
        for key in [
            "",
            "01",
            "00",
            "+1",
            "-1",
            "1.0",
            " 1",
            "1 ",
            "1e3",
            "a",
            "١",
            "9223372036854775808",
        ] {
            assert!(!is_row_number(key), "{key}");
        }
    }
}
