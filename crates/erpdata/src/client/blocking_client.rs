//! The blocking client: the core's requests sent with ureq.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read};

use ureq::tls::{parse_pem, PemItem, RootCerts, TlsConfig};
use ureq::Agent;

use super::{after_failure, after_head, failure, ClientOptions, Step, StreamEnd};
use crate::config::Config;
use crate::decode::{Batch, TableDecoder};
use crate::error::{Error, Result, TransportKind};
use crate::id::Id;
use crate::query::{DuesKind, DuesQuery, TableQuery};
use crate::response::{Dues, Table};

/// How much of the body one read of a stream asks for.
const READ_CHUNK: usize = 64 * 1024;

/// A ready blocking client on ureq (feature `blocking`); no async runtime.
///
/// Each call validates its input, sends the request the [`Config`] builds,
/// retries as [`RetryPolicy`](crate::RetryPolicy) decides (sleeping the
/// thread), follows only the redirects [`Config::follow_redirect`] allows,
/// and parses the answer with the core. Cloning is cheap and shares the
/// connection pool. `Debug` never shows the token.
///
/// ```no_run
/// use erpdata::{BlockingClient, Config, DuesKind};
///
/// let client = BlockingClient::new(
///     Config::builder("https://erp.example.com/")
///         .project("demo")
///         .access_token("your-access-token")
///         .company_id(1)
///         .year_id(2025)
///         .build()?,
/// )?;
/// let dues = client.dues("S001", DuesKind::Payment)?;
/// for batch in client.stream_table("sales_invoice")? {
///     let batch = batch?;
///     println!("{} rows", batch.num_rows);
/// }
/// # Ok::<(), erpdata::Error>(())
/// ```
#[derive(Clone)]
pub struct BlockingClient {
    config: Config,
    options: ClientOptions,
    agent: Agent,
}

impl fmt::Debug for BlockingClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingClient")
            .field("config", &self.config)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// How long the body of a stream may take.
enum Deadline {
    /// The whole attempt, body included.
    WholeCall,
    /// The head, and then each read of the body (and the whole of it, if
    /// the options set a stream deadline).
    EachRead,
}

impl BlockingClient {
    /// A client with default [`ClientOptions`].
    pub fn new(config: Config) -> Result<BlockingClient> {
        BlockingClient::with_options(config, ClientOptions::default())
    }

    /// A client with the configuration from the `ERPDATA_*` variables
    /// ([`Config::from_env`]) and default options.
    pub fn from_env() -> Result<BlockingClient> {
        BlockingClient::new(Config::from_env()?)
    }

    /// A client with the given options. Fails only if the options' root
    /// certificates hold none.
    pub fn with_options(config: Config, options: ClientOptions) -> Result<BlockingClient> {
        let roots = match &options.root_certificates {
            Some(pem) => root_certs(&pem.0)?,
            None => RootCerts::PlatformVerifier,
        };
        let agent = Agent::config_builder()
            // The core decides every redirect; followed here, a 307 would
            // carry the form body, token included, to wherever it points.
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_connect(Some(options.connect_timeout))
            .tls_config(TlsConfig::builder().root_certs(roots).build())
            .build()
            .new_agent();
        Ok(BlockingClient {
            config,
            options,
            agent,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The options.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// The dues of account `acid` of the given kind.
    pub fn dues(&self, acid: impl Into<Id>, kind: DuesKind) -> Result<Dues> {
        let query = DuesQuery::new(acid, kind);
        let request = self.config.dues_request(&query)?;
        let (status, body) = self.fetch(request)?;
        self.config.parse_dues(&query, status, &body)
    }

    /// What customer `acid` owes (`RECEIPT` dues).
    pub fn receivables(&self, acid: impl Into<Id>) -> Result<Dues> {
        self.dues(acid, DuesKind::Receipt)
    }

    /// What is owed to supplier `acid` (`PAYMENT` dues).
    pub fn payables(&self, acid: impl Into<Id>) -> Result<Dues> {
        self.dues(acid, DuesKind::Payment)
    }

    /// Every row of a table: a name (`"sales_invoice"`) for the config's
    /// company and year, or a [`TableQuery`].
    pub fn table(&self, query: impl Into<TableQuery>) -> Result<Table> {
        let request = self.config.table_request(&query.into())?;
        let (status, body) = self.fetch(request)?;
        self.config
            .parse_table_with(status, &body, &self.options.decoder)
    }

    /// A table as an iterator of [`Batch`]es, decoded as the body arrives,
    /// in memory bounded by the batch size (see
    /// [`ClientOptions::batch_rows`]).
    ///
    /// Retries and redirects happen before the first batch; once the body
    /// has begun, a failure ends the iterator with an error. The batches
    /// are complete only if it ends without one: a body cut short is an
    /// error after the batches before it.
    ///
    /// ```no_run
    /// # fn run(client: erpdata::BlockingClient) -> erpdata::Result<()> {
    /// let mut batches = client.stream_table("sales_invoice")?;
    /// for batch in batches.by_ref() {
    ///     let batch = batch?;
    ///     println!("{} rows of {} columns", batch.num_rows, batch.columns.len());
    /// }
    /// let end = batches.end().expect("complete, or the loop returned the error");
    /// println!("{} rows in all", end.total_rows);
    /// # Ok(())
    /// # }
    /// ```
    pub fn stream_table(&self, query: impl Into<TableQuery>) -> Result<BatchIter> {
        let request = self.config.table_request(&query.into())?;
        let response = self.open(request, Deadline::EachRead)?;
        let status = response.status().as_u16();
        Ok(BatchIter {
            config: self.config.clone(),
            body: response.into_body().into_reader(),
            decoder: Some(TableDecoder::new(
                &self.config,
                status,
                self.options.stream_decoder(),
            )),
            ready: VecDeque::new(),
            buffer: vec![0; READ_CHUNK],
            end: None,
        })
    }

    /// Sends `request` until the core stops, reading each answer whole;
    /// returns the last status and body.
    fn fetch(&self, request: http::Request<Vec<u8>>) -> Result<(u16, Vec<u8>)> {
        let mut retries = 0;
        loop {
            let response =
                self.open_counting(request.clone(), Deadline::WholeCall, &mut retries)?;
            let status = response.status().as_u16();
            let mut body = Vec::new();
            match response.into_body().into_reader().read_to_end(&mut body) {
                Ok(_) => return Ok((status, body)),
                // A body broken off is retried like a failed send: both
                // operations are reads.
                Err(e) => {
                    let delay = after_failure(&self.options.retry, retries, self.io_error(&e))?;
                    std::thread::sleep(delay);
                    retries += 1;
                }
            }
        }
    }

    fn open(
        &self,
        request: http::Request<Vec<u8>>,
        deadline: Deadline,
    ) -> Result<http::Response<ureq::Body>> {
        self.open_counting(request, deadline, &mut 0)
    }

    /// Sends `request` until the core stops, returning once an answer's
    /// head is in; `retries` counts retries across calls of one operation.
    fn open_counting(
        &self,
        mut request: http::Request<Vec<u8>>,
        deadline: Deadline,
        retries: &mut u32,
    ) -> Result<http::Response<ureq::Body>> {
        let mut hops = 0;
        loop {
            let delay = match self.agent.run(self.configure(&request, &deadline)) {
                Ok(response) => {
                    let status = response.status().as_u16();
                    match after_head(
                        &self.config,
                        &self.options.retry,
                        &request,
                        status,
                        response.headers(),
                        hops,
                        *retries,
                    )? {
                        Step::Follow(next) => {
                            request = *next;
                            hops += 1;
                            continue;
                        }
                        Step::Retry(delay) => delay,
                        Step::Answer => return Ok(response),
                    }
                }
                Err(e) => after_failure(&self.options.retry, *retries, self.ureq_error(&e))?,
            };
            std::thread::sleep(delay);
            *retries += 1;
        }
    }

    fn configure(
        &self,
        request: &http::Request<Vec<u8>>,
        deadline: &Deadline,
    ) -> http::Request<Vec<u8>> {
        let timeout = Some(self.options.timeout);
        let config = self.agent.configure_request(request.clone());
        match deadline {
            Deadline::WholeCall => config.timeout_per_call(timeout),
            Deadline::EachRead => config
                .timeout_recv_response(timeout)
                .timeout_per_read(timeout)
                .timeout_global(self.options.stream_deadline),
        }
        .build()
    }

    fn ureq_error(&self, e: &ureq::Error) -> Error {
        failure(&self.config, ureq_kind(e), e)
    }

    fn io_error(&self, e: &io::Error) -> Error {
        io_error(&self.config, e)
    }
}

/// The certificates of a PEM text, to trust instead of the system's.
fn root_certs(pem: &[u8]) -> Result<RootCerts> {
    let invalid = |why: &str| Error::invalid("root_certificates", why);
    let mut certs = Vec::new();
    for item in parse_pem(pem) {
        match item.map_err(|_| invalid("not readable as PEM"))? {
            PemItem::Certificate(cert) => certs.push(cert),
            _ => continue,
        }
    }
    if certs.is_empty() {
        return Err(invalid("no certificate in the PEM text"));
    }
    Ok(RootCerts::new_with_certs(&certs))
}

fn io_error(config: &Config, e: &io::Error) -> Error {
    let inner = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>());
    match inner {
        // ureq wraps its own errors in `io::Error` for `Read`.
        Some(u) => failure(config, ureq_kind(u), u),
        None => failure(config, io_kind(e.kind()), e),
    }
}

fn ureq_kind(e: &ureq::Error) -> TransportKind {
    use ureq::Error as E;
    match e {
        E::Timeout(_) => TransportKind::Timeout,
        E::HostNotFound
        | E::ConnectionFailed
        | E::ConnectProxyFailed(_)
        | E::Tls(_)
        | E::Rustls(_)
        | E::TlsRequired => TransportKind::Connect,
        E::Io(io) => io_kind(io.kind()),
        E::BodyStalled => TransportKind::Reset,
        _ => TransportKind::Other,
    }
}

fn io_kind(kind: io::ErrorKind) -> TransportKind {
    use io::ErrorKind as K;
    match kind {
        K::TimedOut | K::WouldBlock => TransportKind::Timeout,
        K::ConnectionRefused | K::NotFound | K::AddrNotAvailable => TransportKind::Connect,
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => {
            TransportKind::Reset
        }
        _ => TransportKind::Other,
    }
}

/// The batches of a streamed table (from [`BlockingClient::stream_table`]).
///
/// An [`Iterator`] of `Result<Batch>`; it ends after the first error. Once
/// it ended without one, [`BatchIter::end`] gives the notices and the row
/// count.
pub struct BatchIter {
    config: Config,
    body: ureq::BodyReader<'static>,
    /// `None` once the body ended or failed: the iterator ends when the
    /// batches still held are out.
    decoder: Option<TableDecoder>,
    ready: VecDeque<Batch>,
    buffer: Vec<u8>,
    end: Option<StreamEnd>,
}

impl BatchIter {
    /// The notices and row count, once the body ended and decoded without
    /// error; `None` before, and after an error.
    pub fn end(&self) -> Option<&StreamEnd> {
        self.end.as_ref()
    }
}

impl fmt::Debug for BatchIter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchIter").finish_non_exhaustive()
    }
}

impl Iterator for BatchIter {
    type Item = Result<Batch>;

    fn next(&mut self) -> Option<Result<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Some(Ok(batch));
            }
            let decoder = self.decoder.as_mut()?;
            let error = match self.body.read(&mut self.buffer) {
                Ok(0) => match self.decoder.take()?.finish() {
                    Ok(finished) => {
                        self.ready.extend(finished.batches);
                        self.end = Some(StreamEnd {
                            notices: finished.notices,
                            total_rows: finished.total_rows,
                        });
                        continue;
                    }
                    Err(e) => e,
                },
                Ok(n) => match decoder.feed(&self.buffer[..n]) {
                    Ok(batches) => {
                        self.ready.extend(batches);
                        continue;
                    }
                    Err(e) => e,
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => io_error(&self.config, &e),
            };
            self.decoder = None;
            self.ready.clear();
            return Some(Err(error));
        }
    }
}
