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

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
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
    request: http::Request<Vec<u8>>,
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
            Action::Send { request, read, .. } => match send(&request, read) {
                Ok((status, retry_after, answer)) => {
                    let head = Head {
                        status,
                        retry_after: retry_after.as_deref(),
                        date: Some(SystemTime::now()),
                        ..Head::default()
                    };
                    call.head(now(), head);
                    body = Some(answer);
                }
                Err(e) => call.failed(now(), TransportKind::Other, &e.to_string()),
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

/// Status, `Retry-After` and body of one answer.
type Answer = (u16, Option<String>, Vec<u8>);

/// One HTTP/1.1 exchange; understands `Content-Length` and chunked bodies.
fn send(
    request: &http::Request<Vec<u8>>,
    read_timeout: Duration,
) -> Result<Answer, Box<dyn std::error::Error>> {
    let uri = request.uri();
    let host = uri.host().ok_or("no host")?;
    let port = uri.port_u16().unwrap_or(80);
    let mut stream = TcpStream::connect((host, port))?;
    stream.set_read_timeout(Some(read_timeout))?;
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let mut head = format!(
        "{} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        request.method(),
        request.body().len()
    );
    for (name, value) in request.headers() {
        head.push_str(&format!("{name}: {}\r\n", value.to_str()?));
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
        .ok_or("bad status line")?
        .parse()?;
    let (mut chunked, mut retry_after) = (false, None);
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
            let size = usize::from_str_radix(line.trim(), 16)?;
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
    Ok((status, retry_after, body))
}
