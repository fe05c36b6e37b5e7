//! `YYYY-MM-DD` dates as days since 1970-01-01 (Arrow's `Date32`).

/// The days since 1970-01-01 of a string that is exactly `YYYY-MM-DD` and a
/// real calendar date (proleptic Gregorian, years 0001–9999).
///
/// Nothing else is a date: not `2025-1-5`, not a date with a time, not
/// `2025-02-30`, and not MySQL's zero date `0000-00-00` — those stay strings,
/// so what the service sent is never replaced by a guess.
#[inline]
pub(crate) fn parse(s: &[u8]) -> Option<i32> {
    if s.len() != 10 || s[4] != b'-' || s[7] != b'-' {
        return None;
    }
    let d = |i: usize| -> Option<u32> {
        let b = s[i];
        b.is_ascii_digit().then(|| u32::from(b - b'0'))
    };
    let year = d(0)? * 1000 + d(1)? * 100 + d(2)? * 10 + d(3)?;
    let month = d(5)? * 10 + d(6)?;
    let day = d(8)? * 10 + d(9)?;
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Howard Hinnant's `days_from_civil`, for years 1–9999 only (what
/// [`parse`] accepts): the shifted year is then never negative, so the
/// arithmetic is unsigned and each division by a constant is a multiply —
/// this runs for every date cell of a table.
fn days_from_civil(y: u32, m: u32, d: u32) -> i32 {
    debug_assert!((1..=9999).contains(&y));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe) as i32 - 719_468
}

/// Hinnant's `civil_from_days`.
fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = (z - era * 146_097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe as i32 + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Writes `days` as `YYYY-MM-DD`: exactly the text [`parse`] accepted.
pub(crate) fn format(days: i32, out: &mut String) {
    use std::fmt::Write;
    let (y, m, d) = civil_from_days(days);
    let _ = write!(out, "{y:04}-{m:02}-{d:02}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse(b"1970-01-01"), Some(0));
        assert_eq!(parse(b"2025-01-05"), Some(20_093));
        assert_eq!(parse(b"1969-12-31"), Some(-1));
        assert_eq!(parse(b"2024-02-29"), Some(19_782));
        for bad in [
            "2025-02-29",
            "2025-02-30",
            "1900-02-29",
            "0000-00-00",
            "0000-01-01",
            "2025-13-01",
            "2025-00-10",
            "2025-1-05",
            "2025-01-05 10:00:00",
            "2025/01/05",
            "20250105xx",
            "２０２５-01-05",
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad}");
        }
        assert!(parse(b"2000-02-29").is_some());
    }

    #[test]
    fn round_trip() {
        for text in [
            "0001-01-01",
            "1600-02-29",
            "1970-01-01",
            "2025-12-31",
            "9999-12-31",
        ] {
            let mut out = String::new();
            format(parse(text.as_bytes()).unwrap(), &mut out);
            assert_eq!(out, text);
        }
        let mut last = None;
        for days in -719_162..2_932_897 {
            let mut out = String::new();
            format(days, &mut out);
            assert_eq!(parse(out.as_bytes()), Some(days), "{out}");
            if let Some(prev) = last {
                assert!(out > prev);
            }
            last = Some(out);
        }
    }
}
