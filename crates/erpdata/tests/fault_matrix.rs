//! The fault matrix: every hostile answer of the sandbox (`/_faults/`) met
//! by both ready clients over loopback, each with its expected typed error
//! or recovery, the exact number of attempts the sandbox saw, timeouts
//! honoured, no partial table passed off as whole, and the token in no
//! error. Writes `target/fault-matrix/rust-async.json` and
//! `rust-blocking.json` for `scripts/fault-matrix.py`.

mod clients;
mod sandbox;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clients::{error_text, Client, Streamed, FLAVOURS};
use erpdata::{ClientOptions, Error, RetryPolicy, Table, TransportKind};
use sandbox::{config_with_token, Sandbox};

/// Obviously fake, with characters that change when URL-encoded, so both
/// forms can be looked for.
const TOKEN: &str = "fake+tok/en=fault-matrix";
const TOKEN_ENCODED: &str = "fake%2Btok%2Fen%3Dfault-matrix";

/// How late a timeout may fire on two busy shared cores.
const TOLERANCE: Duration = Duration::from_millis(1500);

/// What a row expects of the call.
#[derive(Clone, Copy)]
enum Expect {
    /// The whole table.
    Rows,
    /// An error of this kind (`Error::kind`), with this transport kind or
    /// HTTP status where given.
    Fails(&'static str, Option<TransportKind>, Option<u16>),
}

/// Where a row's fault sends the client.
#[derive(Clone, Copy)]
enum Start {
    /// `/_faults/FAULT/KEY/` on the plain sandbox.
    Plain(&'static str),
    /// `redirect-307-PORT` to the second plain sandbox.
    ToOtherOrigin,
    /// `redirect-307-PORT` from the https sandbox to the plain one.
    HttpsToHttp,
}

struct Row {
    name: &'static str,
    start: Start,
    retries: u32,
    timeout: Duration,
    expect: Expect,
    /// Requests the sandbox must see under the row's key.
    attempts: u64,
    /// At least this long (a delay the client must wait out).
    min_time: Duration,
    /// Also stream the table, which must then end in an error.
    stream_fails: bool,
}

const fn row(name: &'static str, fault: &'static str, expect: Expect, attempts: u64) -> Row {
    Row {
        name,
        start: Start::Plain(fault),
        retries: 2,
        timeout: Duration::from_secs(5),
        expect,
        attempts,
        min_time: Duration::ZERO,
        stream_fails: false,
    }
}

const fn fails(kind: &'static str) -> Expect {
    Expect::Fails(kind, None, None)
}

const fn status(code: u16) -> Expect {
    Expect::Fails("http_status", None, Some(code))
}

const fn transport(kind: TransportKind) -> Expect {
    Expect::Fails("transport", Some(kind), None)
}

fn rows() -> Vec<Row> {
    let ms = Duration::from_millis;
    vec![
        Row {
            min_time: ms(300),
            ..row("latency", "latency-300", Expect::Rows, 1)
        },
        Row {
            min_time: ms(150),
            ..row("slow-body", "trickle-2000x50", Expect::Rows, 1)
        },
        Row {
            min_time: ms(1000),
            ..row("429-retry-after", "status-429x1-ra1", Expect::Rows, 2)
        },
        row("500-html", "status-500x1", status(500), 1),
        row("502-html", "status-502x2", Expect::Rows, 3),
        row("503-html", "status-503x2", Expect::Rows, 3),
        row("504-html", "backoff-504x2", Expect::Rows, 3),
        row("503-exhausted", "status-503x9", status(503), 3),
        row("php-notice", "notice", Expect::Rows, 1),
        row("html-200", "html200", fails("decode"), 1),
        row("service-error", "service-error", fails("service"), 1),
        Row {
            stream_fails: true,
            ..row("cut-with-length", "truncate-700", fails("decode"), 1)
        },
        Row {
            retries: 1,
            stream_fails: true,
            ..row(
                "cut-length-mismatch",
                "short-700",
                transport(TransportKind::Reset),
                2,
            )
        },
        Row {
            retries: 1,
            stream_fails: true,
            ..row(
                "reset-mid-body",
                "reset-600",
                transport(TransportKind::Reset),
                2,
            )
        },
        row("redirect-same-origin", "redirect-307-self", Expect::Rows, 1),
        Row {
            start: Start::ToOtherOrigin,
            ..row("redirect-other-origin", "", status(307), 1)
        },
        Row {
            start: Start::HttpsToHttp,
            ..row("redirect-https-to-http", "", status(307), 1)
        },
        // The first request and the five redirects the core follows.
        row("redirect-loop", "redirect-307-loop", status(307), 6),
        Row {
            retries: 0,
            timeout: ms(400),
            min_time: ms(400),
            stream_fails: true,
            ..row("read-timeout", "hang", transport(TransportKind::Timeout), 1)
        },
        // A stream bounds each wait by the timeout; only its deadline
        // stops rows that keep coming.
        Row {
            retries: 0,
            timeout: ms(600),
            min_time: ms(600),
            stream_fails: true,
            ..row(
                "never-ending",
                "endless",
                transport(TransportKind::Timeout),
                1,
            )
        },
    ]
}

/// The three sandboxes a run needs.
struct Sandboxes {
    plain: Sandbox,
    other: Sandbox,
    tls: Sandbox,
    tls_pem: String,
    /// Reads the https sandbox's journal.
    tls_reader: ureq::Agent,
}

impl Sandboxes {
    /// `flavour` keeps the certificate files of concurrent runs apart.
    fn start(flavour: &str) -> Sandboxes {
        let args = ["--token", TOKEN];
        let pem = std::env::temp_dir().join(format!(
            "erpdata-matrix-{}-{flavour}.pem",
            std::process::id()
        ));
        let tls = Sandbox::start_with(&["--token", TOKEN, "--tls-cert", pem.to_str().unwrap()]);
        let tls_pem = std::fs::read_to_string(&pem).unwrap();
        let _ = std::fs::remove_file(&pem);
        let certs: Vec<_> = ureq::tls::parse_pem(tls_pem.as_bytes())
            .filter_map(|i| match i.unwrap() {
                ureq::tls::PemItem::Certificate(c) => Some(c),
                _ => None,
            })
            .collect();
        let tls_reader = ureq::Agent::config_builder()
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::new_with_certs(&certs))
                    .build(),
            )
            .build()
            .new_agent();
        Sandboxes {
            plain: Sandbox::start_with(&args),
            other: Sandbox::start_with(&args),
            tls,
            tls_pem,
            tls_reader,
        }
    }

    fn tls_count(&self, key: &str) -> u64 {
        let url = format!("{}/_faults/count/{key}", self.tls.url);
        let text = self
            .tls_reader
            .get(&url)
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        text.trim().parse().unwrap()
    }
}

fn config(base: &str) -> erpdata::Config {
    config_with_token(base, TOKEN)
}

fn options(row: &Row, pem: &str) -> ClientOptions {
    ClientOptions::default()
        .retry_policy(RetryPolicy {
            max_retries: row.retries,
            base_delay: Duration::from_millis(10),
            ..RetryPolicy::default()
        })
        .timeout(row.timeout)
        .stream_deadline(row.timeout)
        .connect_timeout(Duration::from_secs(5))
        .batch_rows(1)
        .root_certificates_pem(pem)
}

/// The error's variant, as the matrix shows it.
fn describe(e: &Error) -> String {
    match e {
        Error::Transport { kind, .. } => format!("Transport({kind})"),
        Error::HttpStatus { status, .. } => format!("HttpStatus {status}"),
        Error::Service { .. } => "Service error".into(),
        Error::Decode { .. } => "Decode error".into(),
        other => other.kind().into(),
    }
}

fn attempts(n: u64) -> String {
    format!("{n} attempt{}", if n == 1 { "" } else { "s" })
}

/// Runs one row; the outcome's text, or what went wrong.
fn run(flavour: &str, row: &Row, sb: &Sandboxes, whole: &Table) -> Result<String, String> {
    let key = format!("m-{flavour}-{}", row.name);
    let base = match row.start {
        Start::Plain(fault) => format!("{}/_faults/{fault}/{key}/", sb.plain.url),
        Start::ToOtherOrigin => format!(
            "{}/_faults/redirect-307-{}/{key}/",
            sb.plain.url,
            sb.other.port()
        ),
        Start::HttpsToHttp => format!(
            "{}/_faults/redirect-307-{}/{key}/",
            sb.tls.url,
            sb.other.port()
        ),
    };
    let client = Client::new(flavour, config(&base), options(row, &sb.tls_pem)).unwrap();
    let began = Instant::now();
    let result = client.table("sales_invoice");
    let took = began.elapsed();
    let seen = match row.start {
        Start::HttpsToHttp => sb.tls_count(&key),
        _ => sb.plain.count(&key),
    };
    let mut problems = Vec::new();
    if seen != row.attempts {
        problems.push(format!(
            "{} seen, {} expected",
            attempts(seen),
            row.attempts
        ));
    }
    if took < row.min_time {
        problems.push(format!(
            "answered after {took:?}, before {:?}",
            row.min_time
        ));
    }
    if took > row.min_time.max(row.timeout) * (row.retries + 1) + TOLERANCE {
        problems.push(format!("took {took:?}"));
    }
    if matches!(row.start, Start::ToOtherOrigin | Start::HttpsToHttp) {
        let reached = sb.other.count(&key);
        if reached != 0 || sb.other.log(&key) != "[]" {
            problems.push(format!("the other origin got {reached} requests"));
        }
    }
    let outcome = match (&result, row.expect) {
        (Ok(table), Expect::Rows) => {
            if table.rows != whole.rows {
                problems.push(format!("{} rows, not the whole table", table.rows.len()));
            }
            if row.name == "php-notice" && table.notices.is_empty() {
                problems.push("the notice was not reported".into());
            }
            let how = match (seen, row.start) {
                (1, Start::Plain("redirect-307-self")) => "followed→ok",
                (1, _) => "ok",
                _ => "retried→ok",
            };
            format!("{how} ({}, {:.2} s)", attempts(seen), took.as_secs_f64())
        }
        (Err(e), Expect::Fails(kind, transport, code)) => {
            let text = error_text(e);
            if text.contains(TOKEN) || text.contains(TOKEN_ENCODED) {
                problems.push("the token is in the error".into());
            }
            let transport_ok = match (transport, e) {
                (Some(want), Error::Transport { kind, .. }) => *kind == want,
                (Some(_), _) => false,
                (None, _) => true,
            };
            let code_ok = match (code, e) {
                (Some(want), Error::HttpStatus { status, .. }) => *status == want,
                (Some(_), _) => false,
                (None, _) => true,
            };
            if e.kind() != kind || !transport_ok || !code_ok {
                problems.push(format!("wrong error: {e}"));
            }
            let name = describe(e);
            let refused = if matches!(row.start, Start::ToOtherOrigin | Start::HttpsToHttp) {
                " refused; the other origin got nothing"
            } else {
                ""
            };
            format!(
                "{name}{refused} ({}, {:.2} s)",
                attempts(seen),
                took.as_secs_f64()
            )
        }
        (Ok(table), _) => {
            problems.push(format!("{} rows where an error was due", table.rows.len()));
            "no error".into()
        }
        (Err(e), _) => {
            problems.push(format!("failed: {e}"));
            "error".into()
        }
    };
    let mut outcome = outcome;
    if row.stream_fails {
        // The stream ends in the same kind of error, after the batches
        // that had arrived, and in time.
        let want = match row.expect {
            Expect::Fails(kind, ..) => kind,
            Expect::Rows => "none",
        };
        let began = Instant::now();
        let streamed = client.stream("sales_invoice");
        let took = began.elapsed();
        match streamed {
            Streamed {
                rows,
                error: Some(e),
                ..
            } if e.kind() == want => {
                if error_text(&e).contains(TOKEN) {
                    problems.push("the token is in the stream's error".into());
                }
                outcome += &format!(
                    "; stream: {} after {rows} rows ({:.2} s)",
                    describe(&e),
                    took.as_secs_f64()
                );
            }
            other => problems.push(format!("the stream gave {other:?}")),
        }
        if took > row.timeout + TOLERANCE {
            problems.push(format!("the stream took {took:?}"));
        }
    }
    if problems.is_empty() {
        Ok(outcome)
    } else {
        Err(format!("{outcome}: {}", problems.join("; ")))
    }
}

/// Runs every row for one client, writes its column of the matrix, and
/// fails if any row did.
fn matrix(flavour: &str) {
    let sb = Sandboxes::start(flavour);
    let plain = options(&row("whole", "", Expect::Rows, 1), &sb.tls_pem);
    let whole = Client::new(flavour, config(&sb.plain.url), plain)
        .unwrap()
        .table("sales_invoice")
        .unwrap();
    assert_eq!(whole.rows.len(), 40);
    let mut column = BTreeMap::new();
    let mut failed = Vec::new();
    for row in rows() {
        let (outcome, ok) = match run(flavour, &row, &sb, &whole) {
            Ok(outcome) => (outcome, true),
            Err(problem) => {
                failed.push(format!("{}: {problem}", row.name));
                (problem, false)
            }
        };
        column.insert(
            row.name,
            serde_json::json!({ "outcome": outcome, "ok": ok }),
        );
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/fault-matrix");
    std::fs::create_dir_all(&dir).unwrap();
    let text = serde_json::to_string_pretty(&column).unwrap();
    assert!(!text.contains(TOKEN));
    std::fs::write(dir.join(format!("{flavour}.json")), text + "\n").unwrap();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn async_client_meets_every_fault() {
    matrix(FLAVOURS[0]);
}

#[test]
fn blocking_client_meets_every_fault() {
    matrix(FLAVOURS[1]);
}
