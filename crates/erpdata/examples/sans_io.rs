//! The core with a hand-written transport: how to plug in any HTTP stack.
//!
//! The core builds each request, decides every step of a call (a
//! [`Call`] answers what to do next) and parses each answer; this example
//! only moves bytes and sleeps, with a deliberately tiny HTTP/1.1 client
//! over `TcpStream` (plain http, so loopback only, as with the sandbox).
//!
//! ```text
//! cargo run -p erpdata-sandbox -- --port 8787 &
//! ERPDATA_BASE_URL=http://127.0.0.1:8787 cargo run -p erpdata --example sans_io
//! ```

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant, SystemTime};

use erpdata::{
    Action, Call, CallOptions, Cell, Config, DuesKind, DuesQuery, Head, Parsed, Sink, TableQuery,
    TransportKind,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base_url =
        std::env::var("ERPDATA_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8787".into());
    let config = Config::builder(base_url)
        .project("demo")
        .access_token("sandbox-token-not-secret")
        .company_id(1)
        .year_id(2025)
        .build()?;

    let query = DuesQuery::new("C001", DuesKind::Receipt);
    let request = config.dues_request(&query)?;
    let dues = run(
        &config,
        request,
        Parsed::new(|c: &Config, status, body: &[u8]| c.parse_dues(&query, status, body)),
    )?;
    println!("receivables of C001: {} open documents", dues.rows.len());
    for row in &dues.rows {
        if let (Some(Cell::String(doc)), Some(Cell::Number(balance))) =
            (row.get("doc_no"), row.get("balance"))
        {
            println!("  {doc:<16} {balance:>12}");
        }
    }

    let request = config.table_request(&TableQuery::new("sales_invoice"))?;
    let table = run(
        &config,
        request,
        Parsed::new(|c: &Config, status, body: &[u8]| c.parse_table(status, body)),
    )?;
    println!(
        "sales_invoice: {} rows, columns {:?}",
        table.rows.len(),
        table.columns
    );
    Ok(())
}

/// The host loop: the call decides, this only sends, reads and sleeps.
/// (This transport reads a whole answer at once, so it reports its body as
/// one chunk.)
fn run<S: Sink>(
    config: &Config,
    request: http::Request<erpdata::RequestBody>,
    sink: S,
) -> erpdata::Result<S::Output> {
    let origin = Instant::now();
    let now = || origin.elapsed();
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut call = Call::new(config, request, CallOptions::default(), sink, now(), seed);
    let mut body = None;
    loop {
        match call.next(now()) {
            Action::Send {
                request,
                connect,
                read,
                ..
            } => match send(&request, connect, read) {
                Ok(answer) => {
                    // The call decides on a redirect (same origin only) and
                    // on a retry (`Retry-After`) from the head.
                    let head = Head {
                        status: answer.status,
                        location: answer.location.as_deref(),
                        retry_after: answer.retry_after.as_deref(),
                        date: Some(SystemTime::now()),
                    };
                    call.head(now(), head);
                    body = Some(answer.body);
                }
                // The kind decides whether the call retries: a refused
                // connection or a timeout may succeed again, "other" not.
                Err(e) => call.failed(now(), kind_of(&e), &e.to_string()),
            },
            Action::Read { .. } => match body.take() {
                Some(bytes) => call.chunk(now(), &bytes),
                None => call.end(now()),
            },
            Action::Sleep(delay) => std::thread::sleep(delay),
            Action::Emit(_) => {}
            Action::Done(output) => return Ok(output),
            Action::Failed(error) => return Err(error),
        }
    }
}

/// What the call needs of one answer.
struct Answer {
    status: u16,
    location: Option<String>,
    retry_after: Option<String>,
    body: Vec<u8>,
}

/// The kind of a failure, as [`Call::failed`] takes it.
fn kind_of(e: &io::Error) -> TransportKind {
    match e.kind() {
        io::ErrorKind::ConnectionRefused | io::ErrorKind::AddrNotAvailable => {
            TransportKind::Connect
        }
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => TransportKind::Timeout,
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::BrokenPipe
        | io::ErrorKind::UnexpectedEof => TransportKind::Reset,
        _ => TransportKind::Other,
    }
}

/// One HTTP/1.1 exchange over plain TCP; understands `Content-Length` and
/// chunked bodies. An https URL is refused: this transport has no TLS.
fn send(
    request: &http::Request<erpdata::RequestBody>,
    connect_timeout: Duration,
    read_timeout: Duration,
) -> io::Result<Answer> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
    let uri = request.uri();
    if uri.scheme_str() != Some("http") {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this example speaks plain http only (the sandbox's); use the blocking or reqwest feature for https",
        ));
    }
    let host = uri.host().ok_or_else(|| bad("no host"))?;
    let port = uri.port_u16().unwrap_or(80);
    let address = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| bad("the host has no address"))?;
    let mut stream = TcpStream::connect_timeout(&address, connect_timeout)?;
    stream.set_read_timeout(Some(read_timeout))?;
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let mut head = format!(
        "{} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        request.method(),
        request.body().len()
    );
    for (name, value) in request.headers() {
        let value = value
            .to_str()
            .map_err(|_| bad("a header that is not text"))?;
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(request.body())?;

    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let (mut chunked, mut location, mut retry_after) = (false, None, None);
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked") {
                chunked = true;
            }
            if name.eq_ignore_ascii_case("location") {
                location = Some(value.to_owned());
            }
            if name.eq_ignore_ascii_case("retry-after") {
                retry_after = Some(value.to_owned());
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("bad chunk size"))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else {
        reader.read_to_end(&mut body)?;
    }
    Ok(Answer {
        status,
        location,
        retry_after,
        body,
    })
}
