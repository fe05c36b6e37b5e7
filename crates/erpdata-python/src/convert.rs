//! Python <-> core value conversions. Types only: no wire rules here.

use std::collections::HashMap;

use erpdata::{AjaxAnswer, AjaxValue, Cell, ColumnType, Dues, Error, Id, Row, Schema};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::table::TableData;

/// `InvalidInput` for an argument of the wrong Python type. Built as a core
/// error so the message has the core's shape and the class mapping is one.
fn wrong_type(field: &str, expected: &str, obj: &Bound<'_, PyAny>) -> Error {
    let got = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".to_owned());
    Error::InvalidInput {
        field: field.to_owned(),
        reason: format!("must be {expected}, got {got}"),
    }
}

/// A `str` argument's text. A lone surrogate cannot go on the wire as
/// UTF-8, so it is reported against the field rather than as a codec error.
pub(crate) fn text(field: &str, obj: &Bound<'_, PyAny>) -> Result<String, Error> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| wrong_type(field, "a string", obj))?;
    s.to_cow()
        .map(|c| c.into_owned())
        .map_err(|_| Error::InvalidInput {
            field: field.to_owned(),
            reason: "is not valid Unicode text (it contains a lone surrogate)".to_owned(),
        })
}

/// An id (`acid`, `company_id`, `year_id`): a `str` as given, an `int` as
/// its decimal text. `bool` is an `int` subclass in Python but never an id.
pub(crate) fn id(field: &str, obj: &Bound<'_, PyAny>) -> Result<Id, Error> {
    if obj.is_instance_of::<PyString>() {
        return text(field, obj).map(Id::from);
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        if let Ok(n) = obj.extract::<i64>() {
            return Ok(Id::from(n));
        }
        // Beyond i64: `int.__repr__` is the decimal text even for subclasses
        // whose `__str__` says something else (IntEnum on Python < 3.11).
        let py = obj.py();
        if let Ok(s) = py
            .get_type::<PyInt>()
            .call_method1("__repr__", (obj,))
            .and_then(|r| r.extract::<String>())
        {
            return Ok(Id::from(s));
        }
    }
    Err(wrong_type(field, "a string or an integer", obj))
}

/// An optional id; Python `None` means "not given".
pub(crate) fn opt_id(field: &str, obj: Option<&Bound<'_, PyAny>>) -> Result<Option<Id>, Error> {
    obj.filter(|o| !o.is_none())
        .map(|o| id(field, o))
        .transpose()
}

/// An optional string; Python `None` means "not given".
pub(crate) fn opt_text(
    field: &str,
    obj: Option<&Bound<'_, PyAny>>,
) -> Result<Option<String>, Error> {
    obj.filter(|o| !o.is_none())
        .map(|o| text(field, o))
        .transpose()
}

/// `decimal.Decimal` and `json.loads`, looked up once.
pub(crate) static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
pub(crate) static JSON_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DATE_FROM_ISO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DATETIME_FROM_ISO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `datetime.date.fromisoformat` (`date: true`) or
/// `datetime.datetime.fromisoformat`, looked up once: from the core's
/// canonical text (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.ffffff]`) they make
/// a value in about half the time of the constructors, whose keyword
/// parsing dominates (Python 3.7+ reads exactly these forms).
pub(crate) fn from_iso(py: Python<'_>, date: bool) -> PyResult<Bound<'_, PyAny>> {
    let (cell, class) = if date {
        (&DATE_FROM_ISO, "date")
    } else {
        (&DATETIME_FROM_ISO, "datetime")
    };
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("datetime")?
                .getattr(class)?
                .getattr("fromisoformat")?
                .unbind(),
        )
    })
    .map(|o| o.bind(py).clone())
}
static MODELS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
static KINDS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The attribute `attr` of `module`, imported once into `cell`.
pub(crate) fn cached<'py>(
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

static MAKE_DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A callable turning decimal text into a `decimal.Decimal` with exactly
/// those digits and that exponent: `create_decimal` of a private context
/// whose precision and exponent range are the largest there are, so it
/// never rounds. It costs about a quarter less per value than calling
/// `Decimal(text)`, which parses keyword arguments and looks up the
/// thread's context each time — a million-row table makes millions.
pub(crate) fn make_decimal(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    MAKE_DECIMAL
        .get_or_try_init(py, || {
            let decimal = py.import("decimal")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("prec", decimal.getattr("MAX_PREC")?)?;
            kwargs.set_item("Emax", decimal.getattr("MAX_EMAX")?)?;
            kwargs.set_item("Emin", decimal.getattr("MIN_EMIN")?)?;
            let context = decimal.getattr("Context")?.call((), Some(&kwargs))?;
            Ok::<_, PyErr>(context.getattr("create_decimal")?.unbind())
        })
        .map(|o| o.bind(py).clone())
}

fn module<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyModule>>,
    name: &str,
) -> PyResult<Bound<'py, PyModule>> {
    cell.get_or_try_init(py, || py.import(name).map(Bound::unbind))
        .map(|m| m.bind(py).clone())
}

/// Turns rows into dicts, reusing one Python `str` per column name, each
/// value of the Python type its column's type gives.
struct Rows<'py> {
    py: Python<'py>,
    decimal: Bound<'py, PyAny>,
    json_loads: Bound<'py, PyAny>,
    json_kwargs: Bound<'py, PyDict>,
    /// Column names in first-seen order, and where each one is.
    order: Vec<(String, Bound<'py, PyString>)>,
    index: HashMap<String, usize>,
    /// The type of each column of `order` (`None`: unknown).
    types: Vec<Option<ColumnType>>,
    date_from_iso: Bound<'py, PyAny>,
    datetime_from_iso: Bound<'py, PyAny>,
}

impl<'py> Rows<'py> {
    fn new(py: Python<'py>, columns: &[String], schema: &Schema) -> PyResult<Self> {
        let decimal = cached(py, &DECIMAL, "decimal", "Decimal")?;
        let json_kwargs = PyDict::new(py);
        // Floats inside nested JSON stay exact too.
        json_kwargs.set_item("parse_float", &decimal)?;
        let mut rows = Rows {
            py,
            json_loads: cached(py, &JSON_LOADS, "json", "loads")?,
            decimal,
            json_kwargs,
            order: Vec::with_capacity(columns.len()),
            index: HashMap::with_capacity(columns.len()),
            types: Vec::with_capacity(columns.len()),
            date_from_iso: from_iso(py, true)?,
            datetime_from_iso: from_iso(py, false)?,
        };
        for c in columns {
            rows.key(usize::MAX, c);
        }
        for (name, ty) in schema {
            let (_, i) = rows.key(usize::MAX, name);
            rows.types[i] = Some(*ty);
        }
        Ok(rows)
    }

    /// The shared `str` for `name`, and its column's index. Rows usually
    /// list their fields in column order, so position `at` is tried before
    /// hashing.
    fn key(&mut self, at: usize, name: &str) -> (Bound<'py, PyString>, usize) {
        if let Some((n, s)) = self.order.get(at) {
            if n == name {
                return (s.clone(), at);
            }
        }
        if let Some(&i) = self.index.get(name) {
            return (self.order[i].1.clone(), i);
        }
        let s = PyString::new(self.py, name);
        let i = self.order.len();
        self.index.insert(name.to_owned(), i);
        self.order.push((name.to_owned(), s.clone()));
        self.types.push(None);
        (s, i)
    }

    /// `cell` as its column's type `ty` gives it: a date or timestamp
    /// column's text as `datetime.date` / `datetime.datetime`, a decimal
    /// with a fraction as `Decimal` even when sent without one (`1500` in
    /// a column of `1500.50`); else as [`Rows::cell`].
    fn typed(&self, cell: &Cell, ty: Option<ColumnType>) -> PyResult<Bound<'py, PyAny>> {
        match (cell, ty) {
            // The core's canonical text of the column's type.
            (Cell::String(s), Some(ColumnType::Date)) => self.date_from_iso.call1((s.as_str(),)),
            (Cell::String(s), Some(ColumnType::Timestamp)) => {
                self.datetime_from_iso.call1((s.as_str(),))
            }
            (Cell::Number(t), Some(ColumnType::Decimal { scale, .. })) if scale > 0 => {
                self.decimal.call1((t.as_str(),))
            }
            _ => self.cell(cell),
        }
    }

    fn cell(&self, cell: &Cell) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match cell {
            Cell::Null => py.None().into_bound(py),
            Cell::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Cell::Int(n) => n.into_pyobject(py)?.into_any(),
            Cell::Number(t) => self.number(t)?,
            Cell::String(s) => PyString::new(py, s).into_any(),
            Cell::Json(t) => self
                .json_loads
                .call((t.as_str(),), Some(&self.json_kwargs))?,
        })
    }

    /// An integer literal too big for `i64` (or `-0`) is a Python `int`,
    /// as `json.loads` would give; any other number is an exact `Decimal`
    /// (`Decimal("1234.50")` keeps both places). Only the Python type is
    /// chosen here: the text is the core's, unchanged.
    fn number(&self, text: &str) -> PyResult<Bound<'py, PyAny>> {
        if !text.contains(['.', 'e', 'E']) {
            // Fails only past Python's int digit limit; Decimal has none.
            if let Ok(n) = self.py.get_type::<PyInt>().call1((text,)) {
                return Ok(n);
            }
        }
        self.decimal.call1((text,))
    }

    fn list(&mut self, rows: &[Row]) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(self.py);
        for row in rows {
            let dict = PyDict::new(self.py);
            for (i, (name, value)) in row.fields.iter().enumerate() {
                let (key, column) = self.key(i, name);
                dict.set_item(key, self.typed(value, self.types[column])?)?;
            }
            list.append(dict)?;
        }
        Ok(list)
    }
}

/// `(rows, columns, notices)` of a table parsed row by row.
#[cfg(feature = "testing")]
pub(crate) fn table_rows<'py>(
    py: Python<'py>,
    table: &erpdata::Table,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut rows = Rows::new(py, &table.columns, &table.schema)?;
    let list = rows.list(&table.rows)?;
    let columns: Vec<Bound<'py, PyString>> = rows.order.iter().map(|(_, s)| s.clone()).collect();
    PyTuple::new(
        py,
        [
            list.into_any(),
            PyList::new(py, columns)?.into_any(),
            PyList::new(py, &table.notices)?.into_any(),
        ],
    )
}

/// An `erpdata.Table` (from `erpdata._models`) over typed columns.
pub(crate) fn table_model(py: Python<'_>, data: TableData) -> PyResult<Bound<'_, PyAny>> {
    module(py, &MODELS, "erpdata._models")?
        .getattr("Table")?
        .call1((Py::new(py, data)?,))
}

/// A parsed dues answer as the core holds it, kept by `erpdata.Dues` so
/// that its rows can become Arrow columns and tables of many accounts.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct DuesData {
    pub(crate) inner: Dues,
}

#[pymethods]
impl DuesData {
    /// The rows as an `erpdata.Table` (typed columns).
    fn table<'py>(&self, py: Python<'py>) -> crate::errors::Result<Bound<'py, PyAny>> {
        let data = TableData::build(self.inner.batches.clone(), self.inner.notices.clone())?;
        Ok(table_model(py, data)?)
    }

    fn __repr__(&self) -> String {
        format!("<DuesData: {} rows>", self.inner.rows.len())
    }
}

/// An `erpdata.AjaxAnswer` (from `erpdata._models`): its shape, the typed
/// rows, fields or value, and the rows as a table when it has rows.
pub(crate) fn ajax_answer(
    py: Python<'_>,
    answer: AjaxAnswer,
) -> crate::errors::Result<Bound<'_, PyAny>> {
    let kwargs = PyDict::new(py);
    let schema_list = |schema: &Schema| -> PyResult<Bound<'_, PyList>> {
        PyList::new(
            py,
            schema
                .iter()
                .map(|(n, t)| PyTuple::new(py, [n.clone(), t.name()]))
                .collect::<PyResult<Vec<_>>>()?,
        )
    };
    match answer.value {
        AjaxValue::Rows(typed) => {
            let mut rows = Rows::new(py, &[], &typed.schema)?;
            kwargs.set_item("shape", "rows")?;
            kwargs.set_item("rows", rows.list(&typed.rows)?)?;
            kwargs.set_item("schema", schema_list(&typed.schema)?)?;
            let data = TableData::typed(typed)?;
            kwargs.set_item("data", table_model(py, data)?)?;
        }
        AjaxValue::Object { schema, fields } => {
            let mut rows = Rows::new(py, &[], &schema)?;
            let list = rows.list(std::slice::from_ref(&fields))?;
            kwargs.set_item("shape", "object")?;
            kwargs.set_item("fields", list.get_item(0)?)?;
            kwargs.set_item("schema", schema_list(&schema)?)?;
        }
        AjaxValue::Value { column_type, cell } => {
            let schema = vec![("value".to_owned(), column_type)];
            let rows = Rows::new(py, &[], &schema)?;
            kwargs.set_item("shape", "value")?;
            kwargs.set_item("value", rows.typed(&cell, Some(column_type))?)?;
            kwargs.set_item("schema", schema_list(&schema)?)?;
        }
    }
    kwargs.set_item("func", &answer.func)?;
    kwargs.set_item("raw", &answer.raw)?;
    kwargs.set_item("notices", PyList::new(py, &answer.notices)?)?;
    Ok(module(py, &MODELS, "erpdata._models")?
        .getattr("AjaxAnswer")?
        .call((), Some(&kwargs))?)
}

/// An `erpdata.Dues` (from `erpdata._models`) for parsed dues.
pub(crate) fn dues<'py>(py: Python<'py>, dues: &Dues) -> PyResult<Bound<'py, PyAny>> {
    let mut rows = Rows::new(py, &[], &dues.schema)?;
    let kind = module(py, &KINDS, "erpdata._kinds")?
        .getattr("DuesKind")?
        .call1((dues.kind.as_str(),))?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("acid", dues.acid.as_str())?;
    kwargs.set_item("kind", kind)?;
    kwargs.set_item("rows", rows.list(&dues.rows)?)?;
    kwargs.set_item("raw", &dues.raw)?;
    kwargs.set_item("notices", PyList::new(py, &dues.notices)?)?;
    kwargs.set_item(
        "_data",
        Py::new(
            py,
            DuesData {
                inner: dues.clone(),
            },
        )?,
    )?;
    module(py, &MODELS, "erpdata._models")?
        .getattr("Dues")?
        .call((), Some(&kwargs))
}
