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

use erpdata::catalogue::AnswerKind;
use erpdata::{
    Action, CallOptions, DecoderOptions, Error, Head, OperationSink, Output, RetryPolicy,
    TableStream, Timeouts, TransportKind, DEFAULT_BATCH_ROWS,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::{PyTraverseError, PyVisit};

use crate::collector::{CollectorSink, CollectorStream, LEND_MIN_BYTES};
use crate::config::Request;
use crate::errors::exception;
use crate::invocation::Invocation;
use crate::lent::LentBytes;
use crate::output::Ready;
use crate::table::{to_arrow, Batch};
use crate::typing::Typing;

/// The calls the Python package makes: an answer parsed whole (dues, a
/// function's), a whole table decoded on a thread of its own as it
/// arrives, or a table handed out in batches, each decoded as its chunk
/// comes or (`Threaded`) on a thread of its own.
enum Inner {
    Whole(Box<erpdata::Call<OperationSink>>),
    Table(Box<erpdata::Call<CollectorSink>>),
    Stream(Box<erpdata::Call<TableStream>>),
    Threaded(Box<erpdata::Call<CollectorStream>>),
}

/// How a call takes a table's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Taking {
    /// Whole: `table()`, decoded on a thread of its own.
    Whole,
    /// A stream of batches, each handed out as soon as its chunk came.
    Stream,
    /// A stream decoded on a thread of its own while the body is read:
    /// faster, but a batch completed while the service pauses goes out
    /// with its next bytes.
    Threaded,
}

/// Runs `$body` with `$c` bound to whichever call `$inner` holds.
macro_rules! each {
    ($inner:expr, $c:ident => $body:expr) => {
        match $inner {
            Inner::Whole($c) => $body,
            Inner::Table($c) => $body,
            Inner::Stream($c) => $body,
            Inner::Threaded($c) => $body,
        }
    };
}

/// An action with its Rust payload, taken without the GIL.
enum Step {
    Send {
        request: http::Request<erpdata::RequestBody>,
        connect: Duration,
        read: Duration,
        wait: Duration,
    },
    Read(Duration),
    Sleep(Duration),
    Emit(Result<arrow_array::RecordBatch, Error>),
    /// The output, ready for Python (`None`: kept for a plan).
    Done(Option<Ready>),
    Failed(Error),
}

fn step<O>(action: Action<O>, done: impl FnOnce(O) -> Result<Option<Ready>, Error>) -> Step {
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
        Action::Done(o) => match done(o) {
            Ok(ready) => Step::Done(ready),
            Err(e) => Step::Failed(e),
        },
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

// A Python object held by an action is shown to the garbage collector
// (`__traverse__`): a raised error's traceback holds the frame of the loop
// that raised it, that frame holds the `Failed` action, and the action
// holds the error. Unseen, that cycle was never collected, and each failed
// call kept its client, its answer and its token alive.
#[pymethods]
impl DoneAction {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.output)
    }
}

#[pymethods]
impl FailedAction {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.error)
    }
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
    /// A plan's call keeps its Rust result for `Plan.done` (nothing is
    /// converted to Python and back).
    keep: bool,
    pub(crate) outcome: Option<erpdata::Result<Output>>,
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

/// A call's limits from the Python settings, checked by the core.
pub(crate) struct Limits {
    pub(crate) options: CallOptions,
    pub(crate) now: Duration,
}

impl Limits {
    pub(crate) fn new(
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        max_retry_after: f64,
        now: f64,
    ) -> crate::errors::Result<Self> {
        let timeouts = Timeouts::from_secs_f64(total, connect, read)?;
        let max_retries = erpdata::binding::check_max_retries(max_retries)?;
        let max_retry_after = erpdata::binding::check_max_retry_after(max_retry_after)?;
        Ok(Limits {
            options: CallOptions {
                timeouts,
                retry: RetryPolicy {
                    max_retry_after,
                    ..RetryPolicy::with_max_retries(max_retries)
                },
            },
            now: instant(now)?,
        })
    }
}

/// A fresh random number for the backoff's jitter.
fn seed() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(0x5EED);
    h.finish()
}

impl Call {
    /// The call of `invocation` at the host's time `limits.now`: a table
    /// answer decoded on its own thread (or handed out in batches with
    /// `stream`), any other answer parsed whole. `keep`: the Rust output
    /// stays here for a plan.
    pub(crate) fn of(
        invocation: &Invocation,
        options: DecoderOptions,
        taking: Taking,
        limits: Limits,
        keep: bool,
    ) -> crate::errors::Result<Self> {
        let config = invocation.config.clone();
        let request = invocation.inner.request(&config)?;
        let table = invocation.inner.operation().answer == AnswerKind::Table;
        let (now, seed, call_options) = (limits.now, seed(), limits.options);
        let inner = match (table, taking) {
            (true, Taking::Stream) => Inner::Stream(Box::new(
                erpdata::Call::new(
                    &config,
                    request,
                    call_options,
                    TableStream::new(options),
                    now,
                    seed,
                )
                .streaming(),
            )),
            (true, Taking::Threaded) => Inner::Threaded(Box::new(
                erpdata::Call::new(
                    &config,
                    request,
                    call_options,
                    CollectorStream::new(options),
                    now,
                    seed,
                )
                .streaming(),
            )),
            (true, Taking::Whole) => Inner::Table(Box::new(erpdata::Call::new(
                &config,
                request,
                call_options,
                CollectorSink::new(options),
                now,
                seed,
            ))),
            (false, Taking::Whole) => Inner::Whole(Box::new(erpdata::Call::new(
                &config,
                request,
                call_options,
                invocation.inner.sink(options),
                now,
                seed,
            ))),
            (false, Taking::Stream | Taking::Threaded) => {
                return Err(Error::InvalidInput {
                    field: "stream".to_owned(),
                    reason: format!(
                        "only a table can be streamed; {} answers {}",
                        invocation.inner.operation().name,
                        invocation.inner.operation().answer.as_str()
                    ),
                }
                .into())
            }
        };
        Ok(Call {
            inner,
            config,
            keep,
            outcome: None,
        })
    }

    /// Frees, with the GIL, the chunks lent to a decoder thread that it is
    /// done with.
    fn free_spent(&self) {
        let spent = match &self.inner {
            Inner::Table(c) => c.sink().spent(),
            Inner::Threaded(c) => c.sink().spent(),
            Inner::Whole(_) | Inner::Stream(_) => Vec::new(),
        };
        drop(spent);
    }

    /// What the call gives once done: ready for Python, or kept in Rust.
    fn done(
        keep: bool,
        slot: &mut Option<erpdata::Result<Output>>,
        output: Output,
    ) -> Result<Option<Ready>, Error> {
        if keep {
            *slot = Some(Ok(output));
            Ok(None)
        } else {
            Ready::of(output).map(Some)
        }
    }
}

#[pymethods]
impl Call {
    /// The call of `invocation` (from `Config.invoke`): its output is
    /// what the operation answers (an `erpdata.Dues`, an
    /// `erpdata.AjaxAnswer`, a `TableData`), typed as `typing` says. A
    /// table is decoded on a thread of its own as it arrives; with
    /// `stream`, `Emit` actions hand out its batches (of `batch_rows`
    /// rows, one schema) instead and the output is `(notices,
    /// total_rows)`; with `threads` too, the stream is decoded on a thread
    /// of its own.
    #[staticmethod]
    #[pyo3(signature = (
        invocation, typing=None, *, stream=false, threads=false,
        batch_rows=DEFAULT_BATCH_ROWS as i64, total, connect, read, max_retries,
        max_retry_after=erpdata::DEFAULT_MAX_RETRY_AFTER.as_secs_f64(), now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn start(
        invocation: &Invocation,
        typing: Option<&Typing>,
        stream: bool,
        threads: bool,
        batch_rows: i64,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        max_retry_after: f64,
        now: f64,
    ) -> crate::errors::Result<Self> {
        let limits = Limits::new(total, connect, read, max_retries, max_retry_after, now)?;
        let batch_rows = erpdata::binding::check_batch_rows(batch_rows)?;
        let options = invocation.decoder_options(typing, batch_rows);
        let taking = match (stream, threads) {
            (false, _) => Taking::Whole,
            (true, false) => Taking::Stream,
            (true, true) => Taking::Threaded,
        };
        Call::of(invocation, options, taking, limits, false)
    }

    /// What to do next: a `Send`, `Read`, `Sleep`, `Emit`, `Done` or
    /// `Failed`. Whenever it is `Send`, `Sleep`, `Done` or `Failed`, close
    /// the answer still open.
    fn next(&mut self, py: Python<'_>, now: f64) -> crate::errors::Result<Py<PyAny>> {
        let now = instant(now)?;
        let (inner, keep, slot) = (&mut self.inner, self.keep, &mut self.outcome);
        // Finishing a table or converting a batch happens here: no GIL.
        let step = crate::exiting::detach(py, || match inner {
            Inner::Whole(c) => step(c.next(now), |o| Call::done(keep, slot, o)),
            Inner::Table(c) => step(c.next(now), |o| Call::done(keep, slot, o)),
            Inner::Stream(c) => step(c.next(now), |end| Ok(Some(Ready::Stream(end)))),
            Inner::Threaded(c) => step(c.next(now), |end| Ok(Some(Ready::Stream(end)))),
        });
        if let (Step::Failed(error), true) = (&step, keep) {
            self.outcome = Some(Err(error.clone()));
        }
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
                let batch = Py::new(py, Batch::from_arrow(batch?))?;
                Py::new(py, EmitAction { batch })?.into_any()
            }
            Step::Done(ready) => {
                let output = match ready {
                    Some(ready) => ready.into_py(py)?,
                    None => py.None(),
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

    /// A part of the body arrived (decoded here, without the GIL). A table
    /// decoded on a thread of its own is lent a large `bytes` rather than
    /// given a copy.
    fn chunk(&mut self, py: Python<'_>, now: f64, data: &Bound<'_, PyBytes>) -> PyResult<()> {
        let now = instant(now)?;
        let lend = data.as_bytes().len() >= LEND_MIN_BYTES;
        let inner = &mut self.inner;
        match inner {
            Inner::Table(c) if lend => {
                let lent = Box::new(LentBytes::new(data));
                crate::exiting::detach(py, || c.chunk_owned(now, lent));
            }
            Inner::Threaded(c) if lend => {
                let lent = Box::new(LentBytes::new(data));
                crate::exiting::detach(py, || c.chunk_owned(now, lent));
            }
            _ => {
                let data = data.as_bytes();
                crate::exiting::detach(py, || each!(inner, c => c.chunk(now, data)));
            }
        }
        // What was lent before waits at most for the next chunk lent (or
        // the end): no lock for a chunk copied.
        if lend {
            self.free_spent();
        }
        Ok(())
    }

    /// The body ended.
    fn end(&mut self, py: Python<'_>, now: f64) -> PyResult<()> {
        let now = instant(now)?;
        let inner = &mut self.inner;
        crate::exiting::detach(py, || each!(inner, c => c.end(now)));
        self.free_spent();
        Ok(())
    }

    /// Sending or reading failed: `kind` is "connect", "timeout", "reset", "tls"
    /// or "other", `detail` the HTTP library's account (redacted here).
    fn failed(&mut self, py: Python<'_>, now: f64, kind: &str, detail: &str) -> PyResult<()> {
        let now = instant(now)?;
        let kind = TransportKind::from_name(kind);
        let inner = &mut self.inner;
        // A cut table body is checked (its decoder thread waited for).
        crate::exiting::detach(py, || each!(inner, c => c.failed(now, kind, detail)));
        self.free_spent();
        Ok(())
    }

    /// Every connection of the HTTP client's pool stayed busy until the
    /// connect timeout (httpx's PoolTimeout): nothing was sent.
    fn no_free_connection(&mut self, now: f64) -> PyResult<()> {
        let now = instant(now)?;
        each!(&mut self.inner, c => c.no_free_connection(now));
        self.free_spent();
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
        each!(&self.inner, c => c.sink().rows().unwrap_or(0))
    }

    /// Rows handed out in batches so far (streams).
    #[getter]
    fn rows_delivered(&self) -> u64 {
        each!(&self.inner, c => c.rows_delivered())
    }

    /// The call's number in this process, which its log lines start with.
    #[getter]
    fn id(&self) -> u64 {
        each!(&self.inner, c => c.id())
    }

    /// The core's log line of the request just sent ("call 7: request 2:
    /// POST https://... form: ..."), its URL and form redacted.
    fn request_line(&self) -> String {
        each!(&self.inner, c => c.request_line())
    }

    /// The core's log line of an answer's head ("call 7: answer 503").
    fn answer_line(&self, status: u16) -> String {
        each!(&self.inner, c => c.answer_line(status))
    }

    /// The core's log line of a `Sleep` of `seconds` before the next
    /// request ("call 7: waiting 0.52 s before request 2 (as the core's
    /// call asks)").
    fn waiting_line(&self, seconds: f64) -> PyResult<String> {
        let delay = instant(seconds)?;
        Ok(each!(&self.inner, c => c.waiting_line(delay)))
    }

    /// The core's log line of a call that ended with its result ("call 7:
    /// done after 2 requests").
    fn done_line(&self) -> String {
        each!(&self.inner, c => c.done_line())
    }

    /// The core's log line of a call its caller ended before its answer
    /// did ("call 7: ended by its caller after 40 rows"); None if it sent
    /// nothing.
    fn ended_line(&self) -> Option<String> {
        each!(&self.inner, c => c.ended_line())
    }

    /// The core's log line of a call that ended with an error, given its
    /// message ("call 7: failed after 1 request: ...").
    fn failed_line(&self, message: &str) -> String {
        each!(&self.inner, c => c.failed_line(message))
    }

    fn __repr__(&self) -> String {
        let what = match self.inner {
            Inner::Whole(_) => "whole answer",
            Inner::Table(_) => "table",
            Inner::Stream(_) => "stream",
            Inner::Threaded(_) => "stream decoded on a thread",
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
    m.add(
        "DEFAULT_MAX_RETRY_AFTER",
        erpdata::DEFAULT_MAX_RETRY_AFTER.as_secs_f64(),
    )?;
    m.add("MIN_BATCH_ROWS", erpdata::MIN_BATCH_ROWS)?;
    m.add("MAX_BATCH_ROWS", erpdata::MAX_BATCH_ROWS)?;
    m.add("MAX_CONCURRENCY", erpdata::MAX_CONCURRENCY)?;
    m.add("DEFAULT_BATCH_ROWS", erpdata::DEFAULT_BATCH_ROWS)?;
    m.add("DEFAULT_ROW_BATCH_ROWS", erpdata::DEFAULT_ROW_BATCH_ROWS)?;
    m.add_function(wrap_pyfunction!(check_max_retries, m)?)?;
    m.add_function(wrap_pyfunction!(check_max_retry_after, m)?)?;
    m.add_function(wrap_pyfunction!(check_batch_rows, m)?)?;
    m.add_function(wrap_pyfunction!(check_concurrency, m)?)?;
    m.add_function(wrap_pyfunction!(check_timeout, m)?)?;
    Ok(())
}

/// `value` as the whole number `check` accepts, or its `InvalidInputError`
/// (for a value that is no `int` at all, the core's reason with the value
/// shown as Python shows it).
pub(crate) fn whole<T>(
    value: &Bound<'_, PyAny>,
    check: fn(i64) -> erpdata::Result<T>,
) -> crate::errors::Result<T> {
    let int = value.is_instance_of::<pyo3::types::PyInt>()
        && !value.is_instance_of::<pyo3::types::PyBool>();
    if int {
        if let Ok(n) = value.extract::<i64>() {
            return Ok(check(n)?);
        }
    }
    // -1 is out of every range the core checks a whole number against.
    match check(-1) {
        Err(refusal) => Err(refused(value, refusal)),
        Ok(accepted) => Ok(accepted),
    }
}

/// The core's refusal of a value out of range (`refusal`), for `value`,
/// which is not of the type asked for: the same field and range, with the
/// value shown as Python shows it.
fn refused(value: &Bound<'_, PyAny>, refusal: Error) -> crate::errors::Failure {
    let shown = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    let shown = if shown.chars().count() > 40 {
        format!("{}...", shown.chars().take(37).collect::<String>())
    } else {
        shown
    };
    match refusal {
        Error::InvalidInput { field, reason } => {
            let range = reason
                .rsplit_once(", got ")
                .map_or(reason.as_str(), |r| r.0);
            Error::InvalidInput {
                field,
                reason: format!("{range}, got {shown}"),
            }
            .into()
        }
        other => other.into(),
    }
}

/// `max_retries` checked by the core (0 to `MAX_RETRIES`).
#[pyfunction]
fn check_max_retries(value: &Bound<'_, PyAny>) -> crate::errors::Result<u32> {
    whole(value, erpdata::binding::check_max_retries)
}

/// `max_retry_after` in seconds (an `int` or a `float`, not a `bool`)
/// checked by the core (0 to `MAX_TIMEOUT`); a value of another type gets
/// the core's reason with the value shown as Python shows it.
#[pyfunction]
fn check_max_retry_after(value: &Bound<'_, PyAny>) -> crate::errors::Result<f64> {
    let check = erpdata::binding::check_max_retry_after;
    let number = (value.is_instance_of::<pyo3::types::PyInt>()
        || value.is_instance_of::<pyo3::types::PyFloat>())
        && !value.is_instance_of::<pyo3::types::PyBool>();
    if number {
        if let Ok(secs) = value.extract::<f64>() {
            return Ok(check(secs)?.as_secs_f64());
        }
    }
    match check(-1.0) {
        Err(refusal) => Err(refused(value, refusal)),
        Ok(accepted) => Ok(accepted.as_secs_f64()),
    }
}

/// `batch_rows` checked by the core (`MIN_BATCH_ROWS` to `MAX_BATCH_ROWS`).
#[pyfunction]
fn check_batch_rows(value: &Bound<'_, PyAny>) -> crate::errors::Result<usize> {
    whole(value, erpdata::binding::check_batch_rows)
}

/// `concurrency` checked by the core (1 to `MAX_CONCURRENCY`).
#[pyfunction]
fn check_concurrency(value: &Bound<'_, PyAny>) -> crate::errors::Result<usize> {
    whole(value, erpdata::binding::check_concurrency)
}

/// Time limits in seconds checked by the core: each above 0 and at most
/// `MAX_TIMEOUT`; the error names field `timeout` and the limit.
#[pyfunction]
fn check_timeout(total: f64, connect: f64, read: f64) -> crate::errors::Result<()> {
    Timeouts::from_secs_f64(total, connect, read)?;
    Ok(())
}
