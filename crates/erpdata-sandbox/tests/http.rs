//! The sandbox over real HTTP: in-process on 127.0.0.1:0 with a raw
//! HTTP/1.1 client, and the built binary for its command-line contract.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;

use common::start;
use erpdata_sandbox::{Config, DEFAULT_TOKEN};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const TABLES: [&str; 5] = [
    "account",
    "sales_invoice",
    "purchase_bill",
    "receipt",
    "payment",
];

struct Reply {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    fn json(&self) -> Value {
        assert_eq!(self.status, 200, "{}", self.text());
        assert_eq!(
            self.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        serde_json::from_slice(&self.body).unwrap()
    }

    fn rows(&self) -> Vec<Value> {
        let v = self.json();
        assert_eq!(v["status"], "success", "{}", self.text());
        v["data"].as_array().unwrap().clone()
    }

    fn error(&self) -> String {
        let v = self.json();
        assert_eq!(v["status"], "error", "{}", self.text());
        assert_eq!(v.as_object().unwrap().len(), 2);
        v["message"].as_str().unwrap().to_owned()
    }
}

/// One request on its own connection. A form body is sent when given.
async fn request(addr: SocketAddr, method: &str, target: &str, form: Option<&str>) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    let body = form.unwrap_or("");
    if form.is_some() {
        head += &format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of head");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: HashMap<String, String> = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    let rest = &raw[split + 4..];
    let body = if headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&rest[..eol]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        rest = &rest[eol + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&rest[..size]);
        assert_eq!(&rest[size..size + 2], b"\r\n");
        rest = &rest[size + 2..];
    }
}

/// Percent-encodes everything but unreserved characters.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn table_params<'a>(table: &'a str, company: &'a str, year: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("req", "getdata"),
        ("project", "demo"),
        ("accesstoken", DEFAULT_TOKEN),
        ("yearid", year),
        ("compid", company),
        ("table", table),
    ]
}

async fn post_table(addr: SocketAddr, params: &[(&str, &str)]) -> Reply {
    request(addr, "POST", "/apis/dataapi.php", Some(&form(params))).await
}

async fn get_table(addr: SocketAddr, params: &[(&str, &str)]) -> Reply {
    request(
        addr,
        "GET",
        &format!("/apis/dataapi.php?{}", form(params)),
        None,
    )
    .await
}

async fn fetch(addr: SocketAddr, table: &str, company: &str, year: &str) -> Vec<Value> {
    post_table(addr, &table_params(table, company, year))
        .await
        .rows()
}

async fn dues(addr: SocketAddr, acid: &str, ty: &str) -> Reply {
    let q = form(&[
        ("sys_projectfolder", "demo"),
        ("func", "getduesDet"),
        ("acid", acid),
        ("type", ty),
    ]);
    request(addr, "GET", &format!("/apis/ajax.php?{q}"), None).await
}

/// Cents from a JSON number. The exact text is checked separately; here
/// `f64`'s shortest round-trip text gives the decimals back.
fn cents(v: &Value) -> i64 {
    let text = v.as_number().expect("a number").to_string();
    let (sign, digits) = match text.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, text.as_str()),
    };
    let (units, frac) = digits.split_once('.').unwrap_or((digits, ""));
    assert!(frac.len() <= 2, "{text}");
    let units: i64 = units.parse().unwrap();
    sign * (units * 100 + format!("{frac:0<2}").parse::<i64>().unwrap())
}

#[tokio::test]
async fn post_and_get_give_the_same_rows() {
    let addr = start(Config::default()).await;
    for (company, year) in [("1", "2025"), ("2", "2024")] {
        for table in TABLES {
            let params = table_params(table, company, year);
            let post = post_table(addr, &params).await;
            let get = get_table(addr, &params).await;
            assert!(!post.rows().is_empty(), "{table}");
            assert_eq!(post.body, get.body, "{table}");
            assert!(post.header("content-length").is_some());
        }
    }
}

#[tokio::test]
async fn rows_differ_per_company_and_year() {
    let addr = start(Config::default()).await;
    let a = fetch(addr, "sales_invoice", "1", "2025").await;
    let b = fetch(addr, "sales_invoice", "1", "2024").await;
    let c = fetch(addr, "sales_invoice", "2", "2025").await;
    assert_eq!(a.len(), 40);
    assert_ne!(a[1]["amount"], b[1]["amount"]);
    assert_ne!(a[1]["amount"], c[1]["amount"]);
    assert_eq!(b[0]["date"].as_str().unwrap()[..4], *"2024");
    assert_eq!(c[0]["currency"], "EUR");
    let first = &a[0];
    assert!(first["invoice_no"].is_string() && first["customer"].is_string());
    assert!(first["amount"].is_number() && first["total"].is_number());
    assert_eq!(first["date"].as_str().unwrap().len(), 10);
}

#[tokio::test]
async fn body_wins_over_query() {
    let addr = start(Config::default()).await;
    let body = form(&table_params("payment", "1", "2025"));
    let reply = request(
        addr,
        "POST",
        "/apis/dataapi.php?table=receipt&accesstoken=wrong",
        Some(&body),
    )
    .await;
    assert_eq!(
        reply.body,
        get_table(addr, &table_params("payment", "1", "2025"))
            .await
            .body
    );
}

#[tokio::test]
async fn percent_decoding_is_exact() {
    let token = "t+k/=&ü %";
    let addr = start(Config {
        project: "my demo".into(),
        token: token.into(),
        ..Config::default()
    })
    .await;
    let rest = format!(
        "req=getdata&accesstoken={}&yearid=2025&compid=1&table=account",
        enc(token)
    );
    let get = request(
        addr,
        "GET",
        &format!("/apis/dataapi.php?project=my+demo&{rest}"),
        None,
    )
    .await;
    assert_eq!(get.rows().len(), 20);
    let post = request(
        addr,
        "POST",
        "/apis/dataapi.php",
        Some(&format!("project=my%20demo&{rest}")),
    )
    .await;
    assert_eq!(post.body, get.body);
    // An unencoded `+` is a space, so this token is wrong.
    let raw = request(
        addr,
        "POST",
        "/apis/dataapi.php",
        Some("req=getdata&project=my+demo&accesstoken=t+k&yearid=2025&compid=1&table=account"),
    )
    .await;
    assert_eq!(raw.error(), "Invalid access token");
}

#[tokio::test]
async fn bad_token_is_an_error_body() {
    let addr = start(Config::default()).await;
    let mut params = table_params("account", "1", "2025");
    params[2].1 = "not-the-token";
    let reply = post_table(addr, &params).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.text(),
        r#"{"status":"error","message":"Invalid access token"}"#
    );
    assert_eq!(reply.error(), "Invalid access token");
}

#[tokio::test]
async fn missing_parameters_are_named() {
    let addr = start(Config::default()).await;
    let all = table_params("account", "1", "2025");
    for i in 0..all.len() {
        let mut params = all.clone();
        let (name, _) = params.remove(i);
        let msg = post_table(addr, &params).await.error();
        assert_eq!(msg, format!("Missing parameter: {name}"));
        // Blank is missing too.
        let mut params = all.clone();
        params[i].1 = " ";
        assert_eq!(get_table(addr, &params).await.error(), msg);
    }
    let dues_params = [
        ("sys_projectfolder", "demo"),
        ("func", "getduesDet"),
        ("acid", "C001"),
        ("type", "RECEIPT"),
    ];
    for i in 0..dues_params.len() {
        let mut params = dues_params.to_vec();
        let (name, _) = params.remove(i);
        let reply = request(
            addr,
            "GET",
            &format!("/apis/ajax.php?{}", form(&params)),
            None,
        )
        .await;
        assert_eq!(reply.error(), format!("Missing parameter: {name}"));
    }
}

#[tokio::test]
async fn other_errors() {
    let addr = start(Config::default()).await;
    let with = |i: usize, v: &'static str| {
        let mut p = table_params("account", "1", "2025");
        p[i].1 = v;
        p
    };
    let cases = [
        (with(0, "putdata"), "Unknown request: putdata"),
        (with(1, "other"), "Unknown project: other"),
        (with(3, "2023"), "Invalid company or year"),
        (with(4, "3"), "Invalid company or year"),
        (with(4, "abc"), "Invalid company or year"),
        (with(5, "x"), "Unknown table: x"),
        (with(5, "Account"), "Unknown table: Account"),
    ];
    for (params, message) in cases {
        assert_eq!(post_table(addr, &params).await.error(), message);
    }
    // Company and year are numeric keys.
    assert_eq!(
        post_table(addr, &with(4, "01")).await.body,
        post_table(addr, &with(4, "1")).await.body
    );
    assert_eq!(
        dues(addr, "X999", "RECEIPT").await.error(),
        "Unknown account: X999"
    );
    assert!(dues(addr, "C001", "BOTH")
        .await
        .error()
        .starts_with("Invalid type: BOTH"));
    let q = "/apis/ajax.php?sys_projectfolder=demo&func=getdues&acid=C001&type=RECEIPT";
    assert_eq!(
        request(addr, "GET", q, None).await.error(),
        "Unknown function: getdues"
    );
    let q = "/apis/ajax.php?sys_projectfolder=nope&func=getduesDet&acid=C001&type=RECEIPT";
    assert_eq!(
        request(addr, "GET", q, None).await.error(),
        "Unknown project folder: nope"
    );
}

#[tokio::test]
async fn unknown_paths_are_html_404() {
    let addr = start(Config::default()).await;
    for path in ["/", "/apis/other.php", "/ajax.php"] {
        let reply = request(addr, "GET", path, None).await;
        assert_eq!(reply.status, 404);
        assert!(reply
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        assert!(reply.text().contains("Not Found"));
    }
}

#[tokio::test]
async fn dues_query_reads_the_query_string_for_any_method() {
    let addr = start(Config::default()).await;
    let q = "/apis/ajax.php?sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT";
    let get = request(addr, "GET", q, None).await;
    let post = request(addr, "POST", q, Some("acid=S001")).await;
    assert_eq!(get.body, post.body);
    // Case-insensitive, like a MySQL key and an upper-cased type.
    assert_eq!(get.body, dues(addr, "c001", "receipt").await.body);
}

/// The expected dues of every account, from the tables of company 1, 2025.
async fn expected_dues(addr: SocketAddr) -> HashMap<(String, &'static str), Vec<Value>> {
    let mut out = HashMap::new();
    for (docs, settlements, no, party, ty) in [
        (
            "sales_invoice",
            "receipt",
            "invoice_no",
            "customer",
            "RECEIPT",
        ),
        ("purchase_bill", "payment", "bill_no", "supplier", "PAYMENT"),
    ] {
        let mut paid: HashMap<String, i64> = HashMap::new();
        for s in fetch(addr, settlements, "1", "2025").await {
            *paid.entry(s[no].as_str().unwrap().to_owned()).or_default() += cents(&s["amount"]);
        }
        for d in fetch(addr, docs, "1", "2025").await {
            let total = cents(&d["total"]);
            assert_eq!(total, cents(&d["amount"]) + cents(&d["tax"]));
            let paid = paid.get(d[no].as_str().unwrap()).copied().unwrap_or(0);
            assert!(paid <= total);
            let rows: &mut Vec<Value> = out
                .entry((d[party].as_str().unwrap().to_owned(), ty))
                .or_default();
            if paid < total {
                rows.push(serde_json::json!({
                    "doc_no": d[no], "date": d["date"], "due_date": d["due_date"],
                    "amount": total, "paid": paid, "balance": total - paid,
                }));
            }
        }
    }
    out
}

fn dues_in_cents(rows: &[Value]) -> Vec<Value> {
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            for k in ["amount", "paid", "balance"] {
                r[k] = cents(&r[k]).into();
            }
            r
        })
        .collect()
}

#[tokio::test]
async fn dues_match_the_tables() {
    let addr = start(Config::default()).await;
    let expected = expected_dues(addr).await;
    let accounts = fetch(addr, "account", "1", "2025").await;
    let mut without = Vec::new();
    for a in &accounts {
        let acid = a["acid"].as_str().unwrap();
        let own = if a["kind"] == "customer" {
            "RECEIPT"
        } else {
            "PAYMENT"
        };
        let reply = dues(addr, acid, own).await;
        let v = reply.json();
        assert_eq!(
            (v["status"].as_str(), v["acid"].as_str(), v["type"].as_str()),
            (Some("success"), Some(acid), Some(own))
        );
        let got = dues_in_cents(v["data"].as_array().unwrap());
        let want = expected
            .get(&(acid.to_owned(), own))
            .cloned()
            .unwrap_or_default();
        assert_eq!(got, want, "{acid}");
        if got.is_empty() {
            without.push(acid.to_owned());
        }
        let other = if own == "RECEIPT" {
            "PAYMENT"
        } else {
            "RECEIPT"
        };
        assert_eq!(
            dues(addr, acid, other).await.json()["data"],
            serde_json::json!([])
        );
    }
    assert!(
        dues(addr, "C001", "RECEIPT").await.json()["data"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
    assert!(
        dues(addr, "S001", "PAYMENT").await.json()["data"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
    assert!(without.iter().any(|a| a.starts_with('C')), "{without:?}");
}

/// Every number outside strings in a JSON text.
fn numbers(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut out, mut i, mut in_string) = (Vec::new(), 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                i += 1;
            }
            out.push(&text[start..i]);
            continue;
        }
        i += 1;
    }
    out
}

fn two_decimals(n: &str) -> bool {
    let n = n.strip_prefix('-').unwrap_or(n);
    match n.split_once('.') {
        Some((units, frac)) => {
            !units.is_empty()
                && units.bytes().all(|b| b.is_ascii_digit())
                && (units == "0" || !units.starts_with('0'))
                && frac.len() == 2
                && frac.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

#[tokio::test]
async fn money_has_exactly_two_decimals() {
    let addr = start(Config::default()).await;
    let mut bodies = Vec::new();
    for table in TABLES {
        bodies.push(post_table(addr, &table_params(table, "1", "2025")).await);
    }
    bodies.push(dues(addr, "C001", "RECEIPT").await);
    bodies.push(dues(addr, "S001", "PAYMENT").await);
    let mut all = Vec::new();
    for reply in &bodies {
        let found = numbers(reply.text());
        assert!(!found.is_empty());
        for n in &found {
            assert!(two_decimals(n), "{n}");
        }
        all.extend(found);
    }
    assert!(all.contains(&"0.00"));
    assert!(
        all.iter().any(|n| n.split('.').next().unwrap().len() >= 7),
        "an amount over 1,000,000.00"
    );
    let invoices = fetch(addr, "sales_invoice", "1", "2025").await;
    assert!(invoices.iter().any(|r| cents(&r["amount"]) == 0));
    assert!(invoices.iter().any(|r| cents(&r["amount"]) > 100_000_000));
}

#[tokio::test]
async fn rows_flag_streams_a_big_table() {
    let small = start(Config::default()).await;
    let big = start(Config {
        rows: Some(100_000),
        ..Config::default()
    })
    .await;
    let reply = post_table(big, &table_params("sales_invoice", "1", "2025")).await;
    assert_eq!(reply.header("transfer-encoding"), Some("chunked"));
    let rows = reply.rows();
    assert_eq!(rows.len(), 100_000);
    assert_eq!(rows.last().unwrap()["invoice_no"], "INV-2025-100000");
    let demo = fetch(small, "sales_invoice", "1", "2025").await;
    assert_eq!(rows[..demo.len()], demo[..]);
    for n in numbers(reply.text()) {
        assert!(two_decimals(n), "{n}");
    }
    // Dues come from the demo-size prefix, so they do not change.
    for (acid, ty) in [("C001", "RECEIPT"), ("S001", "PAYMENT")] {
        assert_eq!(
            dues(big, acid, ty).await.body,
            dues(small, acid, ty).await.body
        );
    }
    // Other companies and years keep their demo size.
    assert_eq!(
        fetch(big, "sales_invoice", "2", "2025").await.len(),
        fetch(small, "sales_invoice", "2", "2025").await.len()
    );
}

#[tokio::test]
async fn zero_rows_is_an_empty_table() {
    let addr = start(Config {
        rows: Some(0),
        ..Config::default()
    })
    .await;
    assert!(fetch(addr, "sales_invoice", "1", "2025").await.is_empty());
    assert!(fetch(addr, "receipt", "1", "2025").await.is_empty());
    assert_eq!(
        dues(addr, "C001", "RECEIPT").await.json()["data"],
        serde_json::json!([])
    );
}

#[tokio::test]
async fn the_seed_decides_the_data() {
    let a = start(Config::default()).await;
    let b = start(Config::default()).await;
    let c = start(Config {
        seed: 7,
        ..Config::default()
    })
    .await;
    let p = table_params("sales_invoice", "1", "2025");
    assert_eq!(post_table(a, &p).await.body, post_table(b, &p).await.body);
    assert_ne!(post_table(a, &p).await.body, post_table(c, &p).await.body);
}

#[cfg(unix)]
#[tokio::test]
async fn binary_prints_its_url_first_and_stops_on_sigterm() {
    use std::process::Stdio;
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, BufReader};

    let secret = "env-secret-token-123";
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_erpdata-sandbox"))
        .args(["--port", "0", "--seed", "42"])
        .env("ERPDATA_SANDBOX_TOKEN", secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line))
        .await
        .expect("the URL line in time")
        .unwrap();
    let url = line.trim_end();
    let addr: SocketAddr = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("not a URL: {url:?}"))
        .parse()
        .unwrap();
    assert_eq!(addr.ip().to_string(), "127.0.0.1");
    assert_ne!(addr.port(), 0);

    let mut params = table_params("account", "1", "2025");
    params[2].1 = secret;
    assert_eq!(get_table(addr, &params).await.rows().len(), 20);
    assert_eq!(post_table(addr, &params).await.rows().len(), 20);

    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("exit after SIGTERM")
        .unwrap();
    assert!(status.success(), "{status:?}");

    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.unwrap();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .await
        .unwrap();
    assert!(log.contains("GET /apis/dataapi.php 200"), "{log}");
    assert!(log.contains("POST /apis/dataapi.php 200"), "{log}");
    assert!(
        !log.contains(secret) && !rest.contains(secret),
        "{log}\n{rest}"
    );
    assert!(!log.contains("accesstoken"), "{log}");
}
