//! `YYYY-MM-DD HH:MM:SS[.ffffff]` (MySQL's DATETIME as PHP prints it) as
//! microseconds since 1970-01-01 00:00:00, with no time zone (Arrow's
//! `Timestamp(Microsecond, None)`).

use super::date;

/// Microseconds in a day.
const DAY_MICROS: i64 = 86_400_000_000;

/// `(microseconds since the epoch, digits of the fraction as written)` of
/// a string that is exactly `YYYY-MM-DD HH:MM:SS` with an optional `.`
/// and 1 to 6 digits, a real calendar date and a time of day (`23:59:59`
/// at most: MySQL has no leap second).
#[inline]
pub(crate) fn parse(s: &[u8], dates: &mut date::Dates) -> Option<(i64, u8)> {
    if s.len() < 19 || s[10] != b' ' {
        return None;
    }
    let days = dates.parse(&s[..10])?;
    // `HH:MM:SS` as one word: six digits and two colons, checked at once
    // (as the date's digits are).
    let w = u64::from_le_bytes(s[11..19].try_into().ok()?);
    const MASK: u64 = 0xF0F0_00F0_F000_F0F0;
    const COLONS: u64 = 0x0000_3A00_003A_0000;
    if w & 0x0000_FF00_00FF_0000 != COLONS
        || w & MASK != 0x3030_0030_3000_3030
        || w.wrapping_add(0x0606_0006_0600_0606) & MASK != 0x3030_0030_3000_3030
    {
        return None;
    }
    let d = w.wrapping_sub(0x3030_0030_3000_3030);
    let digit = |i: u32| ((d >> (8 * i)) & 0xFF) as i64;
    let (h, m, sec) = (
        digit(0) * 10 + digit(1),
        digit(3) * 10 + digit(4),
        digit(6) * 10 + digit(7),
    );
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let (micros, digits) = if s.len() == 19 {
        (0, 0)
    } else {
        fraction(&s[19..])?
    };
    let day_micros = ((h * 60 + m) * 60 + sec) * 1_000_000 + micros;
    Some((i64::from(days) * DAY_MICROS + day_micros, digits))
}

/// `.f` to `.ffffff` as microseconds, or nothing.
fn fraction(rest: &[u8]) -> Option<(i64, u8)> {
    match rest {
        [] => Some((0, 0)),
        [b'.', digits @ ..] if (1..=6).contains(&digits.len()) => {
            let mut v = 0i64;
            for &b in digits {
                if !b.is_ascii_digit() {
                    return None;
                }
                v = v * 10 + i64::from(b - b'0');
            }
            Some((v * 10i64.pow(6 - digits.len() as u32), digits.len() as u8))
        }
        _ => None,
    }
}

/// A Timestamp column's value, `micros` since 1970-01-01 00:00:00, as its
/// day (days since 1970-01-01, for [`civil_from_days`](super::civil_from_days))
/// and its time of day `(hour, minute, second, microsecond)`: what a
/// binding builds its language's datetime from.
#[inline]
pub fn parts(micros: i64) -> (i32, (u32, u32, u32, u32)) {
    // Any i64 of microseconds is within i32 days (±2.9e5 years).
    let days = micros.div_euclid(DAY_MICROS) as i32;
    let rest = micros.rem_euclid(DAY_MICROS);
    let secs = (rest / 1_000_000) as u32;
    let micro = (rest % 1_000_000) as u32;
    (days, (secs / 3600, secs / 60 % 60, secs % 60, micro))
}

/// Writes `micros` as `YYYY-MM-DD HH:MM:SS` and, when `digits` > 0, a
/// fraction of that many digits: the text [`parse`] read, given the digits
/// it reported.
pub(crate) fn format(micros: i64, digits: u8, out: &mut String) {
    let (days, (hour, minute, second, frac)) = parts(micros);
    date::format(days, out);
    // Digits by hand, as the date's: `write!` costs several times more.
    let mut text = *b" 00:00:00.000000";
    date::put_digits(&mut text[1..3], hour);
    date::put_digits(&mut text[4..6], minute);
    date::put_digits(&mut text[7..9], second);
    let digits = usize::from(digits.min(6));
    let shown = if digits > 0 {
        date::put_digits(
            &mut text[10..10 + digits],
            frac / 10u32.pow(6 - digits as u32),
        );
        10 + digits
    } else {
        9
    };
    out.push_str(std::str::from_utf8(&text[..shown]).expect("ASCII digits"));
}

/// Writes the canonical text of a Timestamp column's value, `micros` since
/// 1970-01-01 00:00:00: `YYYY-MM-DD HH:MM:SS`, with `.ffffff` unless it is
/// whole seconds (as Python's `isoformat(" ")` writes it).
pub fn canonical(micros: i64, out: &mut String) {
    let digits = if micros.rem_euclid(1_000_000) == 0 {
        0
    } else {
        6
    };
    format(micros, digits, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<(i64, u8)> {
        parse(s.as_bytes(), &mut date::Dates::default())
    }

    #[test]
    fn datetimes_parse_and_print_back() {
        assert_eq!(p("1970-01-01 00:00:00"), Some((0, 0)));
        assert_eq!(p("1970-01-01 00:00:01.5"), Some((1_500_000, 1)));
        assert_eq!(p("1969-12-31 23:59:59.999999"), Some((-1, 6)));
        for text in [
            "2025-04-01 13:45:00",
            "2025-04-01 13:45:00.123456",
            "2025-04-01 13:45:00.120",
            "0001-01-01 00:00:00",
            "9999-12-31 23:59:59.999999",
            "1969-07-20 20:17:40.0",
        ] {
            let (micros, digits) = p(text).unwrap();
            let mut out = String::new();
            format(micros, digits, &mut out);
            assert_eq!(out, text);
        }
        for bad in [
            "2025-04-01",
            "2025-04-01T13:45:00",
            "2025-04-01 24:00:00",
            "2025-04-01 13:60:00",
            "2025-04-01 13:45:60",
            "2025-02-30 13:45:00",
            "0000-00-00 00:00:00",
            "2025-04-01 13:45:00.",
            "2025-04-01 13:45:00.1234567",
            "2025-04-01 13:45:00Z",
            "2025-04-01 13:45:00+02:00",
            "2025-04-01 1:45:00",
            "2025-04-01 13:45:0a",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
        let mut out = String::new();
        canonical(1_500_000, &mut out);
        assert_eq!(out, "1970-01-01 00:00:01.500000");
    }

    #[test]
    fn format_writes_what_the_formatter_would() {
        use std::fmt::Write;
        let mut x = 9u64;
        for k in 0..200_000u64 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Whole seconds, whole days and any microsecond, 0001 to 9999.
            let micros = match k % 3 {
                0 => (x as i64 >> 20) / 1_000_000 * 1_000_000,
                1 => (x as i64 >> 20) / DAY_MICROS * DAY_MICROS,
                _ => x as i64 >> 20,
            };
            let digits = (k % 7) as u8;
            let days = micros.div_euclid(DAY_MICROS);
            let rest = micros.rem_euclid(DAY_MICROS);
            let secs = rest / 1_000_000;
            let mut want = String::new();
            date::format(days as i32, &mut want);
            let _ = write!(
                want,
                " {:02}:{:02}:{:02}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
            if digits > 0 {
                let shown = rest % 1_000_000 / 10i64.pow(6 - u32::from(digits));
                let _ = write!(want, ".{:0width$}", shown, width = usize::from(digits));
            }
            let mut got = String::new();
            format(micros, digits, &mut got);
            assert_eq!(got, want, "{micros} {digits}");
        }
    }
}
