//! Exact decimals as `unscaled × 10^-scale` in an `i128` of at most 38
//! digits (Arrow's `Decimal128`, SQL's widest `DECIMAL`).

use super::scanner::{scan_number, After, Number, Scan, MAX_38_DIGITS};

/// The most digits a decimal holds, and the precision of every decimal
/// column whose type its values decide (so that the type does not depend
/// on which rows came back).
pub(crate) const MAX_PRECISION: u8 = 38;

/// `10^n` for `n` in `0..=38`.
pub(crate) fn pow10(n: u32) -> u128 {
    10u128.pow(n)
}

/// A number as `(unscaled, scale)` with `scale` in `0..=38`, or `None` when
/// it needs more than 38 digits: more significant digits than that as
/// written, a scale above 38, or an exponent that multiplies it past them.
/// `1e-7` is `(1, 7)`, `2.5E+3` is `(2500, 0)`; `-0.00` is `(0, 2)`.
#[inline(always)]
pub(crate) fn of(n: &Number) -> Option<(i128, u8)> {
    if n.overflow {
        return None;
    }
    // What tables hold, no exponent: the scale is the digits after the
    // point and the value the digits as written — the general answer below
    // without its arithmetic.
    if n.exponent == 0
        && n.fraction_digits <= u32::from(MAX_PRECISION)
        && n.mantissa <= MAX_38_DIGITS
    {
        let value = n.mantissa as i128;
        return Some((
            if n.negative { -value } else { value },
            n.fraction_digits as u8,
        ));
    }
    let scale = i64::from(n.fraction_digits) - i64::from(n.exponent);
    let (mantissa, scale) = if scale < 0 {
        let up = u32::try_from(-scale).ok().filter(|&k| k <= 38)?;
        let m = n.mantissa.checked_mul(pow10(up))?;
        (m, 0)
    } else {
        (
            n.mantissa,
            u8::try_from(scale).ok().filter(|&s| s <= MAX_PRECISION)?,
        )
    };
    if mantissa > MAX_38_DIGITS {
        return None;
    }
    let value = mantissa as i128;
    Some((if n.negative { -value } else { value }, scale))
}

/// `value` at a larger scale, if it still fits in 38 digits.
#[inline]
pub(crate) fn rescale(value: i128, by: u8) -> Option<i128> {
    if by == 0 {
        return Some(value);
    }
    let v = value.checked_mul(pow10(u32::from(by)) as i128)?;
    (v.unsigned_abs() <= MAX_38_DIGITS).then_some(v)
}

/// A decimal in plain notation (`-?digits[.digits]`, what [`format`]
/// writes and a JS table's decimal column holds) as its unscaled value at
/// `scale`: `("1500", 2)` is `150000`. `None` when it has more digits after
/// the point than `scale`, needs more than 38 digits, or is another form
/// (an exponent, a sign of `+`, no digit before the point, spaces).
pub fn parse_plain_decimal(text: &str, scale: u8) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || scale > MAX_PRECISION
        || fraction.len() > usize::from(scale)
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut value: u128 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        value = value.checked_mul(10)?.checked_add(u128::from(b - b'0'))?;
    }
    let value = rescale(i128::try_from(value).ok()?, scale - fraction.len() as u8)?;
    (value.unsigned_abs() <= MAX_38_DIGITS).then_some(if negative { -value } else { value })
}

/// A JSON number's text (`1.5`, `1.0e-5`, `-2E+3`) as `(unscaled, scale)`,
/// as [`of`] reads the number: `None` for any other text (`n/a`, ` 12`,
/// `+1`, `NaN`) and for a number of more than 38 digits.
pub(crate) fn of_text(text: &str) -> Option<(i128, u8)> {
    if !text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return None;
    }
    match scan_number(text.as_bytes(), 0, After::Eof) {
        Scan::Done(n, end) if end == text.len() => of(&n),
        _ => None,
    }
}

/// A decimal written as JSON writes a number, exponent and all (`1.0e-5`:
/// what a PHP service's `json_encode` writes for a small float, and so the
/// text a decimal column gives back as sent), as its unscaled value at
/// `scale`: `("1.0e-5", 6)` is `10`. `None` when it is not such a number,
/// has more significant digits after the point than `scale`, or needs more
/// than 38 digits there. Trailing zeros past `scale` are no digits:
/// `("1.50", 1)` is `15`.
pub fn parse_decimal(text: &str, scale: u8) -> Option<i128> {
    if scale > MAX_PRECISION {
        return None;
    }
    let (value, own) = of_text(text)?;
    if own <= scale {
        return rescale(value, scale - own);
    }
    let divisor = pow10(u32::from(own - scale)) as i128;
    (value % divisor == 0).then_some(value / divisor)
}

/// The largest absolute value of `values` (`None` for none).
pub(crate) fn max_abs(values: &[i128]) -> Option<u128> {
    values.iter().map(|v| v.unsigned_abs()).max()
}

/// How many decimal digits `|value|` has (0 has one).
pub(crate) fn digits(value: u128) -> u8 {
    let mut n = 1;
    let mut v = value;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// Writes `value × 10^-scale` in plain notation: `123450, 2` → `1234.50`.
pub(crate) fn format(value: i128, scale: u8, out: &mut String) {
    let digits = value.unsigned_abs().to_string();
    if value < 0 {
        out.push('-');
    }
    let scale = usize::from(scale);
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        for _ in digits.len()..scale {
            out.push('0');
        }
        out.push_str(&digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> Option<(i128, u8)> {
        let Scan::Done(n, _) = scan_number(text.as_bytes(), 0, After::Eof) else {
            panic!("{text}")
        };
        of(&n)
    }

    #[test]
    fn numbers_convert_exactly() {
        assert_eq!(dec("1234.50"), Some((123_450, 2)));
        assert_eq!(dec("-0.00"), Some((0, 2)));
        assert_eq!(dec("1e-7"), Some((1, 7)));
        assert_eq!(dec("2.5E+3"), Some((2500, 0)));
        assert_eq!(
            dec("12345678901234567.89"),
            Some((1_234_567_890_123_456_789, 2))
        );
        assert_eq!(dec("42"), Some((42, 0)));
        assert_eq!(dec(&"9".repeat(38)), Some((MAX_38_DIGITS as i128, 0)));
        assert_eq!(dec(&"9".repeat(39)), None);
        assert_eq!(dec("1e38"), None);
        assert_eq!(dec("1e37"), Some((pow10(37) as i128, 0)));
        assert_eq!(dec("1e-38"), Some((1, 38)));
        assert_eq!(dec("1e-39"), None);
        assert_eq!(dec("1e400"), None);
        assert_eq!(dec("1e-400"), None);
    }

    #[test]
    fn formatting() {
        let f = |v, s| {
            let mut out = String::new();
            format(v, s, &mut out);
            out
        };
        assert_eq!(f(123_450, 2), "1234.50");
        assert_eq!(f(-5, 3), "-0.005");
        assert_eq!(f(1, 7), "0.0000001");
        assert_eq!(f(0, 2), "0.00");
        assert_eq!(f(-42, 0), "-42");
        assert_eq!(digits(123_450), 6);
        assert_eq!(digits(0), 1);
        assert_eq!(digits(MAX_38_DIGITS), 38);
        assert_eq!(rescale(5, 2), Some(500));
        assert_eq!(rescale(MAX_38_DIGITS as i128, 1), None);
    }

    #[test]
    fn json_numbers_at_a_scale() {
        assert_eq!(parse_decimal("1.0e-5", 6), Some(10));
        assert_eq!(parse_decimal("1.5", 6), Some(1_500_000));
        assert_eq!(parse_decimal("-2.5E+3", 0), Some(-2500));
        assert_eq!(parse_decimal("-2.5E+3", 2), Some(-250_000));
        assert_eq!(parse_decimal("1.50", 1), Some(15));
        assert_eq!(parse_decimal("1.55", 1), None);
        assert_eq!(parse_decimal("1e-7", 6), None);
        assert_eq!(parse_decimal("-0.00", 2), Some(0));
        assert_eq!(
            parse_decimal("1.2345678901234567890123456789e20", 8),
            Some(12_345_678_901_234_567_890_123_456_789)
        );
        assert_eq!(
            parse_decimal(&"9".repeat(38), 0),
            Some(MAX_38_DIGITS as i128)
        );
        assert_eq!(parse_decimal(&"9".repeat(38), 1), None);
        assert_eq!(parse_decimal("1", 39), None);
        for bad in [
            "", "n/a", " 12", "12 ", "+1", ".5", "1.", "NaN", "1,5", "0x1", "--1", "1e",
        ] {
            assert_eq!(parse_decimal(bad, 2), None, "{bad:?}");
            assert_eq!(of_text(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn plain_decimals_at_a_scale() {
        assert_eq!(parse_plain_decimal("1500", 2), Some(150_000));
        assert_eq!(parse_plain_decimal("-0.5", 2), Some(-50));
        assert_eq!(parse_plain_decimal("1234.50", 2), Some(123_450));
        assert_eq!(parse_plain_decimal("0.125", 2), None);
        assert_eq!(parse_plain_decimal("1e3", 2), None);
        assert_eq!(parse_plain_decimal("", 2), None);
        assert_eq!(parse_plain_decimal(".5", 2), None);
        assert_eq!(parse_plain_decimal("+5", 2), None);
        assert_eq!(parse_plain_decimal("-", 0), None);
        assert_eq!(parse_plain_decimal(" 5", 0), None);
        let nines = "9".repeat(38);
        assert_eq!(parse_plain_decimal(&nines, 0), Some(MAX_38_DIGITS as i128));
        assert_eq!(parse_plain_decimal(&nines, 1), None);
        assert_eq!(parse_plain_decimal(&"9".repeat(39), 0), None);
        assert_eq!(parse_plain_decimal(&"9".repeat(60), 0), None);
        assert_eq!(parse_plain_decimal("1", 39), None);
        assert_eq!(parse_plain_decimal("0.1", 38), Some(pow10(37) as i128));
    }
}
