//! `erpdata._core.Invocation`: an operation of the catalogue with its
//! arguments checked by the core (made by `Config.invoke`).

use erpdata::{DecoderOptions, DEFAULT_BATCH_ROWS};
use pyo3::prelude::*;

use crate::config::Request;
use crate::errors::Result;
use crate::output::Ready;
use crate::typing::Typing;

/// An operation and its checked arguments: its request, and what its
/// answer becomes. Start it with `Call.start`, or parse an answer you
/// already have with `parse`.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct Invocation {
    pub(crate) inner: erpdata::Invocation,
    pub(crate) config: erpdata::Config,
    /// The typing a plan gives its calls (`None`: the caller's).
    pub(crate) options: Option<DecoderOptions>,
}

impl Invocation {
    pub(crate) fn new(config: &erpdata::Config, inner: erpdata::Invocation) -> Self {
        Invocation {
            // Bindings want a table as typed columns, not rows as sent.
            inner: inner.columns_only(),
            config: config.clone(),
            options: None,
        }
    }

    /// The decoder options of its call: the plan's, else `typing`'s.
    pub(crate) fn decoder_options(
        &self,
        typing: Option<&Typing>,
        batch_rows: usize,
    ) -> DecoderOptions {
        match (&self.options, typing) {
            (Some(options), None) => DecoderOptions {
                batch_rows,
                ..options.clone()
            },
            _ => Typing::decoder_options(typing, batch_rows),
        }
    }
}

#[pymethods]
impl Invocation {
    /// The operation's name in the catalogue (`avg_pay_days`).
    #[getter]
    fn operation(&self) -> &'static str {
        self.inner.operation().name
    }

    /// What its answer is: `dues`, `function` or `table`.
    #[getter]
    fn answer(&self) -> &'static str {
        self.inner.operation().answer.as_str()
    }

    /// The request to send.
    fn request(&self, py: Python<'_>) -> Result<Request> {
        Ok(Request::new(
            py,
            &self.config,
            self.inner.request(&self.config)?,
        ))
    }

    /// Parses a whole answer (`status`, `body`) as the operation says: an
    /// `erpdata.Dues`, an `erpdata.AjaxAnswer` or a `TableData`, typed as
    /// `typing` says.
    #[pyo3(signature = (status, body, typing=None))]
    fn parse(
        &self,
        py: Python<'_>,
        status: u16,
        body: &[u8],
        typing: Option<&Typing>,
    ) -> Result<Py<PyAny>> {
        let options = self.decoder_options(typing, DEFAULT_BATCH_ROWS);
        let ready = crate::exiting::detach(py, || {
            self.inner
                .parse(&self.config, status, body, &options)
                .and_then(Ready::of)
        })?;
        ready.into_py(py)
    }

    fn __repr__(&self) -> String {
        format!("<Invocation: {}>", self.inner.operation().name)
    }
}
