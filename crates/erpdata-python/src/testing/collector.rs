//! `erpdata._core._testing.TableCollector`: the clients' threaded table
//! decoder ([`Collector`]) fed by hand, for its own tests.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::collector::{Chunk, Collector};
use crate::config::Config;
use crate::errors::Result;
use crate::lent::LentBytes;
use crate::table::TableData;
use crate::typing::Typing;

/// Decodes a table answer on a thread of its own: `feed` the body's
/// chunks as they arrive, then `finish_table`.
#[pyclass(module = "erpdata._core")]
pub(crate) struct TableCollector {
    inner: Collector,
}

#[pymethods]
impl TableCollector {
    /// A collector for an answer with HTTP status `status`, typing
    /// columns as `typing` says (over the whole table).
    #[new]
    #[pyo3(signature = (config, status, *, batch_rows=65_536, typing=None))]
    fn new(config: &Config, status: u16, batch_rows: i64, typing: Option<&Typing>) -> Result<Self> {
        let batch_rows = erpdata::binding::check_batch_rows(batch_rows)?;
        let options = Typing::decoder_options(typing, batch_rows);
        let inner = Collector::start(config.core_config(), status, options)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a decoder thread: {e}")))?;
        Ok(TableCollector { inner })
    }

    /// Hands over the next chunk: lent, as the clients lend httpx's, or
    /// with `copy`, copied. Raises the core's error if an earlier chunk
    /// made the answer fail.
    #[pyo3(signature = (chunk, *, copy=false))]
    fn feed(&mut self, py: Python<'_>, chunk: &Bound<'_, PyBytes>, copy: bool) -> Result<()> {
        if self.inner.finished() {
            return Err(PyValueError::new_err("the collector has finished").into());
        }
        let inner = &mut self.inner;
        // Blocks only while the queue is full, without the GIL.
        let fed = if copy {
            let bytes = chunk.as_bytes();
            py.detach(|| inner.feed(Chunk::Borrowed(bytes)))
        } else {
            let lent = Box::new(LentBytes::new(chunk));
            py.detach(|| inner.feed(Chunk::Lent(lent)))
        };
        drop(self.inner.spent());
        Ok(fed?)
    }

    /// Waits until every chunk fed so far is decoded; raises the core's
    /// error if one made the answer fail.
    fn check(&mut self, py: Python<'_>) -> Result<()> {
        if self.inner.finished() {
            return Err(PyValueError::new_err("the collector has finished").into());
        }
        let inner = &mut self.inner;
        let checked = py.detach(|| inner.check());
        drop(self.inner.spent());
        Ok(checked?)
    }

    /// Complete rows decoded so far.
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows()
    }

    /// Ends the body: the whole table, or the core's error (a
    /// `DecodeError` mentioning "truncated" for a body cut short).
    fn finish_table(&mut self, py: Python<'_>) -> Result<TableData> {
        if self.inner.finished() {
            return Err(PyValueError::new_err("the collector has finished").into());
        }
        let inner = &mut self.inner;
        let table = py.detach(|| inner.finish().and_then(TableData::from_batches));
        drop(self.inner.spent());
        Ok(table?)
    }

    fn __repr__(&self) -> String {
        format!("<TableCollector: {} rows>", self.rows())
    }
}
