//! Python values as the core's [`Arg`]s, by shape only: what each
//! operation takes, and every message about it, is the catalogue's.

use erpdata::{Arg, Args};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyString};

use crate::convert::cached;
use crate::errors::Result;

static DATE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DATETIME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static MAPPING: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ENUM: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `value` as an argument, or `None` for Python's `None` (not given).
///
/// `str` is text (a lone surrogate, which UTF-8 cannot carry, is refused
/// by the core as a value of an unsupported type); `bool` a flag (before
/// `int`, of which it is a subclass); `int` an integer, or one beyond i64
/// its decimal text (an account id of any size is sent as written, as
/// before the catalogue); a `datetime` its ISO text as a date and time, a `date`
/// its `YYYY-MM-DD`; an enum member its value; a mapping name/value pairs
/// in order; any other iterable but `bytes` a list.
pub(crate) fn arg(value: &Bound<'_, PyAny>) -> Result<Option<Arg>> {
    let py = value.py();
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Some(match text.to_cow() {
            Ok(t) => Arg::Text(t.into_owned()),
            Err(_) => Arg::Unsupported("str with a lone surrogate".to_owned()),
        }));
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Some(Arg::Flag(flag.is_true())));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(Some(match value.extract::<i64>() {
            Ok(n) => Arg::Int(n),
            // `int.__repr__`: the digits even for a subclass whose `str`
            // says otherwise (IntEnum before 3.11); past Python's digit
            // limit for text, an unsupported value.
            Err(_) => match py
                .get_type::<PyInt>()
                .call_method1("__repr__", (value,))
                .and_then(|r| r.extract::<String>())
            {
                Ok(digits) => Arg::Text(digits),
                Err(_) => Arg::Unsupported("int".to_owned()),
            },
        }));
    }
    // A str-valued enum (DuesKind) is its value; others by their value too.
    if value.is_instance(&cached(py, &ENUM, "enum", "Enum")?)? {
        return arg(&value.getattr("value")?);
    }
    if value.is_instance(&cached(py, &DATETIME, "datetime", "datetime")?)? {
        let iso: String = value.call_method0("isoformat")?.extract()?;
        return Ok(Some(Arg::DateTime(iso)));
    }
    if value.is_instance(&cached(py, &DATE, "datetime", "date")?)? {
        let iso: String = value.call_method0("isoformat")?.extract()?;
        return Ok(Some(Arg::Text(iso)));
    }
    if value.is_instance(&cached(py, &MAPPING, "collections.abc", "Mapping")?)? {
        let mut pairs = Vec::new();
        for item in value.call_method0("items")?.try_iter()? {
            let (name, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            let name = match name.cast::<PyString>() {
                Ok(n) => n.to_cow()?.into_owned(),
                Err(_) => {
                    return Ok(Some(Arg::Unsupported(format!(
                        "mapping with a {} key",
                        type_name(&name)
                    ))))
                }
            };
            let v = arg(&v)?.unwrap_or_else(|| Arg::Unsupported("NoneType".to_owned()));
            pairs.push((name, v));
        }
        return Ok(Some(Arg::Pairs(pairs)));
    }
    let bytes = value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyByteArray>();
    if !bytes {
        if let Ok(items) = value.try_iter() {
            let mut list = Vec::new();
            for item in items {
                let item = item?;
                list.push(arg(&item)?.unwrap_or_else(|| Arg::Unsupported("NoneType".to_owned())));
            }
            return Ok(Some(Arg::List(list)));
        }
    }
    Ok(Some(Arg::Unsupported(type_name(value))))
}

/// `value` as an argument that must be given (`None` is a value of type
/// `NoneType`, for the core to refuse).
pub(crate) fn given(value: &Bound<'_, PyAny>) -> Result<Arg> {
    Ok(arg(value)?.unwrap_or_else(|| Arg::Unsupported("NoneType".to_owned())))
}

/// Named arguments from a dict of names to values; `None` values are
/// left out.
pub(crate) fn args(values: &Bound<'_, PyDict>) -> Result<Args> {
    let mut out = Args::new();
    for (name, value) in values.iter() {
        let name: String = name.extract()?;
        if let Some(value) = arg(&value)? {
            out.set(name, value);
        }
    }
    Ok(out)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |n| n.to_string())
}
