//! The hostile mode over real HTTP: every `/_faults/` fault, the journal
//! (`count`, `log`, `total`), the whole-process switches, and https.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::start;
use erpdata_sandbox::{Config, DEFAULT_TOKEN};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

fn table_form() -> String {
    format!(
        "req=getdata&project=demo&accesstoken={DEFAULT_TOKEN}&yearid=2025&compid=1&table=sales_invoice"
    )
}

/// What came back on one connection, read until it closed, broke or
/// `within` ran out.
struct Raw {
    status: u16,
    head: String,
    body: Vec<u8>,
    /// The connection broke (reset) rather than closing cleanly.
    broken: bool,
    /// Still open when `within` ran out.
    open: bool,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then_some(v.trim())
        })
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    method: &str,
    target: &str,
    within: Duration,
) -> Raw {
    let body = if method == "POST" {
        table_form()
    } else {
        String::new()
    };
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let deadline = tokio::time::Instant::now() + within;
    let (mut broken, mut open) = (false, false);
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => {
                open = true;
                break;
            }
            Ok(Ok(0)) => break,
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
            Ok(Err(_)) => {
                broken = true;
                break;
            }
        }
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let status = head[9..12].parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    Raw {
        status,
        head,
        body,
        broken,
        open,
    }
}

/// The data of a chunked body, as far as it goes.
fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol]).unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        rest = &rest[eol + 2..];
        if size == 0 {
            break;
        }
        let take = size.min(rest.len());
        out.extend_from_slice(&rest[..take]);
        rest = &rest[(take + 2).min(rest.len())..];
    }
    out
}

async fn send(addr: SocketAddr, method: &str, target: &str) -> Raw {
    let stream = TcpStream::connect(addr).await.unwrap();
    exchange(stream, method, target, Duration::from_secs(10)).await
}

async fn post(addr: SocketAddr, fault: &str, key: &str) -> Raw {
    send(
        addr,
        "POST",
        &format!("/_faults/{fault}/{key}/apis/dataapi.php"),
    )
    .await
}

async fn read(addr: SocketAddr, what: &str) -> String {
    send(addr, "GET", &format!("/_faults/{what}")).await.text()
}

async fn count(addr: SocketAddr, key: &str) -> u64 {
    read(addr, &format!("count/{key}")).await.parse().unwrap()
}

fn is_table(body: &[u8]) -> bool {
    let v: Value = serde_json::from_slice(body).expect("JSON");
    v["status"] == "success" && v["data"].as_array().is_some_and(|d| d.len() == 40)
}

#[tokio::test]
async fn statuses_then_the_real_answer() {
    let addr = start(Config::default()).await;
    for (fault, code, retry_after) in [
        ("status-503x2", 503, Some("0")),
        ("status-429x2-ra3", 429, Some("3")),
        ("backoff-502x2", 502, None),
    ] {
        for _ in 0..2 {
            let r = post(addr, fault, fault).await;
            assert_eq!(r.status, code, "{fault}");
            assert_eq!(r.header("retry-after"), retry_after, "{fault}");
            assert!(r.header("content-type").unwrap().starts_with("text/html"));
            assert!(r.text().contains("<html>"));
        }
        assert!(is_table(&post(addr, fault, fault).await.body), "{fault}");
        assert_eq!(count(addr, fault).await, 3);
    }
}

#[tokio::test]
async fn flaky_fails_its_share_the_same_way_each_time() {
    let a = start(Config::default()).await;
    let b = start(Config::default()).await;
    let mut runs = Vec::new();
    for addr in [a, b] {
        let mut codes = Vec::new();
        for _ in 0..40 {
            codes.push(post(addr, "flaky-50", "f").await.status);
        }
        runs.push(codes);
    }
    assert_eq!(runs[0], runs[1]);
    let failed = runs[0].iter().filter(|&&c| c == 503).count();
    assert!((8..=32).contains(&failed), "{failed} of 40");
    assert!(runs[0].iter().all(|&c| c == 503 || c == 200));
}

#[tokio::test]
async fn wrong_bodies_with_status_200() {
    let addr = start(Config::default()).await;
    let r = post(addr, "notice", "n").await;
    let text = r.text();
    let json = text.strip_prefix(
        "<br />\n<b>Notice</b>:  Undefined index: x in <b>/var/www/html/apis/dataapi.php</b> \
         on line <b>12</b><br />\n",
    );
    assert!(is_table(json.expect("the notice first").as_bytes()));

    let r = post(addr, "html200", "h").await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r.text().contains("<b>Fatal error</b>"));

    let r = post(addr, "service-error", "s").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.text(),
        r#"{"status":"error","message":"Database connection failed"}"#
    );
}

#[tokio::test]
async fn cuts_with_and_without_a_matching_length() {
    let addr = start(Config::default()).await;
    let full = post(addr, "pass", "p").await.body;

    let r = post(addr, "truncate-700", "t").await;
    assert_eq!(r.header("content-length"), Some("700"));
    assert_eq!(r.body, full[..700]);
    assert!(!r.broken);

    let r = post(addr, "short-700", "s").await;
    assert_eq!(r.header("content-length"), Some(&*full.len().to_string()));
    assert_eq!(r.body, full[..700]);

    let r = post(addr, "reset-600", "r").await;
    assert_eq!(r.header("content-length"), None);
    assert_eq!(r.body, full[..600]);

    // Nothing to cut: the answer goes out whole.
    let r = post(addr, "short-999999", "s2").await;
    assert_eq!(r.body, full);
}

#[tokio::test]
async fn slow_answers() {
    let addr = start(Config::default()).await;
    let full = post(addr, "pass", "p").await.body;
    for (fault, at_least) in [
        ("latency-300", 300),
        ("stall-300", 300),
        ("trickle-2000x100", 300),
    ] {
        let began = Instant::now();
        let r = post(addr, fault, fault).await;
        let took = began.elapsed();
        assert_eq!(r.body, full, "{fault}");
        assert!(
            took >= Duration::from_millis(at_least) && took < Duration::from_secs(3),
            "{fault}: {took:?}"
        );
    }
}

#[tokio::test]
async fn answers_that_never_end() {
    let addr = start(Config::default()).await;
    let stream = TcpStream::connect(addr).await.unwrap();
    let target = "/_faults/hang/h/apis/dataapi.php";
    let r = exchange(stream, "POST", target, Duration::from_millis(400)).await;
    assert!(r.open);
    assert_eq!(r.body, b"{\"status\":\"succe");

    let stream = TcpStream::connect(addr).await.unwrap();
    let target = "/_faults/endless/e/apis/dataapi.php";
    let r = exchange(stream, "POST", target, Duration::from_millis(400)).await;
    assert!(r.open);
    let text = r.text();
    assert!(
        text.starts_with("{\"status\":\"success\",\"data\":[{"),
        "{text}"
    );
    assert!(text.matches("invoice_no").count() >= 10, "{text}");
    // Money in the answer style: a string by default, a number in native.
    assert!(text.contains(r#""total":"1.00"}"#), "{text}");
    let stream = TcpStream::connect(addr).await.unwrap();
    let target = "/_style/native/_faults/endless/e/apis/dataapi.php";
    let r = exchange(stream, "POST", target, Duration::from_millis(200)).await;
    assert!(r.open);
    assert!(r.text().contains(r#""total":1.00}"#), "{}", r.text());
}

#[tokio::test]
async fn redirects() {
    let addr = start(Config::default()).await;
    let r = send(
        addr,
        "GET",
        "/_faults/redirect-307-self/r/apis/ajax.php?a=1",
    )
    .await;
    assert_eq!(r.status, 307);
    assert_eq!(r.header("location"), Some("/apis/ajax.php?a=1"));
    let r = send(addr, "GET", "/_faults/redirect-302-9/r/apis/ajax.php?a=1").await;
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some("http://127.0.0.1:9/_faults/pass/r/apis/ajax.php?a=1")
    );
    let target = "/_faults/redirect-301-loop/r/apis/ajax.php?a=1";
    let r = send(addr, "GET", target).await;
    assert_eq!(r.status, 301);
    assert_eq!(r.header("location"), Some(target));
    assert_eq!(count(addr, "r").await, 3);
}

#[tokio::test]
async fn the_journal_records_each_request() {
    let addr = start(Config::default()).await;
    let before: u64 = read(addr, "total").await.parse().unwrap();
    post(addr, "pass", "j").await;
    // The old prefix is the same family, with the same journal.
    send(addr, "GET", "/_body/stall-1/j/apis/ajax.php?func=x").await;
    send(addr, "GET", "/apis/ajax.php").await;
    assert_eq!(count(addr, "j").await, 2);
    assert_eq!(send(addr, "GET", "/_body/count/j").await.text(), "2");
    let log: Value = serde_json::from_str(&read(addr, "log/j").await).unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(log[0]["method"], "POST");
    assert_eq!(log[0]["path"], "/_faults/pass/j/apis/dataapi.php");
    assert_eq!(log[0]["query"], "");
    assert_eq!(
        log[0]["headers"]["content-type"],
        "application/x-www-form-urlencoded"
    );
    assert_eq!(log[0]["body"], table_form());
    assert_eq!(log[1]["method"], "GET");
    assert_eq!(log[1]["query"], "func=x");
    assert_eq!(read(addr, "log/nobody").await, "[]");
    // Three requests; the reads are not counted.
    let after: u64 = read(addr, "total").await.parse().unwrap();
    assert_eq!(after - before, 3);

    let r = post(addr, "bogus", "j").await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("redirect-CODE-loop"));
}

#[tokio::test]
async fn whole_process_switches() {
    let addr = start(Config {
        fault: Some("status-503x1".into()),
        ..Config::default()
    })
    .await;
    assert_eq!(send(addr, "POST", "/apis/dataapi.php").await.status, 503);
    assert!(is_table(
        &send(addr, "POST", "/apis/dataapi.php").await.body
    ));
    assert_eq!(count(addr, "-").await, 2);

    let addr = start(Config {
        fail_rate: Some(100),
        latency: Some(Duration::from_millis(200)),
        ..Config::default()
    })
    .await;
    let began = Instant::now();
    let r = send(addr, "GET", "/apis/ajax.php").await;
    assert!(began.elapsed() >= Duration::from_millis(200));
    assert_eq!((r.status, r.header("retry-after")), (503, Some("0")));
    assert_eq!(read(addr, "total").await, "1");

    let addr = start(Config {
        fail_rate: Some(0),
        ..Config::default()
    })
    .await;
    assert_eq!(send(addr, "POST", "/apis/dataapi.php").await.status, 200);
}

#[cfg(unix)]
#[tokio::test]
async fn tls_with_a_certificate_to_trust() {
    use std::process::Stdio;
    use std::sync::Arc;

    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::{AsyncBufReadExt, BufReader};

    let pem = std::env::temp_dir().join(format!("erpdata-sandbox-{}.pem", std::process::id()));
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_erpdata-sandbox"))
        .args(["--port", "0", "--quiet", "--tls-cert"])
        .arg(&pem)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .await
        .unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("https://")
        .unwrap_or_else(|| panic!("not https: {line:?}"))
        .parse()
        .unwrap();

    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(&pem).unwrap())
        .unwrap();
    std::fs::remove_file(&pem).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    for name in ["127.0.0.1", "localhost"] {
        let tcp = TcpStream::connect(addr).await.unwrap();
        let name = ServerName::try_from(name).unwrap();
        let tls = connector.connect(name, tcp).await.unwrap();
        let r = exchange(
            tls,
            "POST",
            "/_faults/pass/t/apis/dataapi.php",
            Duration::from_secs(10),
        )
        .await;
        assert!(is_table(&r.body));
    }
    // Plain http to the https port gets no answer.
    let plain = TcpStream::connect(addr).await.unwrap();
    let mut plain = plain;
    plain
        .write_all(b"GET /_faults/total HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), plain.read_to_end(&mut got)).await;
    assert!(!got.starts_with(b"HTTP/1.1 200"));
    child.kill().await.unwrap();
}
