//! `erpdata._core.aging`, `credit_status` and `pay_days`: the core's
//! finance views over any Arrow table (an `erpdata.Table`, a pyarrow
//! table, a polars or pandas DataFrame), imported through the Arrow
//! PyCapsule stream protocol.
//!
//! Numbers come in exactly, as the core's Arrow import reads them (a
//! float column as decimals through each value's shortest text).

use std::ffi::CStr;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{RecordBatch, RecordBatchReader};
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
    // A table of no rows may come as no batches; its schema still says
    // which columns it has (an empty dues table's `acid`), so the core is
    // given one empty batch of them.
    let empty = RecordBatch::new_empty(reader.schema());
    let mut out = Vec::new();
    let mut first_row = 0;
    for batch in reader {
        let batch = batch.map_err(|e| invalid(field, format!("Arrow import: {e}")))?;
        out.push(erpdata::Batch::from_record_batch_at(
            &batch, field, first_row,
        )?);
        first_row += batch.num_rows();
    }
    if out.is_empty() {
        out.push(erpdata::Batch::from_record_batch_at(&empty, field, 0)?);
    }
    Ok(out)
}

fn table<'py>(py: Python<'py>, typed: erpdata::TypedRows) -> Result<Bound<'py, PyAny>> {
    Ok(table_model(py, TableData::typed(typed)?)?)
}

/// The aging report of `dues` as of `as_of` (`YYYY-MM-DD`); `account`
/// names the one account whose dues a table without `acid` holds (a `Dues`).
#[pyfunction]
#[pyo3(signature = (dues, as_of, buckets, due_date_column, balance_column, account))]
pub(crate) fn aging<'py>(
    py: Python<'py>,
    dues: &Bound<'py, PyAny>,
    as_of: &Bound<'py, PyAny>,
    buckets: &Bound<'py, PyAny>,
    due_date_column: Option<String>,
    balance_column: Option<String>,
    account: Option<String>,
) -> Result<Bound<'py, PyAny>> {
    let batches = batches_of(dues, "dues")?;
    let mut options = AgingOptions::new(text("as_of", as_of)?);
    options.accounts = account.map(|acid| vec![acid]);
    // Any iterable of day counts, checked by the core (`None` too: the
    // Python signature's default is a value).
    let buckets = crate::plan::list(buckets)?.unwrap_or_else(crate::plan::none);
    options.buckets = erpdata::AgingPlan::bucket_days(&buckets)?;
    options.due_date_column = due_date_column;
    options.balance_column = balance_column;
    let typed = crate::exiting::detach(py, || erpdata::aging(&batches, &options))?;
    table(py, typed)
}

/// The credit status of the customers of `accounts` as of `as_of`.
/// `pay_days` pairs each acid with its average payment days as decimal
/// text, or `None` (the core refuses a text that is no number); `acids`,
/// the caller's argument as given, keeps only those customers (the core
/// checks it is a list, naming `acids`).
#[pyfunction]
#[pyo3(signature = (accounts, dues, pay_days, as_of, acids))]
pub(crate) fn credit_status<'py>(
    py: Python<'py>,
    accounts: &Bound<'py, PyAny>,
    dues: &Bound<'py, PyAny>,
    pay_days: Vec<(String, Option<String>)>,
    as_of: &Bound<'py, PyAny>,
    acids: Option<&Bound<'py, PyAny>>,
) -> Result<Bound<'py, PyAny>> {
    let acids = match acids.map(crate::args::arg).transpose()?.flatten() {
        Some(given) => Some(erpdata::CreditStatusPlan::account_ids("acids", &given)?),
        None => None,
    };
    let as_of = text("as_of", as_of)?;
    let accounts = batches_of(accounts, "accounts")?;
    let dues = batches_of(dues, "dues")?;
    let pay_days: Vec<(String, Cell)> = pay_days
        .into_iter()
        .map(|(acid, days)| (acid, days.map_or(Cell::Null, Cell::Number)))
        .collect();
    let typed = crate::exiting::detach(py, || match &acids {
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
