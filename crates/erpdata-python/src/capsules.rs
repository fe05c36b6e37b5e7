//! The Arrow PyCapsule protocol: record batches and streams handed to any
//! Arrow consumer (pyarrow, polars, duckdb, pandas) through Arrow's C data
//! interface, without copying buffers.

use std::ffi::CString;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

fn arrow_err(err: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow export failed: {err}"))
}

fn name(text: &str) -> Option<CString> {
    // The protocol's fixed names, which have no NUL byte.
    CString::new(text).ok()
}

/// A capsule named `arrow_schema` holding `schema`.
pub(crate) fn schema_capsule<'py>(
    py: Python<'py>,
    schema: &SchemaRef,
) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref()).map_err(arrow_err)?;
    // The consumer moves the schema out (clearing its `release`); if it
    // never does, dropping the capsule releases it.
    PyCapsule::new(py, ffi, name("arrow_schema"))
}

/// `(arrow_schema, arrow_array)` capsules for one record batch, as a
/// struct array (the protocol's form of a record batch).
pub(crate) fn batch_capsules<'py>(
    py: Python<'py>,
    batch: &RecordBatch,
) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
    let schema = schema_capsule(py, &batch.schema())?;
    let array = StructArray::from(batch.clone());
    let ffi = FFI_ArrowArray::new(&array.to_data());
    Ok((schema, PyCapsule::new(py, ffi, name("arrow_array"))?))
}

/// A capsule named `arrow_array_stream` over `batches`, all of `schema`.
pub(crate) fn stream_capsule<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let ffi = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new(py, ffi, name("arrow_array_stream"))
}
