//! `erpdata._core._testing.RetryPolicy`: the core's retry decision, for the Python
//! clients' send loops (which only sleep).

use std::time::{Duration, UNIX_EPOCH};

use erpdata::{Decision, Outcome, TransportKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// When to try a failed call again.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct RetryPolicy {
    inner: erpdata::RetryPolicy,
}

#[pymethods]
impl RetryPolicy {
    /// The default policy with `max_retries` retries, honouring a
    /// `Retry-After` of at most `max_retry_after` seconds.
    #[new]
    #[pyo3(signature = (max_retries=2, max_retry_after=None))]
    fn new(max_retries: u32, max_retry_after: Option<f64>) -> crate::errors::Result<Self> {
        let mut inner = erpdata::RetryPolicy::with_max_retries(max_retries);
        if let Some(secs) = max_retry_after {
            inner.max_retry_after = erpdata::binding::check_max_retry_after(secs)?;
        }
        Ok(RetryPolicy { inner })
    }

    #[getter]
    fn max_retries(&self) -> u32 {
        self.inner.max_retries
    }

    /// Seconds to wait before the next attempt, or `None` to stop. Give
    /// either `status` (with the `Retry-After` header, if any) or
    /// `transport` ("connect", "timeout", "reset", "tls", "other"); `random` is
    /// uniform in [0, 1); `now` (Unix seconds) is used for HTTP-date
    /// `Retry-After` values.
    #[pyo3(signature = (retries_done, *, random, status=None, transport=None, retry_after=None, now=None))]
    fn decide(
        &self,
        retries_done: u32,
        random: f64,
        status: Option<u16>,
        transport: Option<&str>,
        retry_after: Option<&str>,
        now: Option<f64>,
    ) -> PyResult<Option<f64>> {
        let outcome = match (status, transport) {
            (Some(status), None) => Outcome::Status {
                status,
                retry_after,
            },
            (None, Some(kind)) => Outcome::Transport(TransportKind::from_name(kind)),
            _ => {
                return Err(PyValueError::new_err(
                    "give exactly one of status= or transport=",
                ))
            }
        };
        let now = now
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| UNIX_EPOCH + Duration::from_secs_f64(n));
        Ok(
            match self.inner.decide(retries_done, outcome, random, now) {
                Decision::RetryAfter(d) => Some(d.as_secs_f64()),
                Decision::Stop => None,
            },
        )
    }

    fn __repr__(&self) -> String {
        format!("RetryPolicy(max_retries={})", self.inner.max_retries)
    }
}
