//! The async client: the core's requests sent with reqwest on tokio.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;

use super::read_ahead::task::ReadAhead;
use super::read_ahead::READ_AHEAD_AFTER;
use super::{events, head, start, tls, ClientOptions};
use crate::ajax::AjaxQuery;
use crate::ajax_answer::{AjaxAnswer, TypedRows};
use crate::body::RequestBody;
use crate::call::{Action, Call, Sink, StreamEnd, TableStream, Timeouts};
use crate::catalogue::{Arg, Query};
use crate::config::Config;
use crate::decode::{Batch, DeclaredSchema};
use crate::error::{Result, TransportKind};
use crate::id::Id;
use crate::plan::{AgingPlan, CreditStatusPlan, Plan, PlanStep};
use crate::query::{DuesKind, DuesQuery, TableQuery};
use crate::response::{Dues, Table};

/// A ready async client on reqwest and tokio (feature `reqwest`).
///
/// Each call validates its input, sends the request the [`Config`] builds,
/// retries as [`RetryPolicy`](crate::RetryPolicy) decides (sleeping with
/// tokio), follows only the redirects [`Config::follow_redirect`] allows,
/// and parses the answer with the core. A large body (a table's) goes on
/// being read by a task of its own while the caller's task decodes what
/// arrived. Cloning is cheap and shares the connection pool. `Debug` never
/// shows the token.
///
/// ```no_run
/// use erpdata::{AsyncClient, Config};
///
/// # async fn run() -> erpdata::Result<()> {
/// let client = AsyncClient::new(
///     Config::builder("https://erp.example.com/")
///         .project("demo")
///         .access_token("your-access-token")
///         .company_id(1)
///         .year_id(2025)
///         .build()?,
/// )?;
/// let dues = client.receivables("C001").await?;
/// let invoices = client.table("sales_invoice").await?;
/// println!("{} dues, {} invoices", dues.rows.len(), invoices.rows.len());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct AsyncClient {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    options: ClientOptions,
    http: reqwest::Client,
}

impl fmt::Debug for AsyncClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncClient")
            .field("config", &self.inner.config)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl AsyncClient {
    /// A client with default [`ClientOptions`].
    pub fn new(config: Config) -> Result<AsyncClient> {
        AsyncClient::with_options(config, ClientOptions::default())
    }

    /// A client with the configuration from the `ERPDATA_*` variables
    /// ([`Config::from_env`]) and default options.
    pub fn from_env() -> Result<AsyncClient> {
        AsyncClient::new(Config::from_env()?)
    }

    /// A client with the given options. Fails if a limit is out of the
    /// core's range, or if the options' root certificates hold none or one
    /// that is not a valid root. A system without a readable certificate
    /// store gets Mozilla's roots.
    pub fn with_options(config: Config, options: ClientOptions) -> Result<AsyncClient> {
        options.validate()?;
        let http = http_client(&config, &options)?;
        Ok(AsyncClient {
            inner: Arc::new(Inner {
                config,
                options,
                http,
            }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The options.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// This client with other time limits, for the calls made through it
    /// (`client.with_timeouts(t)?.table("x").await`). It shares the
    /// connections, unless the connect limit is another and tighter than
    /// the new total (as `Timeouts::total` makes it, it is not): reqwest
    /// holds that one per client, so such a client has connections of its
    /// own.
    pub fn with_timeouts(&self, timeouts: Timeouts) -> Result<AsyncClient> {
        self.derive(self.inner.options.clone().timeouts(timeouts))
    }

    /// This client with another retry count, for the calls made through
    /// it; it shares the connections.
    pub fn with_max_retries(&self, max_retries: u32) -> Result<AsyncClient> {
        self.derive(self.inner.options.clone().max_retries(max_retries))
    }

    /// This client with declared column types (see
    /// [`ClientOptions::schema`]) in place of its own, for the calls made
    /// through it: one table's types, where the client reads others too
    /// (`client.with_schema(schema).table("account").await`). It shares
    /// the connections.
    pub fn with_schema(&self, schema: DeclaredSchema) -> AsyncClient {
        AsyncClient {
            inner: Arc::new(Inner {
                config: self.inner.config.clone(),
                options: self.inner.options.clone().schema(schema),
                http: self.inner.http.clone(),
            }),
        }
    }

    fn derive(&self, options: ClientOptions) -> Result<AsyncClient> {
        options.validate()?;
        let http = if same_connect_limit(&self.inner.options.call.timeouts, &options.call.timeouts)
        {
            self.inner.http.clone()
        } else {
            http_client(&self.inner.config, &options)?
        };
        Ok(AsyncClient {
            inner: Arc::new(Inner {
                config: self.inner.config.clone(),
                options,
                http,
            }),
        })
    }

    operations!(async);

    /// Runs a [`Plan`] of the core: the calls it asks for run concurrently
    /// on this task (at most its concurrency at a time), each result handed
    /// back as it comes. On the first error the calls still running are
    /// dropped (cancelled) and the error returned.
    pub async fn run_plan(&self, mut plan: Plan) -> Result<TypedRows> {
        use futures_util::stream::{FuturesUnordered, StreamExt};
        let mut running = FuturesUnordered::new();
        loop {
            match plan.next() {
                PlanStep::Call(call) => running.push(async move {
                    let id = call.id;
                    (id, self.run_planned(call).await)
                }),
                PlanStep::Wait => match running.next().await {
                    Some((id, result)) => plan.done(id, result),
                    None => unreachable!("the plan waits only while a call runs"),
                },
                PlanStep::Done(rows) => return Ok(rows),
                PlanStep::Failed(error) => return Err(error),
            }
        }
    }

    /// One call, its answer read whole by `sink`.
    async fn run<S: Sink>(
        &self,
        request: http::Request<RequestBody>,
        sink: S,
    ) -> Result<S::Output> {
        self.inner.run(request, sink).await
    }

    /// A table as a stream of [`Batch`]es, decoded as the body arrives, in
    /// memory bounded by the batch size (see [`ClientOptions::batch_rows`])
    /// and the 4 MiB a task reads ahead of the decoding, all of one schema.
    ///
    /// Retries and redirects happen before the first batch; once a batch
    /// was handed out, a failure ends the stream with an error saying how
    /// many rows had arrived. The batches are complete only if the stream
    /// ends without one.
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    ///
    /// # async fn run(client: erpdata::AsyncClient) -> erpdata::Result<()> {
    /// let mut batches = client.stream_table("sales_invoice").await?;
    /// let mut rows = 0;
    /// while let Some(batch) = batches.try_next().await? {
    ///     rows += batch.num_rows;
    /// }
    /// println!("{rows} rows");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn stream_table(&self, query: impl Into<TableQuery>) -> Result<BatchStream> {
        let request = self.inner.config.table_request(&query.into())?;
        let sink = TableStream::new(self.inner.options.decoder.clone());
        let mut driver = Driver::new(self.inner.clone(), request, sink, true);
        // The first batch (or the end, or the error) is awaited here, so
        // that a call that fails before any row fails `stream_table`.
        let (first, driver, end) = match driver.advance().await? {
            Step::Batch(batch) => (Some(batch), Some(driver), None),
            // A table without rows ends here: the call is over, and asked
            // for another step it would answer that none is left.
            Step::Done(finished) => (None, None, Some(finished)),
        };
        let state = StreamState { driver, first };
        Ok(BatchStream {
            // Fused: asked again after it ended, it ends again (an unfold
            // alone would panic).
            inner: Box::pin(futures_util::StreamExt::fuse(futures_util::stream::unfold(
                state,
                StreamState::step,
            ))),
            end,
        })
    }
}

impl Inner {
    /// A call whose answer is read whole, then parsed by `sink`.
    async fn run<S: Sink>(
        &self,
        request: http::Request<RequestBody>,
        sink: S,
    ) -> Result<S::Output> {
        let mut driver = Driver::new_ref(self, request, sink, false);
        match driver.advance().await? {
            Step::Done(output) => Ok(output),
            Step::Batch(_) => unreachable!("a whole body hands out no batch"),
        }
    }
}

/// What a driven call gives next.
enum Step<O> {
    Batch(Batch),
    Done(O),
}

/// Where the body of the answer being read comes from.
enum Body {
    /// Read by the caller's task; the bytes read so far.
    Here(Box<reqwest::Response>, u64),
    /// Read by a task of its own, past [`READ_AHEAD_AFTER`].
    Ahead(ReadAhead),
}

/// The host loop: carries out a call's actions with reqwest and tokio.
struct Driver<I, S: Sink> {
    inner: I,
    call: Call<S>,
    origin: Instant,
    body: Option<Body>,
    /// Whether the call ended (done or failed): dropped before that, its
    /// caller ended it (a stream dropped early, a future cancelled).
    ended: bool,
}

impl<S: Sink> Driver<Arc<Inner>, S> {
    fn new(
        inner: Arc<Inner>,
        request: http::Request<RequestBody>,
        sink: S,
        streaming: bool,
    ) -> Self {
        let (call, origin) = start(&inner.config, &inner.options, request, sink, streaming);
        Driver {
            inner,
            call,
            origin,
            body: None,
            ended: false,
        }
    }
}

impl<'a, S: Sink> Driver<&'a Inner, S> {
    fn new_ref(
        inner: &'a Inner,
        request: http::Request<RequestBody>,
        sink: S,
        streaming: bool,
    ) -> Self {
        let (call, origin) = start(&inner.config, &inner.options, request, sink, streaming);
        Driver {
            inner,
            call,
            origin,
            body: None,
            ended: false,
        }
    }
}

impl<I, S: Sink> Drop for Driver<I, S> {
    fn drop(&mut self) {
        if !self.ended {
            events::ended(&self.call);
        }
    }
}

impl<I: std::ops::Deref<Target = Inner>, S: Sink> Driver<I, S> {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    async fn advance(&mut self) -> Result<Step<S::Output>> {
        loop {
            match self.call.next(self.now()) {
                Action::Send { request, wait, .. } => {
                    self.body = None;
                    events::request(&self.call);
                    let request = match reqwest::Request::try_from(request) {
                        Ok(request) => request,
                        Err(e) => {
                            self.call.failed_with(self.now(), TransportKind::Other, &e);
                            continue;
                        }
                    };
                    match tokio::time::timeout(wait, self.inner.http.execute(request)).await {
                        Ok(Ok(response)) => {
                            let status = response.status().as_u16();
                            events::answer(&self.call, status);
                            self.call.head(self.now(), head(status, response.headers()));
                            self.body = Some(Body::Here(Box::new(response), 0));
                        }
                        Ok(Err(e)) => self.call.failed_with(self.now(), kind_of(&e), &e),
                        Err(_) => self.call.failed(self.now(), TransportKind::Timeout, ""),
                    }
                }
                Action::Read { wait } => self.read(wait).await,
                Action::Sleep(delay) => {
                    self.body = None;
                    events::waiting(&self.call, delay);
                    tokio::time::sleep(delay).await;
                }
                Action::Emit(batch) => return Ok(Step::Batch(batch)),
                Action::Done(output) => {
                    self.body = None;
                    self.ended = true;
                    events::done(&self.call);
                    return Ok(Step::Done(output));
                }
                Action::Failed(error) => {
                    self.body = None;
                    self.ended = true;
                    events::failed(&self.call, &error);
                    return Err(error);
                }
            }
        }
    }

    /// Reads the next part of the body and reports it to the call.
    async fn read(&mut self, wait: Duration) {
        if matches!(self.body, Some(Body::Here(_, read)) if read >= READ_AHEAD_AFTER) {
            if let Some(Body::Here(response, _)) = self.body.take() {
                // Outside a tokio runtime, the caller's task goes on reading.
                self.body = Some(match ReadAhead::start(*response) {
                    Ok(ahead) => Body::Ahead(ahead),
                    Err(response) => Body::Here(response, 0),
                });
            }
        }
        let read = match self.body.as_mut() {
            None => {
                self.call.end(self.now());
                return;
            }
            Some(Body::Here(response, read)) => {
                let chunk = tokio::time::timeout(wait, response.chunk()).await;
                if let Ok(Ok(Some(bytes))) = &chunk {
                    *read += bytes.len() as u64;
                }
                chunk.map(Some)
            }
            Some(Body::Ahead(ahead)) => tokio::time::timeout(wait, ahead.next()).await,
        };
        let now = self.now();
        match read {
            Ok(Some(Ok(Some(bytes)))) => self.call.chunk(now, &bytes),
            Ok(Some(Ok(None))) => self.call.end(now),
            Ok(Some(Err(e))) => self.call.failed_with(now, kind_of(&e), &e),
            // The reading task ended without the end: it panicked.
            Ok(None) => self.call.failed(
                now,
                TransportKind::Other,
                "the task reading the body ended without its end",
            ),
            Err(_) => self.call.failed(now, TransportKind::Timeout, ""),
        }
    }
}

/// Whether calls with limits `new` may use the reqwest client made for
/// `old`, whose connect limit reqwest holds per client. A call never waits
/// longer than its total for an answer (the call's `wait` bounds each
/// send), so two connect limits that are both at least the new total never
/// bind, and are the same to it.
fn same_connect_limit(old: &Timeouts, new: &Timeouts) -> bool {
    old.connect == new.connect || (old.connect >= new.total && new.connect >= new.total)
}

/// What kind of failure, as the call sees it.
fn kind_of(e: &reqwest::Error) -> TransportKind {
    if tls::refused_certificate(e) {
        TransportKind::Tls
    } else if e.is_timeout() {
        TransportKind::Timeout
    } else if e.is_connect() {
        TransportKind::Connect
    } else if e.is_request() || e.is_body() || e.is_decode() {
        // The connection broke after it was made: closed before the
        // answer, or in the middle of the body.
        TransportKind::Reset
    } else {
        TransportKind::Other
    }
}

/// reqwest's client for `options`: its TLS, and its connect limit, which
/// reqwest holds per client, not per request.
fn http_client(config: &Config, options: &ClientOptions) -> Result<reqwest::Client> {
    let tls = match tls::client_config(options.root_certificates.as_ref()) {
        Ok(tls) => tls,
        Err(tls::Setup::Roots(e)) => return Err(e),
        Err(tls::Setup::Tls(e)) => {
            return Err(config.transport_error_with_source(
                TransportKind::Other,
                "could not set up TLS",
                &e,
            ))
        }
    };
    let builder = reqwest::Client::builder()
        // The core decides every redirect; reqwest would resend the form
        // body, token included, to wherever a 307 points.
        .redirect(reqwest::redirect::Policy::none())
        .retry(reqwest::retry::never())
        .connect_timeout(options.call.timeouts.connect)
        .tls_backend_preconfigured(tls);
    // reqwest takes HTTP_PROXY and the like from the environment: a
    // loopback service's plain-http requests, token included, would go
    // to the proxy's host (see `Config::proxy_allowed`).
    let builder = if config.proxy_allowed() {
        builder
    } else {
        builder.no_proxy()
    };
    builder.build().map_err(|e| {
        config.transport_error_with_source(
            TransportKind::Other,
            "could not set up the HTTP client",
            &e,
        )
    })
}

/// The batches of a streamed table (from [`AsyncClient::stream_table`]).
///
/// A [`Stream`] of `Result<Batch>`; it ends after the first error. Once it
/// ended without one, [`BatchStream::end`] gives the notices and the row
/// count.
pub struct BatchStream {
    inner: Pin<Box<dyn Stream<Item = Streamed> + Send>>,
    end: Option<StreamEnd>,
}

impl BatchStream {
    /// The notices and row count, once the body ended and decoded without
    /// error; `None` before, and after an error. Borrowed, as
    /// [`BatchIter::end`](crate::BatchIter::end)'s is (`.cloned()` keeps
    /// it past the stream).
    pub fn end(&self) -> Option<&StreamEnd> {
        self.end.as_ref()
    }
}

impl fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchStream").finish_non_exhaustive()
    }
}

impl Stream for BatchStream {
    type Item = Result<Batch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match self.inner.as_mut().poll_next(cx) {
                // Kept by the stream itself, so that `end` can lend it; the
                // inner stream ends at its next poll.
                Poll::Ready(Some(Streamed::End(end))) => self.end = Some(end),
                Poll::Ready(Some(Streamed::Item(item))) => return Poll::Ready(Some(item)),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// What the inner stream of a [`BatchStream`] gives: a batch or an error,
/// or, last, the end of a body that decoded without error.
enum Streamed {
    Item(Result<Batch>),
    End(StreamEnd),
}

struct StreamState {
    /// `None` once the call ended.
    driver: Option<Driver<Arc<Inner>, TableStream>>,
    first: Option<Batch>,
}

impl StreamState {
    async fn step(mut self) -> Option<(Streamed, StreamState)> {
        if let Some(batch) = self.first.take() {
            return Some((Streamed::Item(Ok(batch)), self));
        }
        let driver = self.driver.as_mut()?;
        match driver.advance().await {
            Ok(Step::Batch(batch)) => Some((Streamed::Item(Ok(batch)), self)),
            Ok(Step::Done(finished)) => {
                self.driver = None;
                Some((Streamed::End(finished), self))
            }
            Err(error) => {
                self.driver = None;
                Some((Streamed::Item(Err(error)), self))
            }
        }
    }
}
