//! `erpdata._core.TableDecoder`, `Batch` and `TableData`: the core's
//! streaming decoder fed from Python, its batches as Arrow record batches.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use erpdata::{unify_schemas, Dictionary, Error};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PyString};

use crate::capsules;
use crate::config::Config;
use crate::rows;
use crate::typing::Typing;

/// Plain strings, never dictionary-encoded: one fixed schema over all
/// batches, and `str` columns (not categoricals) in DataFrames.
const STRINGS: Dictionary = Dictionary::Never;

pub(crate) fn to_arrow(batch: erpdata::Batch) -> Result<RecordBatch, Error> {
    batch
        .into_record_batch_with(STRINGS)
        .map_err(|e| Error::Decode {
            reason: format!("cannot build Arrow arrays: {e}"),
            excerpt: String::new(),
            excerpt_at: None,
            call: None,
        })
}

/// The core's name of an Arrow field's type (the types `to_arrow` makes).
fn type_name(field: &arrow_schema::Field) -> String {
    use arrow_schema::DataType;
    match field.data_type() {
        DataType::Null => "null".to_owned(),
        DataType::Boolean => "bool".to_owned(),
        DataType::Int64 => "int".to_owned(),
        DataType::Decimal128(p, s) => format!("decimal({p},{s})"),
        DataType::Date32 => "date".to_owned(),
        DataType::Timestamp(..) => "timestamp".to_owned(),
        DataType::Utf8
            if field
                .metadata()
                .get(erpdata::TYPE_METADATA_KEY)
                .map(String::as_str)
                == Some(erpdata::JSON_TYPE) =>
        {
            "json".to_owned()
        }
        DataType::Utf8 | DataType::Dictionary(..) => "string".to_owned(),
        other => other.to_string(),
    }
}

/// Rows as a list of dicts: `batches` in order, rows `start..stop` overall.
fn rows_of<'py>(
    py: Python<'py>,
    batches: &[RecordBatch],
    start: usize,
    stop: usize,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    let _quiet = rows::NoCollection::new(py)?;
    let mut offset = 0;
    for batch in batches {
        let n = batch.num_rows();
        if offset + n > start && offset < stop {
            let keys = rows::keys(py, batch);
            let from = start.saturating_sub(offset);
            let to = (stop - offset).min(n);
            rows::append_rows(py, batch, &keys, from, to, &out)?;
        }
        offset += n;
        if offset >= stop {
            break;
        }
    }
    Ok(out)
}

fn names<'py>(py: Python<'py>, schema: &Schema) -> Vec<Bound<'py, PyString>> {
    schema
        .fields()
        .iter()
        .map(|f| PyString::intern(py, f.name()))
        .collect()
}

/// One batch of rows as they arrived, typed from its own values: an Arrow
/// record batch (`__arrow_c_array__`) that also gives its rows as dicts.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct Batch {
    inner: RecordBatch,
}

impl Batch {
    pub(crate) fn from_arrow(inner: RecordBatch) -> Self {
        Batch { inner }
    }
}

#[pymethods]
impl Batch {
    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }

    fn __len__(&self) -> usize {
        self.inner.num_rows()
    }

    /// Column names in first-seen order.
    #[getter]
    fn columns<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyString>> {
        names(py, &self.inner.schema())
    }

    /// The rows as dicts (every column of the batch in each; `None` where a
    /// row had no value), or rows `start..stop` of them.
    #[pyo3(signature = (start=0, stop=None))]
    fn to_rows<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        stop: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let stop = stop.unwrap_or(usize::MAX);
        rows_of(py, std::slice::from_ref(&self.inner), start, stop)
    }

    /// Arrow PyCapsule protocol: the batch as a struct array.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        // The protocol lets a producer ignore a requested schema.
        let _ = requested_schema;
        capsules::batch_capsules(py, &self.inner)
    }

    /// Arrow PyCapsule protocol: the batch's schema.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsules::schema_capsule(py, &self.inner.schema())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Batch: {} rows, {} columns>",
            self.inner.num_rows(),
            self.inner.num_columns()
        )
    }
}

/// A whole table as Arrow record batches of one schema (each column of one
/// type over all rows), kept by `erpdata.Table`.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct TableData {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    notices: Vec<String>,
    num_rows: usize,
}

impl TableData {
    /// Unifies the batches' column types (a key may be `Int` in one batch
    /// and `Decimal` in another) and converts them to Arrow.
    pub(crate) fn build(batches: Vec<erpdata::Batch>, notices: Vec<String>) -> Result<Self, Error> {
        Self::build_with(batches, notices, &[])
    }

    /// A whole table's columns (each batch already of its schema).
    pub(crate) fn from_batches(table: erpdata::TableBatches) -> Result<Self, Error> {
        Self::build_with(table.batches, table.notices, &table.schema)
    }

    /// Typed rows as a table: with no rows, its columns are still the
    /// schema's.
    pub(crate) fn typed(typed: erpdata::TypedRows) -> Result<Self, Error> {
        Self::build_with(typed.batches, typed.notices, &typed.schema)
    }

    /// `schema` gives the columns when there are no batches.
    fn build_with(
        batches: Vec<erpdata::Batch>,
        notices: Vec<String>,
        schema: &[(String, erpdata::ColumnType)],
    ) -> Result<Self, Error> {
        let unified = if batches.is_empty() {
            schema.to_vec()
        } else {
            batches
                .iter()
                .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()))
        };
        let mut arrow = Vec::with_capacity(batches.len());
        for batch in batches {
            let batch = if batch.schema() == unified {
                batch
            } else {
                batch.cast(&unified).ok_or_else(|| Error::Decode {
                    reason: "a batch does not fit the table's unified schema".to_owned(),
                    excerpt: String::new(),
                    excerpt_at: None,
                    call: None,
                })?
            };
            arrow.push(to_arrow(batch)?);
        }
        let schema = match arrow.first() {
            Some(b) => b.schema(),
            None => Arc::new(Schema::new(
                unified
                    .iter()
                    .map(|(n, t)| t.arrow_field(n, false))
                    .collect::<Vec<_>>(),
            )),
        };
        let num_rows = arrow.iter().map(|b| b.num_rows()).sum();
        Ok(TableData {
            schema,
            batches: arrow,
            notices,
            num_rows,
        })
    }
}

#[pymethods]
impl TableData {
    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// The number of record batches.
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// Every key seen in any row, in first-seen order.
    #[getter]
    fn columns<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyString>> {
        names(py, &self.schema)
    }

    /// PHP notices printed before the JSON.
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    /// `(name, type)` of each column, the type as the core names it
    /// (`int`, `decimal(14,2)`, `date`, `timestamp`, `string`, `json`, ...).
    #[getter]
    fn schema(&self) -> Vec<(String, String)> {
        self.schema
            .fields()
            .iter()
            .map(|f| (f.name().clone(), type_name(f)))
            .collect()
    }

    /// Rows `start..stop` as dicts.
    #[pyo3(signature = (start=0, stop=None))]
    fn rows<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        stop: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let stop = stop.unwrap_or(self.num_rows).min(self.num_rows);
        rows_of(py, &self.batches, start, stop)
    }

    /// Row `index` (0-based, no negative indices) as a dict.
    fn row<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyAny>> {
        if index >= self.num_rows {
            return Err(PyIndexError::new_err("table index out of range"));
        }
        rows_of(py, &self.batches, index, index + 1)?.get_item(0)
    }

    /// Arrow PyCapsule protocol: the table as a stream of record batches.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        capsules::stream_capsule(py, self.schema.clone(), self.batches.clone())
    }

    /// Arrow PyCapsule protocol: the table's schema.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsules::schema_capsule(py, &self.schema)
    }

    fn __repr__(&self) -> String {
        format!(
            "<TableData: {} rows, {} columns>",
            self.num_rows,
            self.schema.fields().len()
        )
    }
}

/// Decodes a whole body into a `TableData` (the client's `table()` feeds a
/// `TableDecoder` chunk by chunk instead).
pub(crate) fn table_data(
    py: Python<'_>,
    config: &Config,
    status: u16,
    body: &[u8],
    typing: Option<&Typing>,
) -> crate::errors::Result<TableData> {
    let inner = config.core_config();
    let mut options =
        Typing::decoder_options(typing, erpdata::DecoderOptions::default().batch_rows);
    // A whole table is typed over all its rows.
    options.one_schema = false;
    let built = crate::exiting::detach(py, || {
        // The same batches as feeding the body in one piece, made on every
        // core when the body is large. A pool made for the call, not
        // rayon's global one: a process forked later (multiprocessing)
        // would inherit a global pool without its threads, and hang.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let finished = erpdata::TableDecoder::decode_parallel(
            inner,
            status,
            body,
            options,
            erpdata::ParallelOptions {
                threads: Some(threads),
                ..erpdata::ParallelOptions::default()
            },
        )?;
        TableData::build(finished.batches, finished.notices)
    });
    Ok(built?)
}
