//! The streaming table decoder: the answer's bytes in, in chunks of any
//! size, typed columns out in batches.
//!
//! ```
//! use erpdata::{Config, DecoderOptions, TableDecoder};
//!
//! let config = Config::builder("https://erp.example.com/").build()?;
//! let body = br#"{"status":"success","data":[{"invoice_no":"INV-1","date":"2025-01-05","amount":1234.50}]}"#;
//! let mut decoder = TableDecoder::new(&config, 200, DecoderOptions::default());
//! let mut batches = Vec::new();
//! for chunk in body.chunks(7) {
//!     batches.extend(decoder.feed(chunk)?);
//! }
//! let finished = decoder.finish()?;
//! batches.extend(finished.batches);
//! assert_eq!(finished.total_rows, 1);
//! let amount = batches[0].column("amount").unwrap();
//! assert_eq!(
//!     amount.column_type(),
//!     erpdata::ColumnType::Decimal { precision: 38, scale: 2 }
//! );
//! # Ok::<(), erpdata::Error>(())
//! ```
//!
//! # Column types
//!
//! One rule for values sent as JSON numbers and as JSON strings alike: a
//! PHP service over MySQL sends DECIMAL columns, and with `mysqli_query`
//! every value, as strings. [`Config::parse_table`] and a whole table in
//! the bindings decide each column over the whole answer; a stream
//! ([`DecoderOptions::one_schema`]) decides from its first batch and keeps
//! that schema for every batch.
//!
//! - all values null (or the key absent) → `Null` (String in a stream);
//! - all booleans → `Bool`;
//! - all integers that fit `i64`: JSON numbers written without fraction or
//!   exponent, or canonical integer strings (`"3"`, `"-42"`; no `+`, no
//!   leading zero, no space) → `Int`. `-0` is not one;
//! - all numbers or canonical decimal strings (`-?digits.digits`, as MySQL
//!   prints DECIMAL: `"1500.00"`), some not `Int` → `Decimal` of
//!   precision 38 and the largest scale seen, whatever the values' size,
//!   so a column's type does not depend on which rows came back (a
//!   declared `decimal(P,S)` keeps `P` and `S`); `1e-7` is 1 at scale 7,
//!   `2.5E+3` is 2500 at scale 0. A JSON `-0` becomes zero; a string
//!   `"-0.00"` is not a number;
//! - all `YYYY-MM-DD` calendar dates → `Date` (days since 1970-01-01);
//! - all `YYYY-MM-DD HH:MM:SS[.ffffff]` → `Timestamp` (microseconds since
//!   1970-01-01 00:00:00, no time zone);
//! - MySQL's zero date `0000-00-00` is null in a Date column, and its zero
//!   datetime `0000-00-00 00:00:00` (with any fraction of zeros) in a
//!   Timestamp column; a column of only zero dates is Date;
//! - an empty string `""` is a string: it keeps the column String (a
//!   declared type reads it as null instead);
//! - any other mix of scalars — a text that is none of the above, numbers
//!   and non-numeric strings (an account id `42` among `"C001"`), dates
//!   and timestamps, booleans and numbers, a number of more than 38 digits
//!   or one that needs more than 38 at the column's largest scale
//!   — → `String`, each value the text it was sent as, byte for byte (a
//!   number its JSON text, `true` its literal, a zero date `0000-00-00`);
//! - an object or array anywhere in the column → `Json`: each value as JSON
//!   text. Values that arrive after the column became `Json` keep their
//!   exact text; values typed before are written from their typed value
//!   (the same value: numbers as sent, strings with minimal escaping — an
//!   integer sent as `"42"` is then written `42`).
//!
//! With [`DecoderOptions::infer_strings`] off, strings are never typed from
//! their text: every JSON string is a string. Declared types
//! ([`DecoderOptions::schema`], [`DeclaredType`]) replace the rule for
//! their columns; a value a declared type cannot take is a `Decode` error
//! naming the column, the row (counted from 1) and the value's kind, as is
//! a value that does not fit a stream's fixed type, or a column first seen
//! after a stream's first batch. Never a silent change of schema, never a
//! silent null.
//!
//! A key first seen in the middle of a batch gets a column whose earlier
//! rows are null; a row without a key is null in that column; for a key
//! repeated within a row the last value counts (a discarded earlier value
//! may still have widened the column's type).
//!
//! # Memory
//!
//! The decoder holds at most one partial batch, the token cut by the end of
//! the last chunk, the first ~4.6 KiB of the body (for error excerpts) and,
//! at the start, up to 64 KiB of PHP diagnostics or HTML. It never holds
//! the body. One exception: rows that arrive before the envelope's `status`
//! (keys in another order than the documented one) are held until the
//! status is known — batches go out only while the status seen is
//! `success` — so memory is then not bounded.
//!
//! Batches are final only once [`TableDecoder::finish`] returns `Ok`: a body
//! cut short, or a `status` repeated later in the envelope with another
//! value, makes it an error after batches went out.

mod batch;
mod builder;
mod columns;
mod decimal;
mod declared;
pub(crate) mod decoder;
mod interner;
#[cfg(feature = "parallel")]
mod parallel;
#[cfg(feature = "parallel")]
mod row_bounds;
mod scanner;
pub(crate) mod sink;
#[cfg(test)]
mod test_random;
mod text;
mod timestamp;

#[cfg(feature = "arrow")]
mod arrow;
#[cfg(feature = "arrow")]
mod from_arrow;

pub(crate) use crate::cell::json_string;
#[cfg(feature = "arrow")]
pub use arrow::{
    Dictionary, DICTIONARY_MIN_VALUES, DICTIONARY_SAMPLE, JSON_TYPE, TYPE_METADATA_KEY,
};
pub use batch::{unify_schemas, Batch, Schema};
pub use columns::{
    Bitmap, Column, ColumnData, ColumnType, Digits, Sent, Texts, ZERO_DATE_MARK,
    ZERO_TIMESTAMP_MARK,
};
pub use date::civil_from_days;
pub(crate) use date::parse as parse_date;
pub(crate) use decimal::format as format_decimal;
pub(crate) use decimal::of_text as decimal_of_text;
pub use decimal::{parse_decimal, parse_plain_decimal};
pub use declared::{DeclaredSchema, DeclaredType};
pub use interner::{Interner, Numbering};
#[cfg(feature = "parallel")]
pub use parallel::{Decoded, ParallelOptions};
pub use timestamp::canonical as write_timestamp;
pub use timestamp::parts as timestamp_parts;

use builder::{ColumnSink, Typing};
use decoder::Core;

use crate::config::Config;
// Kept at the crate's top: input validation checks dates with it too.
use crate::date;
use crate::error::Error;
use crate::redact::Redactor;

/// Options of a [`TableDecoder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecoderOptions {
    /// Rows per batch (default 65,536). A batch also ends early once its
    /// rows take 256 MiB of the body (its text columns then hold no more
    /// than that); a single text value over 64 MiB is a
    /// `Decode` error, here and in [`Config::parse_table`] alike.
    pub batch_rows: usize,
    /// Type strings from their text (`"1500.00"` a decimal, `"2025-04-01"`
    /// a date); default on. Off, every JSON string is a string.
    pub infer_strings: bool,
    /// One schema for every batch (default off): the first batch fixes
    /// every column's type (a column without a value in it is String, a
    /// decimal keeps the first batch's scale, at precision 38 as always)
    /// and the columns; declared columns are in every batch. Writers such
    /// as Parquet's need this of a stream.
    pub one_schema: bool,
    /// Declared column types, in place of the rule.
    pub schema: DeclaredSchema,
}

impl Default for DecoderOptions {
    fn default() -> Self {
        DecoderOptions {
            batch_rows: 65_536,
            infer_strings: true,
            one_schema: false,
            schema: DeclaredSchema::new(),
        }
    }
}

impl DecoderOptions {
    /// The default options with `batch_rows` rows per batch.
    pub fn with_batch_rows(batch_rows: usize) -> Self {
        DecoderOptions {
            batch_rows,
            ..DecoderOptions::default()
        }
    }

    pub(crate) fn typing(&self) -> Typing {
        Typing {
            infer_strings: self.infer_strings,
            one_schema: self.one_schema,
            declared: self.schema.clone(),
        }
    }
}

/// What is left when the body is complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The batches not yet returned by [`TableDecoder::feed`]: the last,
    /// partial one, and any held back while the status was unknown.
    pub batches: Vec<Batch>,
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
    /// Rows in the whole answer.
    pub total_rows: u64,
}

/// Decodes a table answer fed in chunks, split anywhere, into batches of
/// typed columns, applying exactly the rules of
/// [`Config::parse_table`] (which runs the same decoder). Sans-IO: the
/// caller reads the body and feeds it.
pub struct TableDecoder {
    core: Core<ColumnSink>,
}

impl std::fmt::Debug for TableDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableDecoder")
            .field("rows", &self.core.rows())
            .finish_non_exhaustive()
    }
}

impl TableDecoder {
    /// A decoder for an answer with HTTP status `status`; a status outside
    /// 2xx makes the result an `HttpStatus` error with an excerpt of the
    /// body's first bytes.
    pub fn new(config: &Config, status: u16, options: DecoderOptions) -> Self {
        TableDecoder::with_redactor(&config.redactor(), status, options)
    }

    /// [`TableDecoder::new`] for code that holds only what redaction needs.
    pub(crate) fn with_redactor(redactor: &Redactor, status: u16, options: DecoderOptions) -> Self {
        TableDecoder {
            core: Core::new(
                redactor,
                status,
                ColumnSink::new(options.batch_rows, options.typing()),
            ),
        }
    }

    /// Takes the next chunk of the body and returns the batches completed
    /// so far (none while the envelope's `status` is unknown or not
    /// success).
    ///
    /// A problem is reported once the body's first ~4.6 KiB are in (they
    /// make the error's excerpt, whatever the chunking) or by
    /// [`TableDecoder::finish`]; from then on every call returns it.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Batch>, Error> {
        self.core.feed(chunk)?;
        Ok(self.core.sink.take_released())
    }

    /// Ends the body: the remaining batches, the notices and the row count,
    /// or the error — `Decode` mentioning "truncated" if the body ended
    /// early, `Service` if the envelope's status was not success.
    pub fn finish(self) -> Result<Finished, Error> {
        let done = self.core.finish()?;
        Ok(Finished {
            batches: done.sink.into_batches(),
            notices: done.notices,
            total_rows: done.rows,
        })
    }

    /// PHP notices seen so far.
    pub fn notices(&self) -> &[String] {
        self.core.notices()
    }

    /// Complete rows decoded so far.
    pub fn rows(&self) -> u64 {
        self.core.rows()
    }

    /// Whether every row so far had the same keys as the first, in the
    /// same order, each once, and no number was a negative zero. Then a
    /// row rebuilt from the batches (every column, in column order) is the
    /// row that was sent; otherwise some row lacked a key (it reads as null
    /// in the columns), ordered its keys differently, repeated one, or sent
    /// `-0` (a typed column holds 0).
    pub fn rows_regular(&self) -> bool {
        self.core.sink.regular()
    }

    /// The last row begun in the `data` array, as a place to read the rows
    /// again from (see [`RowsFrom`]); `None` before the first one, and
    /// while the `data` field decoded last is not an array or has no row
    /// yet.
    pub fn rows_from(&self) -> Option<RowsFrom> {
        self.core.row_start().map(|start| RowsFrom {
            offset: start.offset,
            row: start.row,
            columns: self.core.sink.row_width(),
        })
    }
}

/// A successful answer's start up to its rows: rows cut from a `data`
/// array follow it to be decoded as an answer of their own.
pub(crate) const ROWS_HEAD: &[u8] = br#"{"status":"success","data":["#;

/// A place in a table answer's body from which its rows can be read
/// again: the `{` of row `row` (counted from 0) of the `data` array.
///
/// A binding that gives the rows exactly as sent rebuilds them from the
/// batches while they are regular ([`TableDecoder::rows_regular`]), and
/// otherwise reads the body again. It need not keep the whole body for
/// that: taken while the rows are regular, this place says that every row
/// before `row` is rebuilt exactly from the batches' first `columns`
/// columns, and the body from `offset` on, made a body of its own by
/// [`RowsFrom::body`], reads as the rows from `row` on. (An answer with a
/// second `data` field fails, so there is no later one to replace them.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowsFrom {
    /// Bytes of the body before the row's `{`.
    pub offset: u64,
    /// Rows of the `data` array before this one.
    pub row: u64,
    /// The keys of every row before it, while the rows are regular: the
    /// batches' first columns.
    pub columns: usize,
}

impl RowsFrom {
    /// The envelope's start then `tail` (the body from [`RowsFrom::offset`]
    /// on): an answer whose rows are the rows from this place on, with
    /// the rest of the envelope as sent.
    pub fn body(tail: &[u8]) -> Vec<u8> {
        let mut body = Vec::with_capacity(ROWS_HEAD.len() + tail.len());
        body.extend_from_slice(ROWS_HEAD);
        body.extend_from_slice(tail);
        body
    }
}

#[cfg(test)]
mod regular_rows {
    use super::*;

    fn regular(data: &str) -> bool {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let mut decoder = TableDecoder::new(&config, 200, DecoderOptions::with_batch_rows(2));
        let body = format!(r#"{{"status":"success","data":[{data}]}}"#);
        decoder.feed(body.as_bytes()).unwrap();
        decoder.rows_regular()
    }

    #[test]
    fn same_keys_in_the_same_order_are_regular() {
        assert!(regular(
            r#"{"a":1,"b":"x"},{"a":2,"b":null},{"a":3.5,"b":"z"}"#
        ));
        assert!(regular(r#"{"a":1}"#));
        assert!(regular(""));
    }

    #[test]
    fn anything_a_column_cannot_give_back_is_not() {
        assert!(!regular(r#"{"a":1,"b":2},{"b":2,"a":1}"#), "order");
        assert!(!regular(r#"{"a":1,"b":2},{"a":1}"#), "missing key");
        assert!(!regular(r#"{"a":1},{"a":1,"b":2}"#), "new key");
        assert!(!regular(r#"{"a":1,"a":2}"#), "repeated key");
        assert!(!regular(r#"{"a":-0.0}"#), "negative zero");
        assert!(
            !regular(r#"{"a":1},{"a":1},{"a":1,"c":1}"#),
            "new key in a later batch"
        );
    }

    /// The keys of each row, as sent.
    fn keys(config: &Config, body: &[u8]) -> Vec<Vec<String>> {
        let table = config.parse_table(200, body).unwrap();
        let names = |r: &crate::Row| r.fields.iter().map(|(k, _)| k.clone()).collect();
        table.rows.iter().map(names).collect()
    }

    /// Whatever the chunks, the last place taken while the rows were
    /// regular splits the rows as `RowsFrom` says: the rows before it have
    /// the first columns for keys, and the body from it reads as the rest.
    #[test]
    fn rows_read_again_from_the_last_regular_place_are_the_rest() {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let alike = |from: usize, n: usize| -> Vec<String> {
            (from..from + n)
                .map(|i| format!(r#"{{"id":{i},"name":"n{i}"}}"#))
                .collect()
        };
        let mut rows = alike(0, 40);
        rows.push(r#"{"name":"x","id":-1}"#.into());
        rows.extend(alike(40, 10));
        rows.push(r#"{"id":-2,"name":"y","more":true}"#.into());
        let data = rows.join(",");
        let bodies = [
            format!(r#"{{"status":"success","data":[{data}]}}"#),
            format!(r#" {{"data":[{data}] , "status":"success","message":"ok"}}"#),
            format!(
                "\u{feff}<br />\n<b>Notice</b>:  Undefined index: x in /srv/a.php on line 3<br />\n{}",
                format_args!(r#"{{"status":"success","data":[{data}]}}"#)
            ),
        ];
        for body in &bodies {
            let body = body.as_bytes();
            let all = keys(&config, body);
            for size in [1, 7, 64, 300, body.len()] {
                // One batch.
                let mut decoder = TableDecoder::new(&config, 200, DecoderOptions::default());
                let mut kept = None;
                for chunk in body.chunks(size) {
                    decoder.feed(chunk).unwrap();
                    if decoder.rows_regular() {
                        kept = decoder.rows_from().or(kept);
                    }
                }
                assert!(!decoder.rows_regular());
                let columns: Vec<String> = decoder.finish().unwrap().batches[0]
                    .columns
                    .iter()
                    .map(|c| c.name.clone())
                    .collect();
                let (before, tail) = match kept {
                    Some(from) => {
                        let tail = &body[from.offset as usize..];
                        assert_eq!(tail[0], b'{');
                        let before = from.row as usize;
                        for row in &all[..before] {
                            assert_eq!(row[..], columns[..from.columns], "size {size}");
                        }
                        (before, keys(&config, &RowsFrom::body(tail)))
                    }
                    None => (0, keys(&config, body)),
                };
                assert_eq!(tail[..], all[before..], "size {size}");
            }
        }
    }
}
