//! The fault matrix: every hostile answer of the sandbox (`/_faults/`) met
//! by both ready clients over loopback with each call (dues, ajax, table,
//! stream), as the shared table `tests/vectors/faults.json` says — the same
//! table the Python and JavaScript clients run: the typed error (whether
//! it may pass later, and when) or the recovery, the requests the sandbox
//! saw, the attempts the error reports, timeouts honoured, no partial
//! table passed off as whole, and the token in no error. Writes `target/fault-matrix/rust-async.json` and
//! `rust-blocking.json` for `scripts/fault-matrix.py`.

use crate::clients;
use crate::sandbox;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clients::{error_text, Client, FLAVOURS};
use erpdata::{AjaxQuery, AjaxValue, ClientOptions, DuesKind, Error, Timeouts};
use sandbox::{config_with_token, Sandbox};
use serde_json::Value;

/// Obviously fake, with characters that change when URL-encoded, so both
/// forms can be looked for.
const TOKEN: &str = "fake+tok/en=fault-matrix";
const TOKEN_ENCODED: &str = "fake%2Btok%2Fen%3Dfault-matrix";

const CALLS: [&str; 4] = ["dues", "ajax", "table", "stream"];

fn table() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/faults.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
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

/// A case's setting, or the table's default.
fn setting<'a>(case: &'a Value, defaults: &'a Value, name: &str) -> &'a Value {
    case.get(name).unwrap_or(&defaults[name])
}

fn options(case: &Value, defaults: &Value, pem: &str) -> ClientOptions {
    let t = setting(case, defaults, "timeout");
    let secs = |k: &str| t[k].as_f64().unwrap();
    ClientOptions::default()
        .timeouts(Timeouts::from_secs_f64(secs("total"), secs("connect"), secs("read")).unwrap())
        .max_retries(setting(case, defaults, "max_retries").as_u64().unwrap() as u32)
        .max_retry_after(Duration::from_secs_f64(
            setting(case, defaults, "max_retry_after").as_f64().unwrap(),
        ))
        .batch_rows(setting(case, defaults, "batch_rows").as_u64().unwrap() as usize)
        .root_certificates_pem(pem)
}

/// What one call gave.
struct Got {
    rows: Result<usize, Error>,
    notices: usize,
    delivered: usize,
    took: Duration,
}

fn call(client: &Client, what: &str) -> Got {
    let began = Instant::now();
    let (rows, notices, delivered) = match what {
        "dues" => match client.dues("C001", DuesKind::Receipt) {
            Ok(d) => (Ok(d.rows.len()), d.notices.len(), 0),
            Err(e) => (Err(e), 0, 0),
        },
        "ajax" => {
            let query = AjaxQuery::new("getduesDet", [("acid", "C001"), ("type", "RECEIPT")])
                .send_token(true);
            match client.ajax(query) {
                Ok(a) => match a.value {
                    AjaxValue::Rows(rows) => (Ok(rows.rows.len()), a.notices.len(), 0),
                    other => panic!("the dues through ajax are rows, got {other:?}"),
                },
                Err(e) => (Err(e), 0, 0),
            }
        }
        "table" => match client.table("sales_invoice") {
            Ok(t) => (Ok(t.rows.len()), t.notices.len(), 0),
            Err(e) => (Err(e), 0, 0),
        },
        _ => {
            let s = client.stream("sales_invoice");
            match s.error {
                Some(e) => (Err(e), 0, s.rows),
                None => (Ok(s.rows), s.notices, s.rows),
            }
        }
    };
    Got {
        rows,
        notices,
        delivered,
        took: began.elapsed(),
    }
}

/// Runs one cell; the outcome's text, or what went wrong.
fn run(
    flavour: &str,
    case: &Value,
    what: &str,
    want: &Value,
    sb: &Sandboxes,
    whole: &BTreeMap<&str, usize>,
    spec: &Value,
) -> Result<String, String> {
    let defaults = &spec["defaults"];
    let tolerance = spec["tolerance_s"].as_f64().unwrap();
    let name = case["name"].as_str().unwrap();
    let key = format!("m-{flavour}-{name}-{what}");
    let fault = case["fault"]
        .as_str()
        .unwrap()
        .replace("{elsewhere}", &sb.other.port().to_string());
    let tls = case.get("origin").and_then(Value::as_str) == Some("tls");
    let origin = if tls { &sb.tls.url } else { &sb.plain.url };
    let base = format!("{origin}/_faults/{fault}/{key}/");
    let client = Client::new(flavour, config(&base), options(case, defaults, &sb.tls_pem)).unwrap();
    let got = call(&client, what);
    let seen = if tls {
        sb.tls_count(&key)
    } else {
        sb.plain.count(&key)
    };
    let mut problems = Vec::new();
    let num = |k: &str| want.get(k).and_then(Value::as_f64);
    if let Some(n) = num("attempts") {
        if seen != n as u64 {
            problems.push(format!("the sandbox saw {seen} requests, not {n}"));
        }
    }
    let took = got.took.as_secs_f64();
    if num("min_s").is_some_and(|m| took < m) {
        problems.push(format!("answered after {took:.2} s"));
    }
    let max = num("max_s").unwrap_or(5.0) + tolerance;
    if took > max {
        problems.push(format!("took {took:.2} s, more than {max} s"));
    }
    if case["fault"].as_str().unwrap().contains("{elsewhere}") {
        let reached = sb.other.count(&key);
        if reached != 0 || sb.other.log(&key) != "[]" {
            problems.push(format!("the other origin got {reached} requests"));
        }
    }
    let outcome = match (&got.rows, want["outcome"].as_str().unwrap()) {
        (Ok(rows), "ok") => {
            if *rows != whole[what] {
                problems.push(format!("{rows} rows, not the whole {}", whole[what]));
            }
            if want["notices"] == Value::Bool(true) && got.notices == 0 {
                problems.push("the notices were not reported".into());
            }
            format!("ok ({seen} seen, {took:.2} s)")
        }
        (Err(e), "error") => {
            let text = error_text(e);
            if text.contains(TOKEN) || text.contains(TOKEN_ENCODED) {
                problems.push("the token is in the error".into());
            }
            if e.kind() != want["error"].as_str().unwrap() {
                problems.push(format!("wrong error: {e}"));
            }
            if let Some(k) = want.get("transport_kind").and_then(Value::as_str) {
                if e.transport_kind().map(|t| t.as_str()) != Some(k) {
                    problems.push(format!("not a {k} transport error: {e}"));
                }
            }
            if let Some(code) = num("status") {
                if e.status_code() != Some(code as u16) {
                    problems.push(format!("not status {code}: {e}"));
                }
            }
            // Whether trying later may help, and when: the core's rule.
            if Some(e.is_retryable()) != want["retryable"].as_bool() {
                problems.push(format!("is_retryable() is {}: {e}", e.is_retryable()));
            }
            if let Some(asked) = want.get("retry_after_s") {
                let secs = e.retry_after().map(|d| d.as_secs_f64());
                if secs != asked.as_f64() {
                    problems.push(format!("retry_after() is {secs:?}, not {asked}: {e}"));
                }
            }
            if let Some(m) = want.get("message").and_then(Value::as_str) {
                if !e.to_string().contains(m) {
                    problems.push(format!("the message lacks {m:?}: {e}"));
                }
            }
            match e.call() {
                Some(info) => {
                    if let Some(n) = num("sent") {
                        if info.attempts != n as u32 {
                            problems.push(format!("{} attempts reported, not {n}", info.attempts));
                        }
                    }
                    if info.url.contains(TOKEN) || info.url.contains(TOKEN_ENCODED) {
                        problems.push("the token is in the error's URL".into());
                    }
                }
                None => problems.push("the error does not say where the call stood".into()),
            }
            if let Some(n) = num("rows_delivered") {
                if (got.delivered as f64) < n {
                    problems.push(format!("{} rows delivered before the error", got.delivered));
                }
                let reported = e.call().and_then(|c| c.rows_delivered).unwrap_or(0);
                if reported != got.delivered as u64 {
                    problems.push(format!(
                        "{reported} rows reported delivered, {} were",
                        got.delivered
                    ));
                }
            }
            format!("{} ({seen} seen, {took:.2} s)", describe(e))
        }
        (Ok(rows), _) => {
            problems.push(format!("{rows} rows where an error was due"));
            "no error".into()
        }
        (Err(e), _) => {
            problems.push(format!("failed: {e}"));
            "error".into()
        }
    };
    if problems.is_empty() {
        Ok(outcome)
    } else {
        Err(format!("{outcome}: {}", problems.join("; ")))
    }
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

/// Runs every cell for one client, writes its column of the matrix, and
/// fails if any cell did.
fn matrix(flavour: &str) {
    let spec = table();
    let defaults = &spec["defaults"];
    let sb = Sandboxes::start(flavour);
    let plain = Client::new(
        flavour,
        config(&sb.plain.url),
        options(&Value::Null, defaults, &sb.tls_pem),
    )
    .unwrap();
    let whole: BTreeMap<&str, usize> = CALLS
        .iter()
        .map(|what| (*what, call(&plain, what).rows.unwrap()))
        .collect();
    assert!(whole.values().all(|n| *n > 0), "{whole:?}");
    let mut column = BTreeMap::new();
    let mut failed = Vec::new();
    for case in spec["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut outcomes = Vec::new();
        let mut ok = true;
        for what in CALLS {
            let want = case["expect"].get(what).unwrap_or(&case["expect"]["all"]);
            match run(flavour, case, what, want, &sb, &whole, &spec) {
                Ok(outcome) => outcomes.push(format!("{what}: {outcome}")),
                Err(problem) => {
                    ok = false;
                    failed.push(format!("{name} {what}: {problem}"));
                    outcomes.push(format!("{what}: {problem}"));
                }
            }
        }
        column.insert(
            name.to_owned(),
            serde_json::json!({ "outcome": outcomes.join("; "), "ok": ok }),
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
