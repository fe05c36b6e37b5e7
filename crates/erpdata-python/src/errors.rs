//! Core errors become instances of the classes in `erpdata._errors`,
//! through one conversion: the glue's functions return [`Result`], whose
//! error holds either a core error or a Python one, and pyo3 turns it into
//! a raised exception with `From<Failure> for PyErr` (as polars'
//! `From<PyPolarsErr> for PyErr`). No function wraps core results by hand.
//!
//! The classes live in Python so users can subclass-check, pickle and
//! document them like any Python exception; the glue only fills them in.

use erpdata::{Error, TransportKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// What a glue function can fail with: the core's error (raised as the
/// matching `ErpError` subclass) or a Python exception already made.
pub(crate) enum Failure {
    Core(Error),
    Python(PyErr),
}

/// A glue function's result: `?` takes both core and Python errors.
pub(crate) type Result<T> = std::result::Result<T, Failure>;

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Failure::Core(err)
    }
}

impl From<PyErr> for Failure {
    fn from(err: PyErr) -> Self {
        Failure::Python(err)
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Python(err) => err,
            Failure::Core(err) => Python::attach(|py| match exception(py, &err) {
                Ok(instance) => PyErr::from_value(instance),
                Err(import_failure) => import_failure,
            }),
        }
    }
}

/// The exception instance for `err` (not raised): its message is the
/// core's `Display` (already redacted), its attributes the variant's
/// fields, its kind's name, whether it may pass if tried later (and the
/// wait a status error's answer asked for) and where the call stood
/// (`CallInfo`), if a call made it.
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
            kwargs.set_item("retry_after", err.retry_after().map(|d| d.as_secs_f64()))?;
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
            reason,
            excerpt,
            excerpt_at,
            ..
        } => {
            kwargs.set_item("reason", reason)?;
            kwargs.set_item("excerpt", excerpt)?;
            kwargs.set_item("excerpt_at", excerpt_at)?;
            "DecodeError"
        }
        // The enum is non-exhaustive: a variant added to the core still
        // reaches Python as an ErpError with the core's message.
        _ => "ErpError",
    };
    kwargs.set_item("kind", err.kind())?;
    kwargs.set_item("retryable", err.is_retryable())?;
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
