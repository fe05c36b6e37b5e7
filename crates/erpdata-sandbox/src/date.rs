//! Civil dates as days since 1970-01-01 (Howard Hinnant's algorithms), so
//! rows can be dated without a date crate and without the OS clock.

pub fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i32;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i32 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i32::from(m <= 2);
    (y, m, d)
}

pub fn year_start(y: i32) -> i32 {
    days_from_civil(y, 1, 1)
}

pub fn year_end(y: i32) -> i32 {
    days_from_civil(y, 12, 31)
}

/// `YYYY-MM-DD` (years 0..=9999 only, which is all the demo uses).
pub fn iso(days: i32) -> [u8; 10] {
    let (y, m, d) = civil_from_days(days);
    let y = y as u32;
    [
        b'0' + (y / 1000 % 10) as u8,
        b'0' + (y / 100 % 10) as u8,
        b'0' + (y / 10 % 10) as u8,
        b'0' + (y % 10) as u8,
        b'-',
        b'0' + (m / 10) as u8,
        b'0' + (m % 10) as u8,
        b'-',
        b'0' + (d / 10) as u8,
        b'0' + (d % 10) as u8,
    ]
}

/// The [`iso`] text of every day in a range, made once, so that the rows
/// of a streamed table copy their dates rather than work them out.
#[derive(Debug)]
pub struct DayTexts {
    first: i32,
    texts: Vec<[u8; 10]>,
}

impl DayTexts {
    /// Days `first..=last`; others are worked out when asked for.
    pub fn new(first: i32, last: i32) -> Self {
        DayTexts {
            first,
            texts: (first..=last).map(iso).collect(),
        }
    }

    #[inline]
    pub fn get(&self, days: i32) -> [u8; 10] {
        match usize::try_from(days.wrapping_sub(self.first)) {
            Ok(i) if i < self.texts.len() => self.texts[i],
            _ => iso(days),
        }
    }
}

/// ` HH:MM:SS` for a second of the day (`0..86_400`), with the space that
/// separates it from the date in a MySQL DATETIME.
pub fn time_of_day(secs: u32) -> [u8; 9] {
    let (h, m, s) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
    [
        b' ',
        b'0' + (h / 10) as u8,
        b'0' + (h % 10) as u8,
        b':',
        b'0' + (m / 10) as u8,
        b'0' + (m % 10) as u8,
        b':',
        b'0' + (s / 10) as u8,
        b'0' + (s % 10) as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(days: i32) -> String {
        String::from_utf8(super::iso(days).to_vec()).unwrap()
    }

    #[test]
    fn round_trips_and_known_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(iso(days_from_civil(2024, 2, 29)), "2024-02-29");
        assert_eq!(iso(days_from_civil(2024, 2, 29) + 1), "2024-03-01");
        assert_eq!(iso(year_end(2025) + 1), "2026-01-01");
        assert_eq!(&time_of_day(0), b" 00:00:00");
        assert_eq!(&time_of_day(13 * 3600 + 45 * 60 + 7), b" 13:45:07");
        assert_eq!(&time_of_day(86_399), b" 23:59:59");
        let texts = DayTexts::new(year_start(2024), year_end(2024));
        for z in year_start(2024) - 3..year_end(2024) + 3 {
            assert_eq!(texts.get(z), super::iso(z));
        }
        assert_eq!(texts.get(i32::MIN), super::iso(i32::MIN));
        for z in -1000..100_000 {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
    }
}
