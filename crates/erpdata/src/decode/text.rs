//! What a string's text is, for typing: PHP over MySQL sends DECIMAL, and
//! often every value, as JSON strings (`"1500.00"`, `"3"`), and MySQL's
//! zero dates for dates it has not got. The rules are strict on purpose: a
//! text is typed only when printing the typed value gives the same text
//! back, so a string that is typed can always be given back as sent.

/// A string that is a canonical number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`,
/// not negative zero, with at most 38 digits in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberText {
    /// No point, and fits `i64`.
    Int(i64),
    /// `(unscaled, digits after the point)`.
    Decimal(i128, u8),
}

/// [`NumberText`] of `s`, or `None` for anything else (`007`, `1e3`, ` 12`,
/// `+1`, `1.`, `.5`, `-0`, `-0.00`, more than 38 digits).
#[inline]
pub(crate) fn number(s: &[u8]) -> Option<NumberText> {
    let (negative, digits) = match s.first()? {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let n = digits.len();
    // At most 38 digits and a point.
    if n == 0 || n > 39 {
        return None;
    }
    // One pass over the bytes: the digits as a u64 (exact up to 19 of
    // them; more are counted again below), and where the point is.
    let mut value: u64 = 0;
    let mut point = usize::MAX;
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d <= 9 {
            value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        } else if b == b'.' && point == usize::MAX {
            point = i;
        } else {
            return None;
        }
    }
    let has_point = point != usize::MAX;
    if point == 0 || (has_point && point == n - 1) {
        return None;
    }
    // No leading zero, except a lone one before the point.
    if digits[0] == b'0' && n > 1 && point != 1 {
        return None;
    }
    let count = if has_point { n - 1 } else { n };
    if count > 38 {
        return None;
    }
    let unsigned: u128 = if count <= 19 {
        u128::from(value)
    } else {
        digits
            .iter()
            .filter(|b| b.is_ascii_digit())
            .fold(0u128, |v, &b| v * 10 + u128::from(b - b'0'))
    };
    if negative && unsigned == 0 {
        return None;
    }
    let signed = if negative {
        -(unsigned as i128)
    } else {
        unsigned as i128
    };
    Some(if has_point {
        NumberText::Decimal(signed, (n - point - 1) as u8)
    } else {
        match i64::try_from(signed) {
            Ok(i) => NumberText::Int(i),
            Err(_) => NumberText::Decimal(signed, 0),
        }
    })
}

/// The unscaled value of `s` if it is canonical decimal text with exactly
/// `scale` (1–18) digits after the point and at most 18 digits in all —
/// what a DECIMAL column's values all are — read with two plain digit
/// loops. `None` means "ask [`number`]", not "not a number".
#[inline(always)]
pub(crate) fn decimal_at(s: &[u8], scale: u8) -> Option<i64> {
    let scale = usize::from(scale);
    let n = s.len();
    let negative = s.first() == Some(&b'-');
    let start = usize::from(negative);
    // At least one digit before the point, at most 18 in all.
    if scale == 0 || n < start + scale + 2 || n > start + 19 {
        return None;
    }
    let point = n - scale - 1;
    if s[point] != b'.' || (s[start] == b'0' && point - start > 1) {
        return None;
    }
    let mut v: i64 = 0;
    for &b in &s[start..point] {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    for &b in &s[point + 1..] {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    match (negative, v) {
        (true, 0) => None,
        (true, v) => Some(-v),
        (false, v) => Some(v),
    }
}

/// MySQL's zero date.
pub(crate) const ZERO_DATE: &[u8] = b"0000-00-00";
/// MySQL's zero datetime, without a fraction.
pub(crate) const ZERO_DATETIME: &[u8] = b"0000-00-00 00:00:00";

/// `Some(fraction digits)` if `s` is MySQL's zero datetime, with `.000…`
/// of 1 to 6 zeros or none (`DATETIME(fsp)` prints `fsp` of them).
pub(crate) fn zero_datetime(s: &[u8]) -> Option<u8> {
    let rest = s.strip_prefix(ZERO_DATETIME)?;
    match rest {
        [] => Some(0),
        [b'.', zeros @ ..]
            if (1..=6).contains(&zeros.len()) && zeros.iter().all(|&b| b == b'0') =>
        {
            Some(zeros.len() as u8)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::NumberText::*;
    use super::*;

    #[test]
    fn canonical_numbers_only() {
        let n = |s: &str| number(s.as_bytes());
        assert_eq!(n("0"), Some(Int(0)));
        assert_eq!(n("3"), Some(Int(3)));
        assert_eq!(n("-42"), Some(Int(-42)));
        assert_eq!(n("1500.00"), Some(Decimal(150_000, 2)));
        assert_eq!(n("0.5"), Some(Decimal(5, 1)));
        assert_eq!(n("-0.25"), Some(Decimal(-25, 2)));
        assert_eq!(n("9223372036854775807"), Some(Int(i64::MAX)));
        assert_eq!(n("-9223372036854775808"), Some(Int(i64::MIN)));
        assert_eq!(
            n("9223372036854775808"),
            Some(Decimal(9_223_372_036_854_775_808, 0))
        );
        assert_eq!(n(&"9".repeat(38)), Some(Decimal(10i128.pow(38) - 1, 0)));
        for bad in [
            "", "-", "007", "00", "00.5", "1e3", "1E3", " 12", "12 ", "+1", "1.", ".5", "-0",
            "-0.00", "1.2.3", "1,5", "0x10", "١٢", "12a", "--1", "NaN", "Infinity",
        ] {
            assert_eq!(n(bad), None, "{bad:?}");
        }
        assert_eq!(n(&"9".repeat(39)), None);
        assert_eq!(n(&format!("0.{}", "1".repeat(38))), None, "39 digits");
    }

    #[test]
    fn decimals_at_a_scale_agree_with_the_general_parse() {
        let texts = [
            "1500.00",
            "-20.50",
            "0.00",
            "0.05",
            "-0.05",
            "-0.00",
            "00.50",
            "1.5",
            "1.500",
            "123456789012345.67",
            "1234567890123456.78",
            "1e3.00",
            "1.0a",
            "-",
            "",
            ".50",
            "1500.",
            "-.50",
            "+1.00",
            "0.",
            "7",
        ];
        for text in texts {
            for scale in 0..=3 {
                if let Some(v) = decimal_at(text.as_bytes(), scale) {
                    assert_eq!(
                        number(text.as_bytes()),
                        Some(NumberText::Decimal(i128::from(v), scale)),
                        "{text} at {scale}"
                    );
                }
            }
        }
        assert_eq!(decimal_at(b"1500.00", 2), Some(150_000));
        assert_eq!(decimal_at(b"-20.50", 2), Some(-2050));
        assert_eq!(decimal_at(b"-0.00", 2), None);
        assert_eq!(decimal_at(b"00.50", 2), None);
        assert_eq!(decimal_at(b"1.5", 2), None);
    }

    #[test]
    fn zero_datetimes() {
        assert_eq!(zero_datetime(b"0000-00-00 00:00:00"), Some(0));
        assert_eq!(zero_datetime(b"0000-00-00 00:00:00.000000"), Some(6));
        assert_eq!(zero_datetime(b"0000-00-00 00:00:00.0"), Some(1));
        assert_eq!(zero_datetime(b"0000-00-00 00:00:00."), None);
        assert_eq!(zero_datetime(b"0000-00-00 00:00:00.0000000"), None);
        assert_eq!(zero_datetime(b"0000-00-00 00:00:01"), None);
        assert_eq!(zero_datetime(b"0000-00-00"), None);
    }
}
