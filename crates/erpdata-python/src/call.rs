//! `erpdata._core.Call`: the core's call state machine for the Python
//! clients, which only carry out its actions with httpx.
//!
//! Every decision of a call (attempts, redirects, retries, backoff, time
//! limits, errors) is the core's [`erpdata::Call`]; this glue converts
//! the actions to Python objects and the host's reports to Rust. Decoding
//! happens without the GIL.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, UNIX_EPOCH};

use erpdata::{
    Action, CallOptions, DecoderOptions, Error, Head, Parsed, RetryPolicy, TableStream, Timeouts,
    TransportKind,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::collector::CollectorSink;
use crate::config::{ajax_query, dues_query, Config, Request};
use crate::convert;
use crate::errors::{core, exception};
use crate::table::{to_arrow, Batch};
use crate::typing::Typing;

type DuesParse =
    Box<dyn FnMut(&erpdata::Config, u16, &[u8]) -> erpdata::Result<erpdata::Dues> + Send + Sync>;
type AjaxParse = Box<
    dyn FnMut(&erpdata::Config, u16, &[u8]) -> erpdata::Result<erpdata::AjaxAnswer> + Send + Sync,
>;

/// The calls the Python package makes.
enum Inner {
    Dues(Box<erpdata::Call<Parsed<DuesParse>>>),
    Ajax(Box<erpdata::Call<Parsed<AjaxParse>>>),
    Table(Box<erpdata::Call<CollectorSink>>),
    Stream(Box<erpdata::Call<TableStream>>),
}

/// Runs `$body` with `$c` bound to whichever call `$inner` holds.
macro_rules! each {
    ($inner:expr, $c:ident => $body:expr) => {
        match $inner {
            Inner::Dues($c) => $body,
            Inner::Ajax($c) => $body,
            Inner::Table($c) => $body,
            Inner::Stream($c) => $body,
        }
    };
}

/// An action's output, still in Rust.
enum Output {
    Dues(erpdata::Dues),
    Ajax(erpdata::AjaxAnswer),
    Table(crate::table::TableData),
    Stream(erpdata::StreamEnd),
}

/// An action with its Rust payload, taken without the GIL.
enum Step {
    Send {
        request: http::Request<Vec<u8>>,
        connect: Duration,
        read: Duration,
        wait: Duration,
    },
    Read(Duration),
    Sleep(Duration),
    Emit(Result<arrow_array::RecordBatch, Error>),
    Done(Output),
    Failed(Error),
}

fn step<O>(action: Action<O>, output: impl FnOnce(O) -> Output) -> Step {
    match action {
        Action::Send {
            request,
            connect,
            read,
            wait,
        } => Step::Send {
            request,
            connect,
            read,
            wait,
        },
        Action::Read { wait } => Step::Read(wait),
        Action::Sleep(d) => Step::Sleep(d),
        Action::Emit(batch) => Step::Emit(to_arrow(batch)),
        Action::Done(o) => Step::Done(output(o)),
        Action::Failed(e) => Step::Failed(e),
    }
}

/// Send this request (never following a redirect, never retrying), then
/// report its head (`Call.head`) or its failure (`Call.failed`). `connect`
/// and `read` are the limits of this attempt in seconds; `wait` bounds
/// the whole wait for the head.
#[pyclass(frozen, name = "Send", module = "erpdata._core")]
pub(crate) struct SendAction {
    #[pyo3(get)]
    request: Py<Request>,
    #[pyo3(get)]
    connect: f64,
    #[pyo3(get)]
    read: f64,
    #[pyo3(get)]
    wait: f64,
}

#[pymethods]
impl SendAction {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Send({}, connect={}, read={}, wait={})",
            self.request.bind(py).repr()?,
            self.connect,
            self.read,
            self.wait
        ))
    }
}

/// Read the next part of the body, waiting at most `wait` seconds, and
/// report it (`Call.chunk`, `Call.end` or `Call.failed`).
#[pyclass(frozen, name = "Read", module = "erpdata._core")]
pub(crate) struct ReadAction {
    #[pyo3(get)]
    wait: f64,
}

/// Wait `seconds` (the open answer closed), then ask again.
#[pyclass(frozen, name = "Sleep", module = "erpdata._core")]
pub(crate) struct SleepAction {
    #[pyo3(get)]
    seconds: f64,
}

/// Hand `batch` to the caller of a stream, then ask again.
#[pyclass(frozen, name = "Emit", module = "erpdata._core")]
pub(crate) struct EmitAction {
    #[pyo3(get)]
    batch: Py<Batch>,
}

/// The call succeeded with `output`.
#[pyclass(frozen, name = "Done", module = "erpdata._core")]
pub(crate) struct DoneAction {
    #[pyo3(get)]
    output: Py<PyAny>,
}

/// The call failed with `error` (an `ErpError`, not raised).
#[pyclass(frozen, name = "Failed", module = "erpdata._core")]
pub(crate) struct FailedAction {
    #[pyo3(get)]
    error: Py<PyAny>,
}

#[pymethods]
impl ReadAction {
    fn __repr__(&self) -> String {
        format!("Read(wait={})", self.wait)
    }
}

#[pymethods]
impl SleepAction {
    fn __repr__(&self) -> String {
        format!("Sleep({})", self.seconds)
    }
}

/// One call, from its first request to its result; see the core's
/// `erpdata::Call`. Ask `next(now)` what to do, do it, report what
/// happened; `now` is `time.monotonic()`.
#[pyclass(module = "erpdata._core")]
pub(crate) struct Call {
    inner: Inner,
    config: erpdata::Config,
}

/// A monotonic time from the host, in seconds.
fn instant(now: f64) -> PyResult<Duration> {
    if now.is_finite() && now >= 0.0 {
        Ok(Duration::from_secs_f64(now))
    } else {
        Err(PyValueError::new_err(format!(
            "now must be a finite number of seconds of 0 or more, got {now}"
        )))
    }
}

/// The call's options from the Python settings, checked by the core.
fn options(
    py: Python<'_>,
    total: f64,
    connect: f64,
    read: f64,
    max_retries: i64,
) -> PyResult<CallOptions> {
    let timeouts = core(py, Timeouts::from_secs_f64(total, connect, read))?;
    let max_retries = core(py, erpdata::check_max_retries(max_retries))?;
    Ok(CallOptions {
        timeouts,
        retry: RetryPolicy::with_max_retries(max_retries),
    })
}

/// A fresh random number for the backoff's jitter.
fn seed() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(0x5EED);
    h.finish()
}

fn decoder_options(
    py: Python<'_>,
    typing: Option<&Typing>,
    batch_rows: i64,
) -> PyResult<DecoderOptions> {
    let batch_rows = core(py, erpdata::check_batch_rows(batch_rows))?;
    Ok(Typing::decoder_options(typing, batch_rows))
}

impl Call {
    /// A call of the core sending `request` into `sink`, at `now` on the
    /// host's monotonic clock, held by `inner`.
    fn start<S: erpdata::Sink>(
        config: &Config,
        request: &Request,
        options: CallOptions,
        sink: S,
        now: f64,
        inner: impl FnOnce(erpdata::Call<S>) -> Inner,
    ) -> PyResult<Self> {
        let config = config.core_config().clone();
        let call = erpdata::Call::new(
            &config,
            request.core_request().clone(),
            options,
            sink,
            instant(now)?,
            seed(),
        );
        Ok(Call {
            inner: inner(call),
            config,
        })
    }
}

#[pymethods]
impl Call {
    /// A dues call sending `request` (from `Config.dues_request(acid,
    /// kind)`); its output is an `erpdata.Dues` typed as `typing` says.
    #[staticmethod]
    #[pyo3(signature = (
        config, request, acid, kind, typing=None, *, total, connect, read, max_retries, now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn dues(
        py: Python<'_>,
        config: &Config,
        request: &Request,
        acid: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        typing: Option<&Typing>,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        now: f64,
    ) -> PyResult<Self> {
        let options = options(py, total, connect, read, max_retries)?;
        let query = core(py, dues_query(acid, kind))?;
        let decoder = Typing::decoder_options(typing, erpdata::DEFAULT_BATCH_ROWS);
        let parse: DuesParse = Box::new(move |config, status, body| {
            config.parse_dues_with(&query, status, body, &decoder)
        });
        Call::start(config, request, options, Parsed::new(parse), now, |c| {
            Inner::Dues(Box::new(c))
        })
    }

    /// A call to a function of ajax.php sending `request` (from
    /// `Config.ajax_request(function, args, ...)`); its output is an
    /// `erpdata.AjaxAnswer` typed as `typing` says.
    #[staticmethod]
    #[pyo3(signature = (
        config, request, function, args, typing=None, *, total, connect, read, max_retries, now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn ajax(
        py: Python<'_>,
        config: &Config,
        request: &Request,
        function: &str,
        args: &Bound<'_, PyDict>,
        typing: Option<&Typing>,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        now: f64,
    ) -> PyResult<Self> {
        let options = options(py, total, connect, read, max_retries)?;
        let query = core(py, ajax_query(function, args, None, None))?;
        let decoder = Typing::decoder_options(typing, erpdata::DEFAULT_BATCH_ROWS);
        let parse: AjaxParse = Box::new(move |config, status, body| {
            config.parse_ajax_with(&query, status, body, &decoder)
        });
        Call::start(config, request, options, Parsed::new(parse), now, |c| {
            Inner::Ajax(Box::new(c))
        })
    }

    /// A whole table's call: the body decoded on a thread of its own as it
    /// arrives; its output is a `TableData`.
    #[staticmethod]
    #[pyo3(signature = (
        config, request, typing=None, *, batch_rows,
        total, connect, read, max_retries, now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn table(
        py: Python<'_>,
        config: &Config,
        request: &Request,
        typing: Option<&Typing>,
        batch_rows: i64,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        now: f64,
    ) -> PyResult<Self> {
        let options = options(py, total, connect, read, max_retries)?;
        let sink = CollectorSink::new(decoder_options(py, typing, batch_rows)?);
        Call::start(config, request, options, sink, now, |c| {
            Inner::Table(Box::new(c))
        })
    }

    /// A streamed table's call: `Emit` actions hand out batches of one
    /// schema as the body arrives; its output is `(notices, total_rows)`.
    #[staticmethod]
    #[pyo3(signature = (
        config, request, typing=None, *, batch_rows,
        total, connect, read, max_retries, now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn stream(
        py: Python<'_>,
        config: &Config,
        request: &Request,
        typing: Option<&Typing>,
        batch_rows: i64,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        now: f64,
    ) -> PyResult<Self> {
        let options = options(py, total, connect, read, max_retries)?;
        let sink = TableStream::new(decoder_options(py, typing, batch_rows)?);
        Call::start(config, request, options, sink, now, |c| {
            Inner::Stream(Box::new(c.streaming()))
        })
    }

    /// What to do next: a `Send`, `Read`, `Sleep`, `Emit`, `Done` or
    /// `Failed`. Whenever it is `Send`, `Sleep`, `Done` or `Failed`, close
    /// the answer still open.
    fn next(&mut self, py: Python<'_>, now: f64) -> PyResult<Py<PyAny>> {
        let now = instant(now)?;
        let inner = &mut self.inner;
        // Finishing a table or converting a batch happens here: no GIL.
        let step = py.detach(|| match inner {
            Inner::Dues(c) => step(c.next(now), Output::Dues),
            Inner::Ajax(c) => step(c.next(now), Output::Ajax),
            Inner::Table(c) => step(c.next(now), Output::Table),
            Inner::Stream(c) => step(c.next(now), Output::Stream),
        });
        Ok(match step {
            Step::Send {
                request,
                connect,
                read,
                wait,
            } => {
                let request = Py::new(py, Request::new(py, &self.config, request))?;
                Py::new(
                    py,
                    SendAction {
                        request,
                        connect: connect.as_secs_f64(),
                        read: read.as_secs_f64(),
                        wait: wait.as_secs_f64(),
                    },
                )?
                .into_any()
            }
            Step::Read(wait) => Py::new(
                py,
                ReadAction {
                    wait: wait.as_secs_f64(),
                },
            )?
            .into_any(),
            Step::Sleep(d) => Py::new(
                py,
                SleepAction {
                    seconds: d.as_secs_f64(),
                },
            )?
            .into_any(),
            Step::Emit(batch) => {
                let batch = Py::new(py, Batch::from_arrow(core(py, batch)?))?;
                Py::new(py, EmitAction { batch })?.into_any()
            }
            Step::Done(output) => {
                let output = match output {
                    Output::Dues(d) => convert::dues(py, &d)?.unbind(),
                    Output::Ajax(a) => convert::ajax_answer(py, a)?.unbind(),
                    Output::Table(t) => Py::new(py, t)?.into_any(),
                    Output::Stream(end) => PyTuple::new(
                        py,
                        [
                            end.notices.into_pyobject(py)?.into_any(),
                            end.total_rows.into_pyobject(py)?.into_any(),
                        ],
                    )?
                    .into_any()
                    .unbind(),
                };
                Py::new(py, DoneAction { output })?.into_any()
            }
            Step::Failed(error) => {
                let error = exception(py, &error)?.unbind();
                Py::new(py, FailedAction { error })?.into_any()
            }
        })
    }

    /// The answer's head arrived: its status, `Location` and `Retry-After`
    /// headers, and the wall clock (`time.time()`, for a `Retry-After`
    /// given as a date).
    #[pyo3(signature = (now, status, location=None, retry_after=None, date=None))]
    fn head(
        &mut self,
        now: f64,
        status: u16,
        location: Option<&str>,
        retry_after: Option<&str>,
        date: Option<f64>,
    ) -> PyResult<()> {
        let now = instant(now)?;
        let date = date
            .filter(|d| d.is_finite() && *d >= 0.0)
            .map(|d| UNIX_EPOCH + Duration::from_secs_f64(d));
        let head = Head {
            status,
            location,
            retry_after,
            date,
        };
        each!(&mut self.inner, c => c.head(now, head));
        Ok(())
    }

    /// A part of the body arrived (decoded here, without the GIL).
    fn chunk(&mut self, py: Python<'_>, now: f64, data: &Bound<'_, PyBytes>) -> PyResult<()> {
        let now = instant(now)?;
        let data = data.as_bytes();
        let inner = &mut self.inner;
        py.detach(|| each!(inner, c => c.chunk(now, data)));
        Ok(())
    }

    /// The body ended.
    fn end(&mut self, py: Python<'_>, now: f64) -> PyResult<()> {
        let now = instant(now)?;
        let inner = &mut self.inner;
        py.detach(|| each!(inner, c => c.end(now)));
        Ok(())
    }

    /// Sending or reading failed: `kind` is "connect", "timeout", "reset"
    /// or "other", `detail` the HTTP library's account (redacted here).
    fn failed(&mut self, py: Python<'_>, now: f64, kind: &str, detail: &str) -> PyResult<()> {
        let now = instant(now)?;
        let kind = TransportKind::from_name(kind);
        let inner = &mut self.inner;
        // A cut table body is checked (its decoder thread waited for).
        py.detach(|| each!(inner, c => c.failed(now, kind, detail)));
        Ok(())
    }

    /// Requests sent so far.
    #[getter]
    fn attempts(&self) -> u32 {
        each!(&self.inner, c => c.attempts())
    }

    /// Complete rows of the answer being read, decoded so far.
    #[getter]
    fn rows_received(&self) -> u64 {
        use erpdata::Sink;
        each!(&self.inner, c => c.sink().rows())
    }

    /// Rows handed out in batches so far (streams).
    #[getter]
    fn rows_delivered(&self) -> u64 {
        each!(&self.inner, c => c.rows_delivered())
    }

    /// `text` with the access token replaced by a redaction marker.
    fn redact(&self, text: &str) -> String {
        self.config.redact(text)
    }

    fn __repr__(&self) -> String {
        let what = match self.inner {
            Inner::Dues(_) => "dues",
            Inner::Ajax(_) => "ajax",
            Inner::Table(_) => "table",
            Inner::Stream(_) => "stream",
        };
        format!("<Call: {what}, {} attempts>", self.attempts())
    }
}

/// Registers the call, its actions and the core's limits.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Call>()?;
    m.add_class::<SendAction>()?;
    m.add_class::<ReadAction>()?;
    m.add_class::<SleepAction>()?;
    m.add_class::<EmitAction>()?;
    m.add_class::<DoneAction>()?;
    m.add_class::<FailedAction>()?;
    m.add(
        "DEFAULT_TOTAL_TIMEOUT",
        erpdata::DEFAULT_TOTAL_TIMEOUT.as_secs_f64(),
    )?;
    m.add(
        "DEFAULT_CONNECT_TIMEOUT",
        erpdata::DEFAULT_CONNECT_TIMEOUT.as_secs_f64(),
    )?;
    m.add(
        "DEFAULT_READ_TIMEOUT",
        erpdata::DEFAULT_READ_TIMEOUT.as_secs_f64(),
    )?;
    m.add("MAX_TIMEOUT", erpdata::MAX_TIMEOUT.as_secs_f64())?;
    m.add("MAX_RETRIES", erpdata::MAX_RETRIES)?;
    m.add("DEFAULT_MAX_RETRIES", erpdata::DEFAULT_MAX_RETRIES)?;
    m.add("MIN_BATCH_ROWS", erpdata::MIN_BATCH_ROWS)?;
    m.add("MAX_BATCH_ROWS", erpdata::MAX_BATCH_ROWS)?;
    m.add("MAX_CONCURRENCY", erpdata::MAX_CONCURRENCY)?;
    m.add("DEFAULT_BATCH_ROWS", erpdata::DEFAULT_BATCH_ROWS)?;
    m.add_function(wrap_pyfunction!(check_max_retries, m)?)?;
    m.add_function(wrap_pyfunction!(check_batch_rows, m)?)?;
    m.add_function(wrap_pyfunction!(check_concurrency, m)?)?;
    m.add_function(wrap_pyfunction!(check_timeout, m)?)?;
    Ok(())
}

/// `value` as the whole number `check` accepts, or its `InvalidInputError`
/// (for a value that is no `int` at all, the core's reason with the value
/// shown as Python shows it).
fn whole<T>(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    check: fn(i64) -> erpdata::Result<T>,
) -> PyResult<T> {
    let int = value.is_instance_of::<pyo3::types::PyInt>()
        && !value.is_instance_of::<pyo3::types::PyBool>();
    if int {
        if let Ok(n) = value.extract::<i64>() {
            return core(py, check(n));
        }
    }
    let shown = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    let shown = if shown.chars().count() > 40 {
        format!("{}...", shown.chars().take(37).collect::<String>())
    } else {
        shown
    };
    match check(-1) {
        Err(Error::InvalidInput { field, reason }) => {
            let range = reason
                .rsplit_once(", got ")
                .map_or(reason.as_str(), |r| r.0);
            let err = Error::InvalidInput {
                field,
                reason: format!("{range}, got {shown}"),
            };
            core(py, Err(err))
        }
        other => core(py, other),
    }
}

/// `max_retries` checked by the core (0 to `MAX_RETRIES`).
#[pyfunction]
fn check_max_retries(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u32> {
    whole(py, value, erpdata::check_max_retries)
}

/// `batch_rows` checked by the core (`MIN_BATCH_ROWS` to `MAX_BATCH_ROWS`).
#[pyfunction]
fn check_batch_rows(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    whole(py, value, erpdata::check_batch_rows)
}

/// `concurrency` checked by the core (1 to `MAX_CONCURRENCY`).
#[pyfunction]
fn check_concurrency(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    whole(py, value, erpdata::check_concurrency)
}

/// Time limits in seconds checked by the core: each above 0 and at most
/// `MAX_TIMEOUT`; the error names field `timeout` and the limit.
#[pyfunction]
fn check_timeout(py: Python<'_>, total: f64, connect: f64, read: f64) -> PyResult<()> {
    core(py, Timeouts::from_secs_f64(total, connect, read)).map(|_| ())
}
