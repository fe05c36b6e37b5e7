//! `Call`: the core's state machine for one whole call (`erpdata::Call`),
//! for the JS client's loop. The loop only carries out what `next` says
//! (send with fetch, read the body, sleep, hand out a batch) and reports
//! what happened; attempts, redirects, retries, backoff, Retry-After and
//! every time limit are decided in the core.
//!
//! Two kinds of call, by their sink: an operation's (the core's
//! `OperationSink`: dues and function answers parsed whole, a table
//! decoded as it arrives and typed over the whole table) and a table's
//! stream (each batch handed out as soon as it is complete, one schema).
//! A plan's call keeps its answer in Rust (`Outcome`) for the plan.
//!
//! Times cross as milliseconds: `nowMs` on the host's monotonic clock
//! (`performance.now()`), waits as `waitMs`, `connectMs`, `readMs`, `ms`.

use std::time::{Duration, UNIX_EPOCH};

use erpdata::binding::{check_batch_rows, check_max_retries, check_max_retry_after_millis};
use erpdata::{
    Action, CallInfo, CallOptions, Config, DecoderOptions, Error, Head, Invocation, OperationSink,
    Output, RetryPolicy, RowsFrom, Sink, StreamEnd, Timeouts, TransportKind, DEFAULT_BATCH_ROWS,
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER, DEFAULT_READ_TIMEOUT,
    DEFAULT_ROW_BATCH_ROWS, DEFAULT_TOTAL_TIMEOUT, MAX_BATCH_ROWS, MAX_CONCURRENCY, MAX_RETRIES,
    MAX_TIMEOUT, MIN_BATCH_ROWS,
};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::columns;
use crate::convert::{invalid, set};
use crate::errors::{to_js, JsResult};
use crate::output::{output_js, strings, whole_js, Reread, Whole};
use crate::rows::Numbers;

/// A call's sink: the core's sink for the invocation's answer and, for a
/// table, what of the body `Table.rows` needs to read the exact rows again
/// when they were not all of one shape: while the rows are regular, only
/// the last row begun (the rows before it are rebuilt from the columns;
/// see [`RowsFrom`]), so that a table of regular rows never holds its
/// body, and wasm memory, which never shrinks, grows by its columns only.
struct Kept {
    sink: OperationSink,
    /// The body from `kept_from` on, in segments of up to [`SEGMENT`]
    /// bytes. One buffer grown to the body's size is copied at each
    /// doubling: a 286 MB body held twice that at its peak. A segment per
    /// chunk would grow the memory thousands of times, and V8 collects
    /// garbage at each growth.
    body: Option<Vec<Vec<u8>>>,
    /// Bytes of the body before the kept ones.
    kept_from: u64,
    /// The row the kept body starts at, once it was cut there.
    from: Option<RowsFrom>,
    /// Bytes of the body so far (kept or not).
    received: usize,
    status: u16,
    /// Whether the rows so far all had the same keys in the same order.
    regular: bool,
}

/// Bytes of a kept body's segment (see [`Kept::body`]), once the body is
/// that large; the first is [`FIRST_SEGMENT`], each next as large as the
/// body so far.
const SEGMENT: usize = 8 << 20;
const FIRST_SEGMENT: usize = 64 << 10;

/// From this size on, a table body makes room ahead (see [`make_room`]);
/// a smaller table grows memory as it goes, so that an edge runtime
/// counting the wasm memory's size sees only what it holds.
const ROOM_FROM: usize = 64 << 20;

/// Whether a table's body passed a power of two (from [`ROOM_FROM`] on)
/// between `before` and `now` bytes.
fn crossed_power_of_two(before: usize, now: usize) -> bool {
    now >= ROOM_FROM && (before < ROOM_FROM || before.ilog2() != now.ilog2())
}

/// Grows wasm memory by what a table body of `received` bytes may need
/// next (its next segments and the columns decoded from them: about twice
/// the body so far), in one step, and leaves it free for them. Grown a
/// segment at a time, the memory grew some forty times for a million
/// rows, and V8 collects garbage at each growth: 0.65 s of a 3.4 s table.
/// Pages grown and not yet written take no memory.
fn make_room(received: usize) {
    let mut block = Vec::<u8>::new();
    // A failure only means the decoder grows memory itself later.
    let _ = block.try_reserve_exact(received.saturating_mul(2));
    // Without this the optimiser drops the unused allocation.
    std::hint::black_box(&block);
}

/// Drops the kept body's bytes before offset `to` of the body.
fn cut(body: &mut Vec<Vec<u8>>, kept_from: &mut u64, to: u64) {
    let Some(mut drop) = to.checked_sub(*kept_from).map(|d| d as usize) else {
        return;
    };
    *kept_from = to;
    // Whole segments first; the last one stays, for the chunks to come.
    while body.len() > 1 && body[0].len() <= drop {
        drop -= body.remove(0).len();
    }
    if let Some(first) = body.first_mut() {
        first.drain(..drop.min(first.len()));
    }
}

/// Adds `bytes` to the kept body's last segment, or to a new one.
fn append(body: &mut Vec<Vec<u8>>, bytes: &[u8]) {
    match body.last_mut() {
        Some(last) if last.capacity() - last.len() >= bytes.len() => last.extend_from_slice(bytes),
        _ => {
            // Doubling up to a segment's size: a small table's body takes
            // about what it holds (an edge runtime counts the wasm memory's
            // size, written or not).
            let kept: usize = body.iter().map(Vec::len).sum();
            let mut segment =
                Vec::with_capacity(kept.clamp(FIRST_SEGMENT, SEGMENT).max(bytes.len()));
            segment.extend_from_slice(bytes);
            body.push(segment);
        }
    }
}

/// A call's answer, and what reads its exact rows again when kept.
struct Answer {
    output: Output,
    status: u16,
    reread: Option<Reread>,
    regular: bool,
}

impl Sink for Kept {
    type Output = Answer;

    fn start(&mut self, config: &Config, status: u16) -> erpdata::Result<()> {
        self.status = status;
        self.regular = true;
        self.received = 0;
        self.kept_from = 0;
        self.from = None;
        if let Some(body) = &mut self.body {
            body.clear();
        }
        self.sink.start(config, status)
    }

    fn feed(&mut self, chunk: &[u8]) -> erpdata::Result<()> {
        let before = self.received;
        self.received += chunk.len();
        if self.body.is_some() && crossed_power_of_two(before, self.received) {
            make_room(self.received);
        }
        // Decoded first: what of the chunk to keep depends on its rows.
        let fed = self.sink.feed(chunk);
        self.regular = self.sink.rows_regular();
        let from = self.sink.rows_from();
        if let Some(body) = &mut self.body {
            let mut keep = chunk;
            if let (Some(from), true) = (from, self.regular) {
                cut(body, &mut self.kept_from, from.offset);
                let skip = from.offset.saturating_sub(before as u64);
                keep = &chunk[(skip as usize).min(chunk.len())..];
                self.from = Some(from);
            }
            append(body, keep);
        }
        fed
    }

    fn rows(&self) -> Option<u64> {
        self.sink.rows()
    }

    fn check(&mut self) -> erpdata::Result<()> {
        self.sink.check()
    }

    fn finish(&mut self) -> erpdata::Result<Answer> {
        let output = self.sink.finish()?;
        // Rows rebuilt from the columns are the rows sent: what was kept
        // goes before the answer is converted. Else it is joined, once.
        let kept = self.body.take().filter(|_| !self.regular);
        let reread = kept.map(|chunks| {
            let tail = chunks.concat();
            match self.from {
                Some(from) => Reread {
                    body: RowsFrom::body(&tail),
                    rows_before: from.row,
                    width_before: from.columns,
                },
                None => Reread {
                    body: tail,
                    rows_before: 0,
                    width_before: 0,
                },
            }
        });
        Ok(Answer {
            output,
            status: self.status,
            reread,
            regular: self.regular,
        })
    }
}

enum Inner {
    Operation(Box<erpdata::Call<Kept>>),
    Stream(Box<erpdata::Call<erpdata::TableStream>>),
}

/// Runs `$body` with `$c` bound to the call, whatever its sink.
macro_rules! with_call {
    ($self:expr, $c:ident => $body:expr) => {
        match &mut $self.inner {
            Inner::Operation($c) => $body,
            Inner::Stream($c) => $body,
        }
    };
}

/// One call; see the module documentation.
#[wasm_bindgen]
pub struct Call {
    inner: Inner,
    config: Config,
    numbers: Numbers,
    /// A plan's call: its answer stays in Rust (an `Outcome`) for the plan.
    planned: bool,
}

/// A plan's call's answer, kept in Rust for `Plan.done`.
#[wasm_bindgen]
pub struct Outcome(pub(crate) Option<Output>);

impl Call {
    /// A call of `invocation` (its answer through the core's sink), its
    /// options from JS; `clock` is `(nowMs, seed)`.
    pub(crate) fn start(
        config: &Config,
        invocation: &Invocation,
        decoder: DecoderOptions,
        options: &JsValue,
        clock: (f64, f64),
        numbers: Numbers,
        planned: bool,
    ) -> erpdata::Result<Call> {
        let (call_options, batch_rows) = call_options(options, DEFAULT_BATCH_ROWS)?;
        let request = invocation.request(config)?;
        let table = invocation.operation().answer == erpdata::catalogue::AnswerKind::Table;
        let sink = Kept {
            sink: invocation.sink(DecoderOptions {
                batch_rows,
                ..decoder
            }),
            body: table.then(Vec::new),
            kept_from: 0,
            from: None,
            received: 0,
            status: 0,
            regular: true,
        };
        let call = new_call(config, request, call_options, sink, clock);
        Ok(Call {
            inner: Inner::Operation(Box::new(call)),
            config: config.clone(),
            numbers,
            planned,
        })
    }

    /// A table's call as a stream of batches of one schema.
    pub(crate) fn stream(
        config: &Config,
        invocation: &Invocation,
        mut decoder: DecoderOptions,
        options: &JsValue,
        clock: (f64, f64),
        numbers: Numbers,
    ) -> erpdata::Result<Call> {
        // Its batches become arrays of row objects: the smaller default.
        let (call_options, batch_rows) = call_options(options, DEFAULT_ROW_BATCH_ROWS)?;
        decoder.batch_rows = batch_rows;
        let request = invocation.request(config)?;
        let sink = erpdata::TableStream::new(decoder);
        let call = new_call(config, request, call_options, sink, clock).streaming();
        Ok(Call {
            inner: Inner::Stream(Box::new(call)),
            config: config.clone(),
            numbers,
            planned: false,
        })
    }
}

/// The core's call sending `request` into `sink`, at `nowMs` on the host's
/// monotonic clock, `seed` its jitter's.
fn new_call<S: Sink>(
    config: &Config,
    request: http::Request<erpdata::RequestBody>,
    options: CallOptions,
    sink: S,
    (now_ms, seed): (f64, f64),
) -> erpdata::Call<S> {
    erpdata::Call::new(
        config,
        request,
        options,
        sink,
        millis(now_ms),
        seed_of(seed),
    )
}

#[wasm_bindgen]
impl Call {
    /// What to do next, as a plain object by `action`: `send` (`method,
    /// url, headers, body, connectMs, readMs, waitMs`), `read` (`waitMs`),
    /// `sleep` (`ms`), `emit` (`batch`), `done` (`value`), `failed`
    /// (`error`, the error object). Whenever it is `send`, `sleep`, `done`
    /// or `failed`, an answer still open is cancelled unread.
    pub fn next(&mut self, now_ms: f64) -> Result<JsValue, JsValue> {
        let now = millis(now_ms);
        let numbers = self.numbers;
        let planned = self.planned;
        let config = &self.config;
        match &mut self.inner {
            Inner::Operation(c) => action(config, c.next(now), numbers, |answer| {
                done_js(answer, numbers, planned)
            }),
            Inner::Stream(c) => action(config, c.next(now), numbers, |end| Ok(end_js(&end))),
        }
    }

    /// The answer's head arrived: its status, `Location` and
    /// `Retry-After` headers (`undefined` when absent) and the wall clock
    /// (`Date.now()`, for a `Retry-After` date).
    pub fn head(
        &mut self,
        now_ms: f64,
        status: u16,
        location: Option<String>,
        retry_after: Option<String>,
        date_ms: Option<f64>,
    ) {
        let date = date_ms
            .filter(|d| d.is_finite() && *d >= 0.0)
            .map(|d| UNIX_EPOCH + Duration::from_secs_f64(d / 1000.0));
        let head = Head {
            status,
            location: location.as_deref(),
            retry_after: retry_after.as_deref(),
            date,
        };
        with_call!(self, c => c.head(millis(now_ms), head))
    }

    /// A part of the body arrived.
    pub fn chunk(&mut self, now_ms: f64, bytes: &[u8]) {
        with_call!(self, c => c.chunk(millis(now_ms), bytes))
    }

    /// The body ended.
    pub fn end(&mut self, now_ms: f64) {
        with_call!(self, c => c.end(millis(now_ms)))
    }

    /// Sending, or reading the body, failed: `kind` is `"connect"`,
    /// `"timeout"`, `"reset"`, `"tls"` or `"other"`, `detail` the host's account
    /// (redacted by the core; ignored for a timeout).
    pub fn failed(&mut self, now_ms: f64, kind: &str, detail: &str) {
        let kind = TransportKind::from_name(kind);
        with_call!(self, c => c.failed(millis(now_ms), kind, detail))
    }

    /// The error object for a call its caller aborted (never retried),
    /// saying where the call stood. `timed_out`: the signal's reason was a
    /// `TimeoutError` (`AbortSignal.timeout()`, a deadline the caller set),
    /// which is a timeout as the call's own limits are, so that a service
    /// maps it as one (504); any other abort (the HTTP client gone) is
    /// `other`.
    pub fn aborted(&mut self, timed_out: Option<bool>) -> JsValue {
        let error = if timed_out == Some(true) {
            self.config.transport_error(
                TransportKind::Timeout,
                "the call was aborted by its signal, which timed out",
            )
        } else {
            self.config
                .transport_error(TransportKind::Other, "the call was aborted by its signal")
        };
        let config = &self.config;
        let info = with_call!(self, c => CallInfo {
            attempts: c.attempts(),
            url: config.redact(&c.request().uri().to_string()),
            ..CallInfo::default()
        });
        let delivered = match &self.inner {
            Inner::Stream(c) => Some(c.rows_delivered()),
            _ => None,
        };
        to_js(&error.with_call(CallInfo {
            rows_delivered: delivered,
            ..info
        }))
    }

    /// Requests sent so far.
    #[wasm_bindgen(getter)]
    pub fn attempts(&mut self) -> u32 {
        with_call!(self, c => c.attempts())
    }

    /// The core's log line of the request just sent (`call 7: request 2:
    /// POST https://... form: ...`), its URL and form redacted.
    #[wasm_bindgen(js_name = requestLine)]
    pub fn request_line(&mut self) -> String {
        with_call!(self, c => c.request_line())
    }

    /// The core's log line of an answer's head (`call 7: answer 503`).
    #[wasm_bindgen(js_name = answerLine)]
    pub fn answer_line(&mut self, status: u16) -> String {
        with_call!(self, c => c.answer_line(status))
    }

    /// The core's log line of a `sleep` of `ms` before the next request
    /// (`call 7: waiting 0.52 s before request 2 (as the core's call
    /// asks)`).
    #[wasm_bindgen(js_name = waitingLine)]
    pub fn waiting_line(&mut self, ms: f64) -> String {
        with_call!(self, c => c.waiting_line(millis(ms)))
    }

    /// The core's log line of a call that ended with its result (`call 7:
    /// done after 2 requests`).
    #[wasm_bindgen(js_name = doneLine)]
    pub fn done_line(&mut self) -> String {
        with_call!(self, c => c.done_line())
    }

    /// The core's log line of a call its caller ended before its answer
    /// did (`call 7: ended by its caller after 40 rows`); undefined if it
    /// sent nothing.
    #[wasm_bindgen(js_name = endedLine)]
    pub fn ended_line(&mut self) -> Option<String> {
        with_call!(self, c => c.ended_line())
    }

    /// The core's log line of a call that ended with the error whose
    /// message is `message` (`call 7: failed after 1 request: …`).
    #[wasm_bindgen(js_name = failedLine)]
    pub fn failed_line(&mut self, message: &str) -> String {
        with_call!(self, c => c.failed_line(message))
    }
}

/// An action as the plain object `next` gives.
fn action<O>(
    config: &Config,
    action: Action<O>,
    numbers: Numbers,
    done: impl FnOnce(O) -> Result<JsValue, JsValue>,
) -> Result<JsValue, JsValue> {
    let out = Object::new();
    let name = match action {
        Action::Send {
            request,
            connect,
            read,
            wait,
        } => {
            Object::assign(&out, &request_js(config, &request, false));
            set(&out, "connectMs", &ms(connect).into());
            set(&out, "readMs", &ms(read).into());
            set(&out, "waitMs", &ms(wait).into());
            "send"
        }
        Action::Read { wait } => {
            set(&out, "waitMs", &ms(wait).into());
            "read"
        }
        Action::Sleep(d) => {
            set(&out, "ms", &ms(d).into());
            "sleep"
        }
        Action::Emit(batch) => {
            set(&out, "batch", &columns::batch(&batch, numbers));
            "emit"
        }
        Action::Done(output) => {
            set(&out, "value", &done(output)?);
            "done"
        }
        Action::Failed(error) => {
            set(&out, "error", &to_js(&error));
            "failed"
        }
    };
    set(&out, "action", &name.into());
    Ok(out.into())
}

/// The core's limits and defaults, for the JS client's options and docs:
/// `{defaults: {timeoutMs, connectTimeoutMs, readTimeoutMs, maxRetries,
/// maxRetryAfterMs, batchRows, streamBatchRows}, maxTimeoutMs, maxRetries:
/// {min, max}, batchRows: {min, max}, concurrency: {min, max}}`.
#[wasm_bindgen]
pub fn limits() -> JsValue {
    let defaults = Object::new();
    set(&defaults, "timeoutMs", &ms(DEFAULT_TOTAL_TIMEOUT).into());
    set(
        &defaults,
        "connectTimeoutMs",
        &ms(DEFAULT_CONNECT_TIMEOUT).into(),
    );
    set(&defaults, "readTimeoutMs", &ms(DEFAULT_READ_TIMEOUT).into());
    set(&defaults, "maxRetries", &DEFAULT_MAX_RETRIES.into());
    set(
        &defaults,
        "maxRetryAfterMs",
        &ms(DEFAULT_MAX_RETRY_AFTER).into(),
    );
    set(&defaults, "batchRows", &(DEFAULT_BATCH_ROWS as f64).into());
    set(
        &defaults,
        "streamBatchRows",
        &(DEFAULT_ROW_BATCH_ROWS as f64).into(),
    );
    let range = |min: f64, max: f64| {
        let r = Object::new();
        set(&r, "min", &min.into());
        set(&r, "max", &max.into());
        JsValue::from(r)
    };
    let out = Object::new();
    set(&out, "defaults", &defaults);
    set(&out, "maxTimeoutMs", &ms(MAX_TIMEOUT).into());
    set(&out, "maxRetries", &range(0.0, MAX_RETRIES as f64));
    set(
        &out,
        "batchRows",
        &range(MIN_BATCH_ROWS as f64, MAX_BATCH_ROWS as f64),
    );
    set(&out, "concurrency", &range(1.0, MAX_CONCURRENCY as f64));
    out.into()
}

/// Checks a call's options (`{timeoutMs, connectTimeoutMs, readTimeoutMs,
/// maxRetries, maxRetryAfterMs, batchRows}`, each `undefined`/`null` for the default) as
/// the core does, and gives them with every default filled in; throws the
/// `invalid_input` error naming the option.
#[wasm_bindgen(js_name = checkCallOptions)]
pub fn check_call_options(options: &JsValue) -> JsResult<JsValue> {
    let (call, batch_rows) = call_options(options, DEFAULT_BATCH_ROWS)?;
    let out = Object::new();
    set(&out, "timeoutMs", &ms(call.timeouts.total).into());
    set(&out, "connectTimeoutMs", &ms(call.timeouts.connect).into());
    set(&out, "readTimeoutMs", &ms(call.timeouts.read).into());
    set(&out, "maxRetries", &call.retry.max_retries.into());
    set(
        &out,
        "maxRetryAfterMs",
        &ms(call.retry.max_retry_after).into(),
    );
    set(&out, "batchRows", &(batch_rows as f64).into());
    Ok(out.into())
}

/// A call's options from JS: the time limits (a limit not given is its
/// default, never above the total), the retries and the batch size (not
/// given: `default_batch_rows`).
fn call_options(
    options: &JsValue,
    default_batch_rows: usize,
) -> Result<(CallOptions, usize), Error> {
    let get = |key: &str| -> Result<Option<f64>, Error> {
        let value = if options.is_object() {
            Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        };
        if value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        value.as_f64().map(Some).ok_or_else(|| {
            // Named as the core names them; a time limit as the core's
            // `timeout` errors do, by the limit.
            let (field, limit) = match key {
                "maxRetries" => ("max_retries", ""),
                "maxRetryAfterMs" => ("max_retry_after", ""),
                "batchRows" => ("batch_rows", ""),
                "connectTimeoutMs" => ("timeout", "connect "),
                "readTimeoutMs" => ("timeout", "read "),
                _ => ("timeout", "total "),
            };
            let got = crate::convert::describe(&value);
            invalid(field, format!("{limit}must be a number, got {got}"))
        })
    };
    let total = get("timeoutMs")?.unwrap_or(ms(DEFAULT_TOTAL_TIMEOUT));
    // A limit left out is its default, but never longer than the total.
    let capped = |d: Duration| ms(d).min(total.max(0.0));
    let connect = get("connectTimeoutMs")?.unwrap_or(capped(DEFAULT_CONNECT_TIMEOUT));
    let read = get("readTimeoutMs")?.unwrap_or(capped(DEFAULT_READ_TIMEOUT));
    let timeouts = Timeouts::from_millis_f64(total, connect, read)?;
    let max_retries = match get("maxRetries")? {
        None => DEFAULT_MAX_RETRIES,
        Some(n) => check_max_retries(whole("max_retries", n, MAX_RETRIES as f64, 0.0)?)?,
    };
    let max_retry_after = match get("maxRetryAfterMs")? {
        None => DEFAULT_MAX_RETRY_AFTER,
        Some(ms) => check_max_retry_after_millis(ms)?,
    };
    let batch_rows = match get("batchRows")? {
        None => default_batch_rows,
        Some(n) => check_batch_rows(whole(
            "batch_rows",
            n,
            MAX_BATCH_ROWS as f64,
            MIN_BATCH_ROWS as f64,
        )?)?,
    };
    let call = CallOptions {
        timeouts,
        retry: RetryPolicy {
            max_retry_after,
            ..RetryPolicy::with_max_retries(max_retries)
        },
    };
    Ok((call, batch_rows))
}

/// `n` as a whole number for the core's range check; a fraction, NaN or
/// infinity is refused here with the core's wording.
pub(crate) fn whole(field: &str, n: f64, max: f64, min: f64) -> Result<i64, Error> {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        return Ok(n as i64);
    }
    Err(invalid(
        field,
        format!("must be a whole number from {min} to {max}, got {n}"),
    ))
}

fn millis(now_ms: f64) -> Duration {
    if now_ms.is_finite() && now_ms > 0.0 {
        Duration::from_secs_f64(now_ms / 1000.0)
    } else {
        Duration::ZERO
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn seed_of(seed: f64) -> u64 {
    if seed.is_finite() {
        seed.abs() as u64
    } else {
        0
    }
}

fn end_js(end: &StreamEnd) -> JsValue {
    let out = Object::new();
    set(&out, "notices", &strings(&end.notices));
    set(&out, "totalRows", &(end.total_rows as f64).into());
    out.into()
}

/// A call's answer as `done`'s value: for a plan, an `Outcome` kept in
/// Rust; else converted by its variant, a table with what `Table.rows`
/// needs to read the exact rows again.
fn done_js(answer: Answer, numbers: Numbers, planned: bool) -> Result<JsValue, JsValue> {
    if planned {
        return Ok(Outcome(Some(answer.output)).into());
    }
    match answer.output {
        Output::Batches(batches) => {
            let regular = answer.regular;
            Ok(whole_js(
                Whole {
                    batches,
                    regular,
                    status: answer.status,
                    reread: answer.reread.filter(|_| !regular),
                },
                numbers,
            ))
        }
        other => output_js(other, numbers),
    }
}

/// A request as `{method, url, headers, body}` for fetch, and
/// `displayUrl` (the URL with the token redacted) when asked.
pub(crate) fn request_js(
    config: &Config,
    request: &http::Request<erpdata::RequestBody>,
    display: bool,
) -> Object {
    let url = request.uri().to_string();
    let headers = Array::new();
    for (name, value) in request.headers() {
        // The core only sets ASCII values; lossy is for the impossible case.
        let value = String::from_utf8_lossy(value.as_bytes());
        headers.push(&Array::of2(&name.as_str().into(), &value.as_ref().into()));
    }
    let body = if request.body().is_empty() {
        JsValue::NULL
    } else {
        Uint8Array::from(request.body().as_bytes()).into()
    };
    let out = Object::new();
    set(&out, "method", &request.method().as_str().into());
    set(&out, "url", &url.as_str().into());
    set(&out, "headers", &headers);
    set(&out, "body", &body);
    if display {
        set(&out, "displayUrl", &config.redact(&url).into());
    }
    out
}
