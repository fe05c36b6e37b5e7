//! `erpdata._core._testing.TableDecoder`: the core's streaming decoder
//! fed by hand from Python, for the type vectors and the row tests.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::config::Config;
use crate::table::{to_arrow, Batch, TableData};
use crate::typing::Typing;

/// The core's streaming table decoder: feed the body's chunks as they
/// arrive, get batches; `finish` when the body ends. The GIL is released
/// while it decodes. Only the tests feed it by hand (the clients' calls
/// decode inside `Call`), so it is built with the `testing` feature only.
#[pyclass(module = "erpdata._core")]
pub(crate) struct TableDecoder {
    inner: Option<erpdata::TableDecoder>,
    /// Keep every batch for `finish_table` instead of returning them.
    collect: bool,
    kept: Vec<erpdata::Batch>,
    delivered: u64,
    /// Rows decoded when `finish` took the decoder (which then failed or
    /// ended), so the count survives an error.
    rows_at_finish: u64,
}

impl TableDecoder {
    fn decoder(&mut self) -> PyResult<&mut erpdata::TableDecoder> {
        self.inner
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the decoder has finished"))
    }
}

fn arrow_batches(
    py: Python<'_>,
    batches: Vec<erpdata::Batch>,
) -> crate::errors::Result<Vec<Batch>> {
    let converted = py.detach(|| {
        batches
            .into_iter()
            .map(to_arrow)
            .collect::<Result<Vec<_>, _>>()
    });
    Ok(converted?.into_iter().map(Batch::from_arrow).collect())
}

#[pymethods]
impl TableDecoder {
    /// A decoder for an answer with HTTP status `status`, typing columns
    /// as `typing` says (default: the core's rule, each batch typed from
    /// its own values).
    #[new]
    #[pyo3(signature = (config, status, *, batch_rows=65_536, collect=false, typing=None))]
    fn new(
        config: &Config,
        status: u16,
        batch_rows: usize,
        collect: bool,
        typing: Option<&Typing>,
    ) -> PyResult<Self> {
        if batch_rows == 0 {
            return Err(PyValueError::new_err("batch_rows must be at least 1"));
        }
        let options = Typing::decoder_options(typing, batch_rows);
        Ok(TableDecoder {
            inner: Some(erpdata::TableDecoder::new(
                config.core_config(),
                status,
                options,
            )),
            collect,
            kept: Vec::new(),
            delivered: 0,
            rows_at_finish: 0,
        })
    }

    /// Takes the next chunk; returns the batches it completed (always none
    /// when collecting). Raises the core's error for a bad answer.
    fn feed(&mut self, py: Python<'_>, chunk: &[u8]) -> crate::errors::Result<Vec<Batch>> {
        let decoder = self.decoder()?;
        let done = py.detach(|| decoder.feed(chunk))?;
        if self.collect {
            self.kept.extend(done);
            return Ok(Vec::new());
        }
        self.delivered += done.iter().map(|b| b.num_rows as u64).sum::<u64>();
        arrow_batches(py, done)
    }

    /// Complete rows decoded so far.
    #[getter]
    fn rows(&self) -> u64 {
        self.inner
            .as_ref()
            .map_or(self.rows_at_finish, |d| d.rows())
    }

    /// Rows handed out in batches so far (not collecting).
    #[getter]
    fn rows_delivered(&self) -> u64 {
        self.delivered
    }

    /// Ends the body: `(batches, notices, total_rows)`, or the core's error
    /// (a `DecodeError` mentioning "truncated" for a body cut short).
    fn finish(&mut self, py: Python<'_>) -> crate::errors::Result<(Vec<Batch>, Vec<String>, u64)> {
        let decoder = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("the decoder has finished"))?;
        self.rows_at_finish = decoder.rows();
        let finished = py.detach(|| decoder.finish())?;
        let mut batches = std::mem::take(&mut self.kept);
        batches.extend(finished.batches);
        self.delivered += batches.iter().map(|b| b.num_rows as u64).sum::<u64>();
        Ok((
            arrow_batches(py, batches)?,
            finished.notices,
            finished.total_rows,
        ))
    }

    /// Ends the body of a collecting decoder: the whole table.
    fn finish_table(&mut self, py: Python<'_>) -> crate::errors::Result<TableData> {
        let decoder = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("the decoder has finished"))?;
        self.rows_at_finish = decoder.rows();
        let mut kept = std::mem::take(&mut self.kept);
        let built = py.detach(move || {
            let finished = decoder.finish()?;
            kept.extend(finished.batches);
            TableData::build(kept, finished.notices)
        });
        Ok(built?)
    }

    fn __repr__(&self) -> String {
        format!("<TableDecoder: {} rows>", self.rows())
    }
}
