//! What the decoder hands on for each row, and the row collector behind
//! [`Config::parse_table`](crate::Config::parse_table).
//!
//! The decoder calls a [`RowSink`] for every row of `data` instead of
//! building a tree; one sink collects [`Row`]s, the other fills typed
//! columns. Both see exactly the same calls, so both paths apply the same
//! rules.

use std::collections::HashSet;

use super::scanner::Number;
use crate::cell::{Cell, Row};

/// One value of a row, borrowed from the body (or the decoder's scratch).
#[derive(Debug, Clone, Copy)]
pub(crate) enum CellRef<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number: its exact text and its scanned value (by reference: a
    /// `Number` copied whole right after it was written stalls the CPU on
    /// store forwarding, in the hottest loop).
    Number(&'a str, &'a Number),
    /// A string: decoded, and as the JSON text it was sent as.
    Str(&'a str, &'a str),
    /// A nested object or array, as its exact JSON text.
    Json(&'a str),
}

impl CellRef<'_> {
    /// The owned cell, as the row path keeps it.
    pub(crate) fn to_cell(self) -> Cell {
        match self {
            CellRef::Null => Cell::Null,
            CellRef::Bool(b) => Cell::Bool(b),
            CellRef::Number(text, n) => match int_value(n) {
                Some(i) => Cell::Int(i),
                None => Cell::Number(text.to_owned()),
            },
            CellRef::Str(s, _) => Cell::String(s.to_owned()),
            CellRef::Json(j) => Cell::Json(j.to_owned()),
        }
    }
}

/// The `i64` of a number written as an integer that fits. `-0` is not one:
/// `0` would lose its sign, so it stays text (and a decimal in columns).
#[inline]
pub(crate) fn int_value(n: &Number) -> Option<i64> {
    if !n.integral || n.overflow {
        return None;
    }
    if n.negative {
        if n.mantissa == 0 || n.mantissa > 1u128 << 63 {
            return None;
        }
        Some((n.mantissa as i128).wrapping_neg() as i64)
    } else {
        i64::try_from(n.mantissa).ok()
    }
}

/// Receives the rows of `data` in order. (Not the public
/// [`Sink`](crate::Sink), which receives a whole call's answer.)
pub(crate) trait RowSink {
    /// A row object begins.
    fn begin_row(&mut self);
    /// One key and value of the current row, in the order sent; a key may
    /// repeat (the last value wins, in the first one's position).
    fn field(&mut self, key: &str, value: CellRef<'_>);
    /// The current row is complete; it took `bytes` of the body, from its
    /// `{` to its `}`.
    fn end_row(&mut self, bytes: u64);
    /// Whether the `status` seen so far is success: rows may go to the
    /// caller only while it is.
    fn release(&mut self, _success: bool) {}
    /// Whether `buf[at..]` begins with the key the sink expects next, as
    /// JSON text with its colon (`"name":`): the previous row's key at the
    /// same position, if it is "plain" (no `"`, `\\` or control
    /// character), so that the decoder can recognise it by comparing
    /// bytes in place of scanning it. The length of that text if so;
    /// `None` if it is not there, or there is no guess.
    #[inline(always)]
    fn next_key_at(&self, _buf: &[u8], _at: usize) -> Option<usize> {
        None
    }
    /// Reads whole fields from `buf[start]`, the `"` of a key, for as long
    /// as the sink can take them straight from the bytes as the fields it
    /// would be given (the keys it predicts, values of the forms its
    /// columns store as they are). Returns where it stopped: `(i, false)`,
    /// `i` the `"` of a key it did not read (`start` if none was read;
    /// otherwise every field read was followed by a comma), or
    /// `(i, true)`, `i` the end of the last value read, which is not
    /// followed by a comma and a key.
    #[inline(always)]
    fn read_fields(&mut self, buf: &[u8], start: usize) -> (usize, bool) {
        let _ = buf;
        (start, false)
    }
    /// A field whose key is the one [`RowSink::next_key_at`] found.
    fn next_field(&mut self, value: CellRef<'_>) {
        let _ = value;
        unreachable!("next_field without next_key_at");
    }
    /// A problem the sink met that makes the answer unusable.
    fn fault(&self) -> Option<&str> {
        None
    }
}

/// Collects whole [`Row`]s, keeping every cell's exact text.
#[derive(Debug, Default)]
pub(crate) struct RowCollector {
    pub rows: Vec<Row>,
    current: Vec<(String, Cell)>,
}

impl RowSink for RowCollector {
    fn begin_row(&mut self) {
        let width = self.rows.last().map_or(0, |r| r.fields.len());
        self.current = Vec::with_capacity(width);
    }

    fn field(&mut self, key: &str, value: CellRef<'_>) {
        let cell = value.to_cell();
        match self.current.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = cell,
            None => self.current.push((key.to_owned(), cell)),
        }
    }

    fn end_row(&mut self, _bytes: u64) {
        let fields = std::mem::take(&mut self.current);
        self.rows.push(Row { fields });
    }
}

impl RowCollector {
    /// Every key of every row, in first-seen order. Rows of one table
    /// mostly repeat the previous row's keys in the same places, so those
    /// are recognised without hashing.
    pub(crate) fn columns(&self) -> Vec<String> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        let mut prev: &[(String, Cell)] = &[];
        for row in &self.rows {
            for (j, (k, _)) in row.fields.iter().enumerate() {
                if prev.get(j).is_some_and(|(p, _)| p == k) {
                    continue;
                }
                if seen.insert(k.as_str()) {
                    out.push(k.clone());
                }
            }
            prev = &row.fields;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::scanner::{scan_number, After, Scan};

    fn cell(text: &str) -> Cell {
        let Scan::Done(n, _) = scan_number(text.as_bytes(), 0, After::Eof) else {
            panic!("{text}")
        };
        CellRef::Number(text, &n).to_cell()
    }

    #[test]
    fn numbers_become_cells_as_before() {
        assert_eq!(cell("42"), Cell::Int(42));
        assert_eq!(cell("-7"), Cell::Int(-7));
        assert_eq!(cell("-0"), Cell::Number("-0".into()));
        assert_eq!(cell("0"), Cell::Int(0));
        assert_eq!(cell("1.0"), Cell::Number("1.0".into()));
        assert_eq!(cell("1e2"), Cell::Number("1e2".into()));
        assert_eq!(cell("9223372036854775807"), Cell::Int(i64::MAX));
        assert_eq!(cell("-9223372036854775808"), Cell::Int(i64::MIN));
        assert_eq!(
            cell("9223372036854775808"),
            Cell::Number("9223372036854775808".into())
        );
        assert_eq!(
            cell("-9223372036854775809"),
            Cell::Number("-9223372036854775809".into())
        );
    }

    #[test]
    fn columns_in_first_seen_order() {
        let mut c = RowCollector::default();
        for keys in [&["a", "b"][..], &["b", "c"], &["a", "b"], &["d"]] {
            c.begin_row();
            for k in keys {
                c.field(k, CellRef::Null);
            }
            c.end_row(0);
        }
        assert_eq!(c.columns(), ["a", "b", "c", "d"]);
    }
}
