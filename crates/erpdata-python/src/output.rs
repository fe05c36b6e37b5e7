//! What an operation answered, as Python gets it: the one place the
//! core's [`Output`] kinds become Python objects.

use erpdata::{AjaxAnswer, Dues, Output, StreamEnd};
use pyo3::prelude::*;

use crate::convert;
use crate::errors::Result;
use crate::table::TableData;

/// An output made ready for Python without the GIL (a table's Arrow
/// columns built), then converted with it.
pub(crate) enum Ready {
    Dues(Dues),
    Function(AjaxAnswer),
    Table(TableData),
    Stream(StreamEnd),
}

impl Ready {
    /// Prepares `output` (no GIL needed).
    pub(crate) fn of(output: Output) -> erpdata::Result<Ready> {
        Ok(match output {
            Output::Dues(d) => Ready::Dues(d),
            Output::Function(a) => Ready::Function(a),
            Output::Batches(t) => Ready::Table(TableData::from_batches(t)?),
            // Never made: every invocation of the glue is columns only.
            Output::Table(_) => {
                return Err(erpdata::Error::InvalidInput {
                    field: "operation".to_owned(),
                    reason: "answered a table with rows, where its columns were asked for"
                        .to_owned(),
                })
            }
        })
    }

    /// The Python object: an `erpdata.Dues`, an `erpdata.AjaxAnswer`, a
    /// `TableData` (which `erpdata.Table` wraps) or a stream's
    /// `(notices, total_rows)`.
    pub(crate) fn into_py(self, py: Python<'_>) -> Result<Py<PyAny>> {
        Ok(match self {
            Ready::Dues(d) => convert::dues(py, &d)?.unbind(),
            Ready::Function(a) => convert::ajax_answer(py, a)?.unbind(),
            Ready::Table(t) => Py::new(py, t)?.into_any(),
            Ready::Stream(end) => (end.notices, end.total_rows)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        })
    }
}
