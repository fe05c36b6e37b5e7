//! Arrow record batches back into batches (feature `arrow`), so that the
//! core's computations over typed columns (aging, credit status) run on
//! any Arrow table: one erpdata gave, or a DataFrame's.
//!
//! Every value comes in exactly: integers, decimals, dates, timestamps,
//! booleans, strings (plain, large, views or dictionaries). A float column
//! becomes a decimal column (precision 38, the largest scale its values
//! need), each value through its shortest text (what Python's `repr`
//! shows: 1500.1 is `1500.1`, never 1500.09999…), so sums are exact; NaN,
//! infinities and values past 38 digits are refused naming the column,
//! its type and the row. An unsigned 64-bit column with a value past the
//! signed range is a decimal of scale 0. Any other type is an error
//! naming the column.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Float16Type, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

use super::arrow::{JSON_TYPE, TYPE_METADATA_KEY};
use super::batch::Batch;
use super::columns::{Bitmap, Column, ColumnData, Sent, Texts};
use super::decimal::{self, MAX_PRECISION};
use super::scanner::{scan_number, After, Scan};
use crate::error::{Error, Result};

impl Batch {
    /// A batch holding `batch`'s columns, copied. `field` names the
    /// argument in errors (an unreadable column's type is one).
    pub fn from_record_batch(batch: &RecordBatch, field: &str) -> Result<Batch> {
        Batch::from_record_batch_at(batch, field, 0)
    }

    /// [`Batch::from_record_batch`] of a batch whose first row is row
    /// `first_row` of its table, as errors number the rows.
    pub fn from_record_batch_at(
        batch: &RecordBatch,
        field: &str,
        first_row: usize,
    ) -> Result<Batch> {
        let schema = batch.schema();
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (f, array) in schema.fields().iter().zip(batch.columns()) {
            let json = f.metadata().get(TYPE_METADATA_KEY).map(String::as_str) == Some(JSON_TYPE);
            let refused = |type_name: &str, row: usize, text: &str, why: &str| {
                Error::invalid(
                    field,
                    format!(
                        "column {:?} is {type_name} and row {} (counted from 0) is {text}: {why}",
                        f.name(),
                        first_row + row
                    ),
                )
            };
            if let DataType::Timestamp(_, Some(zone)) = array.data_type() {
                if !is_utc(zone) {
                    // Its values are UTC instants: read as the service's
                    // wall-clock times (which have no zone), midnight in
                    // Asia/Kolkata was 18:30 the day before, and a due
                    // date was read a day early.
                    return Err(Error::invalid(
                        field,
                        format!(
                            "column {:?} is a timestamp in time zone {zone}, and erpdata's \
                             timestamps have none (the service's wall-clock times): give \
                             it the local times without the zone (pandas \
                             .dt.tz_localize(None), polars .dt.replace_time_zone(None))",
                            f.name()
                        ),
                    ));
                }
            }
            let exact = match array.data_type() {
                DataType::Float16 => Some(floats::<Float16Type>(array, "float16", &refused)?),
                DataType::Float32 => Some(floats::<Float32Type>(array, "float32", &refused)?),
                DataType::Float64 => Some(floats::<Float64Type>(array, "float64", &refused)?),
                _ => None,
            };
            let data = exact.or_else(|| column(array, json)).ok_or_else(|| {
                Error::invalid(
                    field,
                    format!(
                        "column {:?} is of Arrow type {}, which erpdata does not read \
                         (integers, decimals, dates, timestamps, booleans, strings); \
                         leave it out or cast it",
                        f.name(),
                        f.data_type()
                    ),
                )
            })?;
            columns.push(Column {
                name: f.name().clone(),
                data,
            });
        }
        Ok(Batch {
            num_rows: batch.num_rows(),
            columns,
        })
    }
}

/// Whether an Arrow time zone is UTC, whose instants are their own
/// wall-clock times.
fn is_utc(zone: &str) -> bool {
    ["UTC", "Etc/UTC", "Z", "+00:00", "+0000", "GMT", "Etc/GMT"]
        .iter()
        .any(|utc| zone.eq_ignore_ascii_case(utc))
}

fn validity(array: &dyn Array) -> Option<Bitmap> {
    let nulls = array.logical_nulls()?;
    if nulls.null_count() == 0 {
        return None;
    }
    let mut bits = Bitmap::with_capacity(array.len());
    for i in 0..array.len() {
        bits.push(nulls.is_valid(i));
    }
    Some(bits)
}

/// Each value of a primitive array through `f` (placeholder `0` where
/// null), or `None` when one does not convert.
fn values<T: ArrowPrimitiveType, V: Default>(
    array: &ArrayRef,
    f: impl Fn(T::Native) -> Option<V>,
) -> Option<Vec<V>> {
    let a = array.as_primitive::<T>();
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                Some(V::default())
            } else {
                f(a.value(i))
            }
        })
        .collect()
}

fn ints<T: ArrowPrimitiveType>(array: &ArrayRef) -> Option<ColumnData>
where
    T::Native: TryInto<i64>,
{
    Some(ColumnData::Int {
        values: values::<T, i64>(array, |v| v.try_into().ok())?,
        validity: validity(array),
    })
}

fn timestamps<T: ArrowPrimitiveType<Native = i64>>(
    array: &ArrayRef,
    per_micro: i64,
    micros_per: i64,
) -> Option<ColumnData> {
    Some(ColumnData::Timestamp {
        values: values::<T, i64>(array, |v| {
            if per_micro > 1 {
                Some(v.div_euclid(per_micro))
            } else {
                v.checked_mul(micros_per)
            }
        })?,
        validity: validity(array),
        sent: Sent::default(),
    })
}

/// A float column as decimals at the largest scale its values need, each
/// value through its shortest text (`{:e}`, read as a JSON number is), or
/// the refusal of the first value that is not finite or does not fit 38
/// digits (`refused(type, row, text, why)`).
fn floats<T: ArrowPrimitiveType>(
    array: &ArrayRef,
    type_name: &str,
    refused: &dyn Fn(&str, usize, &str, &str) -> Error,
) -> Result<ColumnData>
where
    T::Native: std::fmt::LowerExp,
{
    let a = array.as_primitive::<T>();
    let mut texts = vec![String::new(); a.len()];
    let mut parts = vec![(0i128, 0u8); a.len()];
    for i in (0..a.len()).filter(|&i| a.is_valid(i)) {
        texts[i] = format!("{:e}", a.value(i));
        let text = &texts[i];
        if text.ends_with("NaN") || text.ends_with("inf") {
            return Err(refused(
                type_name,
                i,
                text,
                "only a finite number is a decimal",
            ));
        }
        parts[i] = match scan_number(text.as_bytes(), 0, After::Eof) {
            Scan::Done(n, end) if end == text.len() => decimal::of(&n),
            _ => None,
        }
        .ok_or_else(|| refused(type_name, i, text, "a decimal holds at most 38 digits"))?;
    }
    let scale = parts.iter().map(|&(_, s)| s).max().unwrap_or(0);
    let mut values = Vec::with_capacity(a.len());
    for (i, &(value, s)) in parts.iter().enumerate() {
        values.push(decimal::rescale(value, scale - s).ok_or_else(|| {
            refused(
                type_name,
                i,
                &texts[i],
                &format!(
                    "at the column's scale ({scale} digits after the point) it needs more \
                     than 38 digits"
                ),
            )
        })?);
    }
    Ok(ColumnData::Decimal {
        values,
        precision: MAX_PRECISION,
        scale,
        validity: validity(array.as_ref()),
        sent: Sent::default(),
    })
}

/// An unsigned 64-bit column as decimals of scale 0 (every value fits
/// 38 digits): for one with a value past the signed range.
fn unsigned_decimals(array: &ArrayRef) -> Option<ColumnData> {
    Some(ColumnData::Decimal {
        values: values::<UInt64Type, i128>(array, |v| Some(i128::from(v)))?,
        precision: MAX_PRECISION,
        scale: 0,
        validity: validity(array.as_ref()),
        sent: Sent::default(),
    })
}

fn strings<'a>(array: &'a dyn Array, json: bool) -> Option<ColumnData> {
    let get: Box<dyn Fn(usize) -> &'a str + 'a> = match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            Box::new(move |i| a.value(i))
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Box::new(move |i| a.value(i))
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            Box::new(move |i| a.value(i))
        }
        _ => return None,
    };
    let mut texts = Texts::with_capacity(array.len(), 0);
    for i in 0..array.len() {
        texts.push(if array.is_null(i) { "" } else { get(i) });
    }
    let validity = validity(array);
    Some(if json {
        ColumnData::Json {
            values: texts,
            validity,
        }
    } else {
        ColumnData::String {
            values: texts,
            validity,
        }
    })
}

fn dictionary(array: &ArrayRef, json: bool) -> Option<ColumnData> {
    let dict = array.as_any_dictionary_opt()?;
    let ColumnData::String { values, .. } = strings(dict.values().as_ref(), false)? else {
        return None;
    };
    let mut texts = Texts::with_capacity(array.len(), 0);
    for (i, key) in dict.normalized_keys().into_iter().enumerate() {
        texts.push(if array.is_null(i) || key >= values.len() {
            ""
        } else {
            values.get(key)
        });
    }
    let validity = validity(array.as_ref());
    Some(if json {
        ColumnData::Json {
            values: texts,
            validity,
        }
    } else {
        ColumnData::String {
            values: texts,
            validity,
        }
    })
}

fn column(array: &ArrayRef, json: bool) -> Option<ColumnData> {
    const DAY_MS: i64 = 86_400_000;
    Some(match array.data_type() {
        DataType::Null => ColumnData::Null { len: array.len() },
        DataType::Boolean => {
            let a = array.as_boolean();
            let mut bits = Bitmap::with_capacity(a.len());
            for i in 0..a.len() {
                bits.push(a.is_valid(i) && a.value(i));
            }
            ColumnData::Bool {
                values: bits,
                validity: validity(array.as_ref()),
            }
        }
        DataType::Int8 => ints::<Int8Type>(array)?,
        DataType::Int16 => ints::<Int16Type>(array)?,
        DataType::Int32 => ints::<Int32Type>(array)?,
        DataType::Int64 => ints::<Int64Type>(array)?,
        DataType::UInt8 => ints::<UInt8Type>(array)?,
        DataType::UInt16 => ints::<UInt16Type>(array)?,
        DataType::UInt32 => ints::<UInt32Type>(array)?,
        DataType::UInt64 => ints::<UInt64Type>(array).or_else(|| unsigned_decimals(array))?,
        DataType::Decimal128(precision, scale) if *scale >= 0 => ColumnData::Decimal {
            values: values::<Decimal128Type, i128>(array, Some)?,
            precision: *precision,
            scale: *scale as u8,
            validity: validity(array.as_ref()),
            sent: Sent::default(),
        },
        DataType::Date32 => ColumnData::Date {
            values: values::<Date32Type, i32>(array, Some)?,
            validity: validity(array.as_ref()),
        },
        DataType::Date64 => ColumnData::Date {
            values: values::<Date64Type, i32>(array, |ms| {
                i32::try_from(ms.div_euclid(DAY_MS)).ok()
            })?,
            validity: validity(array.as_ref()),
        },
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => timestamps::<TimestampSecondType>(array, 1, 1_000_000)?,
            TimeUnit::Millisecond => timestamps::<TimestampMillisecondType>(array, 1, 1_000)?,
            TimeUnit::Microsecond => timestamps::<TimestampMicrosecondType>(array, 1, 1)?,
            TimeUnit::Nanosecond => timestamps::<TimestampNanosecondType>(array, 1_000, 1)?,
        },
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => strings(array.as_ref(), json)?,
        DataType::Dictionary(_, _) => dictionary(array, json)?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        Date32Array, Decimal128Array, DictionaryArray, Float64Array, Int32Array, LargeStringArray,
        ListArray, RecordBatch, StringArray, UInt64Array,
    };
    use arrow_schema::{Field, Schema};

    use super::*;
    use crate::Cell;

    #[test]
    fn round_trip_of_a_decoded_batch() {
        let config = crate::Config::builder("https://erp.example.com/")
            .build()
            .unwrap();
        let body = br#"{"status":"success","data":[{"acid":"C1","n":1,"due":"2025-01-02","amt":"1.50","at":"2025-01-02 03:04:05","ok":true,"j":{"a":1}},{"acid":null,"n":null,"due":"0000-00-00","amt":null,"at":null,"ok":null,"j":null}]}"#;
        let mut decoder = crate::TableDecoder::new(&config, 200, Default::default());
        let mut batches = decoder.feed(body).unwrap();
        batches.extend(decoder.finish().unwrap().batches);
        let batch = batches.remove(0);
        let back =
            Batch::from_record_batch(&batch.clone().into_record_batch().unwrap(), "t").unwrap();
        assert_eq!(back.schema(), batch.schema());
        for (a, b) in back.columns.iter().zip(&batch.columns) {
            for i in 0..2 {
                assert_eq!(a.data.is_valid(i), b.data.is_valid(i), "{}", a.name);
                if b.data.is_valid(i) {
                    assert_eq!(a.data.cell(i), b.data.cell(i), "{}", a.name);
                }
            }
        }
    }

    #[test]
    fn other_layouts_and_errors() {
        let keys = Int32Array::from(vec![Some(1), None, Some(0)]);
        let dict =
            DictionaryArray::try_new(keys, Arc::new(StringArray::from(vec!["a", "b"]))).unwrap();
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("d", dict.data_type().clone(), true),
                Field::new("l", DataType::LargeUtf8, true),
                Field::new("i", DataType::Int32, true),
                Field::new("x", DataType::Decimal128(10, 2), true),
                Field::new("day", DataType::Date32, true),
                Field::new("f", DataType::Float64, true),
            ])),
            vec![
                Arc::new(dict),
                Arc::new(LargeStringArray::from(vec![Some("x"), None, Some("z")])),
                Arc::new(Int32Array::from(vec![Some(7), None, Some(-1)])),
                Arc::new(
                    Decimal128Array::from(vec![Some(150), Some(-5), None])
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ),
                Arc::new(Date32Array::from(vec![Some(1), None, Some(0)])),
                Arc::new(Float64Array::from(vec![Some(0.1), None, Some(2.0)])),
            ],
        )
        .unwrap();
        let b = Batch::from_record_batch(&batch, "dues").unwrap();
        let cells = |name: &str| -> Vec<Cell> {
            let c = b.column(name).unwrap();
            (0..3).map(|i| c.data.cell(i)).collect()
        };
        assert_eq!(
            cells("d"),
            [
                Cell::String("b".into()),
                Cell::Null,
                Cell::String("a".into())
            ]
        );
        assert_eq!(cells("l")[1], Cell::Null);
        assert_eq!(cells("i"), [Cell::Int(7), Cell::Null, Cell::Int(-1)]);
        assert_eq!(cells("x")[1], Cell::Number("-0.05".into()));
        // A float exactly, through its shortest text, at the column's scale.
        assert_eq!(
            cells("f"),
            [
                Cell::Number("0.1".into()),
                Cell::Null,
                Cell::Number("2.0".into())
            ]
        );

        let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
        let bad = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new(
                "tags",
                list.data_type().clone(),
                true,
            )])),
            vec![Arc::new(list)],
        )
        .unwrap();
        let err = Batch::from_record_batch(&bad, "dues").unwrap_err();
        assert_eq!(err.field(), Some("dues"));
        assert!(err.to_string().contains("\"tags\""), "{err}");
    }

    fn one_column(name: &str, array: ArrayRef) -> RecordBatch {
        let field = Field::new(name, array.data_type().clone(), true);
        RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap()
    }

    #[test]
    fn a_timestamp_with_a_zone_other_than_utc_is_refused() {
        use arrow_array::TimestampMicrosecondArray;
        // 2025-12-31 00:00 in Asia/Kolkata is 2025-12-30 18:30 UTC: read as
        // a wall-clock time, it was a day early.
        let instant = 1_767_119_400_000_000;
        let zoned = |zone: &str| {
            let array = TimestampMicrosecondArray::from(vec![instant]).with_timezone(zone);
            one_column("due_date", Arc::new(array))
        };
        let err = Batch::from_record_batch(&zoned("Asia/Kolkata"), "dues").unwrap_err();
        assert_eq!(err.field(), Some("dues"));
        let text = err.to_string();
        assert!(text.contains("\"due_date\" is a timestamp in time zone Asia/Kolkata"));
        assert!(text.contains(".dt.tz_localize(None)"), "{text}");
        for utc in ["UTC", "+00:00", "Etc/UTC"] {
            let b = Batch::from_record_batch(&zoned(utc), "dues").unwrap();
            assert!(matches!(
                b.column("due_date").unwrap().data,
                ColumnData::Timestamp { .. }
            ));
        }
    }

    #[test]
    fn floats_that_are_no_decimal_are_refused_by_row() {
        for (values, shown) in [
            (
                vec![1.0, f64::NAN],
                "row 11 (counted from 0) is NaN: only a finite number",
            ),
            (
                vec![f64::NEG_INFINITY],
                "row 10 (counted from 0) is -inf: only a finite number",
            ),
            (
                vec![1.0, 1e300],
                "row 11 (counted from 0) is 1e300: a decimal holds at most 38 digits",
            ),
            (
                vec![1e20, 1e-20],
                "row 10 (counted from 0) is 1e20: at the column's scale (20 digits",
            ),
        ] {
            let batch = one_column("balance", Arc::new(Float64Array::from(values)));
            let err = Batch::from_record_batch_at(&batch, "dues", 10).unwrap_err();
            assert_eq!(err.field(), Some("dues"));
            let text = err.to_string();
            assert!(
                text.contains(&format!("column \"balance\" is float64 and {shown}")),
                "{text}"
            );
        }
    }

    #[test]
    fn unsigned_integers_past_the_signed_range_are_decimals() {
        let big = u64::MAX;
        let batch = one_column(
            "n",
            Arc::new(UInt64Array::from(vec![Some(big), None, Some(1)])),
        );
        let b = Batch::from_record_batch(&batch, "t").unwrap();
        let data = &b.column("n").unwrap().data;
        assert_eq!(data.cell(0), Cell::Number(big.to_string()));
        assert_eq!(data.cell(1), Cell::Null);
        let small = one_column("n", Arc::new(UInt64Array::from(vec![1u64, 2])));
        let b = Batch::from_record_batch(&small, "t").unwrap();
        assert_eq!(b.column("n").unwrap().data.cell(1), Cell::Int(2));
    }
}
