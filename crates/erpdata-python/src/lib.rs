//! pyo3 glue: the native module `erpdata._core`.
//!
//! It converts types between Python and the core and nothing else: every
//! rule of the wire format (encoding, validation, parsing, redaction) lives
//! in the `erpdata` crate, so Python behaves exactly like Rust and JS.

use pyo3::prelude::*;

mod capsules;
mod collector;
mod config;
mod convert;
mod errors;
mod retry;
mod rows;
mod table;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<config::Config>()?;
    m.add_class::<config::Request>()?;
    m.add_class::<retry::RetryPolicy>()?;
    m.add_class::<table::TableDecoder>()?;
    m.add_class::<collector::TableCollector>()?;
    m.add_class::<table::Batch>()?;
    m.add_class::<table::TableData>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
