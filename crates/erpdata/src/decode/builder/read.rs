//! A column reading its next value straight from the answer's bytes, in
//! the type it already has: the rows' fast path for what tables mostly
//! hold (plain text, dates, timestamps, DECIMAL text, integers, nulls).
//!
//! The general path scans a value into a [`CellRef`](crate::decode::sink::CellRef),
//! and the sink and the column then work out what it is and where it
//! goes. Here the column knows its type, so it reads only the forms that
//! type stores as they are and stores them as [`Builder::push`] would;
//! anything else — another form, a value the type cannot hold, a token
//! cut by the chunk's end — is left untouched for the general path,
//! which decides (widens, keeps odd text, reports errors). The two must
//! agree to the byte: the decoder's tests and `fuzz/run.sh table` feed
//! the same bodies whole (this path) and byte by byte (never this path).

use super::push::{push_date, push_decimal};
use super::{Build, Builder};
use crate::decode::scanner::find_special;
use crate::decode::timestamp;

/// The most digits read here: any 18 fit an `i64`.
const MAX_DIGITS: usize = 18;

impl Builder {
    /// Stores the value at `buf[p]` if it is a form this column's type
    /// holds as it is, and gives the index after it; `None` (nothing
    /// stored) otherwise. `strings`: strings are typed by their text;
    /// `max_text`: the longest string value taken.
    #[inline(always)]
    pub(super) fn read(
        &mut self,
        buf: &[u8],
        p: usize,
        strings: bool,
        max_text: usize,
    ) -> Option<usize> {
        let first = *buf.get(p)?;
        if first == b'n' {
            if buf.get(p..p + 4)? != b"null" {
                return None;
            }
            self.push_null();
            return Some(p + 4);
        }
        let row = self.len;
        let mut valid = true;
        let end = match &mut self.data {
            Build::Str(t) => {
                if first != b'"' {
                    return None;
                }
                let q = find_special(buf, p + 1);
                if buf.get(q) != Some(&b'"') || q + 1 - p > max_text {
                    return None;
                }
                // SAFETY: `find_special` stops at the first byte that is not
                // printable ASCII: these bytes are all ASCII.
                t.push(unsafe { std::str::from_utf8_unchecked(&buf[p + 1..q]) });
                q + 1
            }
            Build::Date(values) => {
                if !strings || first != b'"' || buf.get(p + 11) != Some(&b'"') {
                    return None;
                }
                valid = push_date(values, &mut self.dates, &buf[p + 1..p + 11])?;
                p + 12
            }
            Build::Timestamp { values, sent } => {
                if !strings || first != b'"' {
                    return None;
                }
                let q = find_special(buf, p + 1);
                if buf.get(q) != Some(&b'"') {
                    return None;
                }
                let (micros, digits) = timestamp::parse(&buf[p + 1..q], &mut self.dates)?;
                values.push(micros);
                sent.digits.push(row, digits);
                q + 1
            }
            Build::Decimal {
                values,
                scale,
                max_abs,
                sent,
            } => {
                let quoted = first == b'"';
                if (quoted && !strings) || self.precision.is_some() {
                    return None;
                }
                let n = plain_number(buf, p + usize::from(quoted))?;
                let end = n.end + usize::from(quoted);
                if quoted {
                    // DECIMAL text: every value at the column's scale.
                    if buf[n.end] != b'"' || n.fraction != *scale || n.fraction == 0 {
                        return None;
                    }
                } else if is_number_tail(*buf.get(n.end)?) {
                    return None;
                }
                push_decimal(
                    values,
                    *scale,
                    max_abs,
                    &mut sent.digits,
                    self.precision,
                    row,
                    i128::from(n.value),
                    n.fraction,
                )?;
                end
            }
            Build::Int(values) => {
                let quoted = first == b'"';
                if quoted && !strings {
                    return None;
                }
                let n = plain_number(buf, p + usize::from(quoted))?;
                let after = *buf.get(n.end)?;
                if n.point
                    || if quoted {
                        after != b'"'
                    } else {
                        is_number_tail(after)
                    }
                {
                    return None;
                }
                values.push(n.value);
                n.end + usize::from(quoted)
            }
            // Named rather than `_`: with every kind an arm, the jump on
            // the kind needs no range check first (9 instructions a row).
            Build::Null | Build::Bool(_) | Build::Json(_) => return None,
        };
        self.counted(valid);
        Some(end)
    }
}

/// A number read by [`plain_number`].
struct Plain {
    /// Its digits as an integer, the sign applied (never -0).
    value: i64,
    /// Digits after the point.
    fraction: u8,
    /// Whether it has a point.
    point: bool,
    /// The index after it.
    end: usize,
}

/// `-?digits(.digits)?` at `buf[i]` in the one way JSON and MySQL write
/// it (no leading zero but a lone one before the point, at least one
/// digit after a point, at most [`MAX_DIGITS`] in all, not a negative
/// zero), stopping at the first other byte, which must be there (a
/// number cut by the chunk's end is the general path's).
#[inline(always)]
fn plain_number(buf: &[u8], mut i: usize) -> Option<Plain> {
    let negative = *buf.get(i)? == b'-';
    i += usize::from(negative);
    let int_start = i;
    let mut value: i64 = 0;
    while let Some(d) = digit(buf.get(i)) {
        if i - int_start == MAX_DIGITS {
            return None;
        }
        value = value * 10 + d;
        i += 1;
    }
    let int_digits = i - int_start;
    if int_digits == 0 || (int_digits > 1 && buf[int_start] == b'0') {
        return None;
    }
    let mut fraction = 0;
    let point = buf.get(i) == Some(&b'.');
    if point {
        i += 1;
        let first = i;
        while let Some(d) = digit(buf.get(i)) {
            if int_digits + i - first == MAX_DIGITS {
                return None;
            }
            value = value * 10 + d;
            i += 1;
        }
        fraction = i - first;
        if fraction == 0 {
            return None;
        }
    }
    if i >= buf.len() || (negative && value == 0) {
        return None;
    }
    Some(Plain {
        value: if negative { -value } else { value },
        fraction: fraction as u8,
        point,
        end: i,
    })
}

#[inline(always)]
fn digit(b: Option<&u8>) -> Option<i64> {
    let d = b?.wrapping_sub(b'0');
    (d <= 9).then_some(i64::from(d))
}

/// Whether a bare number would go on with this byte (an exponent, or
/// bytes the general path reads as one malformed token).
#[inline(always)]
fn is_number_tail(b: u8) -> bool {
    matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'0'..=b'9')
}

#[cfg(test)]
mod tests {
    use crate::decode::{DeclaredSchema, DecoderOptions, TableDecoder};
    use crate::Config;

    /// Rows with every form the columns read themselves, each next to the
    /// forms they must leave to the general path (escapes, spaces, a
    /// negative zero, a zero date, an exponent, a fraction in an integer
    /// column, other scales, a repeated key, a key in another place).
    const ROWS: [&str; 10] = [
        r#"{"s":"plain","d":"2025-01-31","t":"2025-01-31 09:31:46","m":"40221.21","n":40221.21,"i":12,"q":"12","z":null}"#,
        r#"{"s":"plain","d":"2025-01-31","t":"2025-01-31 09:31:46","m":"40221.21","n":40221.21,"i":12,"q":"12","z":null}"#,
        r#"{"s":"M\u00fcller","d":"0000-00-00","t":"2025-01-31 09:31:46.500","m":"-0.50","n":7472.3,"i":-3,"q":"-3","z":null}"#,
        r#"{"s":"Müller","d":"2025-02-30","t":"0000-00-00 00:00:00","m":"1.5","n":-0.00,"i":1.5,"q":"1.5","z":1}"#,
        r#"{"s": "spaced" , "d" :"2025-03-01" ,"t":"2025-01-31T09:31:46","m":"0.00","n":1e3,"i":-0,"q":"007","z":"x"}"#,
        r#"{"s":12,"d":"","t":null,"m":"12345678901234567.89","n":12,"i":9223372036854775807,"q":"","z":true}"#,
        r#"{"d":"2025-04-01","s":"reordered","s":"again","m":"-7.25","n":-7.25,"i":-7,"q":"-7"}"#,
        r#"{"s":"long","m":"123456789012345678.9","n":99999999999999999999,"i":9999999999999999999,"q":"99999999999999999999"}"#,
        r#"{"s":"long","m":"1234567890123456789","n":1234567890.123456789,"i":-9999999999999999999,"q":"-9999999999999999999"}"#,
        r#"{"s":"last","d":"2025-12-31","t":"2025-12-31 23:59:59","m":"99.99","n":99,"i":0,"q":"0","z":null}"#,
    ];

    fn options(batch_rows: usize, infer_strings: bool, declared: bool) -> DecoderOptions {
        let schema = if declared {
            DeclaredSchema::parse(
                "schema",
                [
                    ("d", "date"),
                    ("t", "timestamp"),
                    ("m", "decimal"),
                    ("i", "string"),
                    ("q", "int"),
                    ("z", "string"),
                ],
            )
            .unwrap()
        } else {
            DeclaredSchema::new()
        };
        DecoderOptions {
            batch_rows,
            infer_strings,
            one_schema: false,
            schema,
        }
    }

    /// Whole, the rows mostly take the columns' own reads; byte by byte,
    /// never: the batches (or the error) must be the same.
    #[test]
    fn columns_read_values_as_the_general_path_types_them() {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        for from in 0..ROWS.len() {
            let rows: Vec<&str> = ROWS[..from].iter().chain(&ROWS[..]).copied().collect();
            let body = format!(r#"{{"status":"success","data":[{}]}}"#, rows.join(","));
            for (batch_rows, strings, declared) in [
                (2, true, false),
                (65_536, true, false),
                (65_536, false, false),
                (3, true, true),
                (65_536, false, true),
            ] {
                let run = |size: usize| {
                    let opts = options(batch_rows, strings, declared);
                    let mut d = TableDecoder::new(&config, 200, opts);
                    let mut batches = Vec::new();
                    for chunk in body.as_bytes().chunks(size) {
                        batches.extend(d.feed(chunk)?);
                    }
                    let f = d.finish()?;
                    batches.extend(f.batches);
                    Ok::<_, crate::Error>(batches)
                };
                let whole = run(body.len());
                let what =
                    format!("{from} rows first, batches of {batch_rows}, {strings}, {declared}");
                assert_eq!(whole, run(1), "{what}");
                if from == 1 && batch_rows == 65_536 && strings && !declared {
                    // Not an error that stops early: every row is there.
                    let batches = whole.unwrap();
                    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 11);
                }
            }
        }
    }
}
