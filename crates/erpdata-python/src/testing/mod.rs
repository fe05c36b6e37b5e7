//! `erpdata._core._testing`: classes and functions only the tests use (a
//! retry decision, the decoders fed by hand, a redirect decided alone,
//! rows parsed as sent). Built with the cargo feature `testing`, which
//! `make python` turns on and the released wheel does not.

mod collector;
mod decoder;
mod retry;

use erpdata::DecoderOptions;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::config::{Config, Request};
use crate::convert;
use crate::errors::Result;
use crate::table::TableData;
use crate::typing::Typing;

/// The request to send after a redirect answer: `None` when `status` is
/// not a redirect to follow; raises `HttpStatusError` for one the core
/// refuses (another origin, https to http, too many hops).
#[pyfunction]
#[pyo3(signature = (config, request, status, location, hops_done))]
fn follow_redirect(
    py: Python<'_>,
    config: &Config,
    request: &Request,
    status: u16,
    location: Option<&str>,
    hops_done: u32,
) -> Result<Option<Request>> {
    let core = config.core_config();
    let next = core.follow_redirect(request.core_request(), status, location, hops_done)?;
    Ok(next.map(|next| Request::new(py, core, next)))
}

/// A table answer parsed row by row: `(rows, columns, notices)`, rows
/// holding only the keys they had, each value of its column's type.
#[pyfunction]
#[pyo3(signature = (config, status, body, typing=None))]
fn parse_table_rows<'py>(
    py: Python<'py>,
    config: &Config,
    status: u16,
    body: &[u8],
    typing: Option<&Typing>,
) -> Result<Bound<'py, PyTuple>> {
    let core = config.core_config();
    let options = Typing::decoder_options(typing, DecoderOptions::default().batch_rows);
    let parsed = py.detach(|| core.parse_table_with(status, body, &options))?;
    Ok(convert::table_rows(py, &parsed)?)
}

/// The dues of many accounts joined as one `erpdata.Table` by the core
/// (what a `dues_table` plan does with its calls' answers), for answers
/// a plan cannot be asked for: dues of different kinds, which it refuses.
#[pyfunction]
#[pyo3(signature = (config, dues, typing=None))]
fn dues_table_of<'py>(
    py: Python<'py>,
    config: &Config,
    dues: Vec<PyRef<'py, convert::DuesData>>,
    typing: Option<&Typing>,
) -> Result<Bound<'py, PyAny>> {
    let all: Vec<erpdata::Dues> = dues.iter().map(|d| d.inner.clone()).collect();
    let core = config.core_config();
    let options = Typing::decoder_options(typing, DecoderOptions::default().batch_rows);
    let rows = py.detach(|| core.dues_table(&all, &options))?;
    Ok(convert::table_model(py, TableData::typed(rows)?)?)
}

/// Adds `_testing` to the native module (not to its `__all__`: the stubs
/// describe what every build has).
/// Sleeps `seconds` without the GIL, as the core's calls run: a thread
/// that is in the core while the interpreter exits, on demand.
#[pyfunction]
fn detached_sleep(py: Python<'_>, seconds: f64) {
    crate::exiting::detach(py, || {
        std::thread::sleep(std::time::Duration::from_secs_f64(seconds))
    });
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let testing = PyModule::new(m.py(), "_testing")?;
    testing.add_class::<retry::RetryPolicy>()?;
    testing.add_class::<decoder::TableDecoder>()?;
    testing.add_class::<collector::TableCollector>()?;
    testing.add_function(wrap_pyfunction!(follow_redirect, &testing)?)?;
    testing.add_function(wrap_pyfunction!(parse_table_rows, &testing)?)?;
    testing.add_function(wrap_pyfunction!(dues_table_of, &testing)?)?;
    testing.add_function(wrap_pyfunction!(detached_sleep, &testing)?)?;
    // Importable as `erpdata._core._testing` (`from ... import` looks in
    // `sys.modules`, as for any submodule of an extension).
    m.py()
        .import("sys")?
        .getattr("modules")?
        .set_item("erpdata._core._testing", &testing)?;
    m.setattr("_testing", testing)
}
