//! The token-leak scan: every operation of both ready clients, on success
//! and on every kind of failure, with the `log` and `tracing` output of
//! every crate captured at its most verbose. The token (raw, form-encoded
//! or percent-encoded) must appear in no log line, no error's Display,
//! Debug or sources, no Debug of a client, config, options, table or
//! batch; and the sandbox's record of each request shows it in the form
//! body, never in a URL, unless the caller chose the GET form.

mod clients;
mod sandbox;

use std::fmt::Write as _;
use std::sync::{Mutex, Once};
use std::time::Duration;

use clients::{error_text, Client, FLAVOURS};
use erpdata::{AjaxQuery, ClientOptions, DuesKind, Method, RetryPolicy, TableQuery};
use sandbox::{config_with_token, Sandbox};
use serde_json::Value;

/// Obviously fake, with characters that change when URL-encoded.
const TOKEN: &str = "fake+tok/en=leak-scan";

/// Every form the token could take in text.
fn forms() -> [String; 4] {
    let form = "fake%2Btok%2Fen%3Dleak-scan";
    [
        TOKEN.to_owned(),
        form.to_owned(),
        form.to_ascii_lowercase(),
        TOKEN.replace('+', " "),
    ]
}

fn leaks(text: &str) -> bool {
    forms().iter().any(|f| text.contains(f.as_str()))
}

// --- everything the libraries log ------------------------------------------

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn capture(line: String) {
    LINES.lock().unwrap_or_else(|e| e.into_inner()).push(line);
}

fn captured() -> Vec<String> {
    LINES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

struct LogCapture;

/// `line` without the `call 7: ` it starts with, if it does.
fn without_call_number(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("call ")?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then_some(())?;
    rest[digits..].strip_prefix(": ")
}

impl log::Log for LogCapture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &log::Record<'_>) {
        let message = record.args().to_string();
        // The clients' own lines start with their call's number: kept
        // without it, and marked where it is missing (no line then matches
        // what the scan looks for).
        let message = if record.target() == "erpdata" {
            without_call_number(&message)
                .map_or_else(|| format!("(no call number) {message}"), str::to_owned)
        } else {
            message
        };
        capture(format!(
            "log {} {}: {message}",
            record.level(),
            record.target()
        ));
    }

    fn flush(&self) {}
}

/// A `tracing` subscriber that keeps every span's and event's fields.
struct TraceCapture {
    next: std::sync::atomic::AtomicU64,
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl tracing::Subscriber for TraceCapture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = Fields(format!("span {}", span.metadata().name()));
        span.record(&mut fields);
        capture(fields.0);
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::span::Id::from_u64(id + 1)
    }

    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut fields = Fields("span record".into());
        values.record(&mut fields);
        capture(fields.0);
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let meta = event.metadata();
        let mut fields = Fields(format!("trace {} {}:", meta.level(), meta.target()));
        event.record(&mut fields);
        capture(fields.0);
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

fn install_capture() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        log::set_logger(&LogCapture).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
        tracing::subscriber::set_global_default(TraceCapture {
            next: std::sync::atomic::AtomicU64::new(0),
        })
        .unwrap();
    });
}

// --- the calls ---------------------------------------------------------------

fn config(base: &str) -> erpdata::Config {
    config_with_token(base, TOKEN)
}

fn options(pem: &str) -> ClientOptions {
    ClientOptions::default()
        .retry_policy(RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(5),
            ..RetryPolicy::default()
        })
        .timeout(Duration::from_millis(150))
        .connect_timeout(Duration::from_secs(2))
        .batch_rows(8)
        .root_certificates_pem(pem)
}

/// Runs every operation once; returns the text of every result and error.
/// A stream bounds each read, not the whole body, so it is not run
/// against a body that never ends.
fn every_operation(client: &Client, stream: bool) -> String {
    let mut text = client.debug_text();
    let mut note = |what: &str, result: String| {
        let _ = writeln!(text, "{what}: {result}");
    };
    let show = |r: Result<String, erpdata::Error>| match r {
        Ok(ok) => ok,
        Err(e) => error_text(&e),
    };
    note(
        "receivables",
        show(client.receivables("C001").map(|d| format!("{d:?}"))),
    );
    note(
        "payables",
        show(client.payables("S001").map(|d| format!("{d:?}"))),
    );
    note(
        "dues",
        show(
            client
                .dues("NOPE", DuesKind::Receipt)
                .map(|d| format!("{d:?}")),
        ),
    );
    // The ajax.php calls that send the token (by POST: the GET form's
    // test is below), and one that does not.
    for query in [
        AjaxQuery::new("getduesDet", [("acid", "C001"), ("type", "RECEIPT")]).send_token(true),
        AjaxQuery::avg_pay_days("C001").send_token(true),
        AjaxQuery::net_profit("2025-04-01", "2025-06-30").send_token(true),
        AjaxQuery::dues_summary(),
    ] {
        let what = format!("ajax {}", query.func());
        note(&what, show(client.ajax(query).map(|a| format!("{a:?}"))));
    }
    note(
        "dues_table",
        show(
            client
                .dues_table(&["C001", "C002"], DuesKind::Receipt, 2)
                .map(|t| format!("{t:?}")),
        ),
    );
    note(
        "table",
        show(client.table("sales_invoice").map(|t| format!("{t:?}"))),
    );
    note(
        "table error",
        show(client.table("no_such_table").map(|t| format!("{t:?}"))),
    );
    if !stream {
        return text;
    }
    let streamed = client.stream("sales_invoice");
    note(
        "stream",
        format!(
            "{} {}",
            streamed.text,
            streamed.error.as_ref().map(error_text).unwrap_or_default()
        ),
    );
    text
}

/// Where the calls go: a fault of the sandbox's, or another base URL.
fn bases(sb: &Sandbox, other: &Sandbox, tls: &Sandbox, key: &str) -> Vec<String> {
    let faults = [
        "pass".to_owned(),
        "service-error".into(),
        "status-500x9".into(),
        "status-503x9".into(),
        "notice".into(),
        "html200".into(),
        "truncate-700".into(),
        "short-700".into(),
        "reset-600".into(),
        "hang".into(),
        "endless".into(),
        "redirect-307-self".into(),
        "redirect-307-loop".into(),
        format!("redirect-307-{}", other.port()),
    ];
    let mut bases: Vec<String> = faults
        .iter()
        .map(|f| format!("{}/_faults/{f}/{}/", sb.url, fault_key(key, f)))
        .collect();
    bases.push(format!(
        "{}/_faults/redirect-307-{}/{key}/",
        tls.url,
        other.port()
    ));
    bases.push(format!("{}/_faults/pass/{key}/", tls.url));
    // Nothing listens on port 1: a connection error.
    bases.push("http://127.0.0.1:1/".into());
    bases
}

/// A status fault answers its status to the first N requests under its
/// key: under the key the other faults share, those were spent before it
/// came, so each status fault has a key of its own.
fn fault_key(key: &str, fault: &str) -> String {
    if fault.starts_with("status-") {
        format!("{key}-{fault}")
    } else {
        key.to_owned()
    }
}

/// The sandbox's record of the requests under `key`.
fn requests(sb: &Sandbox, key: &str) -> Vec<Value> {
    let log: Value = serde_json::from_str(&sb.log(key)).unwrap();
    log.as_array().unwrap().clone()
}

/// Every operation of one client against every base; the text of each
/// result. Asserts what the plain sandbox received.
fn scan(
    flavour: &str,
    sb: &Sandbox,
    other: &Sandbox,
    tls: &Sandbox,
    pem: &str,
) -> Vec<(String, String)> {
    let key = format!("leak-{flavour}");
    let mut texts = Vec::new();
    for base in bases(sb, other, tls, &key) {
        let client = Client::new(flavour, config(&base), options(pem)).unwrap();
        let stream = !base.contains("/endless/");
        texts.push((
            format!("{flavour} {base}"),
            every_operation(&client, stream),
        ));
    }
    // What the plain sandbox received: the token only in form bodies.
    let mut seen = requests(sb, &key);
    for status in ["status-500x9", "status-503x9"] {
        let status_key = fault_key(&key, status);
        let answered = requests(sb, &status_key);
        // Every operation met its status (the 503s retried once).
        assert!(answered.len() >= 10, "{status}: {}", answered.len());
        seen.extend(answered);
    }
    assert!(seen.len() > 50, "{}", seen.len());
    let (mut tables, mut ajax_with_token) = (0, 0);
    for request in &seen {
        let url = format!("{} {}", request["path"], request["query"]);
        assert!(!leaks(&url), "the token in a URL: {url}");
        assert!(!leaks(&request["headers"].to_string()), "{request}");
        let body = request["body"].as_str().unwrap();
        let in_body = body.contains("accesstoken=fake%2Btok%2Fen%3Dleak-scan");
        if request["path"].as_str().unwrap().ends_with("dataapi.php") {
            tables += 1;
            assert_eq!(request["method"], "POST", "{request}");
            assert!(in_body, "{request}");
        } else if request["method"] == "POST" {
            // An ajax.php call asked to send the token: in the form body,
            // and only there.
            ajax_with_token += 1;
            assert!(in_body, "{request}");
            assert!(
                body.ends_with("accesstoken=fake%2Btok%2Fen%3Dleak-scan"),
                "{request}"
            );
        } else {
            // The dues query and the other ajax.php calls carry no token
            // unless asked.
            assert!(!leaks(body), "{request}");
        }
    }
    assert!(tables > 20, "{tables}");
    assert!(ajax_with_token > 20, "{ajax_with_token}");
    // Nothing followed a redirect to the other origin.
    assert_eq!(other.count(&key), 0);
    texts
}

/// The whole scan in one test, since the capture is process-wide: first
/// the POST form (the default) with nothing leaking anywhere, then the GET
/// form, which puts the token in the URL as the caller chose.
#[test]
fn no_operation_leaks_the_token() {
    install_capture();
    let sb = Sandbox::start_with(&["--token", TOKEN]);
    let other = Sandbox::start_with(&["--token", TOKEN]);
    let pem_file = std::env::temp_dir().join(format!("erpdata-leak-{}.pem", std::process::id()));
    let tls = Sandbox::start_with(&["--token", TOKEN, "--tls-cert", pem_file.to_str().unwrap()]);
    let pem = std::fs::read_to_string(&pem_file).unwrap();
    let _ = std::fs::remove_file(&pem_file);

    let texts: Vec<(String, String)> = std::thread::scope(|scope| {
        let runs: Vec<_> = FLAVOURS
            .map(|flavour| {
                let (sb, other, tls, pem) = (&sb, &other, &tls, &pem);
                scope.spawn(move || scan(flavour, sb, other, tls, pem))
            })
            .into_iter()
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    });

    let lines = captured();
    // The scan must have seen the HTTP stacks' own output to mean anything.
    assert!(
        lines.iter().any(|l| l.contains("ureq")),
        "no ureq log lines"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("hyper") || l.contains("reqwest")),
        "no reqwest/hyper log lines"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("trace ")),
        "no tracing events (hyper-util)"
    );
    assert!(lines.len() > 100, "{} log lines", lines.len());
    // The clients' own lines: each request, each answer, each wait before
    // another attempt (status-503x9 is retried).
    for start in [
        "log DEBUG erpdata: request 1: POST http",
        "log DEBUG erpdata: answer 200",
        "log DEBUG erpdata: answer 500",
        "log DEBUG erpdata: answer 503",
        "log INFO erpdata: waiting ",
        "log DEBUG erpdata: done after 1 request",
        "log DEBUG erpdata: failed after 2 requests: HTTP status 503",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(start)),
            "no line starting {start:?}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("log DEBUG erpdata: request 1: POST ")
                && l.contains("form: req=getdata&")
                && l.contains(&format!("accesstoken={}", erpdata::REDACTED))),
        "no form logged with its token redacted"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("log INFO erpdata: waiting ")
                && l.ends_with(" before request 2 (as the core's call asks)")),
        "no wait before a second request"
    );
    let leaked: Vec<&String> = lines.iter().filter(|l| leaks(l)).collect();
    assert!(leaked.is_empty(), "the token in log lines: {leaked:#?}");
    for (what, text) in &texts {
        assert!(!leaks(text), "the token in {what}: {text}");
    }

    the_get_form_carries_the_token_in_the_url_only(&sb);
    a_stream_dropped_early_says_so(&sb);
}

/// The GET form puts the token in the query string, as the caller chose,
/// and only there: errors stay clean. ureq logs the whole URL when its
/// `trace` level is on, so that is the one place it then shows.
fn the_get_form_carries_the_token_in_the_url_only(sb: &Sandbox) {
    let before = captured().len();
    for flavour in FLAVOURS {
        let key = format!("get-{flavour}");
        let base = format!("{}/_faults/status-500x1/{key}/", sb.url);
        let start = captured().len();
        let refused = Client::new(flavour, config(&base), options("")).unwrap_err();
        // An empty PEM is refused, naming the option.
        assert!(error_text(&refused).contains("root_certificates"));
        let client = Client::new(flavour, config(&base), ClientOptions::default()).unwrap();
        let query = TableQuery::new("sales_invoice").method(Method::Get);
        let err = client.table(query.clone()).unwrap_err();
        assert!(!leaks(&error_text(&err)), "{err:?}");
        assert_eq!(client.table(query).unwrap().rows.len(), 40);
        let seen = requests(sb, &key);
        assert_eq!(seen.len(), 2);
        for request in seen {
            assert_eq!(request["method"], "GET");
            assert!(request["query"]
                .as_str()
                .unwrap()
                .contains("accesstoken=fake%2Btok%2Fen%3Dleak-scan"));
            assert!(!leaks(request["body"].as_str().unwrap()));
        }
        // Each client logs its two requests with the token redacted.
        let ours: Vec<String> = captured()[start..]
            .iter()
            .filter(|l| l.starts_with("log DEBUG erpdata: request "))
            .cloned()
            .collect();
        assert_eq!(ours.len(), 2, "{flavour}: {ours:#?}");
        for line in &ours {
            assert!(
                line.starts_with("log DEBUG erpdata: request 1: GET http"),
                "{line}"
            );
            assert!(
                line.contains(&format!("accesstoken={}", erpdata::REDACTED)),
                "{line}"
            );
        }
    }
    let lines = captured();
    for line in lines[before..].iter().filter(|l| leaks(l)) {
        assert!(line.starts_with("log DEBUG ureq::run: "), "{line}");
    }
}

/// A stream dropped before its end says so in its last line, with the rows
/// it handed out: without it, its request read as never answered.
fn a_stream_dropped_early_says_so(sb: &Sandbox) {
    for flavour in FLAVOURS {
        let start = captured().len();
        let client = Client::new(flavour, config(&sb.url), ClientOptions::default()).unwrap();
        let rows = client.first_batch_then_drop(TableQuery::new("sales_invoice"));
        let ours: Vec<String> = captured()[start..]
            .iter()
            .filter(|l| l.starts_with("log DEBUG erpdata: "))
            .cloned()
            .collect();
        let last = format!("log DEBUG erpdata: ended by its caller after {rows} rows");
        assert_eq!(ours.last(), Some(&last), "{flavour}: {ours:#?}");
    }
}
