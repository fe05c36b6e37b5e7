//! pyo3 glue: the native module `erpdata._core`.
//!
//! It converts types between Python and the core and nothing else: every
//! rule of the wire format (encoding, validation, parsing, redaction) and
//! every operation and flow lives in the `erpdata` crate, so Python
//! behaves exactly like Rust and JS. One entry point starts anything:
//! `Config.invoke(operation, args)` gives an `Invocation` of the core's
//! catalogue, `Call.start` runs it; `Plan` runs the core's flows.

use pyo3::prelude::*;

mod args;
mod call;
mod capsules;
mod collector;
mod config;
mod convert;
mod datetime_api;
mod decimal_layout;
mod errors;
mod exiting;
mod finance;
mod invocation;
mod lent;
mod output;
mod plan;
mod rows;
mod table;
#[cfg(feature = "testing")]
mod testing;
mod typing;

/// Whether row dicts' `Decimal`s are built from their digits directly
/// (the layout probe passed on this interpreter) rather than from text.
#[pyfunction]
fn _decimals_built_directly(py: Python<'_>) -> PyResult<bool> {
    Ok(decimal_layout::DecimalMaker::new(py)?.direct())
}

/// Whether row dicts' dates and datetimes are made through the
/// `datetime` C API (its check passed on this interpreter) rather than
/// from text.
#[pyfunction]
fn _datetimes_built_directly(py: Python<'_>) -> PyResult<bool> {
    Ok(datetime_api::DateTimeApi::get(py)?.is_some())
}

/// The core's catalogue of operations as JSON (names, wire functions,
/// parameters and their kinds, answers, doc lines).
#[pyfunction]
fn catalogue_json() -> String {
    erpdata::catalogue::catalogue_json()
}

/// The name among `known` that `given` most likely meant, if one is close
/// (the core's `closest`, as JS's option checks use it): the "did you
/// mean" of an unknown keyword argument (`companyId`: `company_id`).
#[pyfunction]
fn closest_name(given: &str, known: Vec<String>) -> Option<String> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    erpdata::binding::closest(given, &known).map(str::to_owned)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<config::Config>()?;
    m.add_class::<config::Request>()?;
    m.add_class::<invocation::Invocation>()?;
    m.add_class::<plan::Plan>()?;
    m.add_class::<plan::PlannedCall>()?;
    m.add_class::<table::Batch>()?;
    m.add_class::<table::TableData>()?;
    m.add_class::<convert::DuesData>()?;
    m.add_class::<typing::Typing>()?;
    call::register(m)?;
    exiting::register(m)?;
    m.add_function(wrap_pyfunction!(finance::aging, m)?)?;
    m.add_function(wrap_pyfunction!(finance::credit_status, m)?)?;
    m.add_function(wrap_pyfunction!(finance::pay_days, m)?)?;
    m.add_function(wrap_pyfunction!(finance::account_ids, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue_json, m)?)?;
    m.add_function(wrap_pyfunction!(closest_name, m)?)?;
    m.add_function(wrap_pyfunction!(_decimals_built_directly, m)?)?;
    m.add_function(wrap_pyfunction!(_datetimes_built_directly, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    #[cfg(feature = "testing")]
    testing::register(m)?;
    Ok(())
}
