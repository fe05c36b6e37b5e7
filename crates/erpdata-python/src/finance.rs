//! `erpdata._core.aging`, `credit_status` and `pay_days`: the core's
//! finance views over any Arrow table (an `erpdata.Table`, a pyarrow
//! table, a polars or pandas DataFrame), imported through the Arrow
//! PyCapsule stream protocol.
//!
//! Numbers come in exactly: integers and decimals as they are, and a float
//! column as decimals, each value through its shortest text (the digits
//! Python's `repr` shows: 1500.1 is `Decimal("1500.1")`), the column at
//! the largest scale it needs. NaN, infinities and values past 38 digits
//! are refused, naming the column, its type and the row.

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::{Float16Type, Float32Type, Float64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Decimal128Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use erpdata::{AgingOptions, Cell, Error};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::convert::{table_model, text};
use crate::errors::Result;
use crate::table::TableData;

fn invalid(field: &str, reason: impl Into<String>) -> Error {
    Error::InvalidInput {
        field: field.to_owned(),
        reason: reason.into(),
    }
}

/// The rows of `table` (anything with `__arrow_c_stream__`) as core
/// batches; `field` names the argument in errors.
fn batches_of(table: &Bound<'_, PyAny>, field: &str) -> Result<Vec<erpdata::Batch>> {
    if !table.hasattr("__arrow_c_stream__")? {
        let type_name = table.get_type().name()?.to_string();
        return Err(invalid(
            field,
            format!(
                "must be an erpdata Table or an Arrow table or DataFrame \
                 (anything with __arrow_c_stream__), got {type_name}"
            ),
        )
        .into());
    }
    let capsule = table.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>().map_err(PyErr::from)?;
    const NAME: &CStr = c"arrow_array_stream";
    let pointer = capsule.pointer_checked(Some(NAME))?;
    // SAFETY: the capsule is named `arrow_array_stream`, so by the
    // protocol it holds an `ArrowArrayStream`; `from_raw` moves it out and
    // leaves it released, so the capsule's destructor does nothing more.
    let reader = unsafe {
        RecordBatchStreamReader::from_raw(pointer.as_ptr().cast::<FFI_ArrowArrayStream>())
    }
    .map_err(|e| invalid(field, format!("Arrow import: {e}")))?;
    let mut out = Vec::new();
    let mut first_row = 0;
    for batch in reader {
        let batch = batch.map_err(|e| invalid(field, format!("Arrow import: {e}")))?;
        let rows = batch.num_rows();
        let batch = exact_numbers(batch, field, first_row)?;
        out.push(erpdata::Batch::from_record_batch(&batch, field)?);
        first_row += rows;
    }
    Ok(out)
}

/// The most digits a decimal the core sums holds.
const DIGITS: u32 = 38;

/// `batch` with its float columns as decimals, and its unsigned 64-bit
/// columns too when a value is past the signed range (the core's
/// integers), so that every number reaches the core exactly. `first_row`
/// numbers the batch's rows in errors.
fn exact_numbers(batch: RecordBatch, field: &str, first_row: usize) -> Result<RecordBatch> {
    let schema = batch.schema();
    let mut fields: Vec<Field> = Vec::with_capacity(batch.num_columns());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
    let mut changed = false;
    for (f, array) in schema.fields().iter().zip(batch.columns()) {
        let values: Option<Vec<Option<String>>> = match f.data_type() {
            DataType::Float16 => Some(texts(array, |a, i| {
                format!("{:e}", a.as_primitive::<Float16Type>().value(i).to_f32())
            })),
            DataType::Float32 => Some(texts(array, |a, i| {
                format!("{:e}", a.as_primitive::<Float32Type>().value(i))
            })),
            DataType::Float64 => Some(texts(array, |a, i| {
                format!("{:e}", a.as_primitive::<Float64Type>().value(i))
            })),
            DataType::UInt64 => {
                let a = array.as_primitive::<UInt64Type>();
                let past = (0..a.len()).any(|i| a.is_valid(i) && a.value(i) > i64::MAX as u64);
                past.then(|| {
                    texts(array, |a, i| {
                        format!("{}e0", a.as_primitive::<UInt64Type>().value(i))
                    })
                })
            }
            _ => None,
        };
        let Some(values) = values else {
            fields.push(f.as_ref().clone());
            columns.push(array.clone());
            continue;
        };
        let type_name = match f.data_type() {
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
            _ => "uint64",
        };
        let refused = |i: usize, text: &str, why: &str| {
            invalid(
                field,
                format!(
                    "column {:?} is {type_name} and row {} is {text}: {why}",
                    f.name(),
                    first_row + i
                ),
            )
        };
        let mut parts = Vec::with_capacity(values.len());
        for (i, text) in values.iter().enumerate() {
            parts.push(match text {
                None => None,
                Some(text) => Some(decimal_parts(text).ok_or_else(|| {
                    if text.ends_with("NaN") || text.ends_with("inf") {
                        refused(i, text, "only a finite number is a decimal")
                    } else {
                        refused(i, text, "a decimal holds at most 38 digits")
                    }
                })?),
            });
        }
        let scale = parts.iter().flatten().map(|(_, s)| *s).max().unwrap_or(0);
        let mut unscaled = Vec::with_capacity(parts.len());
        for (i, part) in parts.into_iter().enumerate() {
            unscaled.push(match part {
                None => None,
                Some((v, s)) => Some(
                    10i128
                        .checked_pow(u32::from(scale - s))
                        .and_then(|m| v.checked_mul(m))
                        .filter(|v| v.unsigned_abs() < 10u128.pow(DIGITS))
                        .ok_or_else(|| {
                            refused(
                                i,
                                values[i].as_deref().unwrap_or_default(),
                                &format!(
                                    "at the column's scale ({scale} digits after the point) \
                                     it needs more than 38 digits"
                                ),
                            )
                        })?,
                ),
            });
        }
        let decimals = Decimal128Array::from(unscaled)
            .with_precision_and_scale(DIGITS as u8, scale as i8)
            .map_err(|e| invalid(field, format!("column {:?}: {e}", f.name())))?;
        fields.push(
            Field::new(
                f.name(),
                DataType::Decimal128(DIGITS as u8, scale as i8),
                f.is_nullable(),
            )
            .with_metadata(f.metadata().clone()),
        );
        columns.push(Arc::new(decimals));
        changed = true;
    }
    if !changed {
        return Ok(batch);
    }
    let schema = Schema::new(fields).with_metadata(schema.metadata().clone());
    RecordBatch::try_new(Arc::new(schema), columns)
        .map_err(|e| invalid(field, format!("Arrow import: {e}")).into())
}

/// Each row's value as text by `show` (scientific, `{:e}`), `None` when
/// null.
fn texts(array: &ArrayRef, show: impl Fn(&ArrayRef, usize) -> String) -> Vec<Option<String>> {
    (0..array.len())
        .map(|i| array.is_valid(i).then(|| show(array, i)))
        .collect()
}

/// A number's shortest scientific text (`-1.5001e3`, as Rust's `{:e}`
/// writes a float) as an unscaled value and a scale (`(-15001, 1)`), or
/// `None` when it is not finite or needs more than 38 digits.
fn decimal_parts(text: &str) -> Option<(i128, u8)> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut value: i128 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    let shift = exponent - i32::try_from(fraction.len()).ok()?;
    let (value, scale) = if shift >= 0 {
        (
            value.checked_mul(10i128.checked_pow(shift.unsigned_abs())?)?,
            0,
        )
    } else {
        (value, u8::try_from(shift.unsigned_abs()).ok()?)
    };
    if u32::from(scale) > DIGITS || value.unsigned_abs() >= 10u128.pow(DIGITS) {
        return None;
    }
    Some((if negative { -value } else { value }, scale))
}

fn table<'py>(py: Python<'py>, typed: erpdata::TypedRows) -> Result<Bound<'py, PyAny>> {
    Ok(table_model(py, TableData::typed(typed)?)?)
}

/// The aging report of `dues` as of `as_of` (`YYYY-MM-DD`).
#[pyfunction]
#[pyo3(signature = (dues, as_of, buckets, due_date_column, balance_column))]
pub(crate) fn aging<'py>(
    py: Python<'py>,
    dues: &Bound<'py, PyAny>,
    as_of: &Bound<'py, PyAny>,
    buckets: &Bound<'py, PyAny>,
    due_date_column: Option<String>,
    balance_column: Option<String>,
) -> Result<Bound<'py, PyAny>> {
    let batches = batches_of(dues, "dues")?;
    let mut options = AgingOptions::new(text("as_of", as_of)?);
    // Any iterable of day counts, checked by the core (`None` too: the
    // Python signature's default is a value).
    let buckets = crate::plan::list(buckets)?.unwrap_or_else(crate::plan::none);
    options.buckets = erpdata::AgingPlan::bucket_days(&buckets)?;
    options.due_date_column = due_date_column;
    options.balance_column = balance_column;
    let typed = py.detach(|| erpdata::aging(&batches, &options))?;
    table(py, typed)
}

/// The credit status of the customers of `accounts` as of `as_of`.
/// `pay_days` pairs each acid with its average payment days as decimal
/// text, or `None`; `acids` keeps only those customers.
#[pyfunction]
#[pyo3(signature = (accounts, dues, pay_days, as_of, acids))]
pub(crate) fn credit_status<'py>(
    py: Python<'py>,
    accounts: &Bound<'py, PyAny>,
    dues: &Bound<'py, PyAny>,
    pay_days: Vec<(String, Option<String>)>,
    as_of: &Bound<'py, PyAny>,
    acids: Option<Vec<String>>,
) -> Result<Bound<'py, PyAny>> {
    let as_of = text("as_of", as_of)?;
    let accounts = batches_of(accounts, "accounts")?;
    let dues = batches_of(dues, "dues")?;
    let pay_days: Vec<(String, Cell)> = pay_days
        .into_iter()
        .map(|(acid, days)| (acid, days.map_or(Cell::Null, Cell::Number)))
        .collect();
    let typed = py.detach(|| match &acids {
        Some(acids) => erpdata::credit_status_of(&accounts, &dues, &pay_days, &as_of, acids),
        None => erpdata::credit_status(&accounts, &dues, &pay_days, &as_of),
    })?;
    table(py, typed)
}

/// The average payment days in an `avgPayDays` answer's JSON text, as
/// decimal text (or `None`).
#[pyfunction]
pub(crate) fn pay_days(acid: &str, answer: &str) -> Result<Option<String>> {
    Ok(match erpdata::pay_days_of_text(acid, answer.as_bytes())? {
        Cell::Int(n) => Some(n.to_string()),
        Cell::Number(text) => Some(text),
        _ => None,
    })
}

/// The acids of `accounts`' customers (`kind` `"receipt"`) or suppliers
/// (`"payment"`), in order, each once.
#[pyfunction]
pub(crate) fn account_ids(accounts: &Bound<'_, PyAny>, kind: &str) -> Result<Vec<String>> {
    let kind = match kind.to_ascii_lowercase().as_str() {
        "receipt" => erpdata::DuesKind::Receipt,
        "payment" => erpdata::DuesKind::Payment,
        _ => {
            return Err(invalid(
                "kind",
                format!("must be \"receipt\" or \"payment\", got {kind:?}"),
            )
            .into())
        }
    };
    let batches = batches_of(accounts, "accounts")?;
    Ok(erpdata::account_ids(&batches, kind)?)
}
