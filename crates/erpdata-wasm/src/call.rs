//! `Call`: the core's state machine for one whole call (`erpdata::Call`),
//! for the JS client's loop. The loop only carries out what `next` says
//! (send with fetch, read the body, sleep, hand out a batch) and reports
//! what happened; attempts, redirects, retries, backoff, Retry-After and
//! every time limit are decided in the core.
//!
//! Three kinds of call, by their sink: dues (the whole body, then the
//! core's dues parser), a whole table (decoded as it arrives, its columns
//! typed over the whole table, as `table()` gives it) and a stream (each
//! batch handed out as soon as it is complete, one schema).
//!
//! Times cross as milliseconds: `nowMs` on the host's monotonic clock
//! (`performance.now()`), waits as `waitMs`, `connectMs`, `readMs`, `ms`.

use std::time::{Duration, UNIX_EPOCH};

use erpdata::{
    check_batch_rows, check_max_retries, unify_schemas, Action, Batch, CallInfo, CallOptions,
    Config, DecoderOptions, Dues, Error, Head, Parsed, RetryPolicy, Schema, Sink, StreamEnd,
    TableDecoder, Timeouts, TransportKind, DEFAULT_BATCH_ROWS, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT, DEFAULT_TOTAL_TIMEOUT, MAX_BATCH_ROWS,
    MAX_CONCURRENCY, MAX_RETRIES, MAX_TIMEOUT, MIN_BATCH_ROWS,
};
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::columns;
use crate::convert::{self, describe, invalid, set};
use crate::errors::{core, to_js};
use crate::rows::{self, Numbers};
use crate::{dues_js, dues_query, request_js, table_query, Core};

type ParseDues = Box<dyn FnMut(&Config, u16, &[u8]) -> erpdata::Result<Dues>>;
type ParseAjax = Box<dyn FnMut(&Config, u16, &[u8]) -> erpdata::Result<erpdata::AjaxAnswer>>;

enum Inner {
    Dues(erpdata::Call<Parsed<ParseDues>>),
    Ajax(erpdata::Call<Parsed<ParseAjax>>),
    Table(erpdata::Call<WholeTable>),
    Stream(erpdata::Call<erpdata::TableStream>),
}

/// Runs `$body` with `$c` bound to the call, whatever its sink.
macro_rules! with_call {
    ($self:expr, $c:ident => $body:expr) => {
        match &mut $self.inner {
            Inner::Dues($c) => $body,
            Inner::Ajax($c) => $body,
            Inner::Table($c) => $body,
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
}

#[wasm_bindgen]
impl Core {
    /// The dues query as a call. `numbers`, `typing` as for `parseDues`;
    /// `options` as for `checkCallOptions`; `nowMs` the monotonic clock,
    /// `seed` any random number (the backoff's jitter); `ajax` (optional)
    /// `{sendToken, method}`.
    #[wasm_bindgen(js_name = duesCall)]
    #[allow(clippy::too_many_arguments)]
    pub fn dues_call(
        &self,
        acid: &JsValue,
        kind: &JsValue,
        numbers: &JsValue,
        typing: &JsValue,
        options: &JsValue,
        now_ms: f64,
        seed: f64,
        ajax: &JsValue,
    ) -> Result<Call, JsValue> {
        let mut query = core(dues_query(acid, kind))?;
        query.options = core(crate::functions::ajax_options(ajax))?;
        let numbers = core(rows::numbers(numbers))?;
        let decoder = core(convert::typing(typing))?;
        let (call_options, _) = core(call_options(options))?;
        let request = core(self.config.dues_request(&query))?;
        let parse: ParseDues = Box::new(move |config: &Config, status, body: &[u8]| {
            config.parse_dues_with(&query, status, body, &decoder)
        });
        let call = self.new_call(request, call_options, Parsed::new(parse), now_ms, seed);
        Ok(self.call(Inner::Dues(call), numbers))
    }

    /// A function of ajax.php as a call (`function`, `args` and `ajax` as
    /// for `ajaxRequest`); `done` gives the answer as `parseAjax` does.
    /// Other arguments as for `duesCall`.
    #[wasm_bindgen(js_name = ajaxCall)]
    #[allow(clippy::too_many_arguments)]
    pub fn ajax_call(
        &self,
        function: &str,
        args: &JsValue,
        ajax: &JsValue,
        numbers: &JsValue,
        typing: &JsValue,
        options: &JsValue,
        now_ms: f64,
        seed: f64,
    ) -> Result<Call, JsValue> {
        let query = core(crate::functions::ajax_query(function, args, ajax))?;
        let numbers = core(rows::numbers(numbers))?;
        let decoder = core(convert::typing(typing))?;
        let (call_options, _) = core(call_options(options))?;
        let request = core(self.config.ajax_request(&query))?;
        let parse: ParseAjax = Box::new(move |config: &Config, status, body: &[u8]| {
            config.parse_ajax_with(&query, status, body, &decoder)
        });
        let call = self.new_call(request, call_options, Parsed::new(parse), now_ms, seed);
        Ok(self.call(Inner::Ajax(call), numbers))
    }

    /// The table fetch as a call giving the whole table (`{batch, notices,
    /// totalRows, regular, status, body}`: one batch of the column types
    /// unified over every row; `body` only when the rows were not all of
    /// one shape, for the exact rows of `parseTable`). Arguments as for
    /// `tableRequest`, then as for `duesCall`.
    #[wasm_bindgen(js_name = tableCall)]
    #[allow(clippy::too_many_arguments)]
    pub fn table_call(
        &self,
        table: &JsValue,
        company_id: &JsValue,
        year_id: &JsValue,
        method: &JsValue,
        numbers: &JsValue,
        typing: &JsValue,
        options: &JsValue,
        now_ms: f64,
        seed: f64,
    ) -> Result<Call, JsValue> {
        let query = core(table_query(table, company_id, year_id, method))?;
        let numbers = core(rows::numbers(numbers))?;
        let mut decoder = core(convert::typing(typing))?;
        let (call_options, batch_rows) = core(call_options(options))?;
        decoder.batch_rows = batch_rows;
        let request = core(self.config.table_request(&query))?;
        let sink = WholeTable::new(decoder);
        let call = self.new_call(request, call_options, sink, now_ms, seed);
        Ok(self.call(Inner::Table(call), numbers))
    }

    /// The table fetch as a stream: each batch (`options.batchRows` rows)
    /// handed out by an `emit` action as soon as it is complete, all of
    /// one schema; `done` gives `{notices, totalRows}`. Arguments as for
    /// `tableCall`.
    #[wasm_bindgen(js_name = streamCall)]
    #[allow(clippy::too_many_arguments)]
    pub fn stream_call(
        &self,
        table: &JsValue,
        company_id: &JsValue,
        year_id: &JsValue,
        method: &JsValue,
        numbers: &JsValue,
        typing: &JsValue,
        options: &JsValue,
        now_ms: f64,
        seed: f64,
    ) -> Result<Call, JsValue> {
        let query = core(table_query(table, company_id, year_id, method))?;
        let numbers = core(rows::numbers(numbers))?;
        let mut decoder = core(convert::typing(typing))?;
        let (call_options, batch_rows) = core(call_options(options))?;
        decoder.batch_rows = batch_rows;
        let request = core(self.config.table_request(&query))?;
        let call = self
            .new_call(
                request,
                call_options,
                erpdata::TableStream::new(decoder),
                now_ms,
                seed,
            )
            .streaming();
        Ok(self.call(Inner::Stream(call), numbers))
    }
}

impl Core {
    /// The core's call sending `request` into `sink`, at `now_ms` on the
    /// host's monotonic clock, `seed` its jitter's.
    fn new_call<S: Sink>(
        &self,
        request: http::Request<Vec<u8>>,
        options: CallOptions,
        sink: S,
        now_ms: f64,
        seed: f64,
    ) -> erpdata::Call<S> {
        erpdata::Call::new(
            &self.config,
            request,
            options,
            sink,
            millis(now_ms),
            seed_of(seed),
        )
    }

    fn call(&self, inner: Inner, numbers: Numbers) -> Call {
        Call {
            inner,
            config: self.config.clone(),
            numbers,
        }
    }
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
        let config = &self.config;
        match &mut self.inner {
            Inner::Dues(c) => action(config, c.next(now), numbers, |d| dues_js(&d, numbers)),
            Inner::Ajax(c) => action(config, c.next(now), numbers, |a| {
                crate::functions::answer_js(&a, numbers)
            }),
            Inner::Table(c) => action(config, c.next(now), numbers, |t| whole_js(t, numbers)),
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
    /// `"timeout"`, `"reset"` or `"other"`, `detail` the host's account
    /// (redacted by the core; ignored for a timeout).
    pub fn failed(&mut self, now_ms: f64, kind: &str, detail: &str) {
        let kind = TransportKind::from_name(kind);
        with_call!(self, c => c.failed(millis(now_ms), kind, detail))
    }

    /// The error object for a call its caller aborted (never retried),
    /// saying where the call stood.
    pub fn aborted(&mut self) -> JsValue {
        let error = self
            .config
            .transport_error(TransportKind::Other, "the call was aborted by its signal");
        let config = &self.config;
        let info = with_call!(self, c => CallInfo {
            attempts: c.attempts(),
            url: config.redact(&c.request().uri().to_string()),
            rows_received: None,
            rows_delivered: None,
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
            let request = request_js(config, &request);
            Object::assign(&out, &request);
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
/// batchRows}, maxTimeoutMs, maxRetries: {min, max}, batchRows: {min,
/// max}, concurrency: {min, max}}`.
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
    set(&defaults, "batchRows", &(DEFAULT_BATCH_ROWS as f64).into());
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
/// maxRetries, batchRows}`, each `undefined`/`null` for the default) as
/// the core does, and gives them with every default filled in; throws the
/// `invalid_input` error naming the field (`timeout`, `max_retries`,
/// `batch_rows`).
#[wasm_bindgen(js_name = checkCallOptions)]
pub fn check_call_options(options: &JsValue) -> Result<JsValue, JsValue> {
    let (call, batch_rows) = core(call_options(options))?;
    let out = Object::new();
    set(&out, "timeoutMs", &ms(call.timeouts.total).into());
    set(&out, "connectTimeoutMs", &ms(call.timeouts.connect).into());
    set(&out, "readTimeoutMs", &ms(call.timeouts.read).into());
    set(&out, "maxRetries", &call.retry.max_retries.into());
    set(&out, "batchRows", &(batch_rows as f64).into());
    Ok(out.into())
}

/// `concurrency` as the core accepts it (a whole number from 1 to
/// `MAX_CONCURRENCY`); else the `invalid_input` error naming it.
#[wasm_bindgen(js_name = checkConcurrency)]
pub fn check_concurrency(value: &JsValue) -> Result<f64, JsValue> {
    let max = MAX_CONCURRENCY as f64;
    let n = match value.as_f64() {
        Some(n) => n,
        None => core(Err(invalid(
            "concurrency",
            format!(
                "must be a whole number from 1 to {max}, got {}",
                describe(value)
            ),
        )))?,
    };
    let n = core(whole("concurrency", n, max, 1.0).and_then(erpdata::check_concurrency))?;
    Ok(n as f64)
}

/// A call's options from JS: the time limits (a limit not given is its
/// default, never above the total), the retries and the batch size.
fn call_options(options: &JsValue) -> Result<(CallOptions, usize), Error> {
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
            let field = match key {
                "maxRetries" => "max_retries",
                "batchRows" => "batch_rows",
                _ => "timeout",
            };
            invalid(field, format!("{key} must be a number"))
        })
    };
    let total = get("timeoutMs")?.map_or(DEFAULT_TOTAL_TIMEOUT.as_secs_f64(), |m| m / 1000.0);
    // A limit left out is its default, but never longer than the total.
    let capped = |d: Duration| d.as_secs_f64().min(total.max(0.0));
    let connect = get("connectTimeoutMs")?.map_or(capped(DEFAULT_CONNECT_TIMEOUT), |m| m / 1000.0);
    let read = get("readTimeoutMs")?.map_or(capped(DEFAULT_READ_TIMEOUT), |m| m / 1000.0);
    let timeouts = Timeouts::from_secs_f64(total, connect, read)?;
    let max_retries = match get("maxRetries")? {
        None => DEFAULT_MAX_RETRIES,
        Some(n) => check_max_retries(whole("max_retries", n, MAX_RETRIES as f64, 0.0)?)?,
    };
    let batch_rows = match get("batchRows")? {
        None => DEFAULT_BATCH_ROWS,
        Some(n) => check_batch_rows(whole(
            "batch_rows",
            n,
            MAX_BATCH_ROWS as f64,
            MIN_BATCH_ROWS as f64,
        )?)?,
    };
    let call = CallOptions {
        timeouts,
        retry: RetryPolicy::with_max_retries(max_retries),
    };
    Ok((call, batch_rows))
}

/// `n` as a whole number for the core's range check; a fraction, NaN or
/// infinity is refused here with the core's wording.
fn whole(field: &str, n: f64, max: f64, min: f64) -> Result<i64, Error> {
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
    set(&out, "notices", &crate::strings(&end.notices));
    set(&out, "totalRows", &(end.total_rows as f64).into());
    out.into()
}

/// A whole table as the call gives it.
pub(crate) struct WholeOut {
    batches: Vec<Batch>,
    notices: Vec<String>,
    total_rows: u64,
    regular: bool,
    status: u16,
    /// The body, kept only when the rows were not all of one shape.
    body: Option<Vec<u8>>,
}

fn whole_js(table: WholeOut, numbers: Numbers) -> Result<JsValue, JsValue> {
    let batches = unified(table.batches);
    let out = Object::new();
    set(&out, "batch", &columns::batches(&batches, numbers));
    set(&out, "notices", &crate::strings(&table.notices));
    set(&out, "totalRows", &(table.total_rows as f64).into());
    set(&out, "regular", &table.regular.into());
    set(&out, "status", &table.status.into());
    if let Some(body) = table.body {
        set(&out, "body", &Uint8Array::from(body.as_slice()).into());
    }
    Ok(out.into())
}

/// A whole table: decoded as it arrives (so a body that goes wrong fails
/// at once), its batches kept until the end, when the core decides each
/// column's type over all of them.
pub(crate) struct WholeTable {
    options: DecoderOptions,
    decoder: Option<TableDecoder>,
    kept: Vec<Batch>,
    body: Vec<u8>,
    status: u16,
    rows: u64,
}

impl WholeTable {
    fn new(options: DecoderOptions) -> Self {
        WholeTable {
            options: DecoderOptions {
                one_schema: false,
                ..options
            },
            decoder: None,
            kept: Vec::new(),
            body: Vec::new(),
            status: 0,
            rows: 0,
        }
    }
}

impl Sink for WholeTable {
    type Output = WholeOut;

    fn start(&mut self, config: &Config, status: u16) -> erpdata::Result<()> {
        self.kept.clear();
        self.body.clear();
        self.rows = 0;
        self.status = status;
        self.decoder = Some(TableDecoder::new(config, status, self.options.clone()));
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> erpdata::Result<()> {
        if let Some(decoder) = &mut self.decoder {
            self.body.extend_from_slice(chunk);
            let fed = decoder.feed(chunk);
            self.rows = decoder.rows();
            self.kept.extend(fed?);
        }
        Ok(())
    }

    fn rows(&self) -> u64 {
        self.rows
    }

    fn finish(&mut self) -> erpdata::Result<WholeOut> {
        let Some(decoder) = self.decoder.take() else {
            return Err(invalid(
                "body",
                "ended before it began (a bug in the binding)",
            ));
        };
        let regular = decoder.rows_regular();
        let done = decoder.finish()?;
        let mut batches = std::mem::take(&mut self.kept);
        batches.extend(done.batches);
        let body = std::mem::take(&mut self.body);
        Ok(WholeOut {
            batches,
            notices: done.notices,
            total_rows: done.total_rows,
            regular,
            status: self.status,
            body: (!regular).then_some(body),
        })
    }
}

/// The batches cast to the schema that holds them all: the core's rule
/// for a whole table, so every batch has the same columns, in the same
/// order, of the same types.
pub(crate) fn unified(batches: Vec<Batch>) -> Vec<Batch> {
    let schema = batches
        .iter()
        .fold(Schema::new(), |s, b| unify_schemas(&s, &b.schema()));
    batches
        .into_iter()
        .map(|b| {
            if b.schema() == schema {
                b
            } else {
                b.cast(&schema)
                    .expect("a schema unified from a batch's holds it")
            }
        })
        .collect()
}
