//! A ceiling for any typed decoder: a parser written for one table's rows
//! and nothing else. It learns the columns and their types from the first
//! row, then reads every row as exactly that shape — no key lookup, no
//! type inference or widening, no errors to report, no streaming — and
//! stores what the decoder stores (dates as days, timestamps as
//! microseconds, decimals as integers, text as UTF-8 with offsets, a
//! validity per value) in batches of the decoder's default size.
//!
//! It is not a decoder: compact JSON only, and a row of another shape
//! panics. Its speed is what the decoder could reach at best on the same
//! body, measured in the same round as the floor.

/// Rows per batch, the decoder's default.
const BATCH_ROWS: usize = 65_536;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    /// `"2025-01-31"`, days since 1970.
    Date,
    /// `"2025-01-31 09:31:46"`, microseconds since 1970.
    Timestamp,
    /// `"40221.21"`: decimal text, unscaled.
    DecimalText,
    /// `40221.21`: a JSON number, unscaled.
    Number,
}

#[derive(Default)]
struct Column {
    ints: Vec<i64>,
    days: Vec<i32>,
    text: Vec<u8>,
    offsets: Vec<u32>,
    valid: Vec<bool>,
}

struct Slot {
    /// `"name":`
    key: Vec<u8>,
    kind: Kind,
}

/// Reads every row of `body` (the sandbox's compact answer); returns the
/// number of rows.
pub fn ceiling(body: &[u8]) -> u64 {
    let data = find(body, b"\"data\":[").expect("a data array") + 8;
    let slots = plan(body, data);
    let mut columns: Vec<Column> = fresh(&slots);
    let mut p = data;
    let mut rows = 0u64;
    let mut in_batch = 0;
    while body[p] == b'{' {
        p += 1;
        for (slot, col) in slots.iter().zip(columns.iter_mut()) {
            let k = slot.key.len();
            assert!(body[p..p + k] == slot.key[..], "rows of one shape");
            p = value(body, p + k, slot.kind, col);
            debug_assert!(matches!(body[p], b',' | b'}'));
            p += 1;
        }
        rows += 1;
        in_batch += 1;
        if in_batch == BATCH_ROWS {
            std::hint::black_box(std::mem::replace(&mut columns, fresh(&slots)));
            in_batch = 0;
        }
        if body[p] != b',' {
            break;
        }
        p += 1;
    }
    std::hint::black_box(columns);
    rows
}

fn fresh(slots: &[Slot]) -> Vec<Column> {
    slots
        .iter()
        .map(|s| {
            let mut c = Column {
                valid: Vec::with_capacity(BATCH_ROWS),
                ..Column::default()
            };
            match s.kind {
                Kind::Text => {
                    c.offsets = Vec::with_capacity(BATCH_ROWS + 1);
                    c.offsets.push(0);
                    c.text = Vec::with_capacity(BATCH_ROWS * 16);
                }
                Kind::Date => c.days = Vec::with_capacity(BATCH_ROWS),
                _ => c.ints = Vec::with_capacity(BATCH_ROWS),
            }
            c
        })
        .collect()
}

/// The columns of the first row, which starts at `at`.
fn plan(body: &[u8], at: usize) -> Vec<Slot> {
    let mut slots = Vec::new();
    let mut p = at + 1;
    loop {
        let end = p + 1 + find(&body[p + 1..], b"\"").expect("a key");
        let key = body[p..end + 2].to_vec();
        p = end + 2;
        let first = body[p];
        let kind = if first == b'"' {
            let q = p + 1 + find(&body[p + 1..], b"\"").expect("a string");
            let s = &body[p + 1..q];
            if date(s).is_some() || s == b"0000-00-00" {
                Kind::Date
            } else if s.len() == 19 && date(&s[..10]).is_some() && s[10] == b' ' {
                Kind::Timestamp
            } else if !s.is_empty() && s.iter().all(|b| b.is_ascii_digit() || *b == b'.') {
                Kind::DecimalText
            } else {
                Kind::Text
            }
        } else if first.is_ascii_digit() || first == b'-' {
            Kind::Number
        } else {
            Kind::Text
        };
        slots.push(Slot { key, kind });
        let mut scratch = Column::default();
        scratch.offsets.push(0);
        p = value(body, p, kind, &mut scratch);
        if body[p] == b'}' {
            return slots;
        }
        p += 1;
    }
}

#[inline(always)]
fn value(body: &[u8], p: usize, kind: Kind, col: &mut Column) -> usize {
    if body[p] == b'n' {
        col.valid.push(false);
        match kind {
            Kind::Text => col.offsets.push(col.text.len() as u32),
            Kind::Date => col.days.push(0),
            _ => col.ints.push(0),
        }
        return p + 4;
    }
    match kind {
        Kind::Text => {
            let end = text(body, p, &mut col.text);
            col.offsets.push(col.text.len() as u32);
            col.valid.push(true);
            end
        }
        Kind::Date => {
            let d = date(&body[p + 1..p + 11]);
            col.days.push(d.unwrap_or(0));
            col.valid.push(d.is_some());
            p + 12
        }
        Kind::Timestamp => {
            let s = &body[p + 1..p + 20];
            let micros = date(&s[..10])
                .zip(clock(&s[11..]))
                .map(|(d, secs)| (i64::from(d) * 86_400 + i64::from(secs)) * 1_000_000);
            col.ints.push(micros.unwrap_or(0));
            col.valid.push(micros.is_some());
            p + 21
        }
        Kind::DecimalText => {
            let (v, end) = digits(body, p + 1);
            col.ints.push(v);
            col.valid.push(true);
            end + 1
        }
        Kind::Number => {
            let (v, end) = digits(body, p);
            col.ints.push(v);
            col.valid.push(true);
            end
        }
    }
}

/// A string's value appended to `out`; returns the index after its quote.
#[inline(always)]
fn text(body: &[u8], p: usize, out: &mut Vec<u8>) -> usize {
    let mut i = p + 1;
    let q = special(body, i);
    if body[q] == b'"' {
        out.extend_from_slice(&body[i..q]);
        return q + 1;
    }
    loop {
        let q = special(body, i);
        out.extend_from_slice(&body[i..q]);
        match body[q] {
            b'"' => return q + 1,
            b'\\' => {
                let (c, next) = escape(body, q);
                let mut utf8 = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                i = next;
            }
            _ => {
                // Non-ASCII: one character, checked.
                let n = match body[q] {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                std::str::from_utf8(&body[q..q + n]).expect("UTF-8");
                out.extend_from_slice(&body[q..q + n]);
                i = q + n;
            }
        }
    }
}

fn escape(body: &[u8], q: usize) -> (char, usize) {
    let hex = |at: usize| {
        u32::from_str_radix(std::str::from_utf8(&body[at..at + 4]).expect("hex"), 16).expect("hex")
    };
    match body[q + 1] {
        b'u' => {
            let u = hex(q + 2);
            if (0xD800..0xDC00).contains(&u) {
                let low = hex(q + 8);
                let c = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
                (char::from_u32(c).expect("a pair"), q + 12)
            } else {
                (char::from_u32(u).expect("a character"), q + 6)
            }
        }
        b'n' => ('\n', q + 2),
        b't' => ('\t', q + 2),
        b'r' => ('\r', q + 2),
        b'b' => ('\u{8}', q + 2),
        b'f' => ('\u{c}', q + 2),
        c => (char::from(c), q + 2),
    }
}

/// The first quote, backslash, control or non-ASCII byte from `i`.
#[inline(always)]
fn special(body: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        while i + 16 <= body.len() {
            // SAFETY: 16 bytes from `i` are in `body`; SSE2 is part of
            // x86_64.
            let m = unsafe {
                let v = _mm_loadu_si128(body.as_ptr().add(i).cast());
                let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let s = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // Signed: bytes of 0x80 and up are below 0x20 too.
                let c = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, s), c)) as u32
            };
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < body.len() && !matches!(body[i], b'"' | b'\\' | 0..=0x1F | 0x80..) {
        i += 1;
    }
    i
}

/// `-?digits(.digits)?` as an unscaled integer; returns it and the index
/// after it.
#[inline(always)]
fn digits(body: &[u8], mut p: usize) -> (i64, usize) {
    let negative = body[p] == b'-';
    p += usize::from(negative);
    let mut v: i64 = 0;
    while let Some(d) = digit(body[p]) {
        v = v * 10 + i64::from(d);
        p += 1;
    }
    if body[p] == b'.' {
        p += 1;
        while let Some(d) = digit(body[p]) {
            v = v * 10 + i64::from(d);
            p += 1;
        }
    }
    (if negative { -v } else { v }, p)
}

#[inline(always)]
fn digit(b: u8) -> Option<u32> {
    let d = b.wrapping_sub(b'0');
    (d < 10).then_some(u32::from(d))
}

/// Days since 1970 of `YYYY-MM-DD`; `None` for the zero date or other text.
#[inline(always)]
fn date(s: &[u8]) -> Option<i32> {
    if s.len() != 10 || s[4] != b'-' || s[7] != b'-' {
        return None;
    }
    let two = |i: usize| Some(digit(s[i])? * 10 + digit(s[i + 1])?);
    let y = two(0)? * 100 + two(2)?;
    let (m, d) = (two(5)?, two(8)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (H. Hinnant's algorithm).
    let y = y as i32 - i32::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = (y - era * 400) as u32;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe as i32 - 719_468)
}

/// Seconds of `HH:MM:SS`.
#[inline(always)]
fn clock(s: &[u8]) -> Option<u32> {
    let two = |i: usize| Some(digit(s[i])? * 10 + digit(s[i + 1])?);
    Some(two(0)? * 3600 + two(3)? * 60 + two(6)?)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_row_of_each_style() {
        for style in [
            erpdata_sandbox::Style::Native,
            erpdata_sandbox::Style::Mysqlnd,
            erpdata_sandbox::Style::Strings,
        ] {
            let body = erpdata_sandbox::table_body_styled("sales_invoice", 1000, style).unwrap();
            assert_eq!(ceiling(&body), 1000);
        }
    }

    #[test]
    fn dates_count_days_from_1970() {
        assert_eq!(date(b"1970-01-01"), Some(0));
        assert_eq!(date(b"2000-03-01"), Some(11_017));
        assert_eq!(date(b"0000-00-00"), None);
        let mut out = Vec::new();
        let body = r#""M\u00fcller \/ \ud83d\ude00 é" "#.as_bytes();
        assert_eq!(text(body, 0, &mut out), 32);
        assert_eq!(out, "Müller / 😀 é".as_bytes());
    }
}
