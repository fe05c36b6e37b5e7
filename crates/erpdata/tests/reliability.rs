//! Large and long, through the blocking client (`make reliability-rust`,
//! a release build; ignored by `make test`): a 5M-row table streamed with
//! peak RSS under 200 MB, and a 1M-row answer cut at 20 random points
//! (with and without a matching Content-Length) giving 20 errors and never
//! a short table. Prints its figures.
//!
//! ```text
//! cargo test --release -p erpdata --features blocking --test reliability -- --ignored --nocapture
//! ```

mod sandbox;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use erpdata::{BlockingClient, ClientOptions, Error};
use sandbox::{config, quick, Sandbox};

const BIG: u64 = 5_000_000;
const CUT: u64 = 1_000_000;
const CUTS: usize = 20;
const PEAK_RSS_LIMIT_MB: f64 = 200.0;

/// A kernel figure of this process from `/proc/self/status`, in MB.
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    kb / 1024.0
}

/// Rows streamed, and the error the stream ended with.
fn stream(client: &BlockingClient) -> (u64, Option<Error>) {
    let mut batches = match client.stream_table("sales_invoice") {
        Ok(b) => b,
        Err(e) => return (0, Some(e)),
    };
    let mut rows = 0;
    for batch in batches.by_ref() {
        match batch {
            Ok(b) => rows += b.num_rows as u64,
            Err(e) => {
                assert!(batches.end().is_none(), "an end after an error");
                return (rows, Some(e));
            }
        }
    }
    let end = batches.end().expect("a clean end is a known end");
    assert_eq!(end.total_rows, rows);
    (rows, None)
}

/// The full length of the table answer under `base_path`, from the head of
/// a `short-1` answer (which states the whole length and sends one byte).
fn answer_length(sb: &Sandbox, key: &str) -> usize {
    let authority = sb.url.strip_prefix("http://").unwrap();
    let mut tcp = TcpStream::connect(authority).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let form = format!(
        "req=getdata&project=demo&accesstoken={}&yearid=2025&compid=1&table=sales_invoice",
        sandbox::TOKEN
    );
    write!(
        tcp,
        "POST /_faults/short-1/{key}/apis/dataapi.php HTTP/1.1\r\nHost: {authority}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{form}",
        form.len()
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        tcp.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or_else(|| panic!("no Content-Length in {head}"))
}

/// splitmix64: cut points that a printed seed reproduces.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
#[ignore = "large: run by make reliability-rust"]
fn large_tables_stream_in_bounded_memory_and_cuts_are_errors() {
    // --- a 5M-row table, streamed -----------------------------------------
    let big = Sandbox::start_with(&["--rows", &BIG.to_string()]);
    let client = BlockingClient::with_options(config(&big.url), quick(0)).unwrap();
    let before = status_mb("VmRSS");
    let began = Instant::now();
    let (rows, error) = stream(&client);
    let took = began.elapsed().as_secs_f64();
    let peak = status_mb("VmHWM");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(rows, BIG);
    println!(
        "stream {BIG} rows (blocking client): {took:.1} s, {:.0} rows/s; \
         RSS before {before:.0} MB, peak (VmHWM) {peak:.0} MB (limit {PEAK_RSS_LIMIT_MB} MB)",
        rows as f64 / took
    );
    assert!(peak < PEAK_RSS_LIMIT_MB, "peak RSS {peak:.0} MB");
    drop(big);

    // --- a 1M-row answer cut at random points -----------------------------
    let sb = Sandbox::start_with(&["--rows", &CUT.to_string()]);
    let length = answer_length(&sb, "length");
    let seed = std::env::var("ERPDATA_CUT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!(
        "cut {CUT}-row answer of {length} bytes at {CUTS} random points (ERPDATA_CUT_SEED={seed})"
    );
    let mut state = seed;
    let began = Instant::now();
    let mut errors = 0;
    for i in 0..CUTS {
        let at = 1 + next(&mut state) % (length as u64 - 1);
        // Even cuts end cleanly with a matching length, odd ones short of
        // the length they announced.
        let fault = if i % 2 == 0 { "truncate" } else { "short" };
        let (base, key) = sb.faulty(&format!("{fault}-{at}"));
        let client = BlockingClient::with_options(
            config(&base),
            ClientOptions::default()
                .max_retries(0)
                .timeout(Duration::from_secs(60)),
        )
        .unwrap();
        let (rows, error) = stream(&client);
        let error =
            error.unwrap_or_else(|| panic!("{fault}-{at}: a complete table of {rows} rows"));
        assert!(rows < CUT, "{fault}-{at}: {rows} rows");
        assert_eq!(sb.count(&key), 1);
        println!(
            "  {fault:>8} at byte {at:>10}: {:<9} error after {rows:>7} rows",
            error.kind()
        );
        errors += 1;
    }
    println!(
        "{errors} errors of {CUTS} cuts, no short table ({:.1} s); peak RSS {:.0} MB",
        began.elapsed().as_secs_f64(),
        status_mb("VmHWM")
    );
    assert_eq!(errors, CUTS);
}
