//! Hand-written JSON output. Money goes out as integer cents printed with
//! exactly two decimals (never through `f64`), and strings are escaped the
//! way PHP's `json_encode` does by default (`\/`, `\uXXXX` for non-ASCII),
//! because clients of the real service have to cope with that. Whether
//! money and integers are quoted is the answer style's choice
//! (`crate::style`): the writers below take it as a `quoted` flag.

/// `1234.50`, `0.10`, `-3.05`.
pub fn money(buf: &mut Vec<u8>, cents: i64) {
    if cents < 0 {
        buf.push(b'-');
    }
    let abs = cents.unsigned_abs();
    buf.extend_from_slice(itoa::Buffer::new().format(abs / 100).as_bytes());
    let frac = (abs % 100) as u8;
    buf.extend_from_slice(&[b'.', b'0' + frac / 10, b'0' + frac % 10]);
}

/// Money as [`money`] writes it, inside quotes if `quoted` (a DECIMAL
/// column as mysqlnd hands it to `json_encode`: `"1234.50"`).
#[inline(always)]
pub fn money_q(buf: &mut Vec<u8>, quoted: bool, cents: i64) {
    if quoted {
        buf.push(b'"');
        money(buf, cents);
        buf.push(b'"');
    } else {
        money(buf, cents);
    }
}

/// An integer (an INT or TINYINT column), inside quotes if `quoted`.
#[inline(always)]
pub fn int_q(buf: &mut Vec<u8>, quoted: bool, value: i64) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(value).as_bytes();
    if quoted {
        buf.push(b'"');
        buf.extend_from_slice(digits);
        buf.push(b'"');
    } else {
        buf.extend_from_slice(digits);
    }
}

/// JSON `null` (SQL NULL, in every style).
pub fn null(buf: &mut Vec<u8>) {
    buf.extend_from_slice(b"null");
}

/// MySQL's zero date, `"0000-00-00"` (a NOT NULL DATE column with no
/// date), in every style.
pub fn zero_date(buf: &mut Vec<u8>) {
    buf.extend_from_slice(b"\"0000-00-00\"");
}

/// A quoted MySQL DATETIME, `"YYYY-MM-DD HH:MM:SS"`, from the date's
/// [`crate::date::iso`] text and the second of the day.
pub fn datetime(buf: &mut Vec<u8>, iso: &[u8; 10], secs: u32) {
    buf.push(b'"');
    buf.extend_from_slice(iso);
    buf.extend_from_slice(&crate::date::time_of_day(secs));
    buf.push(b'"');
}

/// A quoted, escaped JSON string.
pub fn string(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'/'))
    {
        buf.extend_from_slice(s.as_bytes());
    } else {
        escape_slow(buf, s);
    }
    buf.push(b'"');
}

fn escape_slow(buf: &mut Vec<u8>, s: &str) {
    for c in s.chars() {
        match c {
            '"' => buf.extend_from_slice(b"\\\""),
            '\\' => buf.extend_from_slice(b"\\\\"),
            '/' => buf.extend_from_slice(b"\\/"),
            '\n' => buf.extend_from_slice(b"\\n"),
            '\r' => buf.extend_from_slice(b"\\r"),
            '\t' => buf.extend_from_slice(b"\\t"),
            '\u{8}' => buf.extend_from_slice(b"\\b"),
            '\u{c}' => buf.extend_from_slice(b"\\f"),
            ' '..='~' => buf.push(c as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    unicode_escape(buf, *unit);
                }
            }
        }
    }
}

fn unicode_escape(buf: &mut Vec<u8>, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    buf.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        buf.push(HEX[usize::from((unit >> shift) & 0xf)]);
    }
}

/// A quoted document number such as `INV-2025-0003`: at least four digits,
/// more when a large table needs them.
pub fn doc_no(buf: &mut Vec<u8>, prefix: &str, year: i32, number: u64) {
    buf.push(b'"');
    buf.extend_from_slice(prefix.as_bytes());
    buf.push(b'-');
    buf.extend_from_slice(itoa::Buffer::new().format(year).as_bytes());
    buf.push(b'-');
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(number).as_bytes();
    for _ in digits.len()..4 {
        buf.push(b'0');
    }
    buf.extend_from_slice(digits);
    buf.push(b'"');
}

/// A quoted `YYYY-MM-DD` date.
pub fn date(buf: &mut Vec<u8>, days: i32) {
    quoted_iso(buf, &crate::date::iso(days));
}

/// A date's [`crate::date::iso`] text, quoted.
pub fn quoted_iso(buf: &mut Vec<u8>, iso: &[u8; 10]) {
    buf.push(b'"');
    buf.extend_from_slice(iso);
    buf.push(b'"');
}

/// `{"status":"error","message":"..."}` as PHP services send it.
pub fn error_body(message: &str) -> Vec<u8> {
    let mut buf = b"{\"status\":\"error\",\"message\":".to_vec();
    string(&mut buf, message);
    buf.push(b'}');
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(cents: i64) -> String {
        let mut b = Vec::new();
        money(&mut b, cents);
        String::from_utf8(b).unwrap()
    }

    fn text(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut b = Vec::new();
        write(&mut b);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn quoting_is_the_caller_s_choice() {
        assert_eq!(text(|b| money_q(b, false, 150_000)), "1500.00");
        assert_eq!(text(|b| money_q(b, true, 150_000)), "\"1500.00\"");
        assert_eq!(text(|b| money_q(b, true, -5)), "\"-0.05\"");
        assert_eq!(text(|b| int_q(b, false, 3)), "3");
        assert_eq!(text(|b| int_q(b, true, 3)), "\"3\"");
        assert_eq!(text(|b| int_q(b, true, -12)), "\"-12\"");
        assert_eq!(text(null), "null");
    }

    #[test]
    fn dates_and_datetimes() {
        let day = crate::date::days_from_civil(2025, 4, 1);
        assert_eq!(text(|b| date(b, day)), "\"2025-04-01\"");
        assert_eq!(text(zero_date), "\"0000-00-00\"");
        let iso = crate::date::iso(day);
        assert_eq!(
            text(|b| datetime(b, &iso, 13 * 3600 + 45 * 60)),
            "\"2025-04-01 13:45:00\""
        );
    }

    fn s(v: &str) -> String {
        let mut b = Vec::new();
        string(&mut b, v);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn money_has_two_decimals() {
        assert_eq!(m(0), "0.00");
        assert_eq!(m(10), "0.10");
        assert_eq!(m(123_450), "1234.50");
        assert_eq!(m(-305), "-3.05");
        assert_eq!(m(150_000_000), "1500000.00");
        assert_eq!(m(i64::MIN), "-92233720368547758.08");
    }

    #[test]
    fn strings_escape_like_php() {
        assert_eq!(s("Acme Traders"), "\"Acme Traders\"");
        assert_eq!(s("Müller GmbH"), "\"M\\u00fcller GmbH\"");
        assert_eq!(s("a/b \"q\" \\ \n"), "\"a\\/b \\\"q\\\" \\\\ \\n\"");
        assert_eq!(s("\u{1}"), "\"\\u0001\"");
        assert_eq!(s("😀"), "\"\\ud83d\\ude00\"");
    }

    fn doc_no_string(prefix: &str, year: i32, number: u64) -> String {
        let mut buf = Vec::new();
        doc_no(&mut buf, prefix, year, number);
        String::from_utf8(buf[1..buf.len() - 1].to_vec()).expect("ASCII")
    }

    #[test]
    fn doc_numbers_pad_to_four_digits() {
        assert_eq!(doc_no_string("INV", 2025, 3), "INV-2025-0003");
        assert_eq!(doc_no_string("INV", 2025, 1_234_567), "INV-2025-1234567");
    }

    #[test]
    fn error_body_shape() {
        assert_eq!(
            String::from_utf8(error_body("Unknown table: x")).unwrap(),
            r#"{"status":"error","message":"Unknown table: x"}"#
        );
    }
}
