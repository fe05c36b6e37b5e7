//! `YYYY-MM-DD` dates as days since 1970-01-01 (Arrow's `Date32`).
//!
//! Decoding and input validation share its parser, so both take the same
//! texts for calendar dates.

/// The days since 1970-01-01 of a string that is exactly `YYYY-MM-DD` and a
/// real calendar date (proleptic Gregorian, years 0001–9999).
///
/// Nothing else is a date: not `2025-1-5`, not a date with a time, not
/// `2025-02-30`, and not MySQL's zero date `0000-00-00` — those stay strings,
/// so what the service sent is never replaced by a guess.
#[inline]
pub(crate) fn parse(s: &[u8]) -> Option<i32> {
    let s: &[u8; 10] = s.try_into().ok()?;
    if s[4] != b'-' || s[7] != b'-' {
        return None;
    }
    // The eight digits checked at once: each byte's high nibble is 3, and
    // still is after adding 6 (so the low nibble is at most 9). A carry out
    // of a byte needs a high nibble of F there, which fails the first test.
    let w = u64::from_le_bytes([s[0], s[1], s[2], s[3], s[5], s[6], s[8], s[9]]);
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    if w & HIGH != 0x3030_3030_3030_3030
        || w.wrapping_add(0x0606_0606_0606_0606) & HIGH != 0x3030_3030_3030_3030
    {
        return None;
    }
    let d = w - 0x3030_3030_3030_3030;
    let digit = |i: u32| ((d >> (8 * i)) & 0xFF) as u32;
    let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
    let month = digit(4) * 10 + digit(5);
    let day = digit(6) * 10 + digit(7);
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

/// [`parse`] that remembers the months it has seen: the dates of a table
/// fall in a few months, so most often only the day is new, and two digits
/// are all there is to read. A column's dates need not come in order (an
/// invoice's date and its due date a month apart, rows by customer), so
/// each month of the year has a slot of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dates {
    /// Slot `(s[5] & 1) * 16 + (s[6] & 15)`: months 01–12 of one year never
    /// share one (other years' take a slot over). Slot 0, no month's,
    /// holds MySQL's zero date (see `Default`).
    months: [Month; 32],
}

impl Default for Dates {
    /// Knows `0000-00-` as a month of no days, in slot 0, where no valid
    /// date goes (so it is never taken over): a zero date, half of some
    /// columns' cells (a payment's date before it is paid), is then found
    /// invalid at once, as [`parse`] finds it, without a full parse.
    fn default() -> Self {
        let mut months = [Month::default(); 32];
        months[0] = Month {
            word: u64::from_le_bytes(*b"0000-00-"),
            day_zero: 0,
            days: 0,
        };
        Dates { months }
    }
}

/// One month [`Dates`] has seen.
#[derive(Debug, Default, Clone, Copy)]
struct Month {
    /// `YYYY-MM-` of the month, little-endian (0: none yet).
    word: u64,
    /// Days since 1970-01-01 of the day before the month's first.
    day_zero: i32,
    /// Days in the month.
    days: u32,
}

impl Dates {
    /// Exactly [`parse`]'s answer.
    #[inline(always)]
    pub(crate) fn parse(&mut self, s: &[u8]) -> Option<i32> {
        let s: &[u8; 10] = s.try_into().ok()?;
        let word = u64::from_le_bytes(s[..8].try_into().expect("8 bytes"));
        let slot = usize::from(s[5] & 1) * 16 + usize::from(s[6] & 15);
        let month = &mut self.months[slot];
        if month.word == word {
            let (tens, ones) = (s[8].wrapping_sub(b'0'), s[9].wrapping_sub(b'0'));
            if tens > 9 || ones > 9 {
                return None;
            }
            let day = u32::from(tens) * 10 + u32::from(ones);
            return (1..=month.days)
                .contains(&day)
                .then(|| month.day_zero + day as i32);
        }
        self.learn(s, word, slot)
    }

    /// [`Dates::parse`] of a date whose month is not in its slot: parsed in
    /// full, and its month kept there.
    #[inline(never)]
    fn learn(&mut self, s: &[u8; 10], word: u64, slot: usize) -> Option<i32> {
        let days = parse(s)?;
        // A valid date: its digits are digits.
        let digit = |i: usize| u32::from(s[i] - b'0');
        let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
        let day = digit(8) * 10 + digit(9);
        self.months[slot] = Month {
            word,
            day_zero: days - day as i32,
            days: days_in_month(year, digit(5) * 10 + digit(6)),
        };
        Some(days)
    }
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days of the year before the first of each month (index 1–12), in a
/// common year.
const BEFORE_MONTH: [u32; 13] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
/// Days from 0001-01-01 to 1970-01-01.
const UNIX_EPOCH_DAY: i32 = 719_162;

/// Days since 1970-01-01, for years 1–9999 only (what [`parse`] accepts):
/// unsigned arithmetic whose divisions by constants are multiplies — this
/// runs for every date cell of a table.
fn days_from_civil(y: u32, m: u32, d: u32) -> i32 {
    debug_assert!((1..=9999).contains(&y));
    let p = y - 1;
    let before_year = p * 365 + p / 4 - p / 100 + p / 400;
    let leap_day = u32::from(m > 2 && is_leap(y));
    (before_year + BEFORE_MONTH[m as usize] + leap_day + d - 1) as i32 - UNIX_EPOCH_DAY
}

/// The calendar date `(year, month, day)` of `z` days since 1970-01-01
/// (proleptic Gregorian; Hinnant's `civil_from_days`): what a Date
/// column's value is, for bindings that build their language's date.
pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    // i64: the shift to 0000-03-01 overflows i32 for the last 719,468 days
    // an i32 holds, which an Arrow Date32 column may carry. Every year of
    // an i32 of days (about ±5.9 million) fits an i32.
    let z = i64::from(z) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = (z - era * 146_097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = (i64::from(yoe) + era * 400) as i32;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Writes `days` as `YYYY-MM-DD`: exactly the text [`parse`] accepted.
pub(crate) fn format(days: i32, out: &mut String) {
    let (y, m, d) = civil_from_days(days);
    match u32::try_from(y) {
        // Digits by hand: row paths write a date or timestamp per cell,
        // and `write!` costs several times more.
        Ok(y) if y <= 9999 => {
            let mut text = *b"0000-00-00";
            put_digits(&mut text[..4], y);
            put_digits(&mut text[5..7], m);
            put_digits(&mut text[8..], d);
            out.push_str(std::str::from_utf8(&text).expect("ASCII digits"));
        }
        // Days beyond what `parse` reads (a Date32 made elsewhere).
        _ => {
            use std::fmt::Write;
            let _ = write!(out, "{y:04}-{m:02}-{d:02}");
        }
    }
}

/// Writes `value`'s last `to.len()` decimal digits into `to`, zero-padded.
pub(crate) fn put_digits(to: &mut [u8], mut value: u32) {
    for b in to.iter_mut().rev() {
        *b = b'0' + (value % 10) as u8;
        value /= 10;
    }
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

    #[test]
    fn format_writes_what_the_formatter_would() {
        use std::fmt::Write;
        let mut x = 3u64;
        let far = [-719_529, -719_528, -719_162, 2_932_896, 2_932_897];
        let days = (-800_000..3_000_000)
            .step_by(97)
            .chain(far)
            .chain((0..20_000).map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // Years to about ±270,000: beyond 9999 and before 1, `write!`.
                (x >> 32) as i32 % 100_000_000
            }));
        for d in days {
            let (y, m, day) = civil_from_days(d);
            let mut want = String::new();
            let _ = write!(want, "{y:04}-{m:02}-{day:02}");
            let mut got = String::from("x");
            format(d, &mut got);
            assert_eq!(got[1..], want, "{d}");
        }
    }

    #[test]
    fn remembering_the_month_changes_no_answer() {
        let mut dates = Dates::default();
        let mut texts = Vec::new();
        for y in [0, 1, 1900, 1970, 2000, 2023, 2024, 9999] {
            for m in 0..=13 {
                for d in 0..=32 {
                    texts.push(format!("{y:04}-{m:02}-{d:02}"));
                }
            }
        }
        texts.extend(
            [
                "0000-00-0x",
                "0000-00-x0",
                "2025-01-3x",
                "2025-01-x3",
                "2025-01-0/",
                "2025-01-:1",
                "2025-01-1",
                "2025-01-011",
            ]
            .map(String::from),
        );
        // In order (the month repeats), and each after an unrelated one.
        for t in &texts {
            assert_eq!(dates.parse(t.as_bytes()), parse(t.as_bytes()), "{t}");
        }
        for t in &texts {
            dates.parse(b"2025-01-31");
            assert_eq!(dates.parse(t.as_bytes()), parse(t.as_bytes()), "{t}");
        }
        // Out of order, so that months of other years take a slot over and
        // months of one year share the cache.
        let mut x = 5u64;
        for _ in 0..50_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let t = &texts[(x >> 33) as usize % texts.len()];
            assert_eq!(dates.parse(t.as_bytes()), parse(t.as_bytes()), "{t}");
        }
    }
}
