//! The sandbox over real HTTP: in-process on 127.0.0.1:0 with a raw
//! HTTP/1.1 client, and the built binary for its command-line contract.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;

use common::client::{enc, form, request, Reply};
use common::start;
use erpdata_sandbox::{Config, Style, DEFAULT_TOKEN};
use serde_json::Value;
use tokio::io::AsyncReadExt;

const TABLES: [&str; 5] = [
    "account",
    "sales_invoice",
    "purchase_bill",
    "receipt",
    "payment",
];

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

/// Cents from money sent as a string (`"1234.50"`, the default style) or
/// as a JSON number. The exact text is checked separately; for a number,
/// `f64`'s shortest round-trip text gives the decimals back.
fn cents(v: &Value) -> i64 {
    let text = match v {
        Value::String(s) => {
            assert!(two_decimals(s), "{s}");
            s.clone()
        }
        v => v.as_number().expect("a number or a string").to_string(),
    };
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
    // The default style sends DECIMAL as strings and INT as numbers.
    assert!(first["amount"].is_string() && first["total"].is_string());
    assert!(first["items"].is_u64());
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
async fn ajax_php_reads_the_query_string_then_a_form_body() {
    let addr = start(Config::default()).await;
    let q = "/apis/ajax.php?sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT";
    let get = request(addr, "GET", q, None).await;
    // As PHP's $_REQUEST: the form body wins over the query string.
    let post = request(addr, "POST", q, Some("acid=S001")).await;
    assert_eq!(post.body, dues(addr, "S001", "RECEIPT").await.body);
    let only_body = request(
        addr,
        "POST",
        "/apis/ajax.php",
        Some("sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT"),
    )
    .await;
    assert_eq!(get.body, only_body.body);
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

/// Every `"key":value` of a JSON text whose value is a scalar, with the
/// value's text exactly as sent (strings with their quotes and escapes).
fn scalars(text: &str) -> Vec<(String, &str)> {
    let bytes = text.as_bytes();
    // The end of the string that starts at `i` (just past its quote).
    let string_end = |mut i: usize| {
        i += 1;
        while bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i + 1
    };
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let end = string_end(i);
        if bytes.get(end) != Some(&b':') {
            i = end;
            continue;
        }
        let key: String = serde_json::from_str(&text[i..end]).unwrap();
        let start = end + 1;
        let stop = match bytes[start] {
            b'[' | b'{' => {
                i = start + 1;
                continue;
            }
            b'"' => string_end(start),
            _ => {
                start
                    + bytes[start..]
                        .iter()
                        .position(|b| matches!(b, b',' | b'}' | b']'))
                        .unwrap()
            }
        };
        out.push((key, &text[start..stop]));
        i = stop;
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

fn integer(n: &str) -> bool {
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'))
}

const MONEY: [&str; 6] = ["amount", "tax", "total", "credit_limit", "paid", "balance"];
const INTS: [&str; 5] = ["compid", "yearid", "items", "credit_days", "active"];

/// `v` unquoted if `quoted` says it is in quotes, else as it is; `None` if
/// the quotes are not as said.
fn unquote(v: &str, quoted: bool) -> Option<&str> {
    if quoted {
        v.strip_prefix('"')?.strip_suffix('"')
    } else {
        (!v.starts_with('"')).then_some(v)
    }
}

/// Checks every value of an answer against its column type in `style`;
/// returns the money values' texts (unquoted).
fn check_types<'a>(text: &'a str, style: &str) -> Vec<&'a str> {
    let (quote_money, quote_ints) = match style {
        "native" => (false, false),
        "mysqlnd" => (true, false),
        "strings" => (true, true),
        _ => unreachable!(),
    };
    let mut money = Vec::new();
    let found = scalars(text);
    assert!(!found.is_empty());
    for (key, v) in found {
        if v == "null" {
            assert!(key == "city" || key == "remarks", "{key} is null");
        } else if MONEY.contains(&key.as_str()) {
            let n = unquote(v, quote_money).unwrap_or_else(|| panic!("{style} {key}: {v}"));
            assert!(two_decimals(n), "{style} {key}: {v}");
            money.push(n);
        } else if INTS.contains(&key.as_str()) {
            let n = unquote(v, quote_ints).unwrap_or_else(|| panic!("{style} {key}: {v}"));
            assert!(integer(n), "{style} {key}: {v}");
        } else {
            assert!(v.starts_with('"'), "{style} {key}: {v} is not a string");
        }
    }
    money
}

#[tokio::test]
async fn every_value_is_typed_as_its_style_says() {
    let addr = start(Config::default()).await;
    for style in ["native", "mysqlnd", "strings"] {
        let mut bodies = Vec::new();
        for table in TABLES {
            let params = table_params(table, "1", "2025");
            let target = format!("/_style/{style}/apis/dataapi.php");
            bodies.push(request(addr, "POST", &target, Some(&form(&params))).await);
        }
        for (acid, ty) in [("C001", "RECEIPT"), ("S001", "PAYMENT")] {
            let q = form(&[
                ("sys_projectfolder", "demo"),
                ("func", "getduesDet"),
                ("acid", acid),
                ("type", ty),
            ]);
            let target = format!("/_style/{style}/apis/ajax.php?{q}");
            bodies.push(request(addr, "GET", &target, None).await);
        }
        let mut all = Vec::new();
        for reply in &bodies {
            reply.json();
            all.extend(check_types(reply.text(), style));
        }
        assert!(all.contains(&"0.00"), "{style}");
        assert!(
            all.iter().any(|n| n.split('.').next().unwrap().len() >= 7),
            "{style}: an amount over 1,000,000.00"
        );
    }
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
    check_types(reply.text(), "mysqlnd");
    assert!(rows.iter().any(|r| r["cleared_on"] == "0000-00-00"));
    assert!(rows.iter().any(|r| r["remarks"].is_string()));
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
async fn kept_answers_are_sent_as_made_answers_are() {
    let config = |cache_answers| Config {
        rows: Some(20_000),
        chunk_bytes: std::num::NonZeroU32::new(8192),
        cache_answers,
        ..Config::default()
    };
    let made = start(config(false)).await;
    let kept = start(config(true)).await;
    for (table, company) in [
        ("sales_invoice", "1"),
        ("receipt", "1"),
        ("sales_invoice", "2"),
    ] {
        let params = table_params(table, company, "2025");
        let expected = post_table(made, &params).await;
        // The first request makes and keeps the answer, the second sends
        // what was kept: both exactly the answer made for each request,
        // in the same chunks.
        for _ in 0..2 {
            let reply = post_table(kept, &params).await;
            assert_eq!(reply.body, expected.body, "{table} of company {company}");
            assert_eq!(reply.chunk_sizes, expected.chunk_sizes);
        }
    }
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

const STYLES: [(Style, &str); 3] = [
    (Style::Native, "native"),
    (Style::Mysqlnd, "mysqlnd"),
    (Style::Strings, "strings"),
];

/// The first rows of `account` and `sales_invoice` (company 1, 2025, seed
/// 42) exactly as each style sends them.
const FIRST_ROWS: [(&str, &str, &str); 3] = [
    (
        "native",
        r#"{"compid":1,"acid":"C001","name":"Acme Traders","kind":"customer","city":"Springfield","credit_limit":500000.00,"credit_days":30,"active":1,"created_at":"2019-04-01 10:15:00"}"#,
        r#"{"compid":1,"yearid":2025,"invoice_no":"INV-2025-0001","date":"2025-01-01","due_date":"2025-01-31","customer":"C001","customer_name":"Acme Traders","amount":40221.21,"tax":4022.12,"total":44243.33,"currency":"USD","items":12,"posted_at":"2025-01-01 09:31:46","cleared_on":"0000-00-00","remarks":null}"#,
    ),
    (
        "mysqlnd",
        r#"{"compid":1,"acid":"C001","name":"Acme Traders","kind":"customer","city":"Springfield","credit_limit":"500000.00","credit_days":30,"active":1,"created_at":"2019-04-01 10:15:00"}"#,
        r#"{"compid":1,"yearid":2025,"invoice_no":"INV-2025-0001","date":"2025-01-01","due_date":"2025-01-31","customer":"C001","customer_name":"Acme Traders","amount":"40221.21","tax":"4022.12","total":"44243.33","currency":"USD","items":12,"posted_at":"2025-01-01 09:31:46","cleared_on":"0000-00-00","remarks":null}"#,
    ),
    (
        "strings",
        r#"{"compid":"1","acid":"C001","name":"Acme Traders","kind":"customer","city":"Springfield","credit_limit":"500000.00","credit_days":"30","active":"1","created_at":"2019-04-01 10:15:00"}"#,
        r#"{"compid":"1","yearid":"2025","invoice_no":"INV-2025-0001","date":"2025-01-01","due_date":"2025-01-31","customer":"C001","customer_name":"Acme Traders","amount":"40221.21","tax":"4022.12","total":"44243.33","currency":"USD","items":"12","posted_at":"2025-01-01 09:31:46","cleared_on":"0000-00-00","remarks":null}"#,
    ),
];

/// Row `i` of an answer's text, exactly as sent (rows hold no nested
/// objects, so `},{` only ever separates rows).
fn row_text(reply: &Reply, i: usize) -> &str {
    let text = reply.text();
    let rows = text
        .strip_prefix(r#"{"status":"success","data":["#)
        .and_then(|t| t.strip_suffix("]}"))
        .unwrap_or_else(|| panic!("{text}"));
    let row = rows.split("},{").nth(i).unwrap();
    let start = usize::from(i > 0);
    let row_start = row.as_ptr() as usize - text.as_ptr() as usize - start;
    let end = row_start + start + row.len() + usize::from(!row.ends_with('}'));
    &text[row_start..end]
}

#[tokio::test]
async fn each_style_sends_its_exact_text() {
    let prefixed = start(Config::default()).await;
    for (name, account, invoice) in FIRST_ROWS {
        let style = Style::parse(name).unwrap();
        let flagged = start(Config {
            style,
            ..Config::default()
        })
        .await;
        for (table, want) in [("account", account), ("sales_invoice", invoice)] {
            let params = table_params(table, "1", "2025");
            let by_flag = post_table(flagged, &params).await;
            assert_eq!(row_text(&by_flag, 0), want, "--style {name} {table}");
            let target = format!("/_style/{name}/apis/dataapi.php");
            let by_prefix = request(prefixed, "POST", &target, Some(&form(&params))).await;
            assert_eq!(by_prefix.body, by_flag.body, "{name} {table}");
        }
    }
    // A NULL city, and a remark with json_encode's escapes and a cleared date.
    let accounts = post_table(prefixed, &table_params("account", "1", "2025")).await;
    assert_eq!(
        row_text(&accounts, 9),
        r#"{"compid":1,"acid":"C010","name":"Summit Electronics","kind":"customer","city":null,"credit_limit":"350000.00","credit_days":60,"active":1,"created_at":"2022-04-04 12:34:56"}"#
    );
    let invoices = post_table(prefixed, &table_params("sales_invoice", "1", "2025")).await;
    assert_eq!(
        row_text(&invoices, 2),
        r#"{"compid":1,"yearid":2025,"invoice_no":"INV-2025-0003","date":"2025-01-21","due_date":"2025-02-20","customer":"C002","customer_name":"Smith & Sons","amount":"61548.71","tax":"6154.87","total":"67703.58","currency":"USD","items":3,"posted_at":"2025-01-21 15:54:03","cleared_on":"2025-02-17","remarks":"Net 30 \/ M\u00fcller"}"#
    );
    let receipts = post_table(prefixed, &table_params("receipt", "1", "2025")).await;
    assert_eq!(
        row_text(&receipts, 0),
        r#"{"compid":1,"yearid":2025,"receipt_no":"RCP-2025-0001","date":"2025-01-19","customer":"C007","invoice_no":"INV-2025-0002","amount":"24016.00","mode":"cheque","posted_at":"2025-01-19 11:51:33"}"#
    );
    // Dues: money in the style, the rest as ever.
    let q = "sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT";
    let first_due = r#"{"status":"success","acid":"C001","type":"RECEIPT","data":[{"doc_no":"INV-2025-0001","date":"2025-01-01","due_date":"2025-01-31","amount":"#;
    for (name, amount) in [
        ("native", "44243.33,\"paid\":0.00,"),
        ("mysqlnd", "\"44243.33\",\"paid\":\"0.00\","),
        ("strings", "\"44243.33\",\"paid\":\"0.00\","),
    ] {
        let target = format!("/_style/{name}/apis/ajax.php?{q}");
        let text = request(prefixed, "GET", &target, None)
            .await
            .text()
            .to_owned();
        assert!(text.starts_with(&format!("{first_due}{amount}")), "{text}");
    }
}

#[tokio::test]
async fn rows_carry_their_tables_compid_and_yearid_first() {
    // As a PHP service's `SELECT *` sends them, where its schema has them:
    // every table is a company's, the documents a year's too (account has
    // no yearid). The values are the ledger's, whatever the request's text
    // (`01` is company 1), typed as the style types INT.
    let addr = start(Config::default()).await;
    for (name, q) in [("native", ""), ("mysqlnd", ""), ("strings", "\"")] {
        let target = format!("/_style/{name}/apis/dataapi.php");
        for (company, year, (c, y)) in [("01", "2025", (1, 2025)), ("2", "2024", (2, 2024))] {
            for table in TABLES {
                let params = table_params(table, company, year);
                let reply = request(addr, "POST", &target, Some(&form(&params))).await;
                let ids = if table == "account" {
                    format!(r#"{{"compid":{q}{c}{q},"acid":"#)
                } else {
                    format!(r#"{{"compid":{q}{c}{q},"yearid":{q}{y}{q},""#)
                };
                let rows = reply.rows();
                assert!(!rows.is_empty(), "{table}");
                for i in 0..rows.len() {
                    let row = row_text(&reply, i);
                    assert!(row.starts_with(&ids), "{name} {table} {company}: {row}");
                }
            }
        }
    }
}

#[tokio::test]
async fn the_default_style_is_mysqlnd() {
    assert_eq!(Config::default().style, Style::Mysqlnd);
    assert_eq!(Style::default(), Style::Mysqlnd);
    let addr = start(Config::default()).await;
    for table in ["account", "sales_invoice"] {
        let params = table_params(table, "1", "2025");
        let plain = post_table(addr, &params).await;
        let target = "/_style/mysqlnd/apis/dataapi.php";
        let prefixed = request(addr, "POST", target, Some(&form(&params))).await;
        assert_eq!(plain.body, prefixed.body, "{table}");
    }
    let invoice = &fetch(addr, "sales_invoice", "1", "2025").await[0];
    assert_eq!(invoice["total"], "44243.33");
    assert_eq!(invoice["items"], 12);
}

#[tokio::test]
async fn the_style_prefix_serves_both_operations_and_methods() {
    let prefixed = start(Config {
        // The prefix wins over the flag.
        style: Style::Native,
        ..Config::default()
    })
    .await;
    let dues_q = "sys_projectfolder=demo&func=getduesDet&acid=S001&type=PAYMENT";
    for (style, name) in STYLES {
        let flagged = start(Config {
            style,
            ..Config::default()
        })
        .await;
        let params = form(&table_params("purchase_bill", "1", "2025"));
        let want = post_table(flagged, &table_params("purchase_bill", "1", "2025")).await;
        let base = format!("/_style/{name}/apis/dataapi.php");
        let post = request(prefixed, "POST", &base, Some(&params)).await;
        let get = request(prefixed, "GET", &format!("{base}?{params}"), None).await;
        assert_eq!(post.body, want.body, "{name}");
        assert_eq!(get.body, want.body, "{name}");
        check_types(get.text(), name);

        let want = request(flagged, "GET", &format!("/apis/ajax.php?{dues_q}"), None).await;
        let target = format!("/_style/{name}/apis/ajax.php?{dues_q}");
        let get = request(prefixed, "GET", &target, None).await;
        let post = request(
            prefixed,
            "POST",
            &format!("/_style/{name}/apis/ajax.php"),
            Some(dues_q),
        )
        .await;
        assert_eq!(get.body, want.body, "{name}");
        assert_eq!(post.body, want.body, "{name}");
        assert!(!get.json()["data"].as_array().unwrap().is_empty());
        // Errors are the same in every style.
        let target = format!("/_style/{name}/apis/dataapi.php?req=getdata");
        assert_eq!(
            request(prefixed, "GET", &target, None).await.error(),
            "Missing parameter: project"
        );
    }
}

async fn counted(addr: SocketAddr, key: &str) -> String {
    request(addr, "GET", &format!("/_faults/count/{key}"), None)
        .await
        .text()
        .to_owned()
}

#[tokio::test]
async fn the_style_prefix_goes_before_a_fault_prefix() {
    let addr = start(Config::default()).await;
    let params = form(&table_params("sales_invoice", "1", "2025"));
    let strings = request(
        addr,
        "POST",
        "/_style/strings/apis/dataapi.php",
        Some(&params),
    )
    .await;
    let target = "/_style/strings/_faults/pass/sk/apis/dataapi.php";
    let pass = request(addr, "POST", target, Some(&params)).await;
    assert_eq!(pass.body, strings.body);
    let target = "/_style/strings/_body/truncate-300/sk/apis/dataapi.php";
    let cut = request(addr, "POST", target, Some(&params)).await;
    assert_eq!(cut.body, strings.body[..300]);
    let target = format!(
        "/_style/native/_faults/pass/sk/apis/ajax.php?{}",
        "sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT"
    );
    let dues = request(addr, "GET", &target, None).await;
    assert!(dues.text().contains("\"paid\":0.00"), "{}", dues.text());
    assert_eq!(counted(addr, "sk").await, "3");
    let log: Value =
        serde_json::from_str(request(addr, "GET", "/_faults/log/sk", None).await.text()).unwrap();
    assert_eq!(
        log[0]["path"],
        "/_style/strings/_faults/pass/sk/apis/dataapi.php"
    );
    // Redirects keep the style.
    let target = "/_style/native/_faults/redirect-307-self/sr/apis/ajax.php?a=1";
    let r = request(addr, "GET", target, None).await;
    assert_eq!(r.status, 307);
    assert_eq!(
        r.header("location"),
        Some("/_style/native/apis/ajax.php?a=1")
    );
    let target = "/_style/native/_faults/redirect-302-9/sr/apis/ajax.php?a=1";
    assert_eq!(
        request(addr, "GET", target, None).await.header("location"),
        Some("http://127.0.0.1:9/_style/native/_faults/pass/sr/apis/ajax.php?a=1")
    );

    // `--fault` meets a style-prefixed plain path too.
    let faulty = start(Config {
        fault: Some("status-503x1".into()),
        ..Config::default()
    })
    .await;
    let target = "/_style/strings/apis/dataapi.php";
    assert_eq!(
        request(faulty, "POST", target, Some(&params)).await.status,
        503
    );
    let again = request(faulty, "POST", target, Some(&params)).await;
    assert_eq!(again.body, strings.body);
    assert_eq!(counted(faulty, "-").await, "2");
}

#[tokio::test]
async fn an_unknown_style_is_an_unknown_path() {
    let addr = start(Config::default()).await;
    let params = form(&table_params("account", "1", "2025"));
    for target in [
        "/_style/json/apis/dataapi.php",
        "/_style/Native/apis/dataapi.php",
        "/_style/json/_faults/pass/us/apis/dataapi.php",
        "/_style/native/apis/other.php",
        "/_style/native/",
        "/_style/native",
    ] {
        for method in ["GET", "POST"] {
            let reply = request(addr, method, target, Some(&params)).await;
            assert_eq!(reply.status, 404, "{method} {target}");
            assert!(reply
                .header("content-type")
                .unwrap()
                .starts_with("text/html"));
            assert!(reply.text().contains("Not Found"));
        }
    }
    assert_eq!(counted(addr, "us").await, "0");
}

#[tokio::test]
async fn zero_dates_nulls_and_datetimes() {
    let addr = start(Config::default()).await;
    let accounts = fetch(addr, "account", "1", "2025").await;
    assert!(accounts.iter().any(|a| a["city"].is_null()));
    assert!(accounts.iter().any(|a| a["active"] == 0));
    assert!(accounts
        .iter()
        .all(|a| a["active"] == 0 || a["active"] == 1));
    let is_datetime = |v: &Value, date: &Value| {
        let v = v.as_str().unwrap();
        let date = date.as_str().unwrap();
        v.len() == 19
            && v.starts_with(date)
            && v.as_bytes()[10] == b' '
            && v[11..].split(':').count() == 3
    };
    for (docs, settlements) in [("sales_invoice", "receipt"), ("purchase_bill", "payment")] {
        for (company, year) in [("1", "2025"), ("2", "2024")] {
            let rows = fetch(addr, docs, company, year).await;
            let zero = rows
                .iter()
                .filter(|r| r["cleared_on"] == "0000-00-00")
                .count();
            assert!(
                zero * 5 >= rows.len() && zero * 5 <= rows.len() * 4,
                "{docs}: {zero}"
            );
            for r in &rows {
                assert!(is_datetime(&r["posted_at"], &r["date"]), "{r}");
                let cleared = r["cleared_on"].as_str().unwrap();
                assert!(cleared == "0000-00-00" || cleared >= r["date"].as_str().unwrap());
                assert!((1..=20).contains(&r["items"].as_u64().unwrap()));
            }
            assert!(rows.iter().any(|r| r["remarks"].is_null()));
            assert_eq!(rows[2]["remarks"], "Net 30 / Müller");
            for s in fetch(addr, settlements, company, year).await {
                assert!(is_datetime(&s["posted_at"], &s["date"]), "{s}");
            }
        }
    }
}

#[test]
fn binary_refuses_an_unknown_style() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_erpdata-sandbox"))
        .args(["--port", "0", "--style", "pdo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("erpdata-sandbox: --style: unknown style \"pdo\""),
        "{err}"
    );
    assert!(err.contains("--style STYLE"), "{err}");
    assert!(out.stdout.is_empty());
}
