//! Batches as Arrow record batches (feature `arrow`).
//!
//! Buffers move from the columns into Arrow without copying values (the
//! layouts are the same), except for dictionary-encoded strings, which are
//! built here.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, DictionaryArray, Int32Array, Int64Array,
    NullArray, RecordBatch, RecordBatchOptions, StringArray, TimestampMicrosecondArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};

use super::batch::Batch;
use super::columns::{Bitmap, Column, ColumnData, ColumnType, Texts};
use super::interner::Numbering;

/// Field metadata key marking a column whose Utf8 values are JSON texts
/// (value [`JSON_TYPE`]), so they can be told from plain strings.
pub const TYPE_METADATA_KEY: &str = "erpdata.type";
/// The value of [`TYPE_METADATA_KEY`] on JSON columns.
pub const JSON_TYPE: &str = "json";

/// Fewer non-null values than this are never dictionary-encoded.
pub const DICTIONARY_MIN_VALUES: usize = 32;
/// How many values are looked at before counting distinct ones in all.
pub const DICTIONARY_SAMPLE: usize = 1024;

/// How String columns are encoded.
///
/// The default is [`Dictionary::Never`]: batches of one schema (a
/// stream's) then have one Arrow schema, which a writer of one file
/// (Parquet, Arrow IPC) needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dictionary {
    /// `Dictionary(Int32, Utf8)` when it pays, per batch and column: at
    /// least [`DICTIONARY_MIN_VALUES`] non-null values, of which at most
    /// half are distinct — checked first on the first
    /// [`DICTIONARY_SAMPLE`] values, so that a column of unique values
    /// (invoice numbers) costs little. Types can then differ between
    /// batches of one schema (a short last batch has too few values):
    /// for batches kept apart, or a whole table in one batch.
    Auto,
    /// Always `Utf8` (the default).
    #[default]
    Never,
    /// Always `Dictionary(Int32, Utf8)`.
    Always,
}

impl ColumnType {
    /// The Arrow type of a column of this type: Null, Boolean, Int64,
    /// Decimal128(p, s), Date32,
    /// Timestamp(Microsecond, no zone), Utf8 (or `Dictionary(Int32, Utf8)` for a
    /// String column with `dictionary`), and Utf8 for JSON texts.
    pub fn arrow_type(self, dictionary: bool) -> DataType {
        match self {
            ColumnType::Null => DataType::Null,
            ColumnType::Bool => DataType::Boolean,
            ColumnType::Int => DataType::Int64,
            ColumnType::Decimal { precision, scale } => {
                DataType::Decimal128(precision, scale as i8)
            }
            ColumnType::Date => DataType::Date32,
            ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            ColumnType::String if dictionary => {
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
            }
            ColumnType::String | ColumnType::Json => DataType::Utf8,
        }
    }

    /// A nullable Arrow field of this type; JSON columns carry
    /// [`TYPE_METADATA_KEY`] = [`JSON_TYPE`].
    pub fn arrow_field(self, name: &str, dictionary: bool) -> Field {
        let field = Field::new(name, self.arrow_type(dictionary), true);
        if self == ColumnType::Json {
            field.with_metadata(HashMap::from([(
                TYPE_METADATA_KEY.to_owned(),
                JSON_TYPE.to_owned(),
            )]))
        } else {
            field
        }
    }
}

impl Batch {
    /// This batch as an Arrow record batch, strings as plain `Utf8`
    /// ([`Dictionary::Never`]), so that every batch of one schema, as a
    /// stream's are, has the same Arrow schema and can go to one writer.
    /// Copies the buffers; see [`Batch::into_record_batch`] to move them,
    /// and [`Batch::into_record_batch_with`] for dictionary-encoded
    /// strings.
    pub fn to_record_batch(&self) -> Result<RecordBatch, ArrowError> {
        self.clone().into_record_batch()
    }

    /// This batch as an Arrow record batch, moving its buffers; strings as
    /// [`Batch::to_record_batch`] gives them.
    pub fn into_record_batch(self) -> Result<RecordBatch, ArrowError> {
        self.into_record_batch_with(Dictionary::Never)
    }

    /// This batch as an Arrow record batch with the given string encoding:
    /// [`Dictionary::Auto`] dictionary-encodes repeated strings where it
    /// pays, batch by batch. For one schema over batches that differ,
    /// [cast](Batch::cast) each to a unified schema first and use `Never`
    /// or `Always`.
    pub fn into_record_batch_with(self, dictionary: Dictionary) -> Result<RecordBatch, ArrowError> {
        let num_rows = self.num_rows;
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut arrays = Vec::with_capacity(self.columns.len());
        for column in self.columns {
            let (field, array) = column.into_arrow(dictionary)?;
            fields.push(field);
            arrays.push(array);
        }
        RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(num_rows)),
        )
    }
}

impl Column {
    /// This column as an Arrow field and array, moving its buffers.
    pub fn into_arrow(self, dictionary: Dictionary) -> Result<(Field, ArrayRef), ArrowError> {
        let ty = self.column_type();
        let (array, dict): (ArrayRef, bool) = match self.data {
            ColumnData::Null { len } => (Arc::new(NullArray::new(len)), false),
            ColumnData::Bool { values, validity } => {
                let len = values.len();
                let values = BooleanBuffer::new(Buffer::from_vec(values.into_bytes()), 0, len);
                (Arc::new(BooleanArray::new(values, nulls(validity))), false)
            }
            ColumnData::Int { values, validity } => (
                Arc::new(Int64Array::new(ScalarBuffer::from(values), nulls(validity))),
                false,
            ),
            ColumnData::Decimal {
                values,
                precision,
                scale,
                validity,
                ..
            } => (
                Arc::new(
                    Decimal128Array::new(ScalarBuffer::from(values), nulls(validity))
                        .with_precision_and_scale(precision, scale as i8)?,
                ),
                false,
            ),
            ColumnData::Date { values, validity } => (
                Arc::new(Date32Array::new(
                    ScalarBuffer::from(values),
                    nulls(validity),
                )),
                false,
            ),
            ColumnData::Timestamp {
                values, validity, ..
            } => (
                Arc::new(TimestampMicrosecondArray::new(
                    ScalarBuffer::from(values),
                    nulls(validity),
                )),
                false,
            ),
            ColumnData::String { values, validity } => {
                let encoded = match dictionary {
                    Dictionary::Never => None,
                    mode => self::dictionary(&values, &validity, mode == Dictionary::Auto),
                };
                match encoded {
                    Some(array) => (array, true),
                    None => (utf8(values, validity), false),
                }
            }
            ColumnData::Json { values, validity } => (utf8(values, validity), false),
        };
        Ok((ty.arrow_field(&self.name, dict), array))
    }
}

fn nulls(validity: Option<Bitmap>) -> Option<NullBuffer> {
    validity.map(|v| {
        let len = v.len();
        NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(v.into_bytes()), 0, len))
    })
}

fn utf8(values: Texts, validity: Option<Bitmap>) -> ArrayRef {
    let (offsets, data) = values.into_parts();
    // SAFETY: `Texts` only grows by whole `&str`s: its offsets start at 0,
    // never decrease, end at `data.len()`, and fall on character
    // boundaries of `data`, which is a `String`.
    let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
    let data = Buffer::from_vec(data.into_bytes());
    // SAFETY: as above; `nulls`, if any, has one bit per value.
    Arc::new(unsafe { StringArray::new_unchecked(offsets, data, nulls(validity)) })
}

/// The column dictionary-encoded, in one pass; under [`Dictionary::Auto`]
/// `None` as soon as it does not pay: fewer than [`DICTIONARY_MIN_VALUES`]
/// non-null values, more than half of the first [`DICTIONARY_SAMPLE`]
/// distinct, or more than half of all.
fn dictionary(values: &Texts, validity: &Option<Bitmap>, auto: bool) -> Option<ArrayRef> {
    let non_null = validity.as_ref().map_or(values.len(), Bitmap::count_set);
    if auto && non_null < DICTIONARY_MIN_VALUES {
        return None;
    }
    let sample = non_null.min(DICTIONARY_SAMPLE);
    let mut numbering = Numbering::new(values.len(), |counted| match auto {
        false => usize::MAX,
        true if counted <= sample => sample / 2,
        true => non_null / 2,
    });
    if !numbering.push_texts(values, validity.as_ref()) {
        return None;
    }
    let (distinct, keys) = numbering.finish();
    let mut dict = Texts::with_capacity(distinct.len(), 0);
    for s in distinct.values() {
        // SAFETY: each entry is a whole value of `values`, which is UTF-8.
        dict.push(unsafe { std::str::from_utf8_unchecked(s) });
    }
    let keys = Int32Array::new(ScalarBuffer::from(keys), nulls(validity.clone()));
    // SAFETY: every key of a value is its number among the `distinct`
    // values, below their count; a null's key is 0, which `try_new` does
    // not check either. Checking them again took a twentieth of the
    // conversion.
    let array = unsafe { DictionaryArray::<Int32Type>::new_unchecked(keys, utf8(dict, None)) };
    Some(Arc::new(array))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_threshold() {
        let worth = |t: &Texts| dictionary(t, &None, true).is_some();
        let mut repeated = Texts::new();
        let mut unique = Texts::new();
        for i in 0..2000 {
            repeated.push(["USD", "EUR", "GBP"][i % 3]);
            unique.push(&format!("INV-{i}"));
        }
        assert!(worth(&repeated));
        assert!(!worth(&unique));
        let mut few = Texts::new();
        for _ in 0..10 {
            few.push("x");
        }
        assert!(!worth(&few), "too few values");
        assert!(dictionary(&few, &None, false).is_some(), "unless asked");
        // Unique in the sample, repeated afterwards: the sample decides.
        let mut late = Texts::new();
        for i in 0..5000 {
            late.push(&if i < 1024 {
                format!("u{i}")
            } else {
                "r".to_owned()
            });
        }
        assert!(!worth(&late));
        // Repeated in the sample, unique afterwards: all of it decides.
        let mut early = Texts::new();
        for i in 0..5000 {
            early.push(&if i < 1024 {
                "r".to_owned()
            } else {
                format!("u{i}")
            });
        }
        assert!(!worth(&early));
    }
}
