//! The sink that routes each row's values to their columns and closes a
//! batch when it is full.

use std::collections::HashMap;

use super::{Builder, KeyText, Typing};
use crate::decode::batch::{Batch, DecimalReach, NumberReach};
use crate::decode::columns::Column;
use crate::decode::scanner::skip_ws;
use crate::decode::sink::{CellRef, RowSink};

/// A batch ends early once its rows take this much of the body: a bound
/// on what its text columns hold, since no value's text is longer than
/// the JSON it came as. Counted a row at a time, at the row's end: a
/// count for each string value, kept in the fast path's loop over a
/// row's fields, cost 7% of its instructions on `sales_invoice`
/// (cachegrind: 2,793 a row without, 3,009 with).
const MAX_BATCH_BODY: u64 = 256 << 20;
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

/// A position of the previous row: its column, and that column's
/// [`Builder::key_text`](super::Builder) kept beside it, so that guessing
/// the next key reads one place, not the column's.
#[derive(Debug)]
struct Place {
    column: usize,
    key_text: KeyText,
}

/// Fills batches of typed columns from the decoder's rows.
#[derive(Debug)]
pub(crate) struct ColumnSink {
    batch_rows: usize,
    typing: Typing,
    /// Whether the first batch of a one-schema answer fixed the types.
    locked: bool,
    /// Rows in the batches completed before this one.
    base_rows: u64,
    cols: Vec<Builder>,
    index: HashMap<String, usize>,
    /// The column of each position of the previous row: rows of one table
    /// repeat their keys in order, so a key is first compared with the one
    /// in the same place last time, and hashed only if that differs.
    keys: Vec<Place>,
    pos: usize,
    /// Distinct columns given a value in the current row.
    set_in_row: usize,
    rows: usize,
    /// Bytes of the body the batch's rows took.
    body_bytes: u64,
    done: Vec<Batch>,
    /// `done[..released]` may go to the caller.
    released: usize,
    releasing: bool,
    fault: Option<String>,
    /// Whether every row so far had the first row's keys, in its order,
    /// each once, and no number was a negative zero: then rows rebuilt
    /// from the columns equal the rows sent.
    regular: bool,
    /// Whether a row has ended yet.
    had_row: bool,
    /// The numbers of the batches so far, so that every batch fits the
    /// type unified from them all (a piece of an answer decoded on its own
    /// fits its batches as if it began the answer, and hands this over);
    /// `None` for batches fitted afterwards, after others.
    numbers: Option<NumberReach>,
}

impl ColumnSink {
    pub(crate) fn new(batch_rows: usize, typing: Typing) -> Self {
        ColumnSink {
            batch_rows: batch_rows.max(1),
            typing,
            locked: false,
            base_rows: 0,
            cols: Vec::new(),
            index: HashMap::new(),
            keys: Vec::new(),
            pos: 0,
            set_in_row: 0,
            rows: 0,
            body_bytes: 0,
            done: Vec::new(),
            released: 0,
            releasing: false,
            fault: None,
            regular: true,
            had_row: false,
            numbers: Some(NumberReach::default()),
        }
    }

    /// A sink whose batches are fitted afterwards, after the batches
    /// before them: a piece of an answer decoded again once the pieces
    /// before it turned out to change it.
    #[cfg(feature = "parallel")]
    pub(crate) fn unfitted(batch_rows: usize, typing: Typing) -> Self {
        ColumnSink {
            numbers: None,
            ..ColumnSink::new(batch_rows, typing)
        }
    }

    /// See [`TableDecoder::rows_regular`](crate::decode::TableDecoder::rows_regular).
    pub(crate) fn regular(&self) -> bool {
        self.regular
    }

    /// The keys of the previous row (while the rows are regular, the first
    /// row's: the first columns, in order).
    pub(crate) fn row_width(&self) -> usize {
        self.keys.len()
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
                if self.locked && self.fault.is_none() {
                    self.fault = Some(format!(
                        "column `{key}` first appears in row {}, after the first batch fixed the \
                         stream's columns; declare its type to have it in every batch",
                        self.row_number()
                    ));
                }
                self.add_column(key)
            }
        };
        let place = Place {
            column: c,
            key_text: self.cols[c].key_text.clone(),
        };
        if self.pos < self.keys.len() {
            self.keys[self.pos] = place;
        } else {
            self.keys.push(place);
        }
        c
    }

    fn add_column(&mut self, key: &str) -> usize {
        let c = self.cols.len();
        let capacity = self.capacity();
        self.cols
            .push(Builder::new(key, self.rows, &self.typing, capacity));
        self.index.insert(key.to_owned(), c);
        c
    }

    fn capacity(&self) -> usize {
        self.batch_rows.min(MAX_RESERVED_ROWS)
    }

    /// The current row, counted from 1 over the whole answer.
    fn row_number(&self) -> u64 {
        self.base_rows + self.rows as u64 + 1
    }

    /// Closes the current batch. Every column seen so far in the stream is
    /// in it (a column absent from this batch is all null), in first-seen
    /// order, so each batch's columns extend the previous batch's. The
    /// first batch of a one-schema answer also has every declared column,
    /// and fixes every column's type.
    fn complete(&mut self) {
        let lock = self.typing.one_schema && !self.locked;
        if lock {
            let unseen: Vec<String> = self
                .typing
                .declared
                .columns()
                .iter()
                .filter(|(name, _)| !self.index.contains_key(name))
                .map(|(name, _)| name.clone())
                .collect();
            for name in unseen {
                self.add_column(&name);
            }
        }
        let capacity = self.capacity();
        // A stream's types are fixed by its first batch: nothing to fit.
        let fitting = self.numbers.is_some() && !self.typing.one_schema;
        let known: Vec<Option<DecimalReach>> = if fitting {
            self.cols.iter().map(Builder::decimal_reach).collect()
        } else {
            Vec::new()
        };
        let mut columns: Vec<Column> = self.cols.iter_mut().map(|b| b.finish(capacity)).collect();
        if lock {
            for (b, c) in self.cols.iter_mut().zip(&mut columns) {
                let ty = b.lock(c.column_type(), capacity);
                if c.column_type() != ty {
                    // A column without a value: all null, of the fixed type.
                    if let Some(cast) = c.cast(ty) {
                        *c = cast;
                    }
                }
            }
            self.locked = true;
        }
        let mut batch = Batch {
            num_rows: self.rows,
            columns,
        };
        if let (Some(numbers), true) = (&mut self.numbers, fitting) {
            numbers.fit(&mut batch, &known);
        }
        self.done.push(batch);
        self.base_rows += self.rows as u64;
        self.rows = 0;
        self.body_bytes = 0;
        if self.releasing {
            self.released = self.done.len();
        }
    }

    /// The batches the caller may have now.
    pub(crate) fn take_released(&mut self) -> Vec<Batch> {
        let n = std::mem::take(&mut self.released);
        self.done.drain(..n).collect()
    }

    /// After a successful end: every batch, the last one partial (and,
    /// for a one-schema answer without rows, one empty batch with the
    /// declared columns, so that the schema is known).
    pub(crate) fn into_batches(self) -> Vec<Batch> {
        self.into_fitted().0
    }

    /// [`ColumnSink::into_batches`], and how far the numbers of them all
    /// reach (`None` unless it fitted them): what a piece of an answer,
    /// fitted as if it began it, tells the pieces after it.
    pub(crate) fn into_fitted(mut self) -> (Vec<Batch>, Option<NumberReach>) {
        if self.rows > 0
            || (self.typing.one_schema && !self.locked && !self.typing.declared.is_empty())
        {
            self.complete();
        }
        (self.done, self.numbers)
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
            if text.len() > MAX_VALUE_TEXT {
                if self.fault.is_none() {
                    self.fault = Some(format!(
                        "row {} has a value of more than {} bytes in `{}`, more than typed \
                         columns take",
                        self.row_number(),
                        MAX_VALUE_TEXT,
                        self.cols[c].name
                    ));
                }
                return;
            }
        }
        let rows = self.rows;
        let capacity = self.capacity();
        let strings = self.typing.infer_strings;
        let col = &mut self.cols[c];
        if col.len > rows {
            self.regular = false;
            col.pop();
        } else {
            self.set_in_row += 1;
        }
        if !col.push(value, capacity, strings) {
            // Keep the row's shape; the error ends the answer.
            col.push_null();
            if self.fault.is_none() {
                let row = self.base_rows + rows as u64 + 1;
                self.fault = Some(self.cols[c].misfit(value, row));
            }
        }
    }
}

impl RowSink for ColumnSink {
    #[inline]
    fn begin_row(&mut self) {
        self.pos = 0;
        self.set_in_row = 0;
    }

    #[inline]
    fn field(&mut self, key: &str, value: CellRef<'_>) {
        let c = match self.keys.get(self.pos) {
            Some(place) if self.cols[place.column].name == key => place.column,
            _ => self.slow_key(key),
        };
        self.push(c, value);
    }

    #[inline(always)]
    fn next_key_at(&self, buf: &[u8], at: usize) -> Option<usize> {
        let key = &self.keys.get(self.pos)?.key_text;
        key.is_at(buf, at).then(|| key.bytes().len())
    }

    #[inline(always)]
    fn read_fields(&mut self, buf: &[u8], start: usize) -> (usize, bool) {
        // The loop's state in locals, written back once.
        let first = self.pos;
        let mut pos = first;
        let mut p = start;
        let mut after_value = false;
        let rows = self.rows;
        let strings = self.typing.infer_strings;
        while let Some(place) = self.keys.get(pos) {
            if !place.key_text.is_at(buf, p) {
                break;
            }
            let col = &mut self.cols[place.column];
            // A second value for the column in this row: the general path.
            if col.len > rows {
                break;
            }
            let v = skip_ws(buf, p + place.key_text.bytes().len());
            let Some(end) = col.read(buf, v, strings || col.lenient, MAX_VALUE_TEXT) else {
                break;
            };
            pos += 1;
            // Compact JSON, as services send it: the next key right after
            // a comma, seen in one compare of two bytes.
            if buf.get(end..end + 2) == Some(b",\"") {
                p = end + 1;
                continue;
            }
            let comma = skip_ws(buf, end);
            let next = if buf.get(comma) == Some(&b',') {
                skip_ws(buf, comma + 1)
            } else {
                comma
            };
            if comma == next || buf.get(next) != Some(&b'"') {
                p = end;
                after_value = true;
                break;
            }
            p = next;
        }
        self.pos = pos;
        self.set_in_row += pos - first;
        (p, after_value)
    }

    #[inline(always)]
    fn next_field(&mut self, value: CellRef<'_>) {
        let c = self.keys[self.pos].column;
        self.push(c, value);
    }

    #[inline]
    fn end_row(&mut self, bytes: u64) {
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
        self.body_bytes += bytes;
        if self.rows >= self.batch_rows || self.body_bytes > MAX_BATCH_BODY {
            self.complete();
        }
    }

    fn release(&mut self, success: bool) {
        self.releasing = success;
        if success && self.released < self.done.len() {
            self.released = self.done.len();
        }
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }
}
