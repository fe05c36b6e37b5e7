//! Core errors become instances of the classes in `erpdata._errors`.
//!
//! The classes live in Python so users can subclass-check, pickle and
//! document them like any Python exception; the glue only fills them in.

use erpdata::{Error, TransportKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The exception instance for `err`: its message is the core's `Display`
/// (already redacted), its attributes the variant's fields, its kind's
/// name and where the call stood (`CallInfo`), if a call made it.
pub(crate) fn exception<'py>(py: Python<'py>, err: &Error) -> PyResult<Bound<'py, PyAny>> {
    // Imported lazily: `erpdata/__init__.py` imports this module first.
    let module = ERRORS
        .get_or_try_init(py, || py.import("erpdata._errors").map(Bound::unbind))?
        .bind(py);
    let kwargs = PyDict::new(py);
    let class = match err {
        Error::InvalidInput { field, reason } => {
            kwargs.set_item("field", field)?;
            kwargs.set_item("reason", reason)?;
            "InvalidInputError"
        }
        Error::Transport { kind, message, .. } => {
            kwargs.set_item("transport_kind", kind.as_str())?;
            kwargs.set_item("message", message)?;
            match kind {
                TransportKind::Timeout => "TimeoutError",
                _ => "TransportError",
            }
        }
        Error::HttpStatus {
            status, excerpt, ..
        } => {
            kwargs.set_item("status_code", status)?;
            kwargs.set_item("excerpt", excerpt)?;
            "HttpStatusError"
        }
        Error::Service {
            status, message, ..
        } => {
            kwargs.set_item("status", status)?;
            kwargs.set_item("message", message)?;
            "ServiceError"
        }
        Error::Decode {
            reason, excerpt, ..
        } => {
            kwargs.set_item("reason", reason)?;
            kwargs.set_item("excerpt", excerpt)?;
            "DecodeError"
        }
        // The enum is non-exhaustive: a variant added to the core still
        // reaches Python as an ErpError with the core's message.
        _ => "ErpError",
    };
    kwargs.set_item("kind", err.kind())?;
    // Where the call stood, the same fields in every language.
    if let Some(info) = err.call() {
        kwargs.set_item("attempts", info.attempts)?;
        kwargs.set_item("url", &info.url)?;
        kwargs.set_item("rows_received", info.rows_received)?;
        kwargs.set_item("rows_delivered", info.rows_delivered)?;
    }
    module
        .getattr(class)?
        .call((err.to_string(),), Some(&kwargs))
}

/// `err` as a raisable `PyErr`.
pub(crate) fn to_py_err(py: Python<'_>, err: &Error) -> PyErr {
    match exception(py, err) {
        Ok(instance) => PyErr::from_value(instance),
        Err(import_failure) => import_failure,
    }
}

/// Lifts a core result into a Python one.
pub(crate) fn core<T>(py: Python<'_>, result: Result<T, Error>) -> PyResult<T> {
    result.map_err(|e| to_py_err(py, &e))
}
