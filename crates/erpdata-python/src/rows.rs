//! Arrow record batches as Python row dicts: the row API of a table is
//! read from the same typed columns as its DataFrames.
//!
//! Types only: `None`, `bool`, `int`, `decimal.Decimal` (the column's
//! exact value at its scale), `str` (dates as `YYYY-MM-DD`, as sent), and
//! for JSON columns the value `json.loads` gives with `Decimal` floats.

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Decimal128Type, Int64Type};
use arrow_array::{Array, BooleanArray, Date32Array, Decimal128Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static JSON_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn cached<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    module: &str,
    attr: &str,
) -> PyResult<Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import(module)?.getattr(attr)?.unbind())
    })
    .map(|o| o.bind(py).clone())
}

/// Whether `field` holds JSON texts rather than plain strings.
pub(crate) fn is_json(field: &Field) -> bool {
    field
        .metadata()
        .get(erpdata::TYPE_METADATA_KEY)
        .is_some_and(|v| v == erpdata::JSON_TYPE)
}

/// Reads one column's values as Python objects.
enum Reader<'a, 'py> {
    Null,
    Bool(&'a BooleanArray),
    Int(&'a Int64Array),
    Decimal(&'a Decimal128Array),
    /// The last date made, reused: dates repeat from row to row.
    Date(&'a Date32Array, Option<(i32, Bound<'py, PyString>)>),
    /// The last string made, reused for a repeat (currencies, names).
    Str(&'a StringArray, Option<(usize, Bound<'py, PyString>)>),
    Json(&'a StringArray),
}

struct Context<'py> {
    py: Python<'py>,
    decimal: Bound<'py, PyAny>,
    json_loads: Bound<'py, PyAny>,
    json_kwargs: Bound<'py, PyDict>,
}

impl<'py> Context<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let decimal = cached(py, &DECIMAL, "decimal", "Decimal")?;
        let json_kwargs = PyDict::new(py);
        json_kwargs.set_item("parse_float", &decimal)?;
        Ok(Context {
            py,
            json_loads: cached(py, &JSON_LOADS, "json", "loads")?,
            decimal,
            json_kwargs,
        })
    }
}

impl<'a, 'py> Reader<'a, 'py> {
    fn new(array: &'a dyn Array, field: &Field) -> Self {
        match array.data_type() {
            DataType::Boolean => Reader::Bool(array.as_boolean()),
            DataType::Int64 => Reader::Int(array.as_primitive::<Int64Type>()),
            DataType::Decimal128(..) => Reader::Decimal(array.as_primitive::<Decimal128Type>()),
            DataType::Date32 => Reader::Date(array.as_primitive::<Date32Type>(), None),
            DataType::Utf8 if is_json(field) => Reader::Json(array.as_string::<i32>()),
            DataType::Utf8 => Reader::Str(array.as_string::<i32>(), None),
            // The tables the decoder makes have no other types.
            _ => Reader::Null,
        }
    }

    fn value(&mut self, cx: &Context<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let py = cx.py;
        let none = || Ok(py.None().into_bound(py));
        match self {
            Reader::Null => none(),
            Reader::Bool(a) if a.is_valid(i) => Ok(PyBool::new(py, a.value(i)).to_owned().into_any()),
            Reader::Int(a) if a.is_valid(i) => Ok(a.value(i).into_pyobject(py)?.into_any()),
            // Scale 0: integers too big for `int64`, which Python's `int`
            // holds exactly (a fraction anywhere makes the scale above 0).
            Reader::Decimal(a) if a.is_valid(i) && a.scale() == 0 => {
                Ok(a.value(i).into_pyobject(py)?.into_any())
            }
            Reader::Decimal(a) if a.is_valid(i) => cx.decimal.call1((a.value_as_string(i),)),
            Reader::Date(a, last) if a.is_valid(i) => {
                let days = a.value(i);
                if let Some((d, s)) = last {
                    if *d == days {
                        return Ok(s.clone().into_any());
                    }
                }
                let text = match a.value_as_date(i) {
                    Some(date) => date.to_string(),
                    None => return none(),
                };
                let s = PyString::new(py, &text);
                *last = Some((days, s.clone()));
                Ok(s.into_any())
            }
            Reader::Str(a, last) if a.is_valid(i) => {
                let text = a.value(i);
                if let Some((j, s)) = last {
                    if a.value(*j) == text {
                        return Ok(s.clone().into_any());
                    }
                }
                let s = PyString::new(py, text);
                *last = Some((i, s.clone()));
                Ok(s.into_any())
            }
            Reader::Json(a) if a.is_valid(i) => cx
                .json_loads
                .call((a.value(i),), Some(&cx.json_kwargs)),
            _ => none(),
        }
    }
}

/// Appends rows `start..stop` of `batch` to `out` as dicts keyed by `keys`
/// (one shared `str` per column, in the batch's column order).
pub(crate) fn append_rows<'py>(
    py: Python<'py>,
    batch: &RecordBatch,
    keys: &[Bound<'py, PyString>],
    start: usize,
    stop: usize,
    out: &Bound<'py, PyList>,
) -> PyResult<()> {
    let cx = Context::new(py)?;
    let schema = batch.schema();
    let mut readers: Vec<Reader<'_, 'py>> = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(a, f)| Reader::new(a.as_ref(), f))
        .collect();
    for i in start..stop.min(batch.num_rows()) {
        let dict = PyDict::new(py);
        for (key, reader) in keys.iter().zip(readers.iter_mut()) {
            dict.set_item(key, reader.value(&cx, i)?)?;
        }
        out.append(dict)?;
    }
    Ok(())
}

/// One interned `str` per column name of `batch`.
pub(crate) fn keys<'py>(py: Python<'py>, batch: &RecordBatch) -> Vec<Bound<'py, PyString>> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| PyString::intern(py, f.name()))
        .collect()
}
