//! One call as a state machine: see [`Call`].

mod debug;
mod limits;
mod plain_http;
mod sink;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use http::Request;

pub use limits::{
    check_batch_rows, check_concurrency, check_max_retries, check_max_retry_after,
    check_max_retry_after_millis, CallOptions, Timeouts, DEFAULT_BATCH_ROWS,
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER, DEFAULT_READ_TIMEOUT,
    DEFAULT_ROW_BATCH_ROWS, DEFAULT_TOTAL_TIMEOUT, MAX_BATCH_ROWS, MAX_CONCURRENCY, MAX_RETRIES,
    MAX_TIMEOUT, MIN_BATCH_ROWS,
};
pub use sink::{Answer, OwnedChunk, Parsed, Sink, StreamEnd, TableStream, WholeBody};

use crate::body::RequestBody;
use crate::config::Config;
use crate::error::{CallInfo, Error, TransportKind};
use crate::log_line;
use crate::retry::{Outcome, Verdict};
use crate::source::TransportSource;

/// What the host does next.
///
/// Whenever the action is `Send`, `Sleep`, `Done` or `Failed`, an answer
/// still open from before is finished with: the host closes it unread.
///
/// Its `Debug` never shows the access token (see `debug.rs`).
// One action at a time is made and moved once: boxing the request would
// cost an allocation per attempt for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Action<O> {
    /// Send this request (never following a redirect, never retrying by
    /// itself) and report its answer's head with [`Call::head`] or its
    /// failure with [`Call::failed`]; a wait that runs out is a
    /// [`TransportKind::Timeout`] failure. A host stack that can bound
    /// connecting and each read apart uses `connect` and `read`; one that
    /// cannot bounds the whole wait for the head by `wait`.
    Send {
        /// The request.
        request: Request<RequestBody>,
        /// The longest wait to connect.
        connect: Duration,
        /// The longest wait for bytes once connected.
        read: Duration,
        /// The longest wait from sending to the answer's head, connecting
        /// included.
        wait: Duration,
    },
    /// Read the next part of the answer's body, waiting at most `wait`,
    /// and report it with [`Call::chunk`], [`Call::end`] or
    /// [`Call::failed`] (a [`TransportKind::Timeout`] when the wait ran
    /// out).
    Read {
        /// The longest wait.
        wait: Duration,
    },
    /// Wait this long, then ask again.
    Sleep(Duration),
    /// Hand this batch to the caller (streams), then ask again.
    Emit(crate::decode::Batch),
    /// The call succeeded.
    Done(O),
    /// The call failed; the error says where it stood ([`Error::call`]).
    Failed(Error),
}

/// An answer's head, as far as the call is concerned.
#[derive(Debug, Clone, Copy, Default)]
pub struct Head<'a> {
    /// The HTTP status.
    pub status: u16,
    /// The `Location` header, if sent.
    pub location: Option<&'a str>,
    /// The `Retry-After` header, if sent.
    pub retry_after: Option<&'a str>,
    /// The wall clock, for a `Retry-After` given as a date (without it,
    /// such a header is ignored and the backoff applies).
    pub date: Option<SystemTime>,
}

/// What bounded the wait the host was last given, so a timeout says which
/// limit it met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    /// The connect or read limit of one attempt.
    Attempt,
    /// What was left of the call's total.
    Total,
}

enum State<O> {
    Send,
    AwaitHead(Limit),
    Read,
    AwaitBody(Limit),
    /// Batches to hand out, then read on.
    Emit,
    /// The body ended: its last batches, then this result.
    Finish(O),
    /// The answer failed: the batches the sink completed before the
    /// failure, then this error (with where the call stood once they are
    /// out).
    Drain(Error),
    Sleep(Duration),
    Failed(Error),
    Over,
}

/// The number the next call gets: a count, not a clock or a random
/// number, so the core stays deterministic for a given order of calls.
static NEXT_CALL: AtomicU64 = AtomicU64::new(1);

/// One call, from its first request to its result, as a state machine that
/// performs no I/O: the host asks it what to do next ([`Call::next`]),
/// does it with its own HTTP stack, and reports what happened
/// ([`Call::head`], [`Call::chunk`], [`Call::end`], [`Call::failed`]).
///
/// Every decision of a call is made here, once, for every client: how many
/// attempts, which redirects to follow, the order redirect → retry →
/// accept, when a body cut short may be sent for again (only while nothing
/// of it has reached the caller), how long each wait may last within the
/// call's time budget, `Retry-After` against the time left, the jitter of
/// the backoff, and what every failure says.
///
/// ```text
///   ┌────────┐  Send   ┌──────────┐ head: accept ┌─────────┐ end  ┌──────┐
///   │  send  │───────▶│ awaiting │─────────────▶│ reading │─────▶│ done │
///   └────────┘         │   head   │              └─────────┘      └──────┘
///     ▲  ▲             └──────────┘               │  ▲  │ chunk: Emit
///     │  │ redirect        │ 429/5xx, failure     │  └──┘ batches
///     │  └─────────────────┤ (retry)              │ cut, nothing delivered
///     │      ┌───────┐     │                      │ (retry)
///     └──────│ sleep │◀────┴──────────────────────┘
///            └───────┘        anything else: failed(error)
/// ```
///
/// Time comes from the host as a monotonic `now` (any origin) with each
/// report and each question, randomness as a seed when the call is made.
/// The host's duties are in [`Action`]'s documentation.
///
/// ```
/// use std::time::Duration;
/// use erpdata::{Action, Call, CallOptions, Config, DuesKind, DuesQuery, Head, WholeBody};
///
/// let config = Config::builder("https://erp.example.com/").project("demo").build()?;
/// let request = config.dues_request(&DuesQuery::new("C001", DuesKind::Receipt))?;
/// let mut call = Call::new(&config, request, CallOptions::default(), WholeBody::default(), Duration::ZERO, 7);
/// let t = Duration::from_millis(5);
/// assert!(matches!(call.next(t), Action::Send { .. }));
/// call.head(t, Head { status: 503, retry_after: Some("1"), ..Head::default() });
/// assert!(matches!(call.next(t), Action::Sleep(d) if d == Duration::from_secs(1)));
/// assert!(matches!(call.next(t), Action::Send { .. }));
/// call.head(t, Head { status: 200, ..Head::default() });
/// assert!(matches!(call.next(t), Action::Read { .. }));
/// call.chunk(t, br#"{"status":"success","data":[]}"#);
/// assert!(matches!(call.next(t), Action::Read { .. }));
/// call.end(t);
/// let Action::Done(answer) = call.next(t) else { panic!() };
/// assert_eq!((answer.status, call.attempts()), (200, 2));
/// # Ok::<(), erpdata::Error>(())
/// ```
pub struct Call<S: Sink> {
    /// The call's number in this process (in a JavaScript client, this
    /// wasm instance), which its log lines start with.
    id: u64,
    config: Config,
    request: Request<RequestBody>,
    options: CallOptions,
    sink: S,
    state: State<S::Output>,
    rng: u64,
    started: Duration,
    /// Time the caller of a stream held a batch: not the service's time.
    paused: Duration,
    emitted_at: Option<Duration>,
    attempts: u32,
    retries: u32,
    hops: u32,
    /// Whether an answer's body was being read when the call failed.
    reading: bool,
    /// Whether the retry budget withheld a retry the policy allowed.
    withheld: bool,
    /// The wait the last answer's `Retry-After` asked for (a status that
    /// may pass later), and the policy's `max_retry_after` when the call
    /// stopped because that wait was longer: a status error says both.
    asked: Option<Duration>,
    asked_too_long: Option<Duration>,
    /// The delay of the retry the policy allowed but the call's timeout
    /// had no room for: the error says why it was not retried.
    too_late: Option<Duration>,
    delivered: u64,
    streams: bool,
}

impl<S: Sink> std::fmt::Debug for Call<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("attempts", &self.attempts)
            .field("retries", &self.retries)
            .field("redirects", &self.hops)
            .finish_non_exhaustive()
    }
}

impl<S: Sink> Call<S> {
    /// A call sending `request` (built by the config, so already
    /// validated) under `options`, its accepted answer's body going to
    /// `sink`. `now` is the host's monotonic clock, `seed` any random
    /// number (the backoff's jitter). Options out of the core's range
    /// ([`CallOptions::validate`]: a limit past a day, more retries than
    /// allowed) make the first [`next`](Self::next) a
    /// [`Action::Failed`] with [`Error::InvalidInput`] naming the field,
    /// before anything is sent.
    pub fn new(
        config: &Config,
        request: Request<RequestBody>,
        options: CallOptions,
        sink: S,
        now: Duration,
        seed: u64,
    ) -> Self {
        let state = match options.validate() {
            Ok(()) => State::Send,
            Err(invalid) => State::Failed(invalid),
        };
        Call {
            id: NEXT_CALL.fetch_add(1, Ordering::Relaxed),
            config: config.clone(),
            request,
            options,
            sink,
            state,
            rng: seed,
            started: now,
            paused: Duration::ZERO,
            emitted_at: None,
            attempts: 0,
            retries: 0,
            hops: 0,
            reading: false,
            withheld: false,
            asked: None,
            asked_too_long: None,
            too_late: None,
            delivered: 0,
            streams: false,
        }
    }

    /// Marks the call as a stream: its batches go to the caller as they
    /// are decoded, and the time the caller holds one does not count
    /// against the total.
    pub fn streaming(mut self) -> Self {
        self.streams = true;
        self
    }

    /// Requests sent so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The request sent last (or to be sent first).
    pub fn request(&self) -> &Request<RequestBody> {
        &self.request
    }

    /// The call's number in this process, counted from 1 as calls are made:
    /// what tells its log lines from those of calls made at the same time.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The log line of the request sent last: the call's number, which
    /// attempt it is, the method, and the URL and form with the token
    /// redacted by the call's own configuration (`call 7: request 2: POST
    /// https://erp.example.com/apis/dataapi.php form: …`).
    pub fn request_line(&self) -> String {
        log_line::request_line(self.id, &self.config, self.attempts, &self.request)
    }

    /// The log line of an answer's head: `call 7: answer 503`.
    pub fn answer_line(&self, status: u16) -> String {
        log_line::answer_line(self.id, status)
    }

    /// The log line of the wait of an [`Action::Sleep`] before the next
    /// attempt: `call 7: waiting 0.52 s before request 2 (as the core's
    /// call asks)`.
    pub fn waiting_line(&self, delay: Duration) -> String {
        log_line::waiting_line(self.id, delay, self.attempts + 1)
    }

    /// The log line of a call that ended with its result: `call 7: done
    /// after 2 requests`.
    pub fn done_line(&self) -> String {
        log_line::done_line(self.id, self.attempts)
    }

    /// The log line of a call its caller ended before its answer did (a
    /// stream closed early, a call cancelled or dropped): `call 7: ended by
    /// its caller after 40 rows`, the rows handed out so far. None when it
    /// had sent nothing: no line was logged of it.
    pub fn ended_line(&self) -> Option<String> {
        (self.attempts > 0).then(|| log_line::ended_line(self.id, self.delivered))
    }

    /// The log line of a call that ended with the error of `message` (the
    /// core's, already redacted): `call 7: failed after 1 request: …`.
    pub fn failed_line(&self, message: &str) -> String {
        log_line::failed_line(self.id, self.attempts, message)
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Rows handed to the caller so far.
    pub fn rows_delivered(&self) -> u64 {
        self.delivered
    }

    /// What to do next.
    pub fn next(&mut self, now: Duration) -> Action<S::Output> {
        if let Some(at) = self.emitted_at.take() {
            self.paused += now.saturating_sub(at);
        }
        loop {
            match std::mem::replace(&mut self.state, State::Over) {
                State::Send => {
                    let Some((read, limit)) = self.wait(now, self.options.timeouts.read) else {
                        self.state = State::Failed(self.out_of_time());
                        continue;
                    };
                    let left = self.left(now);
                    let connect = self.options.timeouts.connect.min(left);
                    let wait = (self.options.timeouts.connect)
                        .saturating_add(self.options.timeouts.read)
                        .min(left);
                    let limit = if wait == left { Limit::Total } else { limit };
                    self.attempts += 1;
                    self.reading = false;
                    self.state = State::AwaitHead(limit);
                    return Action::Send {
                        request: self.request.clone(),
                        connect,
                        read,
                        wait,
                    };
                }
                State::Read => {
                    let Some((wait, limit)) = self.wait(now, self.options.timeouts.read) else {
                        self.state = State::Failed(self.out_of_time());
                        continue;
                    };
                    self.state = State::AwaitBody(limit);
                    return Action::Read { wait };
                }
                State::Emit => match self.sink.next_batch() {
                    Some(batch) => {
                        self.handed_out(&batch, now);
                        self.state = State::Emit;
                        return Action::Emit(batch);
                    }
                    None => self.state = State::Read,
                },
                State::Finish(output) => match self.sink.next_batch() {
                    Some(batch) => {
                        self.handed_out(&batch, now);
                        self.state = State::Finish(output);
                        return Action::Emit(batch);
                    }
                    None => return Action::Done(output),
                },
                State::Drain(error) => match self.sink.next_batch() {
                    Some(batch) => {
                        self.handed_out(&batch, now);
                        self.state = State::Drain(error);
                        return Action::Emit(batch);
                    }
                    None => self.state = State::Failed(self.finished(error)),
                },
                State::Sleep(delay) => {
                    self.state = State::Send;
                    return Action::Sleep(delay);
                }
                State::Failed(error) => return Action::Failed(error),
                State::AwaitHead(_) | State::AwaitBody(_) => {
                    let error = self.misuse("asked for the next action before reporting the last");
                    return Action::Failed(error);
                }
                State::Over => {
                    return Action::Failed(self.misuse("asked for an action after the call ended"))
                }
            }
        }
    }

    /// The answer's head arrived.
    pub fn head(&mut self, now: Duration, head: Head<'_>) {
        let State::AwaitHead(_) = self.state else {
            self.state = State::Failed(self.misuse("reported a head it was not asked for"));
            return;
        };
        self.asked = None;
        self.asked_too_long = None;
        match self
            .config
            .follow_redirect(&self.request, head.status, head.location, self.hops)
        {
            Err(refused) => {
                self.state = State::Failed(self.finished(refused));
                return;
            }
            Ok(Some(next)) => {
                self.request = next;
                self.hops += 1;
                self.state = State::Send;
                return;
            }
            Ok(None) => {}
        }
        let outcome = Outcome::Status {
            status: head.status,
            retry_after: head.retry_after,
        };
        self.asked = outcome.asked_wait(head.date);
        if let Some(delay) = self.retry_delay(now, outcome, head.date) {
            self.state = State::Sleep(delay);
            return;
        }
        // Accepted: the sink makes the result, or the status's error.
        if (200..300).contains(&head.status) {
            self.config.retry_budget().succeeded();
        }
        self.reading = true;
        self.state = match self.sink.start(&self.config, head.status) {
            Ok(()) => State::Read,
            Err(e) => State::Failed(self.finished(e)),
        };
    }

    /// A part of the body arrived.
    pub fn chunk(&mut self, _now: Duration, chunk: &[u8]) {
        self.fed(|sink| sink.feed(chunk));
    }

    /// [`Call::chunk`] with a part the sink may keep rather than copy
    /// (see [`Sink::feed_owned`]).
    pub fn chunk_owned(&mut self, _now: Duration, chunk: OwnedChunk) {
        self.fed(|sink| sink.feed_owned(chunk));
    }

    /// The sink fed by `feed`, in the state that awaits the body.
    fn fed(&mut self, feed: impl FnOnce(&mut S) -> crate::Result<()>) {
        let State::AwaitBody(_) = self.state else {
            self.state = State::Failed(self.misuse("reported a chunk it was not asked for"));
            return;
        };
        self.state = match feed(&mut self.sink) {
            Ok(()) => State::Emit,
            Err(e) => State::Drain(e),
        };
    }

    /// The body ended.
    pub fn end(&mut self, _now: Duration) {
        let State::AwaitBody(_) = self.state else {
            self.state = State::Failed(self.misuse("reported an end it was not asked for"));
            return;
        };
        self.state = match self.sink.finish() {
            Ok(output) => State::Finish(output),
            Err(e) => State::Drain(e),
        };
    }

    /// Sending, or reading the body, failed; `detail` is the host stack's
    /// account (redacted here).
    pub fn failed(&mut self, now: Duration, kind: TransportKind, detail: &str) {
        let kind = self.kind_of(kind, detail);
        self.limit_met(now, kind);
        let error = self.transport_error(kind, detail, None);
        self.after_failure(now, kind, error);
    }

    /// The request could not start: every connection of the host's pool
    /// was busy with other calls until the connect timeout passed, so
    /// nothing reached the service. Handled as a timeout (retried as one
    /// is, kind `timeout`), with a message that says what ran out, rather
    /// than one blaming a service never asked.
    pub fn no_free_connection(&mut self, now: Duration) {
        let message = format!(
            "no free connection to {} within the connect timeout of {}: every connection \
             of the client's pool was busy with other calls (allow the HTTP client more \
             connections, or make fewer calls at a time)",
            self.origin(),
            seconds(self.options.timeouts.connect)
        );
        let error = Error::Transport {
            kind: TransportKind::Timeout,
            message: self.config.redact(&message),
            source: None,
            call: None,
        };
        self.after_failure(now, TransportKind::Timeout, error);
    }

    /// [`Call::failed`] keeping the host stack's error as the source
    /// (each link redacted).
    pub fn failed_with(
        &mut self,
        now: Duration,
        kind: TransportKind,
        source: &(dyn std::error::Error + 'static),
    ) {
        let chain = TransportSource::capture(&self.config, source);
        let detail = with_cause(&chain);
        let kind = self.kind_of(kind, &detail);
        self.limit_met(now, kind);
        let error = self.transport_error(kind, &detail, Some(chain));
        self.after_failure(now, kind, error);
    }

    fn after_failure(&mut self, now: Duration, kind: TransportKind, error: Error) {
        match self.state {
            State::AwaitHead(_) => {}
            State::AwaitBody(_) => {
                // A body cut short is sent for again only while nothing of
                // it has reached the caller, and only if what arrived is
                // not already an error of its own. Batches complete but
                // not yet handed out (decoded on the sink's thread) count
                // as reached: they go out first, as they would have had
                // each chunk been decoded as it came.
                if let Err(e) = self.sink.check() {
                    self.state = State::Drain(e);
                    return;
                }
                if self.delivered > 0 || self.sink.has_batch() {
                    self.state = State::Drain(error);
                    return;
                }
            }
            _ => {
                self.state = State::Failed(self.misuse("reported a failure it was not asked for"));
                return;
            }
        }
        self.state = match self.retry_delay(now, Outcome::Transport(kind), None) {
            Some(delay) => State::Sleep(delay),
            None => State::Failed(self.finished(error)),
        };
    }

    /// The delay before retrying, if the policy says retry, the delay
    /// fits in what is left of the call and the client's retry budget
    /// allows it; counts the retry. A failure that could be retried
    /// spends the budget whatever the answer.
    fn retry_delay(
        &mut self,
        now: Duration,
        outcome: Outcome<'_>,
        date: Option<SystemTime>,
    ) -> Option<Duration> {
        let budget_allows = !outcome.may_pass_later() || self.config.retry_budget().failed();
        let random = self.random();
        let policy = self.options.retry;
        match policy.verdict(self.retries, outcome, random, date) {
            Verdict::Retry(delay) if delay < self.left(now) => {
                if !budget_allows {
                    self.withheld = true;
                    return None;
                }
                self.retries += 1;
                Some(delay)
            }
            Verdict::WaitTooLong(_) => {
                self.asked_too_long = Some(policy.max_retry_after);
                None
            }
            // With no time left at all, the timeout's own message says it.
            Verdict::Retry(delay) if !self.left(now).is_zero() => {
                self.too_late = Some(delay);
                None
            }
            _ => None,
        }
    }

    /// SplitMix64: uniform in [0, 1).
    fn random(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn handed_out(&mut self, batch: &crate::decode::Batch, now: Duration) {
        self.delivered += batch.num_rows as u64;
        if self.streams {
            self.emitted_at = Some(now);
        }
    }

    /// Which limit a timeout at `now` met. The wait was given as what was
    /// left of the total when that was the shorter, but a host bounded by
    /// its own connect and read limits (httpx, ureq) may have met one of
    /// them first: with the total not yet run out, the timeout is the
    /// attempt's. It said "within the call's timeout of 35 s" after a read
    /// timeout of 30 s, and raising the total changed nothing.
    fn limit_met(&mut self, now: Duration, kind: TransportKind) {
        // Timers fire a little late or early; the total's leaves next to nothing.
        const SLACK: Duration = Duration::from_millis(50);
        if kind != TransportKind::Timeout || self.left(now) <= SLACK {
            return;
        }
        match &mut self.state {
            State::AwaitHead(limit) | State::AwaitBody(limit) => *limit = Limit::Attempt,
            _ => {}
        }
    }

    /// What is left of the total at `now`.
    fn left(&self, now: Duration) -> Duration {
        let spent = now.saturating_sub(self.started).saturating_sub(self.paused);
        self.options.timeouts.total.saturating_sub(spent)
    }

    /// The wait to give the host: `limit`, capped by what is left; `None`
    /// when nothing is.
    fn wait(&self, now: Duration, limit: Duration) -> Option<(Duration, Limit)> {
        let left = self.left(now);
        if left.is_zero() {
            None
        } else if left < limit {
            Some((left, Limit::Total))
        } else {
            Some((limit, Limit::Attempt))
        }
    }

    /// The kind of a transport failure: the host stack's, except that a
    /// server answering TLS in plain HTTP is a [`TransportKind::Tls`]
    /// failure, not retried (whatever kind the stack gave it: connect in
    /// httpx, other in Node, connect or other in rustls).
    fn kind_of(&self, kind: TransportKind, detail: &str) -> TransportKind {
        if kind != TransportKind::Timeout && self.answered_plain_http(detail) {
            TransportKind::Tls
        } else {
            kind
        }
    }

    fn answered_plain_http(&self, detail: &str) -> bool {
        self.config.base_url().scheme() == "https" && plain_http::answered_plain_http(detail)
    }

    fn origin(&self) -> String {
        self.config.base_url().origin().ascii_serialization()
    }

    fn out_of_time(&self) -> Error {
        let error = self.config.transport_error(
            TransportKind::Timeout,
            &format!(
                "no complete answer from {} within the call's timeout of {}",
                self.origin(),
                seconds(self.options.timeouts.total)
            ),
        );
        self.finished(error)
    }

    /// The error for a transport failure: a short account naming only the
    /// origin (never a path or query, where the token may be) and which
    /// limit a timeout met, then the host's detail, redacted.
    fn transport_error(
        &self,
        kind: TransportKind,
        detail: &str,
        source: Option<TransportSource>,
    ) -> Error {
        let origin = self.origin();
        let t = self.options.timeouts;
        let message = match (kind, &self.state) {
            (TransportKind::Timeout, State::AwaitHead(Limit::Total))
            | (TransportKind::Timeout, State::AwaitBody(Limit::Total)) => format!(
                "no complete answer from {origin} within the call's timeout of {}",
                seconds(t.total)
            ),
            (TransportKind::Timeout, State::AwaitHead(_)) => format!(
                "no answer from {origin} within the connect timeout of {} and read timeout of {}",
                seconds(t.connect),
                seconds(t.read)
            ),
            (TransportKind::Timeout, _) => format!(
                "nothing more from {origin} within the read timeout of {}",
                seconds(t.read)
            ),
            (TransportKind::Connect, _) => format!("could not connect to {origin}"),
            (TransportKind::Tls, _) if self.answered_plain_http(detail) => {
                // Plain http is advice only on this machine: elsewhere it
                // would carry the token unencrypted (and is refused unless
                // allowed), and a port of plain HTTP is the likelier slip.
                let advice = if crate::config::is_loopback(self.config.base_url()) {
                    "a service without TLS on this machine has a base URL that begins http://"
                } else {
                    "is the base URL's port the service's port for https?"
                };
                format!(
                    "{origin} answered in plain HTTP, not TLS (not retried: it would answer so \
                     again; {advice})"
                )
            }
            (TransportKind::Tls, _) => format!(
                "the TLS certificate of {origin} was not accepted (not retried: it would be \
                 refused again; a service with a certificate of a private CA needs that CA \
                 trusted by this client)"
            ),
            (TransportKind::Reset, _) => {
                format!("the connection to {origin} broke before the answer was complete")
            }
            (TransportKind::Other, _) => format!("the request to {origin} failed"),
        };
        let detail = detail.trim();
        let message = if detail.is_empty() || kind == TransportKind::Timeout {
            message
        } else {
            format!("{message}: {detail}")
        };
        Error::Transport {
            kind,
            message: self.config.redact(&message),
            source,
            call: None,
        }
    }

    /// A host that drives the call out of order has a bug; the call ends
    /// with an error saying so rather than a panic.
    fn misuse(&self, what: &str) -> Error {
        let error = self.config.transport_error(
            TransportKind::Other,
            &format!("the HTTP binding {what} (a bug in the binding)"),
        );
        self.finished(error)
    }

    /// The form the request sent, for [`CallInfo::form`]: its fields in
    /// order, the access token left out (and the rest redacted, in case a
    /// value holds it).
    fn sent_form(&self) -> Option<String> {
        let form = self
            .request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|t| {
                t.as_bytes()
                    .starts_with(b"application/x-www-form-urlencoded")
            });
        if !form || self.request.body().is_empty() {
            return None;
        }
        let fields: Vec<String> = url::form_urlencoded::parse(self.request.body())
            .filter(|(name, _)| name != "accesstoken")
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        Some(self.config.redact(&fields.join(", ")))
    }

    /// `error` with where the call stood.
    fn finished(&self, error: Error) -> Error {
        // A table's rows, also when none was complete ("truncated after 0
        // complete rows" said so, and rows_received was missing).
        let rows = self.sink.rows().filter(|_| self.reading);
        // The wait asked for belongs to the answer a status error is made
        // of, not to a failure while reading it.
        let status = matches!(error, Error::HttpStatus { .. });
        let info = CallInfo {
            attempts: self.attempts,
            url: self.config.redact(&self.request.uri().to_string()),
            form: self.sent_form(),
            rows_received: rows,
            rows_delivered: self.streams.then_some(self.delivered),
            retry_withheld: self.withheld,
            retry_after: self.asked.filter(|_| status),
            retry_after_limit: self.asked_too_long.filter(|_| status),
            retry_past_timeout: self.too_late,
        };
        error.with_call(info)
    }
}

/// A host error's message, followed by the last link of its chain when
/// the message does not already say it: reqwest's is "error sending
/// request for url (...)" whatever happened, and the reason (connection
/// refused, no such host) is only at the chain's end, which a caller
/// printing the error does not see.
fn with_cause(chain: &TransportSource) -> String {
    let top = chain.message();
    let mut last: &(dyn std::error::Error + 'static) = chain;
    while let Some(next) = last.source() {
        last = next;
    }
    let cause = last.to_string();
    if cause.trim().is_empty() || top.contains(cause.as_str()) {
        top.to_owned()
    } else {
        format!("{top}: {cause}")
    }
}

/// `1.5 s`, `30 s`, `0.25 s`: a limit as the docs write it.
pub(crate) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests;
