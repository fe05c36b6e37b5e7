//! Arrow record batches as Python row dicts: the row API of a table is
//! read from the same typed columns as its DataFrames.
//!
//! Types only: `None`, `bool`, `int`, `decimal.Decimal` (the column's
//! exact value at its scale), `datetime.date`, `datetime.datetime` (naive,
//! to the microsecond), `str`, and for JSON columns the value `json.loads`
//! gives with `Decimal` floats.

use ahash::AHashMap as HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Decimal128Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{
    Array, BooleanArray, Date32Array, Decimal128Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDate, PyDict, PyList, PyString};

use erpdata::Interner;

use crate::convert::{cached, from_iso, DECIMAL, JSON_LOADS};
use crate::datetime_api::DateTimeApi;
use crate::decimal_layout::DecimalMaker;

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
    /// Decimals made so far, reused for a repeat (prices, rates, zero).
    Decimal(&'a Decimal128Array, Decimals<'py>),
    /// Dates repeat from row to row: each distinct one is made once.
    Date(&'a Date32Array, Dates<'py>),
    /// Timestamps, made per row (mostly distinct), the last one reused.
    Timestamp(
        &'a TimestampMicrosecondArray,
        Option<(i64, Bound<'py, PyAny>)>,
    ),
    /// Strings made so far, reused for a repeat (currencies, names).
    Str(&'a StringArray, Strings<'a, 'py>),
    Json(&'a StringArray),
}

/// A column's strings made so far, while that pays: a column of mostly
/// distinct values (invoice numbers) stops being cached after a while.
/// Numbered by the core's [`Interner`], as the core's dictionaries are.
pub(crate) struct Strings<'a, 'py> {
    seen: Option<Interner<'a>>,
    /// The string of each number.
    made: Vec<Bound<'py, PyString>>,
}

/// Distinct values cached per column at most.
const VALUES_CACHED: usize = 4096;

impl<'a, 'py> Strings<'a, 'py> {
    fn new() -> Self {
        Strings {
            seen: Some(Interner::new()),
            made: Vec::new(),
        }
    }

    fn get(&mut self, py: Python<'py>, array: &'a StringArray, i: usize) -> Bound<'py, PyString> {
        let text = array.value(i);
        let Some(seen) = self.seen.as_mut() else {
            return PyString::new(py, text);
        };
        let id = seen.intern(text.as_bytes()) as usize;
        if let Some(s) = self.made.get(id) {
            return s.clone();
        }
        let s = PyString::new(py, text);
        if self.made.len() < VALUES_CACHED {
            self.made.push(s.clone());
        } else {
            // Mostly distinct: stop numbering.
            self.seen = None;
            self.made = Vec::new();
        }
        s
    }
}

/// A column's dates made so far, by day in a direct-mapped table: a
/// table's dates fall within a few years, and a slot is one load and a
/// compare where a map hashes every day.
pub(crate) struct Dates<'py> {
    slots: Vec<Option<(i32, Bound<'py, PyAny>)>>,
}

/// Slots of [`Dates`]: nearly three years of days, each in a slot of its own.
const DATE_SLOTS: usize = 1024;

impl<'py> Dates<'py> {
    fn new() -> Self {
        Dates {
            slots: vec![None; DATE_SLOTS],
        }
    }

    fn get(&mut self, cx: &Context<'py>, days: i32) -> PyResult<Bound<'py, PyAny>> {
        let slot = &mut self.slots[days.rem_euclid(DATE_SLOTS as i32) as usize];
        if let Some((d, date)) = slot {
            if *d == days {
                return Ok(date.clone());
            }
        }
        let made = cx.date(days)?;
        *slot = Some((days, made.clone()));
        Ok(made)
    }
}

/// A column's `Decimal`s made so far, while that pays (`Decimal` is
/// immutable, so a repeat can share one: same digits, same exponent). A
/// column of mostly distinct amounts stops being cached after a while.
pub(crate) struct Decimals<'py> {
    made: Option<HashMap<i128, Bound<'py, PyAny>>>,
    misses: usize,
}

impl<'py> Decimals<'py> {
    fn new() -> Self {
        Decimals {
            made: Some(HashMap::default()),
            misses: 0,
        }
    }

    fn get(&mut self, cx: &Context<'py>, value: i128, scale: i8) -> PyResult<Bound<'py, PyAny>> {
        if let Some(d) = self.made.as_ref().and_then(|m| m.get(&value)) {
            return Ok(d.clone());
        }
        let d = cx.decimals.make(value, scale)?;
        self.misses += 1;
        if self.misses > VALUES_CACHED {
            self.made = None;
        } else if let Some(m) = self.made.as_mut() {
            m.insert(value, d.clone());
        }
        Ok(d)
    }
}

struct Context<'py> {
    py: Python<'py>,
    decimals: DecimalMaker<'py>,
    json_loads: Bound<'py, PyAny>,
    json_kwargs: Bound<'py, PyDict>,
    /// Dates and datetimes from their parts where the C API was checked;
    /// else from text.
    api: Option<DateTimeApi>,
    datetime_from_iso: Bound<'py, PyAny>,
}

impl<'py> Context<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let decimal = cached(py, &DECIMAL, "decimal", "Decimal")?;
        let json_kwargs = PyDict::new(py);
        json_kwargs.set_item("parse_float", &decimal)?;
        Ok(Context {
            py,
            json_loads: cached(py, &JSON_LOADS, "json", "loads")?,
            decimals: DecimalMaker::new(py)?,
            json_kwargs,
            api: DateTimeApi::get(py)?,
            datetime_from_iso: from_iso(py, false)?,
        })
    }

    /// The `datetime.date` of `days` since 1970-01-01.
    fn date(&self, days: i32) -> PyResult<Bound<'py, PyAny>> {
        let (y, m, d) = erpdata::civil_from_days(days);
        let y = year(i64::from(y))?;
        match &self.api {
            Some(api) => api.date(self.py, (y, m, d)),
            // Month and day are 1–12 and 1–31.
            None => Ok(PyDate::new(self.py, y, m as u8, d as u8)?.into_any()),
        }
    }

    /// A naive `datetime.datetime` of `micros` since 1970-01-01 00:00:00:
    /// from its parts, or else from its canonical text (see [`from_iso`]).
    fn datetime(&self, micros: i64) -> PyResult<Bound<'py, PyAny>> {
        if let Some(api) = &self.api {
            return api.datetime(self.py, micros);
        }
        let mut text = String::with_capacity(26);
        erpdata::write_timestamp(micros, &mut text);
        self.datetime_from_iso.call1((text.as_str(),))
    }
}

impl<'a, 'py> Reader<'a, 'py> {
    fn new(array: &'a dyn Array, field: &Field) -> Self {
        match array.data_type() {
            DataType::Boolean => Reader::Bool(array.as_boolean()),
            DataType::Int64 => Reader::Int(array.as_primitive::<Int64Type>()),
            DataType::Decimal128(..) => {
                Reader::Decimal(array.as_primitive::<Decimal128Type>(), Decimals::new())
            }
            DataType::Date32 => Reader::Date(array.as_primitive::<Date32Type>(), Dates::new()),
            DataType::Timestamp(TimeUnit::Microsecond, None) => {
                Reader::Timestamp(array.as_primitive::<TimestampMicrosecondType>(), None)
            }
            DataType::Utf8 if is_json(field) => Reader::Json(array.as_string::<i32>()),
            DataType::Utf8 => Reader::Str(array.as_string::<i32>(), Strings::new()),
            // The tables the decoder makes have no other types.
            _ => Reader::Null,
        }
    }

    /// The value of row `i`; `None` for a null.
    fn value(&mut self, cx: &Context<'py>, i: usize) -> PyResult<Option<Bound<'py, PyAny>>> {
        let py = cx.py;
        let none = || Ok(None);
        let some = |v: Bound<'py, PyAny>| Ok(Some(v));
        match self {
            Reader::Null => none(),
            Reader::Bool(a) if a.is_valid(i) => {
                some(PyBool::new(py, a.value(i)).to_owned().into_any())
            }
            Reader::Int(a) if a.is_valid(i) => some(a.value(i).into_pyobject(py)?.into_any()),
            // Scale 0: integers too big for `int64`, which Python's `int`
            // holds exactly (a fraction anywhere makes the scale above 0).
            Reader::Decimal(a, _) if a.is_valid(i) && a.scale() == 0 => {
                some(a.value(i).into_pyobject(py)?.into_any())
            }
            Reader::Decimal(a, made) if a.is_valid(i) => {
                made.get(cx, a.value(i), a.scale()).map(Some)
            }
            Reader::Date(a, made) if a.is_valid(i) => some(made.get(cx, a.value(i))?),
            Reader::Timestamp(a, last) if a.is_valid(i) => {
                let micros = a.value(i);
                if let Some((m, t)) = last {
                    if *m == micros {
                        return some(t.clone().into_any());
                    }
                }
                let t = cx.datetime(micros)?;
                *last = Some((micros, t.clone()));
                some(t.into_any())
            }
            Reader::Str(a, made) if a.is_valid(i) => some(made.get(py, a, i).into_any()),
            Reader::Json(a) if a.is_valid(i) => cx
                .json_loads
                .call((a.value(i),), Some(&cx.json_kwargs))
                .map(Some),
            _ => none(),
        }
    }
}

/// A year Python's `datetime` holds (1–9999; the core's dates are).
fn year(year: i64) -> PyResult<i32> {
    i32::try_from(year)
        .ok()
        .filter(|y| (1..=9999).contains(y))
        .ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "year {year} is out of the range of datetime"
            ))
        })
}

/// Rows made at a time by [`append_rows`].
const BLOCK_ROWS: usize = 256;

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
    // Every row has every key: each dict starts as a copy of one holding
    // them all (sized once, keys already hashed), then takes its values
    // in place.
    let template = PyDict::new(py);
    for key in keys {
        template.set_item(key, py.None())?;
    }
    // A block of rows at a time, filled column by column: each column's
    // arrays are read in order, and the block's dicts stay in cache.
    let stop = stop.min(batch.num_rows());
    let mut block: Vec<Bound<'py, PyDict>> = Vec::with_capacity(BLOCK_ROWS);
    let mut first = start;
    while first < stop {
        let last = (first + BLOCK_ROWS).min(stop);
        for _ in first..last {
            block.push(template.copy()?);
        }
        for (key, reader) in keys.iter().zip(readers.iter_mut()) {
            for (dict, i) in block.iter().zip(first..last) {
                if let Some(value) = reader.value(&cx, i)? {
                    dict.set_item(key, value)?;
                }
            }
        }
        for dict in block.drain(..) {
            out.append(dict)?;
        }
        first = last;
    }
    Ok(())
}

/// Turns Python's cyclic garbage collector off while it lives (if it was
/// on). Row dicts hold no cycles, yet making a million of them would
/// start a collection every few hundred, each walking the rows so far.
pub(crate) struct NoCollection<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> NoCollection<'py> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if gc.call_method0("isenabled")?.is_truthy()? {
            gc.call_method0("disable")?;
            return Ok(NoCollection { gc: Some(gc) });
        }
        Ok(NoCollection { gc: None })
    }
}

impl Drop for NoCollection<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            // Nothing to report it to; the worst case is a collector left
            // off, which only costs memory in cyclic programs.
            let _ = gc.call_method0("enable");
        }
    }
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
