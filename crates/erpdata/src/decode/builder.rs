//! The sink that fills typed columns, one batch at a time.
//!
//! Each column guesses its type from its first value in the batch and
//! stores values typed from the start; a value that does not fit widens the
//! column (rarely, and at most a few times per batch), so most values are
//! stored with no second pass. The result is the same as typing the batch
//! after the fact by the documented rule (see [`super`]).

use std::collections::HashMap;

use super::batch::Batch;
use super::columns::{Bitmap, Column, ColumnData, Texts};
use super::sink::{int_value, CellRef, Sink};
use super::{date, decimal};

/// A batch ends early once its text columns hold this much.
const MAX_BATCH_TEXT: usize = 256 << 20;
/// The longest text value typed columns take. With the batch limit, a
/// column's text stays under 320 MiB, and under 2 GiB (`i32` offsets,
/// Arrow's `Utf8`) even rewritten as JSON with every character escaped.
const MAX_VALUE_TEXT: usize = 64 << 20;

/// Room for at most this many values is set aside when a column starts;
/// beyond it, columns grow as rows come. A caller's very large batch size
/// then costs memory only if rows arrive, and can never fail one huge
/// allocation up front (which aborts a process, and a wasm module for
/// good).
const MAX_RESERVED_ROWS: usize = 1 << 16;

/// A column being built.
#[derive(Debug)]
struct Builder {
    name: String,
    /// The name can only be written one way in JSON (no character that
    /// needs escaping), so a key equal to it byte for byte is this column.
    plain: bool,
    /// Dates parsed knowing the last one's month.
    dates: date::Dates,
    /// Values in this batch (rows so far, or one more while its row is open).
    len: usize,
    /// Created at the first row without a value.
    validity: Option<Bitmap>,
    data: Build,
    /// Text bytes in the previous batch, to size this one's buffer.
    hint_bytes: usize,
}

#[derive(Debug, Default)]
enum Build {
    /// No value yet: every row so far is null.
    #[default]
    Null,
    Bool(Bitmap),
    Int(Vec<i64>),
    Decimal {
        values: Vec<i128>,
        scale: u8,
        max_abs: u128,
    },
    Date(Vec<i32>),
    Str(Texts),
    Json(Texts),
}

impl Builder {
    fn new(name: &str, rows: usize) -> Self {
        Builder {
            name: name.to_owned(),
            plain: name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\'),
            dates: date::Dates::default(),
            // A key first seen in this row: the rows before lack it.
            len: rows,
            validity: None,
            data: Build::Null,
            hint_bytes: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, value: CellRef<'_>, capacity: usize) {
        if let CellRef::Null = value {
            self.push_null();
            return;
        }
        if !self.try_push(value) {
            self.widen(value, capacity);
            let pushed = self.try_push(value);
            debug_assert!(pushed, "widened to hold {value:?}");
        }
        self.len += 1;
        if let Some(v) = &mut self.validity {
            v.push(true);
        }
    }

    /// Stores `value` if the column's current type holds it.
    #[inline(always)]
    fn try_push(&mut self, value: CellRef<'_>) -> bool {
        match (&mut self.data, value) {
            (Build::Str(t), CellRef::Str(s, _)) => t.push(s),
            (
                Build::Decimal {
                    values,
                    scale,
                    max_abs,
                },
                CellRef::Number(_, n),
            ) => {
                let Some(v) = decimal::of(n)
                    .filter(|&(_, s)| s <= *scale)
                    .and_then(|(v, s)| decimal::rescale(v, *scale - s))
                else {
                    return false;
                };
                values.push(v);
                *max_abs = (*max_abs).max(v.unsigned_abs());
            }
            (Build::Int(values), CellRef::Number(_, n)) => match int_value(n) {
                Some(i) => values.push(i),
                None => return false,
            },
            (Build::Date(values), CellRef::Str(s, _)) => match self.dates.parse(s.as_bytes()) {
                Some(d) => values.push(d),
                None => return false,
            },
            (Build::Bool(bits), CellRef::Bool(b)) => bits.push(b),
            (Build::Json(t), v) => match v {
                CellRef::Str(_, raw) => t.push(raw),
                CellRef::Number(text, _) => t.push(text),
                CellRef::Json(text) => t.push(text),
                CellRef::Bool(b) => t.push(if b { "true" } else { "false" }),
                CellRef::Null => t.push(""),
            },
            _ => return false,
        }
        true
    }

    /// Changes the column's type so that it holds `value` too, converting
    /// the values so far. The rule, per batch:
    /// - the first value decides: a boolean → Bool; an integer that fits
    ///   `i64` (no fraction or exponent written; not `-0`) → Int; another
    ///   number → Decimal at its scale; a `YYYY-MM-DD` calendar date →
    ///   Date; another string → String; an object or array → Json;
    /// - Int meeting a decimal → Decimal; Decimal meeting a larger scale →
    ///   that scale; Date meeting a non-date string → String;
    /// - anything else, or a decimal that no longer fits in 38 digits → Json.
    fn widen(&mut self, value: CellRef<'_>, capacity: usize) {
        let len = self.len;
        let cap = capacity.max(len + 1);
        let next: Option<Build> = match (&mut self.data, value) {
            (Build::Null, v) => {
                // The rows before had no value.
                if len > 0 {
                    self.validity = Some(Bitmap::filled(len, false));
                }
                Some(match v {
                    CellRef::Bool(_) => {
                        let mut b = Bitmap::with_capacity(cap);
                        (0..len).for_each(|_| b.push(false));
                        Build::Bool(b)
                    }
                    CellRef::Number(_, n) if int_value(n).is_some() => Build::Int(zeros(len, cap)),
                    CellRef::Number(_, n) => match decimal::of(n) {
                        Some((_, scale)) => Build::Decimal {
                            values: zeros(len, cap),
                            scale,
                            max_abs: 0,
                        },
                        None => Build::Json(empty_texts(len, cap, self.hint_bytes)),
                    },
                    CellRef::Str(s, _) if date::parse(s.as_bytes()).is_some() => {
                        Build::Date(zeros(len, cap))
                    }
                    CellRef::Str(..) => Build::Str(empty_texts(len, cap, self.hint_bytes)),
                    CellRef::Json(_) | CellRef::Null => {
                        Build::Json(empty_texts(len, cap, self.hint_bytes))
                    }
                })
            }
            (Build::Date(values), CellRef::Str(..)) => {
                let mut texts = Texts::with_capacity(cap, cap * 10);
                let validity = self.validity.as_ref();
                let mut s = String::with_capacity(10);
                for (i, &d) in values.iter().enumerate() {
                    s.clear();
                    if validity.is_none_or(|v| v.get(i)) {
                        date::format(d, &mut s);
                    }
                    texts.push(&s);
                }
                Some(Build::Str(texts))
            }
            (Build::Int(values), CellRef::Number(_, n)) => decimal::of(n).and_then(|(_, scale)| {
                let mut out = Vec::with_capacity(values.capacity());
                let mut max_abs = 0u128;
                for &v in values.iter() {
                    let x = decimal::rescale(i128::from(v), scale)?;
                    max_abs = max_abs.max(x.unsigned_abs());
                    out.push(x);
                }
                Some(Build::Decimal {
                    values: out,
                    scale,
                    max_abs,
                })
            }),
            (
                Build::Decimal {
                    values,
                    scale,
                    max_abs,
                },
                CellRef::Number(_, n),
            ) => match decimal::of(n) {
                // `max_abs` bounds every value, so if it fits, all do.
                Some((_, s))
                    if s > *scale && decimal::rescale(*max_abs as i128, s - *scale).is_some() =>
                {
                    let by = s - *scale;
                    for v in values.iter_mut() {
                        *v = decimal::rescale(*v, by).unwrap_or_default();
                    }
                    Some(Build::Decimal {
                        values: std::mem::take(values),
                        scale: s,
                        max_abs: *max_abs * decimal::pow10(u32::from(by)),
                    })
                }
                _ => None,
            },
            _ => None,
        };
        self.data = match next {
            Some(build) => build,
            None => self.take_as_json(),
        };
    }

    /// The column so far as JSON texts: every value's canonical JSON text
    /// (the exact text sent is kept only for values that arrive after this).
    fn take_as_json(&mut self) -> Build {
        let data = self.finish_data(self.validity.clone());
        Build::Json(data.json_texts())
    }

    #[inline]
    fn push_null(&mut self) {
        match &mut self.data {
            // Nothing to store: the count is the column.
            Build::Null => {
                self.len += 1;
                return;
            }
            Build::Bool(b) => b.push(false),
            Build::Int(v) => v.push(0),
            Build::Decimal { values, .. } => values.push(0),
            Build::Date(v) => v.push(0),
            Build::Str(t) | Build::Json(t) => t.push(""),
        }
        let len = self.len;
        self.validity
            .get_or_insert_with(|| Bitmap::filled(len, true))
            .push(false);
        self.len += 1;
    }

    /// Takes back this row's value of a key that came twice (the last one
    /// wins). The type the discarded value may have widened to stays.
    fn pop(&mut self) {
        match &mut self.data {
            Build::Null => {}
            Build::Bool(b) => b.pop(),
            Build::Int(v) => {
                v.pop();
            }
            Build::Decimal { values, .. } => {
                values.pop();
            }
            Build::Date(v) => {
                v.pop();
            }
            Build::Str(t) | Build::Json(t) => t.pop(),
        }
        if let Some(v) = &mut self.validity {
            v.pop();
        }
        self.len -= 1;
    }

    fn text_bytes(&self) -> usize {
        match &self.data {
            Build::Str(t) | Build::Json(t) => t.bytes(),
            _ => 0,
        }
    }

    fn finish_data(&mut self, validity: Option<Bitmap>) -> ColumnData {
        let validity = validity.filter(|v| v.count_set() != v.len());
        match std::mem::take(&mut self.data) {
            Build::Null => ColumnData::Null { len: self.len },
            Build::Bool(values) => ColumnData::Bool { values, validity },
            Build::Int(values) => ColumnData::Int { values, validity },
            Build::Decimal {
                values,
                scale,
                max_abs,
            } => ColumnData::Decimal {
                values,
                precision: decimal::precision(max_abs, scale),
                scale,
                validity,
            },
            Build::Date(values) => ColumnData::Date { values, validity },
            Build::Str(values) => ColumnData::String { values, validity },
            Build::Json(values) => ColumnData::Json { values, validity },
        }
    }

    /// The batch's column; the builder starts over, untyped, for the next.
    fn finish(&mut self) -> Column {
        self.hint_bytes = self.text_bytes();
        let validity = self.validity.take();
        let data = self.finish_data(validity);
        self.len = 0;
        Column {
            name: self.name.clone(),
            data,
        }
    }
}

fn zeros<T: Default + Clone>(len: usize, capacity: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(capacity);
    v.resize(len, T::default());
    v
}

fn empty_texts(len: usize, capacity: usize, hint_bytes: usize) -> Texts {
    let mut t = Texts::with_capacity(capacity.max(len + 1), hint_bytes.max(capacity * 8));
    for _ in 0..len {
        t.push("");
    }
    t
}

/// Fills batches of typed columns from the decoder's rows.
#[derive(Debug)]
pub(crate) struct ColumnSink {
    batch_rows: usize,
    cols: Vec<Builder>,
    index: HashMap<String, usize>,
    /// The column of each position of the previous row: rows of one table
    /// repeat their keys in order, so a key is first compared with the one
    /// in the same place last time, and hashed only if that differs.
    keys: Vec<usize>,
    pos: usize,
    /// Distinct columns given a value in the current row.
    set_in_row: usize,
    rows: usize,
    text_bytes: usize,
    done: Vec<Batch>,
    /// `done[..released]` may go to the caller.
    released: usize,
    releasing: bool,
    ever_released: bool,
    fault: Option<String>,
    /// Whether every row so far had the first row's keys, in its order,
    /// each once, and no number was a negative zero: then rows rebuilt
    /// from the columns equal the rows sent.
    regular: bool,
    /// Whether a row has ended since the last reset.
    had_row: bool,
}

impl ColumnSink {
    pub(crate) fn new(batch_rows: usize) -> Self {
        ColumnSink {
            batch_rows: batch_rows.max(1),
            cols: Vec::new(),
            index: HashMap::new(),
            keys: Vec::new(),
            pos: 0,
            set_in_row: 0,
            rows: 0,
            text_bytes: 0,
            done: Vec::new(),
            released: 0,
            releasing: false,
            ever_released: false,
            fault: None,
            regular: true,
            had_row: false,
        }
    }

    /// See [`TableDecoder::rows_regular`](super::TableDecoder::rows_regular).
    pub(crate) fn regular(&self) -> bool {
        self.regular
    }

    #[cold]
    fn slow_key(&mut self, key: &str) -> usize {
        // Another key at a known position, or more keys than the previous
        // row: the rows differ in their keys or their order.
        if self.pos < self.keys.len() || self.had_row {
            self.regular = false;
        }
        let c = match self.index.get(key) {
            Some(&c) => c,
            None => {
                let c = self.cols.len();
                self.cols.push(Builder::new(key, self.rows));
                self.index.insert(key.to_owned(), c);
                c
            }
        };
        if self.pos < self.keys.len() {
            self.keys[self.pos] = c;
        } else {
            self.keys.push(c);
        }
        c
    }

    /// Closes the current batch. Every column seen so far in the stream is
    /// in it (a column absent from this batch is all null), in first-seen
    /// order, so each batch's columns extend the previous batch's.
    fn complete(&mut self) {
        let columns = self.cols.iter_mut().map(Builder::finish).collect();
        self.done.push(Batch {
            num_rows: self.rows,
            columns,
        });
        self.rows = 0;
        self.text_bytes = 0;
        if self.releasing {
            self.released = self.done.len();
            self.ever_released = true;
        }
    }

    /// The batches the caller may have now.
    pub(crate) fn take_released(&mut self) -> Vec<Batch> {
        let n = std::mem::take(&mut self.released);
        self.done.drain(..n).collect()
    }

    /// After a successful end: every batch, the last one partial.
    pub(crate) fn into_batches(mut self) -> Vec<Batch> {
        if self.rows > 0 {
            self.complete();
        }
        self.done
    }
}

impl ColumnSink {
    #[inline(always)]
    fn push(&mut self, c: usize, value: CellRef<'_>) {
        self.pos += 1;
        // A typed column keeps -0 as 0: a row rebuilt from it would differ.
        if let CellRef::Number(_, n) = value {
            if n.negative && n.mantissa == 0 && !n.overflow {
                self.regular = false;
            }
        }
        if let CellRef::Str(_, text) | CellRef::Json(text) = value {
            self.text_bytes += text.len();
            if text.len() > MAX_VALUE_TEXT {
                if self.fault.is_none() {
                    self.fault = Some(format!(
                        "row {} has a value of more than {} bytes in `{}`, more than typed \
                         columns take",
                        self.rows, MAX_VALUE_TEXT, self.cols[c].name
                    ));
                }
                return;
            }
        }
        let rows = self.rows;
        let col = &mut self.cols[c];
        if col.len > rows {
            self.regular = false;
            col.pop();
        } else {
            self.set_in_row += 1;
        }
        col.push(value, self.batch_rows.min(MAX_RESERVED_ROWS));
    }
}

impl Sink for ColumnSink {
    #[inline]
    fn begin_row(&mut self) {
        self.pos = 0;
        self.set_in_row = 0;
    }

    #[inline]
    fn field(&mut self, key: &str, value: CellRef<'_>) {
        let c = match self.keys.get(self.pos) {
            Some(&c) if self.cols[c].name == key => c,
            _ => self.slow_key(key),
        };
        self.push(c, value);
    }

    #[inline(always)]
    fn next_key(&self) -> Option<&str> {
        let col = &self.cols[*self.keys.get(self.pos)?];
        col.plain.then_some(col.name.as_str())
    }

    #[inline(always)]
    fn next_field(&mut self, value: CellRef<'_>) {
        let c = self.keys[self.pos];
        self.push(c, value);
    }

    #[inline]
    fn end_row(&mut self) {
        if self.set_in_row < self.cols.len() {
            self.regular = false;
            let rows = self.rows;
            for col in &mut self.cols {
                if col.len <= rows {
                    col.push_null();
                }
            }
        }
        self.had_row = true;
        self.rows += 1;
        if self.rows >= self.batch_rows || self.text_bytes > MAX_BATCH_TEXT {
            self.complete();
        }
    }

    fn reset(&mut self) {
        if self.ever_released {
            self.fault = Some(
                "a second `data` field follows rows of the first that were already \
                 delivered"
                    .into(),
            );
            return;
        }
        *self = ColumnSink {
            releasing: self.releasing,
            ..ColumnSink::new(self.batch_rows)
        };
    }

    fn release(&mut self, success: bool) {
        self.releasing = success;
        if success && self.released < self.done.len() {
            self.released = self.done.len();
            self.ever_released = true;
        }
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }
}

impl Builder {
    #[cfg(test)]
    fn text_len(&self) -> usize {
        self.text_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Cell;
    use crate::decode::columns::ColumnType;
    use crate::decode::scanner::{scan_number, After, Scan};

    fn num(text: &str) -> CellRef<'_> {
        let Scan::Done(n, _) = scan_number(text.as_bytes(), 0, After::Eof) else {
            panic!("{text}")
        };
        CellRef::Number(text, Box::leak(Box::new(n)))
    }

    fn build(values: &[CellRef<'_>]) -> Column {
        let mut b = Builder::new("x", 0);
        for &v in values {
            b.push(v, 4);
        }
        b.finish()
    }

    fn s(text: &str) -> CellRef<'_> {
        CellRef::Str(text, text)
    }

    #[test]
    fn first_value_decides_and_widening_follows_the_rule() {
        let c = build(&[num("1"), num("2")]);
        assert_eq!(c.column_type(), ColumnType::Int);
        let c = build(&[num("1"), num("2.50"), num("1e-3")]);
        assert_eq!(
            c.column_type(),
            ColumnType::Decimal {
                precision: 4,
                scale: 3
            }
        );
        assert_eq!(c.cell(0), Cell::Number("1.000".into()));
        assert_eq!(c.cell(1), Cell::Number("2.500".into()));
        assert_eq!(c.cell(2), Cell::Number("0.001".into()));
        let c = build(&[s("2025-01-05"), CellRef::Null, s("2025-02-30")]);
        assert_eq!(c.column_type(), ColumnType::String);
        assert_eq!(c.cell(0), Cell::String("2025-01-05".into()));
        assert_eq!(c.cell(1), Cell::Null);
        assert_eq!(c.cell(2), Cell::String("2025-02-30".into()));
        let c = build(&[CellRef::Null, s("2025-01-05")]);
        assert_eq!(c.column_type(), ColumnType::Date);
        assert_eq!(c.cell(0), Cell::Null);
        let c = build(&[num("1.5"), CellRef::Str("x", "\"x\""), CellRef::Bool(true)]);
        assert_eq!(c.column_type(), ColumnType::Json);
        assert_eq!(c.cell(0), Cell::Number("1.5".into()));
        assert_eq!(c.cell(1), Cell::String("x".into()));
        assert_eq!(c.cell(2), Cell::Bool(true));
        let c = build(&[num(&"9".repeat(38)), num("0.5")]);
        assert_eq!(c.column_type(), ColumnType::Json, "38 digits then a scale");
        let c = build(&[num("1e400")]);
        assert_eq!(c.column_type(), ColumnType::Json);
        let c = build(&[CellRef::Null, CellRef::Null]);
        assert_eq!(c.data, ColumnData::Null { len: 2 });
        let c = build(&[num("-0")]);
        assert_eq!(
            c.column_type(),
            ColumnType::Decimal {
                precision: 1,
                scale: 0
            }
        );
    }

    #[test]
    fn duplicates_keep_the_last_value() {
        let mut sink = ColumnSink::new(10);
        sink.begin_row();
        sink.field("a", num("1"));
        sink.field("b", s("x"));
        sink.field("a", num("3"));
        sink.end_row();
        sink.begin_row();
        sink.field("b", s("y"));
        sink.end_row();
        let batches = sink.into_batches();
        let b = &batches[0];
        assert_eq!(b.num_rows, 2);
        assert_eq!(b.columns[0].cell(0), Cell::Int(3));
        assert_eq!(b.columns[0].cell(1), Cell::Null);
        assert_eq!(b.columns[1].cell(1), Cell::String("y".into()));
        assert_eq!(b.columns[1].data.null_count(), 0);
        let _ = Builder::new("t", 0).text_len();
    }
}

#[cfg(test)]
mod reservation {
    use crate::{Config, DecoderOptions, TableDecoder};

    /// Room for a huge batch is not taken up front: reserving it would
    /// overflow or fail, and abort the process.
    #[test]
    fn a_huge_batch_size_reserves_only_what_rows_need() {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let options = DecoderOptions {
            batch_rows: usize::MAX / 2,
        };
        let mut decoder = TableDecoder::new(&config, 200, options);
        let body = br#"{"status":"success","data":[{"a":1.5,"b":"x","c":"2025-01-01","d":true},{"a":2,"b":null}]}"#;
        assert!(decoder.feed(body).unwrap().is_empty());
        let finished = decoder.finish().unwrap();
        assert_eq!(finished.total_rows, 2);
        assert_eq!(finished.batches[0].num_rows, 2);
    }
}
