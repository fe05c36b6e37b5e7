//! A batch of rows as typed columns.

use super::columns::{Column, ColumnData, ColumnType};
use super::decimal;
use crate::cell::{Cell, Row};

/// Up to [`DecoderOptions::batch_rows`](super::DecoderOptions) rows as
/// typed columns.
///
/// Every column seen so far in the answer is in every batch, in first-seen
/// order (a column may be all null in a batch), so a batch's columns start
/// with the previous batch's columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Batch {
    /// The number of rows.
    pub num_rows: usize,
    /// One column per key, each `num_rows` long.
    pub columns: Vec<Column>,
}

/// Column names and types: a batch's, or several batches' unified.
pub type Schema = Vec<(String, ColumnType)>;

impl Batch {
    /// A batch of no rows with `schema`'s columns: what a table of no rows
    /// is made of, so that its columns and their types are still known.
    pub fn empty(schema: &[(String, ColumnType)]) -> Batch {
        Batch {
            num_rows: 0,
            columns: schema
                .iter()
                .map(|(name, ty)| Column {
                    name: name.clone(),
                    data: ColumnData::Null { len: 0 }
                        .cast(*ty)
                        .unwrap_or(ColumnData::Null { len: 0 }),
                })
                .collect(),
        }
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Row `i` with every column of the batch, in column order: a key the
    /// row lacked reads as [`Cell::Null`], a decimal as its text at the
    /// column's scale, a date as `YYYY-MM-DD`.
    ///
    /// # Panics
    /// If `i >= self.num_rows`.
    pub fn row(&self, i: usize) -> Row {
        assert!(i < self.num_rows, "row {i} of {}", self.num_rows);
        Row {
            fields: self
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.cell(i)))
                .collect(),
        }
    }

    /// The rows in order; see [`Batch::row`].
    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        (0..self.num_rows).map(|i| self.row(i))
    }

    /// Row `i` as only the cells that have a value.
    pub fn row_without_nulls(&self, i: usize) -> Row {
        assert!(i < self.num_rows, "row {i} of {}", self.num_rows);
        Row {
            fields: self
                .columns
                .iter()
                .filter(|c| c.data.is_valid(i))
                .map(|c| (c.name.clone(), c.cell(i)))
                .collect(),
        }
    }

    /// This batch's column names and types.
    pub fn schema(&self) -> Schema {
        self.columns
            .iter()
            .map(|c| (c.name.clone(), c.column_type()))
            .collect()
    }

    /// The batch with exactly the columns of `schema`, in its order and of
    /// its types: a column the batch lacks is all null, and each column is
    /// [cast](Column::cast). `None` if the batch has a column `schema`
    /// lacks, or one that its type cannot hold (never, for a schema built
    /// with [`unify_schemas`] from this batch's).
    pub fn cast(&self, schema: &[(String, ColumnType)]) -> Option<Batch> {
        if self
            .columns
            .iter()
            .any(|c| !schema.iter().any(|(n, _)| *n == c.name))
        {
            return None;
        }
        let columns = schema
            .iter()
            .map(|(name, ty)| match self.column(name) {
                Some(c) => c.cast(*ty),
                None => Column {
                    name: name.clone(),
                    data: ColumnData::Null { len: self.num_rows },
                }
                .cast(*ty),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Batch {
            num_rows: self.num_rows,
            columns,
        })
    }
}

/// The schema that holds batches of schemas `a` and `b`: `a`'s columns,
/// then `b`'s new ones, each of the [unified](ColumnType::unify) type.
pub fn unify_schemas(a: &[(String, ColumnType)], b: &[(String, ColumnType)]) -> Schema {
    let mut out: Schema = a.to_vec();
    for (name, ty) in b {
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, t)) => *t = t.unify(*ty),
            None => out.push((name.clone(), *ty)),
        }
    }
    out
}

/// A Decimal column's scale and the largest absolute value of its values,
/// as its builder kept it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecimalReach {
    pub(crate) scale: u8,
    pub(crate) max_abs: u128,
}

/// The numbers of one answer's batches so far, column by column: the
/// most digits before the point and the largest scale. Batches are
/// [unified](ColumnType::unify) by type, and a decimal has precision 38
/// whatever its values, so the type alone cannot say whether every value
/// fits 38 digits at the unified scale; this does, batch by batch, so
/// that the batches always fit their unified type.
#[derive(Debug, Default, Clone)]
pub(crate) struct NumberReach {
    /// `(digits before the point, scale)` of each column position.
    seen: Vec<(u8, u8)>,
}

impl NumberReach {
    /// Takes the next batch of the answer (its columns extend the previous
    /// batch's, as a decoder's do). An Int or Decimal column whose values,
    /// with those of the batches before, would need more than 38 digits
    /// at the largest scale becomes String here, each value the text it
    /// was sent as: what one batch of all those rows gives (a number the
    /// column's scale cannot hold makes the column String), so the table
    /// unified from the batches does not depend on where batches end.
    ///
    /// `known[i]`, where given, is the largest absolute value of Decimal
    /// column `i` as the decoder that built it kept it: its values are not
    /// read again. Reading every value of three `decimal(14,2)` columns
    /// cost about 40 instructions a row of `sales_invoice` (cachegrind),
    /// more than 1% of its decoding.
    pub(crate) fn fit(&mut self, batch: &mut Batch, known: &[Option<DecimalReach>]) {
        for (i, column) in batch.columns.iter_mut().enumerate() {
            let (int_digits, scale) = match &column.data {
                ColumnData::Int { values, .. } => {
                    let max = values.iter().map(|v| v.unsigned_abs()).max();
                    (whole_digits(u128::from(max.unwrap_or(0)), 0), 0)
                }
                ColumnData::Decimal { values, scale, .. } => {
                    let max = match known.get(i) {
                        // Only for the column as it was built: a cast after
                        // it (a stream's lock) gives another scale or type.
                        Some(Some(k)) if k.scale == *scale => {
                            debug_assert_eq!(k.max_abs, decimal::max_abs(values).unwrap_or(0));
                            k.max_abs
                        }
                        _ => decimal::max_abs(values).unwrap_or(0),
                    };
                    (whole_digits(max, *scale), *scale)
                }
                _ => continue,
            };
            if self.seen.len() <= i {
                self.seen.resize(i + 1, (0, 0));
            }
            let seen = &mut self.seen[i];
            *seen = (seen.0.max(int_digits), seen.1.max(scale));
            if seen.0 + seen.1 > decimal::MAX_PRECISION {
                if let Some(text) = column.data.cast(ColumnType::String) {
                    column.data = text;
                }
            }
        }
    }
}

/// What `decode_parallel`'s pieces, each fitted as if it began the
/// answer, need to tell whether the pieces before them change that.
#[cfg(feature = "parallel")]
impl NumberReach {
    /// Whether batches that gave `later` when fitted from nothing fit the
    /// same after the batches that gave this: in each column, this saw no
    /// number, or the two together stay within 38 digits (so neither
    /// made the column String).
    pub(crate) fn admits(&self, later: &NumberReach) -> bool {
        later
            .seen
            .iter()
            .zip(self.seen.iter().chain(std::iter::repeat(&(0, 0))))
            .all(|(&(digits, scale), &before)| {
                before == (0, 0)
                    || digits.max(before.0) + scale.max(before.1) <= decimal::MAX_PRECISION
            })
    }

    /// Takes in `later`'s numbers, as if its batches were fitted here.
    pub(crate) fn join(&mut self, later: &NumberReach) {
        if self.seen.len() < later.seen.len() {
            self.seen.resize(later.seen.len(), (0, 0));
        }
        for (seen, l) in self.seen.iter_mut().zip(&later.seen) {
            *seen = (seen.0.max(l.0), seen.1.max(l.1));
        }
    }
}

/// The digits before the point of `max_abs × 10^-scale` (none for less
/// than 1).
fn whole_digits(max_abs: u128, scale: u8) -> u8 {
    match max_abs / decimal::pow10(u32::from(scale)) {
        0 => 0,
        whole => decimal::digits(whole),
    }
}

impl Batch {
    /// The cell at row `i` of column `name` ([`Cell::Null`] if there is no
    /// such column).
    pub fn cell(&self, name: &str, i: usize) -> Cell {
        self.column(name).map_or(Cell::Null, |c| c.cell(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::columns::Texts;

    fn batch() -> Batch {
        let mut names = Texts::new();
        names.push("a");
        names.push("");
        let mut validity = crate::decode::columns::Bitmap::new();
        validity.push(true);
        validity.push(false);
        Batch {
            num_rows: 2,
            columns: vec![
                Column {
                    name: "n".into(),
                    data: ColumnData::Int {
                        values: vec![1, 2],
                        validity: None,
                    },
                },
                Column {
                    name: "s".into(),
                    data: ColumnData::String {
                        values: names,
                        validity: Some(validity),
                    },
                },
            ],
        }
    }

    #[test]
    fn rows_read_back() {
        let b = batch();
        assert_eq!(
            b.row(1).fields,
            [("n".to_owned(), Cell::Int(2)), ("s".to_owned(), Cell::Null)]
        );
        assert_eq!(
            b.row_without_nulls(1).fields,
            [("n".to_owned(), Cell::Int(2))]
        );
        assert_eq!(b.rows().count(), 2);
        assert_eq!(b.cell("s", 0), Cell::String("a".into()));
        assert_eq!(b.cell("zz", 0), Cell::Null);
    }

    #[test]
    fn schemas_unify_and_batches_cast() {
        let b = batch();
        let other = vec![
            ("z".to_owned(), ColumnType::Date),
            (
                "n".to_owned(),
                ColumnType::Decimal {
                    precision: 4,
                    scale: 2,
                },
            ),
        ];
        let schema = unify_schemas(&b.schema(), &other);
        assert_eq!(
            schema,
            [
                (
                    "n".to_owned(),
                    ColumnType::Decimal {
                        precision: 38,
                        scale: 2
                    }
                ),
                ("s".to_owned(), ColumnType::String),
                ("z".to_owned(), ColumnType::Date),
            ]
        );
        let cast = b.cast(&schema).unwrap();
        assert_eq!(cast.cell("n", 1), Cell::Number("2".into()));
        assert_eq!(cast.column("z").unwrap().data.null_count(), 2);
        assert!(b.cast(&other).is_none());
    }

    fn numbers(values: Vec<i128>, scale: u8) -> Batch {
        let sent = crate::decode::columns::Sent {
            digits: crate::decode::columns::Digits::Same(scale),
            odd: Vec::new(),
        };
        Batch {
            num_rows: values.len(),
            columns: vec![Column {
                name: "a".into(),
                data: ColumnData::Decimal {
                    values,
                    precision: 38,
                    scale,
                    validity: None,
                    sent,
                },
            }],
        }
    }

    /// Fitted in order, batches always fit the type unified from them: a
    /// column becomes String where the digits before the point and the
    /// largest scale so far need more than 38 digits.
    #[test]
    fn batches_are_fitted_to_38_digits() {
        let big = 10i128.pow(37); // 36 digits before the point at scale 2
        let fitted = |batches: Vec<Batch>| {
            let mut reach = NumberReach::default();
            let batches: Vec<Batch> = batches
                .into_iter()
                .map(|mut b| {
                    reach.fit(&mut b, &[]);
                    b
                })
                .collect();
            let schema = batches
                .iter()
                .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
            for b in &batches {
                assert!(b.cast(&schema).is_some());
            }
            schema[0].1
        };
        let d = |scale| ColumnType::Decimal {
            precision: 38,
            scale,
        };
        assert_eq!(
            fitted(vec![numbers(vec![big], 2), numbers(vec![1], 2)]),
            d(2)
        );
        assert_eq!(
            fitted(vec![numbers(vec![big], 2), numbers(vec![1], 3)]),
            ColumnType::String
        );
        assert_eq!(
            fitted(vec![numbers(vec![1], 3), numbers(vec![big], 2)]),
            ColumnType::String
        );
        assert_eq!(
            fitted(vec![numbers(vec![big / 10], 2), numbers(vec![1], 3)]),
            d(3)
        );
        let ints = Batch {
            num_rows: 1,
            columns: vec![Column {
                name: "a".into(),
                data: ColumnData::Int {
                    values: vec![i64::MAX],
                    validity: None,
                },
            }],
        };
        assert_eq!(fitted(vec![ints.clone(), numbers(vec![1], 19)]), d(19));
        assert_eq!(fitted(vec![ints, numbers(vec![1], 20)]), ColumnType::String);
    }
}
