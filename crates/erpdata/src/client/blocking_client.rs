//! The blocking client: the core's requests sent with ureq.

use std::fmt;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread::Scope;
use std::time::{Duration, Instant};

use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::Agent;

use super::read_ahead::thread::{Ahead, ReadAhead};
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
use crate::plan::{AgingPlan, CreditStatusPlan, Plan, PlanStep, PlannedCall};
use crate::query::{DuesKind, DuesQuery, TableQuery};
use crate::response::{Dues, Table};

/// How much of the body one read asks for.
const READ_CHUNK: usize = 64 * 1024;

/// The work of one of [`BlockingClient::run_plan`]'s threads.
type Job<'scope> = Box<dyn FnOnce() + Send + 'scope>;

/// A ready blocking client on ureq (feature `blocking`); no async runtime.
///
/// Each call validates its input, sends the request the [`Config`] builds,
/// retries as [`RetryPolicy`](crate::RetryPolicy) decides (sleeping the
/// thread), follows only the redirects [`Config::follow_redirect`] allows,
/// and parses the answer with the core. A large body (a table's) goes on
/// being read on a second thread while the calling thread decodes what
/// arrived. Cloning is cheap and shares the connection pool. `Debug`
/// never shows the token.
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

    /// A client with the given options. Fails if a limit is out of the
    /// core's range, or if the options' root certificates hold none or one
    /// that is not a valid root. A system without a readable certificate
    /// store gets Mozilla's roots.
    pub fn with_options(config: Config, options: ClientOptions) -> Result<BlockingClient> {
        options.validate()?;
        let roots = match &options.root_certificates {
            Some(pem) => {
                let (_, certs) = tls::root_certificates(pem)?;
                let certs: Vec<_> = certs
                    .iter()
                    .map(|der| Certificate::from_der(der.as_ref()).to_owned())
                    .collect();
                RootCerts::new_with_certs(&certs)
            }
            None if tls::system_roots_readable() => RootCerts::PlatformVerifier,
            // ureq's verifier would fail every handshake on a system with no
            // store; Mozilla's roots, as the async client has them.
            None => RootCerts::WebPki,
        };
        // ureq takes HTTP_PROXY and the like from the environment: a
        // loopback service's plain-http requests, token included, would go
        // to the proxy's host (see `Config::proxy_allowed`).
        let proxy = if config.proxy_allowed() {
            ureq::Proxy::try_from_env()
        } else {
            None
        };
        let agent = Agent::config_builder()
            // The core decides every redirect; followed here, a 307 would
            // carry the form body, token included, to wherever it points.
            .max_redirects(0)
            .proxy(proxy)
            .http_status_as_error(false)
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

    /// This client with other time limits, for the calls made through it
    /// (`client.with_timeouts(t)?.table("x")`); it shares the connections.
    pub fn with_timeouts(&self, timeouts: Timeouts) -> Result<BlockingClient> {
        self.derive(self.options.clone().timeouts(timeouts))
    }

    /// This client with another retry count, for the calls made through
    /// it; it shares the connections.
    pub fn with_max_retries(&self, max_retries: u32) -> Result<BlockingClient> {
        self.derive(self.options.clone().max_retries(max_retries))
    }

    /// This client with declared column types (see
    /// [`ClientOptions::schema`]) in place of its own, for the calls made
    /// through it: one table's types, where the client reads others too
    /// (`client.with_schema(schema).table("account")`). It shares the
    /// connections.
    pub fn with_schema(&self, schema: DeclaredSchema) -> BlockingClient {
        BlockingClient {
            config: self.config.clone(),
            options: self.options.clone().schema(schema),
            agent: self.agent.clone(),
        }
    }

    fn derive(&self, options: ClientOptions) -> Result<BlockingClient> {
        options.validate()?;
        Ok(BlockingClient {
            config: self.config.clone(),
            options,
            agent: self.agent.clone(),
        })
    }

    operations!();

    /// Runs a [`Plan`] of the core: each call it asks for on a thread of
    /// its own (at most its concurrency at a time), each result handed
    /// back as it comes. On the first error it waits for the calls still
    /// running (each bounded by its time limits), then returns the error.
    ///
    /// A call whose thread cannot be started (the system is out of threads
    /// or memory, or at a limit on them such as a container's) runs on the
    /// calling thread instead: the plan goes on with fewer threads, down to
    /// the caller's own alone, rather than panicking or failing calls that
    /// can be made. A call that panics on its thread (a logger's panic,
    /// say) panics `run_plan`, once the calls still running have ended.
    pub fn run_plan(&self, plan: Plan) -> Result<TypedRows> {
        self.run_plan_with(plan, |scope, job| {
            std::thread::Builder::new()
                .spawn_scoped(scope, job)
                .map(drop)
        })
    }

    /// [`run_plan`](Self::run_plan), each call's thread started by `spawn`
    /// (the tests give one that fails).
    fn run_plan_with<'env>(
        &'env self,
        mut plan: Plan,
        spawn: impl for<'scope> Fn(&'scope Scope<'scope, 'env>, Job<'scope>) -> io::Result<()>,
    ) -> Result<TypedRows> {
        let (done, results) = mpsc::channel();
        std::thread::scope(|scope| loop {
            match plan.next() {
                PlanStep::Call(call) => {
                    // The call is handed to its thread once the thread
                    // runs: if it cannot start, the call is still here.
                    let (hand, take) = mpsc::channel::<PlannedCall>();
                    let done = done.clone();
                    let job: Job<'_> = Box::new(move || {
                        if let Ok(call) = take.recv() {
                            let id = call.id;
                            // A panic in the call (a logger's, say) goes to
                            // the calling thread, which resumes it: left
                            // here, the plan waited for its result forever.
                            let outcome =
                                panic::catch_unwind(AssertUnwindSafe(|| self.run_planned(call)));
                            let _ = done.send((id, outcome));
                        }
                    });
                    let call = match spawn(scope, job) {
                        Ok(()) => match hand.send(call) {
                            Ok(()) => continue,
                            // Its thread ended without taking it (it
                            // cannot, but the call is not lost if so).
                            Err(mpsc::SendError(call)) => call,
                        },
                        // Std's `scope.spawn` would panic here. Run the
                        // call on this thread instead; the calls already
                        // running go on meanwhile, and the next call tries
                        // for a thread again.
                        Err(_) => call,
                    };
                    let id = call.id;
                    let result = self.run_planned(call);
                    plan.done(id, result);
                }
                PlanStep::Wait => match results.recv() {
                    Ok((id, Ok(result))) => plan.done(id, result),
                    // The scope waits for the calls still running first.
                    Ok((_, Err(panicked))) => panic::resume_unwind(panicked),
                    Err(_) => unreachable!("a running call holds a sender"),
                },
                PlanStep::Done(rows) => return Ok(rows),
                PlanStep::Failed(error) => return Err(error),
            }
        })
    }

    /// A table as an iterator of [`Batch`]es, decoded as the body arrives,
    /// in memory bounded by the batch size (see
    /// [`ClientOptions::batch_rows`]) and the 4 MiB a second thread reads
    /// ahead of the decoding, all of one schema.
    ///
    /// Retries and redirects happen before the first batch; once a batch
    /// was handed out, a failure ends the iterator with an error saying how
    /// many rows had arrived. The batches are complete only if it ends
    /// without one.
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
        let sink = TableStream::new(self.options.decoder.clone());
        let driver = Driver::new(self, request, sink, true);
        let mut iter = BatchIter {
            driver: Some(driver),
            first: None,
            end: None,
        };
        // The first batch (or the end, or the error) is awaited here, so
        // that a call that fails before any row fails `stream_table`.
        iter.first = iter.step().transpose()?;
        Ok(iter)
    }

    /// A call whose answer is read whole, then parsed by `sink`.
    fn run<S: Sink>(&self, request: http::Request<RequestBody>, sink: S) -> Result<S::Output> {
        let mut driver = Driver::new(self, request, sink, false);
        match driver.advance()? {
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
    /// Read on the calling thread; the bytes read so far (since the
    /// last time a thread to read it could not start).
    Here(ureq::BodyReader<'static>, u64),
    /// Read on a thread of its own, past [`READ_AHEAD_AFTER`].
    Ahead(ReadAhead),
}

/// The host loop: carries out a call's actions with ureq.
struct Driver<S: Sink> {
    agent: Agent,
    call: Call<S>,
    origin: Instant,
    body: Option<Body>,
    buffer: Vec<u8>,
    /// Whether the call is a stream's, whose time limit leaves out the
    /// time its caller holds a batch.
    streaming: bool,
    /// Whether the call ended (done or failed): dropped before that, its
    /// caller ended it (a stream dropped early).
    ended: bool,
}

impl<S: Sink> Drop for Driver<S> {
    fn drop(&mut self) {
        if !self.ended {
            events::ended(&self.call);
        }
    }
}

impl<S: Sink> Driver<S> {
    fn new(
        client: &BlockingClient,
        request: http::Request<RequestBody>,
        sink: S,
        streaming: bool,
    ) -> Self {
        let (call, origin) = start(&client.config, &client.options, request, sink, streaming);
        Driver {
            agent: client.agent.clone(),
            call,
            origin,
            body: None,
            buffer: Vec::new(),
            streaming,
            ended: false,
        }
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn advance(&mut self) -> Result<Step<S::Output>> {
        loop {
            match self.call.next(self.now()) {
                Action::Send {
                    request,
                    connect,
                    read,
                    wait,
                } => {
                    self.body = None;
                    events::request(&self.call);
                    // ureq fixes a request's limits when it is sent: each
                    // read of its body waits at most `read` (the call checks
                    // its total between reads).
                    //
                    // ureq bounds connecting and the wait for the head
                    // apart, each by what was left of the call when sent:
                    // a connection made late then had the whole of it again
                    // for the head (a call of 4 s ran 6.6). Where what is left
                    // binds (`wait` below the two limits together), an
                    // answer read whole must be in within it, body and all,
                    // which ureq's limit per call bounds. Not a stream's:
                    // the time its caller holds a batch does not count, and
                    // ureq's clock would count it.
                    let whole = !self.streaming && wait < connect.saturating_add(read);
                    let request = self
                        .agent
                        .configure_request(request.map(RequestBody::into_vec))
                        .timeout_connect(Some(connect))
                        .timeout_recv_response(Some(read))
                        .timeout_per_read(Some(read))
                        .timeout_per_call(whole.then_some(wait))
                        .build();
                    match self.agent.run(request) {
                        Ok(response) => {
                            let status = response.status().as_u16();
                            events::answer(&self.call, status);
                            self.call.head(self.now(), head(status, response.headers()));
                            let reader = response.into_body().into_reader();
                            self.body = Some(Body::Here(reader, 0));
                        }
                        Err(e) => self.call.failed_with(self.now(), send_kind(&e), &e),
                    }
                }
                Action::Read { wait } => self.read(wait),
                Action::Sleep(delay) => {
                    self.body = None;
                    events::waiting(&self.call, delay);
                    std::thread::sleep(delay);
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
    fn read(&mut self, wait: Duration) {
        if matches!(self.body, Some(Body::Here(_, read)) if read >= READ_AHEAD_AFTER) {
            self.read_ahead();
        }
        let origin = self.origin;
        let call = &mut self.call;
        match self.body.as_mut() {
            None => call.end(origin.elapsed()),
            Some(Body::Here(reader, read)) => {
                if self.buffer.is_empty() {
                    self.buffer = vec![0; READ_CHUNK];
                }
                match reader.read(&mut self.buffer) {
                    Ok(0) => call.end(origin.elapsed()),
                    Ok(n) => {
                        *read += n as u64;
                        call.chunk(origin.elapsed(), &self.buffer[..n]);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                        // Asked again: the read is simply repeated.
                        call.chunk(origin.elapsed(), &[]);
                    }
                    Err(e) => call.failed_with(origin.elapsed(), io_kind_of(&e), &e),
                }
            }
            Some(Body::Ahead(ahead)) => match ahead.next(wait) {
                Ahead::Chunk(chunk) => {
                    call.chunk(origin.elapsed(), &chunk);
                    ahead.recycle(chunk);
                }
                Ahead::End => call.end(origin.elapsed()),
                Ahead::Failed(e) => call.failed_with(origin.elapsed(), io_kind_of(&e), &e),
                Ahead::Stalled => call.failed(origin.elapsed(), TransportKind::Timeout, ""),
            },
        }
    }

    /// Hands the rest of the body to a thread of its own, or, when no
    /// thread can be started (the system is out of threads or memory),
    /// goes on reading it here, trying again after as many bytes more: a
    /// slower read, not a failed call, which a retry would fail again.
    fn read_ahead(&mut self) {
        if let Some(Body::Here(reader, _)) = self.body.take() {
            self.body = Some(match ReadAhead::start(reader, READ_CHUNK) {
                Ok(ahead) => Body::Ahead(ahead),
                Err((_, reader)) => Body::Here(reader, 0),
            });
        }
    }
}

/// The kind of a failed read: ureq wraps its own errors in `io::Error`.
fn io_kind_of(e: &io::Error) -> TransportKind {
    match e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        Some(u) => ureq_kind(u),
        None => io_kind(e.kind()),
    }
}

/// The kind of a failed send, which ends with the answer's head.
fn send_kind(e: &ureq::Error) -> TransportKind {
    match e {
        // rustls failing before the answer (its refusal of the certificate
        // aside, below) is a handshake that broke off, as reqwest has it:
        // https to a server that answers in plain HTTP, say. ureq gives
        // it as an io::Error, not as `Rustls`.
        ureq::Error::Io(io) if !tls::refused_certificate(io) && tls::rustls_error(io).is_some() => {
            TransportKind::Connect
        }
        // The resolver's failure, which ureq passes on as it is (its own
        // `HostNotFound` is only for a name without addresses).
        ureq::Error::Io(io) if lookup_failed(io) => TransportKind::Connect,
        other => ureq_kind(other),
    }
}

/// Whether `io` is the standard library's failure to look a host name
/// up: a message of its own on Unix (getaddrinfo's errors have no errno),
/// a WSA code on Windows.
fn lookup_failed(io: &io::Error) -> bool {
    if cfg!(windows) {
        // WSAHOST_NOT_FOUND, WSATRY_AGAIN, WSANO_RECOVERY, WSANO_DATA.
        matches!(io.raw_os_error(), Some(11001..=11004))
    } else {
        io.raw_os_error().is_none()
            && io
                .to_string()
                .starts_with("failed to lookup address information")
    }
}

fn ureq_kind(e: &ureq::Error) -> TransportKind {
    use ureq::Error as E;
    // ureq gives rustls's refusal as an io::Error (`Io`) during the
    // handshake, whose `source` skips it.
    let refused = match e {
        E::Io(io) => tls::refused_certificate(io),
        other => tls::refused_certificate(other),
    };
    if refused {
        return TransportKind::Tls;
    }
    match e {
        E::Timeout(_) => TransportKind::Timeout,
        E::HostNotFound
        | E::ConnectionFailed
        | E::ConnectProxyFailed(_)
        | E::Tls(_)
        | E::Rustls(_)
        | E::TlsRequired => TransportKind::Connect,
        E::Io(io) => io_kind(io.kind()),
        // What the server sent is not HTTP/1.1 (a TLS server's alert to a
        // plain request, a broken chunk): the connection's answer broke,
        // as reqwest has it.
        E::Protocol(_) | E::BodyStalled => TransportKind::Reset,
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
    /// `None` once the call ended.
    driver: Option<Driver<TableStream>>,
    first: Option<Batch>,
    end: Option<StreamEnd>,
}

impl BatchIter {
    /// The notices and row count, once the body ended and decoded without
    /// error; `None` before, and after an error.
    pub fn end(&self) -> Option<&StreamEnd> {
        self.end.as_ref()
    }

    fn step(&mut self) -> Option<Result<Batch>> {
        let driver = self.driver.as_mut()?;
        match driver.advance() {
            Ok(Step::Batch(batch)) => Some(Ok(batch)),
            Ok(Step::Done(finished)) => {
                self.end = Some(finished);
                self.driver = None;
                None
            }
            Err(error) => {
                self.driver = None;
                Some(Err(error))
            }
        }
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
        if let Some(batch) = self.first.take() {
            return Some(Ok(batch));
        }
        self.step()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::catalogue::Arg;

    /// A loopback server answering every request with the same dues.
    fn dues_server() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                std::thread::spawn(move || {
                    let body =
                        r#"{"status":"success","data":[{"doc_no":"INV-1","balance":"10.50"}]}"#;
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                        head.push(byte[0]);
                    }
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes());
                });
            }
        });
        url
    }

    /// A client of [`dues_server`]'s.
    fn dues_client() -> BlockingClient {
        let config = Config::builder(dues_server())
            .project("demo")
            .company_id(1)
            .year_id(2025)
            .build()
            .unwrap();
        BlockingClient::new(config).unwrap()
    }

    fn dues_plan(client: &BlockingClient) -> Plan {
        let acids = Arg::List(["C001", "C002", "C003", "C004"].map(Arg::from).to_vec());
        Plan::dues_table(
            client.config(),
            &acids,
            &Arg::from("RECEIPT"),
            4,
            client.options().decoder.clone(),
        )
        .unwrap()
    }

    /// Panics on a thread of this name; lets every other record be.
    struct PanicsOn(&'static str);

    impl log::Log for PanicsOn {
        fn enabled(&self, _: &log::Metadata<'_>) -> bool {
            true
        }

        fn log(&self, _: &log::Record<'_>) {
            // Not again while unwinding (a destructor's record): Rust
            // aborts on a panic in a panic.
            if std::thread::current().name() == Some(self.0) && !std::thread::panicking() {
                panic!("a logger that panics");
            }
        }

        fn flush(&self) {}
    }

    #[test]
    fn a_call_that_panics_on_its_thread_panics_the_plan_instead_of_hanging_it() {
        const WORKER: &str = "erpdata-test-panicking-worker";
        static LOGGER: PanicsOn = PanicsOn(WORKER);
        // The only logger of this test binary (other tests' records are
        // let be); its thread names keep it to this test.
        log::set_logger(&LOGGER).expect("no other logger in the unit tests");
        log::set_max_level(log::LevelFilter::Debug);
        let client = dues_client();
        let (finished, outcome) = mpsc::channel();
        std::thread::spawn(move || {
            let ran = panic::catch_unwind(AssertUnwindSafe(|| {
                client.run_plan_with(dues_plan(&client), |scope, job| {
                    std::thread::Builder::new()
                        .name(WORKER.to_owned())
                        .spawn_scoped(scope, job)
                        .map(drop)
                })
            }));
            let _ = finished.send(ran.is_err());
        });
        assert_eq!(
            outcome.recv_timeout(Duration::from_secs(60)),
            Ok(true),
            "the workers' panic reaches the plan's caller (it waited forever)"
        );
    }

    #[test]
    fn a_plan_whose_threads_cannot_start_runs_its_calls_on_the_calling_thread() {
        let client = dues_client();
        let threaded = client.run_plan(dues_plan(&client)).unwrap();
        assert_eq!(threaded.rows.len(), 4);

        // No thread at all: every call on the caller's (std's
        // `scope.spawn` panicked here).
        let tries = AtomicUsize::new(0);
        let alone = client
            .run_plan_with(dues_plan(&client), |_, _| {
                tries.fetch_add(1, Ordering::Relaxed);
                Err(io::Error::other("no thread for you"))
            })
            .unwrap();
        assert_eq!(alone, threaded);
        assert_eq!(
            tries.load(Ordering::Relaxed),
            4,
            "each call asks for a thread"
        );

        // Every other thread refused: fewer threads, the same table.
        let tries = AtomicUsize::new(0);
        let some = client
            .run_plan_with(dues_plan(&client), |scope, job| {
                if tries.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
                    return Err(io::Error::other("no thread for you"));
                }
                std::thread::Builder::new()
                    .spawn_scoped(scope, job)
                    .map(drop)
            })
            .unwrap();
        assert_eq!(some, threaded);
    }
}
