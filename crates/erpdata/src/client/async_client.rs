//! The async client: the core's requests sent with reqwest on tokio.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use reqwest::header::HeaderMap;
use tokio::time::Instant;

use super::{after_failure, after_head, failure, timed_out, tls, ClientOptions, Step, StreamEnd};
use crate::config::Config;
use crate::decode::{Batch, TableDecoder};
use crate::error::{Error, Result, TransportKind};
use crate::id::Id;
use crate::query::{DuesKind, DuesQuery, TableQuery};
use crate::response::{Dues, Table};

/// A ready async client on reqwest and tokio (feature `reqwest`).
///
/// Each call validates its input, sends the request the [`Config`] builds,
/// retries as [`RetryPolicy`](crate::RetryPolicy) decides (sleeping with
/// tokio), follows only the redirects [`Config::follow_redirect`] allows,
/// and parses the answer with the core. Cloning is cheap and shares the
/// connection pool. `Debug` never shows the token.
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

    /// A client with the given options. Fails only if TLS cannot be set
    /// up (e.g. the system's certificate store is unreadable, or the
    /// options' root certificates hold none).
    pub fn with_options(config: Config, options: ClientOptions) -> Result<AsyncClient> {
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
        let http = reqwest::Client::builder()
            // The core decides every redirect; reqwest would resend the form
            // body, token included, to wherever a 307 points.
            .redirect(reqwest::redirect::Policy::none())
            .retry(reqwest::retry::never())
            .connect_timeout(options.connect_timeout)
            .tls_backend_preconfigured(tls)
            .build()
            .map_err(|e| {
                config.transport_error_with_source(
                    TransportKind::Other,
                    "could not set up the HTTP client",
                    &e,
                )
            })?;
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

    /// The dues of account `acid` of the given kind.
    pub async fn dues(&self, acid: impl Into<Id>, kind: DuesKind) -> Result<Dues> {
        let query = DuesQuery::new(acid, kind);
        let request = self.inner.config.dues_request(&query)?;
        let (status, body) = self.inner.fetch(request).await?;
        self.inner.config.parse_dues(&query, status, &body)
    }

    /// What customer `acid` owes (`RECEIPT` dues).
    pub async fn receivables(&self, acid: impl Into<Id>) -> Result<Dues> {
        self.dues(acid, DuesKind::Receipt).await
    }

    /// What is owed to supplier `acid` (`PAYMENT` dues).
    pub async fn payables(&self, acid: impl Into<Id>) -> Result<Dues> {
        self.dues(acid, DuesKind::Payment).await
    }

    /// Every row of a table: a name (`"sales_invoice"`) for the config's
    /// company and year, or a [`TableQuery`].
    pub async fn table(&self, query: impl Into<TableQuery>) -> Result<Table> {
        let request = self.inner.config.table_request(&query.into())?;
        let (status, body) = self.inner.fetch(request).await?;
        self.inner
            .config
            .parse_table_with(status, &body, &self.inner.options.decoder)
    }

    /// A table as a stream of [`Batch`]es, decoded as the body arrives, in
    /// memory bounded by the batch size (see [`ClientOptions::batch_rows`]).
    ///
    /// Retries and redirects happen before the first batch; once the body
    /// has begun, a failure ends the stream with an error. The batches are
    /// complete only if the stream ends without one: a body cut short is an
    /// error after the batches before it.
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
        let (response, sent) = self.inner.open(request).await?;
        let deadline = self.inner.options.stream_deadline.map(|d| (sent + d, d));
        let status = response.status().as_u16();
        let decoder = TableDecoder::new(
            &self.inner.config,
            status,
            self.inner.options.stream_decoder(),
        );
        let end = Arc::new(Mutex::new(None));
        let state = StreamState {
            inner: self.inner.clone(),
            response,
            decoder: Some(decoder),
            ready: VecDeque::new(),
            end: end.clone(),
            deadline,
        };
        Ok(BatchStream {
            inner: Box::pin(futures_util::stream::unfold(state, StreamState::step)),
            end,
        })
    }
}

impl Inner {
    /// Sends `request` until the core stops, reading each answer whole
    /// within the timeout; returns the last status and body.
    async fn fetch(&self, mut request: http::Request<Vec<u8>>) -> Result<(u16, Vec<u8>)> {
        let (mut retries, mut hops) = (0, 0);
        loop {
            let delay = match self.exchange(&request).await {
                Ok((status, headers, body)) => {
                    match self.after_head(&request, status, &headers, hops, retries)? {
                        Step::Follow(next) => {
                            request = *next;
                            hops += 1;
                            continue;
                        }
                        Step::Retry(delay) => delay,
                        Step::Answer => return Ok((status, body)),
                    }
                }
                Err(error) => after_failure(&self.options.retry, retries, error)?,
            };
            tokio::time::sleep(delay).await;
            retries += 1;
        }
    }

    /// Sends `request` until the core stops, returning once an answer's
    /// head is in, with the time its request was sent; its body is left
    /// to the caller.
    async fn open(
        &self,
        mut request: http::Request<Vec<u8>>,
    ) -> Result<(reqwest::Response, tokio::time::Instant)> {
        let (mut retries, mut hops) = (0, 0);
        let timeout = self.options.timeout;
        loop {
            let at = tokio::time::Instant::now();
            let sent = self.http.execute(self.convert(&request)?);
            let delay = match tokio::time::timeout(timeout, sent).await {
                Ok(Ok(response)) => {
                    let status = response.status().as_u16();
                    match self.after_head(&request, status, response.headers(), hops, retries)? {
                        Step::Follow(next) => {
                            request = *next;
                            hops += 1;
                            continue;
                        }
                        Step::Retry(delay) => delay,
                        Step::Answer => return Ok((response, at)),
                    }
                }
                Ok(Err(e)) => after_failure(&self.options.retry, retries, self.error(&e))?,
                Err(elapsed) => after_failure(
                    &self.options.retry,
                    retries,
                    timed_out(&self.config, "the answer", timeout, &elapsed),
                )?,
            };
            tokio::time::sleep(delay).await;
            retries += 1;
        }
    }

    fn after_head(
        &self,
        sent: &http::Request<Vec<u8>>,
        status: u16,
        headers: &HeaderMap,
        hops: u32,
        retries: u32,
    ) -> Result<Step> {
        after_head(
            &self.config,
            &self.options.retry,
            sent,
            status,
            headers,
            hops,
            retries,
        )
    }

    /// One attempt: the request sent and its whole answer read, within the
    /// timeout.
    async fn exchange(
        &self,
        request: &http::Request<Vec<u8>>,
    ) -> Result<(u16, HeaderMap, Vec<u8>)> {
        let timeout = self.options.timeout;
        let attempt = async {
            let response = self.http.execute(self.convert(request)?).await;
            let response = response.map_err(|e| self.error(&e))?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = response.bytes().await.map_err(|e| self.error(&e))?;
            Ok((status, headers, body.to_vec()))
        };
        match tokio::time::timeout(timeout, attempt).await {
            Ok(result) => result,
            Err(elapsed) => Err(timed_out(&self.config, "the answer", timeout, &elapsed)),
        }
    }

    fn convert(&self, request: &http::Request<Vec<u8>>) -> Result<reqwest::Request> {
        reqwest::Request::try_from(request.clone()).map_err(|e| self.error(&e))
    }

    fn error(&self, e: &reqwest::Error) -> Error {
        failure(&self.config, kind_of(e), e)
    }
}

/// What kind of failure, as far as the retry policy is concerned.
fn kind_of(e: &reqwest::Error) -> TransportKind {
    if e.is_timeout() {
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

/// The batches of a streamed table (from [`AsyncClient::stream_table`]).
///
/// A [`Stream`] of `Result<Batch>`; it ends after the first error. Once it
/// ended without one, [`BatchStream::end`] gives the notices and the row
/// count.
pub struct BatchStream {
    inner: Pin<Box<dyn Stream<Item = Result<Batch>> + Send>>,
    end: Arc<Mutex<Option<StreamEnd>>>,
}

impl BatchStream {
    /// The notices and row count, once the body ended and decoded without
    /// error; `None` before, and after an error.
    pub fn end(&self) -> Option<StreamEnd> {
        self.end.lock().unwrap_or_else(|e| e.into_inner()).clone()
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
        self.inner.as_mut().poll_next(cx)
    }
}

struct StreamState {
    inner: Arc<Inner>,
    response: reqwest::Response,
    /// `None` once the body ended or failed: the stream ends when the
    /// batches still held are out.
    decoder: Option<TableDecoder>,
    ready: VecDeque<Batch>,
    end: Arc<Mutex<Option<StreamEnd>>>,
    /// When the whole body must be in, and the options' stream deadline.
    deadline: Option<(tokio::time::Instant, Duration)>,
}

impl StreamState {
    async fn step(mut self) -> Option<(Result<Batch>, StreamState)> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Some((Ok(batch), self));
            }
            let decoder = self.decoder.as_mut()?;
            let timeout = self.inner.options.timeout;
            // Each wait is bounded by the timeout, and by what is left of
            // the stream deadline, if any.
            let (wait, what, limit) = match self.deadline {
                Some((at, whole)) if at.saturating_duration_since(Instant::now()) < timeout => (
                    at.saturating_duration_since(Instant::now()),
                    "the whole body",
                    whole,
                ),
                _ => (timeout, "more of the body", timeout),
            };
            let error = match tokio::time::timeout(wait, self.response.chunk()).await {
                Ok(Ok(Some(bytes))) => match decoder.feed(&bytes) {
                    Ok(batches) => {
                        self.ready.extend(batches);
                        continue;
                    }
                    Err(e) => e,
                },
                Ok(Ok(None)) => match self.decoder.take()?.finish() {
                    Ok(finished) => {
                        self.ready.extend(finished.batches);
                        *self.end.lock().unwrap_or_else(|e| e.into_inner()) = Some(StreamEnd {
                            notices: finished.notices,
                            total_rows: finished.total_rows,
                        });
                        continue;
                    }
                    Err(e) => e,
                },
                Ok(Err(e)) => self.inner.error(&e),
                Err(elapsed) => timed_out(&self.inner.config, what, limit, &elapsed),
            };
            self.decoder = None;
            self.ready.clear();
            return Some((Err(error), self));
        }
    }
}
