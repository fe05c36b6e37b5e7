//! The other functions of ajax.php over real HTTP: each answer's shape in
//! every style, its figures against the tables and dues the sandbox also
//! serves, the `--ajax-token` requirement, and the service's errors.

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;

use common::client::{form, request, Reply};
use common::start;
use erpdata_sandbox::{Config, Style, DEFAULT_TOKEN};
use serde_json::Value;

const STYLES: [Style; 3] = [Style::Native, Style::Mysqlnd, Style::Strings];
const YEAR: (&str, &str) = ("2025-01-01", "2025-12-31");

async fn call(addr: SocketAddr, func: &str, params: &[(&str, &str)]) -> Reply {
    call_at(addr, "", func, params).await
}

/// The query string of a call to `func`.
fn query(func: &str, params: &[(&str, &str)]) -> String {
    let mut pairs = vec![("sys_projectfolder", "demo"), ("func", func)];
    pairs.extend_from_slice(params);
    form(&pairs)
}

/// A `GET` call under a path prefix (`""`, `/_style/native`, ...).
async fn call_at(addr: SocketAddr, prefix: &str, func: &str, params: &[(&str, &str)]) -> Reply {
    let target = format!("{prefix}/apis/ajax.php?{}", query(func, params));
    request(addr, "GET", &target, None).await
}

/// One call of each function (both schedules).
const CALLS: [(&str, &[(&str, &str)]); 6] = [
    ("getduesSumm", &[]),
    ("avgPayDays", &[("acid", "C001")]),
    (
        "grossProfit",
        &[("sdate", "2025-01-01"), ("edate", "2025-01-28")],
    ),
    (
        "netProfit",
        &[("sdate", "2025-03-01"), ("edate", "2025-06-30")],
    ),
    (
        "scheduleDet",
        &[
            ("schedule", "Sundry Creditors"),
            ("sdate", "2025-03-01"),
            ("edate", "2025-06-30"),
        ],
    ),
    (
        "scheduleDet",
        &[
            ("schedule", "Sundry Debtors"),
            ("sdate", "2025-03-01"),
            ("edate", "2025-06-30"),
        ],
    ),
];

async fn table(addr: SocketAddr, name: &str) -> Vec<Value> {
    let params = form(&[
        ("req", "getdata"),
        ("project", "demo"),
        ("accesstoken", DEFAULT_TOKEN),
        ("yearid", "2025"),
        ("compid", "1"),
        ("table", name),
    ]);
    request(addr, "POST", "/apis/dataapi.php", Some(&params))
        .await
        .rows()
}

/// Cents of money sent as `"12.50"` or `12.50`, checking it has two places.
fn cents(v: &Value) -> i64 {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => panic!("not money: {other}"),
    };
    let (units, frac) = text.split_once('.').unwrap_or((&text, "0"));
    let frac = format!("{frac:0<2}");
    assert_eq!(frac.len(), 2, "{text}");
    let negative = units.starts_with('-');
    let value =
        units.trim_start_matches('-').parse::<i64>().unwrap() * 100 + frac.parse::<i64>().unwrap();
    if negative {
        -value
    } else {
        value
    }
}

fn text(v: &Value) -> String {
    v.as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| v.to_string())
}

/// Money is a string unless the style is native; counts a string only in
/// the strings style.
fn check_style(v: &Value, money: &[&str], ints: &[&str], style: Style) {
    for key in money {
        let value = &v[*key];
        match style {
            Style::Native => assert!(value.is_number(), "{key}: {value}"),
            _ => assert!(value.is_string(), "{key}: {value}"),
        }
    }
    for key in ints {
        let value = &v[*key];
        match style {
            Style::Strings => assert!(value.is_string(), "{key}: {value}"),
            _ => assert!(value.is_i64(), "{key}: {value}"),
        }
    }
}

#[tokio::test]
async fn every_function_in_every_style() {
    for style in STYLES {
        let addr = start(Config {
            style,
            ..Config::default()
        })
        .await;
        let summary = call(addr, "getduesSumm", &[]).await.rows();
        assert!(summary.len() >= 3, "{style}");
        for row in &summary {
            // (serde_json's map sorts its keys.)
            let keys: Vec<&str> = row
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                keys,
                [
                    "acid",
                    "amount",
                    "balance",
                    "documents",
                    "name",
                    "oldest_due_date",
                    "paid"
                ],
                "{style}"
            );
            check_style(row, &["amount", "paid", "balance"], &["documents"], style);
        }

        let avg = call(addr, "avgPayDays", &[("acid", "C001")]).await.json();
        assert_eq!(avg["status"], "success");
        assert_eq!(avg["data"]["acid"], "C001");
        check_style(&avg["data"], &["avg_pay_days"], &["payments"], style);

        let (start_day, end_day) = YEAR;
        let range = [("sdate", start_day), ("edate", end_day)];
        let gross = call(addr, "grossProfit", &range).await.json();
        check_style(
            &gross["data"],
            &["sales", "cost_of_sales", "gross_profit"],
            &[],
            style,
        );
        assert_eq!(gross["data"]["sdate"], start_day);
        let net = call(addr, "netProfit", &range).await.json();
        check_style(
            &net["data"],
            &["income", "expenses", "net_profit"],
            &[],
            style,
        );

        let mut params = vec![("schedule", "Sundry Debtors")];
        params.extend_from_slice(&range);
        let debtors = call(addr, "scheduleDet", &params).await;
        assert_eq!(debtors.json()["schedule"], "Sundry Debtors");
        for row in debtors.rows() {
            check_style(&row, &["debit", "credit", "balance"], &[], style);
        }
    }
}

#[tokio::test]
async fn the_summary_is_the_sum_of_the_dues() {
    let addr = start(Config::default()).await;
    let summary = call(addr, "getduesSumm", &[]).await.rows();
    let mut customers_with_dues = 0;
    for acid in [
        "C001", "C002", "C003", "C004", "C005", "C006", "C007", "C008",
    ] {
        let dues = call(addr, "getduesDet", &[("acid", acid), ("type", "RECEIPT")])
            .await
            .rows();
        let row = summary.iter().find(|r| r["acid"] == acid);
        let Some(row) = row else {
            assert!(dues.is_empty(), "{acid} owes but is not in the summary");
            continue;
        };
        customers_with_dues += 1;
        let sum = |key: &str| dues.iter().map(|d| cents(&d[key])).sum::<i64>();
        assert_eq!(cents(&row["balance"]), sum("balance"), "{acid}");
        assert_eq!(cents(&row["amount"]), sum("amount"), "{acid}");
        assert_eq!(cents(&row["paid"]), sum("paid"), "{acid}");
        assert_eq!(text(&row["documents"]), dues.len().to_string(), "{acid}");
        let oldest = dues.iter().map(|d| text(&d["due_date"])).min().unwrap();
        assert_eq!(text(&row["oldest_due_date"]), oldest, "{acid}");
    }
    assert!(customers_with_dues >= 2);
}

/// Σ over a table's rows dated in [start, end] of a money column.
fn dated_sum(rows: &[Value], column: &str, (start, end): (&str, &str)) -> i64 {
    rows.iter()
        .filter(|r| {
            let d = text(&r["date"]);
            start <= d.as_str() && d.as_str() <= end
        })
        .map(|r| cents(&r[column]))
        .sum()
}

#[tokio::test]
async fn profits_are_the_sums_of_the_tables() {
    let addr = start(Config::default()).await;
    let invoices = table(addr, "sales_invoice").await;
    let bills = table(addr, "purchase_bill").await;
    for range in [
        YEAR,
        ("2025-03-01", "2025-06-30"),
        ("2025-02-10", "2025-02-10"),
    ] {
        let params = [("sdate", range.0), ("edate", range.1)];
        let gross = call(addr, "grossProfit", &params).await.json()["data"].clone();
        let sales = dated_sum(&invoices, "amount", range);
        let costs = dated_sum(&bills, "amount", range);
        assert_eq!(cents(&gross["sales"]), sales, "{range:?}");
        assert_eq!(cents(&gross["cost_of_sales"]), costs, "{range:?}");
        assert_eq!(cents(&gross["gross_profit"]), sales - costs, "{range:?}");
        let net = call(addr, "netProfit", &params).await.json()["data"].clone();
        let income = dated_sum(&invoices, "total", range);
        let expenses = dated_sum(&bills, "total", range);
        assert_eq!(cents(&net["income"]), income, "{range:?}");
        assert_eq!(cents(&net["expenses"]), expenses, "{range:?}");
        assert_eq!(cents(&net["net_profit"]), income - expenses, "{range:?}");
    }
}

#[tokio::test]
async fn schedules_are_the_sums_of_the_tables() {
    let addr = start(Config::default()).await;
    let range = ("2025-02-01", "2025-09-30");
    for (schedule, docs, party, settlements, debtor) in [
        (
            "Sundry Debtors",
            "sales_invoice",
            "customer",
            "receipt",
            true,
        ),
        (
            "sundry creditors",
            "purchase_bill",
            "supplier",
            "payment",
            false,
        ),
    ] {
        let docs = table(addr, docs).await;
        let settled = table(addr, settlements).await;
        let params = [
            ("schedule", schedule),
            ("sdate", range.0),
            ("edate", range.1),
        ];
        let rows = call(addr, "scheduleDet", &params).await.rows();
        assert!(!rows.is_empty());
        let mut acids = Vec::new();
        for row in &rows {
            let acid = text(&row["acid"]);
            let mine = |rows: &[Value]| -> Vec<Value> {
                rows.iter()
                    .filter(|r| text(&r[party]) == acid)
                    .cloned()
                    .collect()
            };
            let charged = dated_sum(&mine(&docs), "total", range);
            let paid = dated_sum(&mine(&settled), "amount", range);
            let (debit, credit) = if debtor {
                (charged, paid)
            } else {
                (paid, charged)
            };
            assert_eq!(cents(&row["debit"]), debit, "{schedule} {acid}");
            assert_eq!(cents(&row["credit"]), credit, "{schedule} {acid}");
            let balance = if debtor {
                debit - credit
            } else {
                credit - debit
            };
            assert_eq!(cents(&row["balance"]), balance, "{schedule} {acid}");
            acids.push(acid);
        }
        let mut sorted = acids.clone();
        sorted.sort();
        assert_eq!(acids, sorted, "ordered by acid");
    }
}

#[tokio::test]
async fn average_payment_days() {
    let addr = start(Config::default()).await;
    let day = |iso: &str| -> i64 {
        let p: Vec<i64> = iso.split('-').map(|x| x.parse().unwrap()).collect();
        // Days from a civil date (the range is inside one century).
        let (y, m, d) = (p[0], p[1], p[2]);
        let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
        365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d
    };
    // A customer's receipts against its invoices, a supplier's payments
    // against its bills.
    for (acid, docs, settlements, doc_no, party) in [
        ("c001", "sales_invoice", "receipt", "invoice_no", "customer"),
        ("S001", "purchase_bill", "payment", "bill_no", "supplier"),
    ] {
        let issued: BTreeMap<String, i64> = table(addr, docs)
            .await
            .iter()
            .map(|d| (text(&d[doc_no]), day(&text(&d["date"]))))
            .collect();
        let mine: Vec<i64> = table(addr, settlements)
            .await
            .iter()
            .filter(|s| text(&s[party]).eq_ignore_ascii_case(acid))
            .map(|s| day(&text(&s["date"])) - issued[&text(&s[doc_no])])
            .collect();
        assert!(!mine.is_empty(), "{acid}");
        let avg = call(addr, "avgPayDays", &[("acid", acid)]).await.json()["data"].clone();
        assert_eq!(avg["acid"], acid.to_ascii_uppercase());
        assert_eq!(text(&avg["payments"]), mine.len().to_string(), "{acid}");
        let total: i64 = mine.iter().sum();
        let n = mine.len() as i64;
        // Hundredths, half away from zero.
        assert_eq!(
            cents(&avg["avg_pay_days"]),
            (total * 200 + n) / (2 * n),
            "{acid}"
        );
    }
}

#[tokio::test]
async fn the_service_errors() {
    let addr = start(Config::default()).await;
    for (func, params, message) in [
        ("avgPayDays", vec![], "Missing parameter: acid"),
        (
            "avgPayDays",
            vec![("acid", "NOPE")],
            "Unknown account: NOPE",
        ),
        (
            "netProfit",
            vec![("sdate", "2025-01-01")],
            "Missing parameter: edate",
        ),
        (
            "netProfit",
            vec![("sdate", "2025-02-30"), ("edate", "2025-03-01")],
            "Invalid date: sdate=2025-02-30",
        ),
        (
            "grossProfit",
            vec![("sdate", "2025-03-02"), ("edate", "2025-03-01")],
            "sdate is after edate",
        ),
        (
            "scheduleDet",
            vec![
                ("schedule", "Fixed Assets"),
                ("sdate", "2025-01-01"),
                ("edate", "2025-01-02"),
            ],
            "Unknown schedule: Fixed Assets",
        ),
        ("nothing", vec![], "Unknown function: nothing"),
        ("avgPayDays", vec![("acid", " ")], "Missing parameter: acid"),
        ("grossProfit", vec![], "Missing parameter: sdate"),
        (
            "grossProfit",
            vec![("sdate", "2025-1-01"), ("edate", "2025-01-02")],
            "Invalid date: sdate=2025-1-01",
        ),
        (
            "grossProfit",
            vec![("sdate", "2025-01-01 00:00:00"), ("edate", "2025-01-02")],
            "Invalid date: sdate=2025-01-01 00:00:00",
        ),
        (
            "netProfit",
            vec![("sdate", "2025-01-01"), ("edate", "2025-13-01")],
            "Invalid date: edate=2025-13-01",
        ),
        (
            "scheduleDet",
            vec![("sdate", "2025-01-01"), ("edate", "2025-01-02")],
            "Missing parameter: schedule",
        ),
        // The schedule is checked before the range, as the service does.
        (
            "scheduleDet",
            vec![("schedule", "Fixed Assets")],
            "Unknown schedule: Fixed Assets",
        ),
        (
            "scheduleDet",
            vec![
                ("schedule", "Sundry Debtors"),
                ("sdate", "2025-01-02"),
                ("edate", "2025-01-01"),
            ],
            "sdate is after edate",
        ),
    ] {
        assert_eq!(call(addr, func, &params).await.error(), message, "{func}");
    }
}

#[tokio::test]
async fn ajax_token_is_required_when_asked() {
    let guarded = start(Config {
        ajax_token: true,
        ..Config::default()
    })
    .await;
    let base = [("sys_projectfolder", "demo"), ("func", "getduesSumm")];
    let with = |token: &str| {
        let mut pairs = base.to_vec();
        pairs.push(("accesstoken", token));
        form(&pairs)
    };
    let get = |q: String| async move {
        request(guarded, "GET", &format!("/apis/ajax.php?{q}"), None).await
    };
    assert_eq!(get(form(&base)).await.error(), "Invalid access token");
    assert_eq!(get(with("wrong")).await.error(), "Invalid access token");
    assert!(!get(with(DEFAULT_TOKEN)).await.rows().is_empty());
    let post = request(
        guarded,
        "POST",
        "/apis/ajax.php",
        Some(&with(DEFAULT_TOKEN)),
    )
    .await;
    assert!(!post.rows().is_empty());
    // The dues query too.
    let dues = form(&[
        ("sys_projectfolder", "demo"),
        ("func", "getduesDet"),
        ("acid", "C001"),
        ("type", "RECEIPT"),
    ]);
    assert_eq!(get(dues.clone()).await.error(), "Invalid access token");
    let dues = format!("{dues}&accesstoken={DEFAULT_TOKEN}");
    assert!(!request(guarded, "POST", "/apis/ajax.php", Some(&dues))
        .await
        .rows()
        .is_empty());
    // Without the flag a token is ignored.
    let open = start(Config::default()).await;
    let q = with("anything");
    let reply = request(open, "GET", &format!("/apis/ajax.php?{q}"), None).await;
    assert!(!reply.rows().is_empty());
}

/// Money as `style` types a DECIMAL, an integer as it types an INT.
fn money(style: Style, v: &str) -> String {
    match style {
        Style::Native => v.to_owned(),
        _ => format!("\"{v}\""),
    }
}

fn int(style: Style, v: &str) -> String {
    match style {
        Style::Strings => format!("\"{v}\""),
        _ => v.to_owned(),
    }
}

#[tokio::test]
async fn each_style_sends_its_exact_text() {
    let prefixed = start(Config::default()).await;
    for style in STYLES {
        let prefix = format!("/_style/{style}");
        let (m, i) = (|v| money(style, v), |v| int(style, v));
        let at = |n: usize| call_at(prefixed, &prefix, CALLS[n].0, CALLS[n].1);
        let summary = at(0).await;
        let first = format!(
            r#"{{"status":"success","data":[{{"acid":"C001","name":"Acme Traders","documents":{},"amount":{},"paid":{},"balance":{},"oldest_due_date":"2025-01-31"}},"#,
            i("6"),
            m("2100417.77"),
            m("1366927.00"),
            m("733490.77")
        );
        assert!(summary.text().starts_with(&first), "{}", summary.text());
        assert_eq!(
            at(1).await.text(),
            format!(
                r#"{{"status":"success","data":{{"acid":"C001","payments":{},"avg_pay_days":{}}}}}"#,
                i("5"),
                m("17.60")
            )
        );
        // A loss is negative.
        assert_eq!(
            at(2).await.text(),
            format!(
                r#"{{"status":"success","data":{{"sdate":"2025-01-01","edate":"2025-01-28","sales":{},"cost_of_sales":{},"gross_profit":{}}}}}"#,
                m("182632.47"),
                m("695672.18"),
                m("-513039.71")
            )
        );
        assert_eq!(
            at(3).await.text(),
            format!(
                r#"{{"status":"success","data":{{"sdate":"2025-03-01","edate":"2025-06-30","income":{},"expenses":{},"net_profit":{}}}}}"#,
                m("1885619.11"),
                m("955790.88"),
                m("929828.23")
            )
        );
        let creditors = at(4).await;
        let first = format!(
            r#"{{"status":"success","schedule":"Sundry Creditors","data":[{{"acid":"S001","name":"Delta Steel Works","debit":{},"credit":{},"balance":{}}},"#,
            m("2555470.30"),
            m("53996.05"),
            m("-2501474.25")
        );
        assert!(creditors.text().starts_with(&first), "{}", creditors.text());

        // `--style` gives what the prefix gives, for every function.
        let flagged = start(Config {
            style,
            ..Config::default()
        })
        .await;
        for (func, params) in CALLS {
            let by_flag = call(flagged, func, params).await;
            let by_prefix = call_at(prefixed, &prefix, func, params).await;
            assert_eq!(by_prefix.body, by_flag.body, "{style} {func}");
            assert_eq!(by_flag.json()["status"], "success", "{style} {func}");
        }
    }
}

#[tokio::test]
async fn no_settlements_is_null_in_every_style() {
    // No invoices at all: no receipts, nothing owed.
    let empty = start(Config {
        rows: Some(0),
        ..Config::default()
    })
    .await;
    for style in STYLES {
        let prefix = format!("/_style/{style}");
        let avg = call_at(empty, &prefix, "avgPayDays", &[("acid", "C001")]).await;
        assert_eq!(
            avg.text(),
            format!(
                r#"{{"status":"success","data":{{"acid":"C001","payments":{},"avg_pay_days":null}}}}"#,
                int(style, "0")
            )
        );
        let summary = call_at(empty, &prefix, "getduesSumm", &[]).await;
        assert_eq!(summary.text(), r#"{"status":"success","data":[]}"#);
    }
}

#[tokio::test]
async fn schedules_agree_with_the_summary_and_the_profit() {
    let addr = start(Config::default()).await;
    let range = [("sdate", YEAR.0), ("edate", YEAR.1)];
    let with = |schedule| {
        let mut params = vec![("schedule", schedule)];
        params.extend_from_slice(&range);
        params
    };
    let debtors = call(addr, "scheduleDet", &with("Sundry Debtors"))
        .await
        .rows();
    let creditors = call(addr, "scheduleDet", &with("Sundry Creditors"))
        .await
        .rows();
    // Every account of the kind, owing or not.
    assert_eq!(debtors.len(), 12);
    assert!(debtors.iter().all(|r| text(&r["acid"]).starts_with('C')));
    assert_eq!(creditors.len(), 8);
    assert!(creditors.iter().all(|r| text(&r["acid"]).starts_with('S')));
    // Over the whole year a debtor's balance is what it still owes.
    let summary = call(addr, "getduesSumm", &[]).await.rows();
    for row in &debtors {
        let owed = summary
            .iter()
            .find(|s| s["acid"] == row["acid"])
            .map_or(0, |s| cents(&s["balance"]));
        assert_eq!(cents(&row["balance"]), owed, "{}", row["acid"]);
    }
    assert!(creditors.iter().any(|r| cents(&r["balance"]) > 0));
    // Every invoice and bill of the year is on a schedule.
    let net = call(addr, "netProfit", &range).await.json()["data"].clone();
    let sum = |rows: &[Value], key: &str| rows.iter().map(|r| cents(&r[key])).sum::<i64>();
    assert_eq!(sum(&debtors, "debit"), cents(&net["income"]));
    assert_eq!(sum(&creditors, "credit"), cents(&net["expenses"]));
    // The name matches ignoring case and goes back as given.
    let shouted = call(addr, "scheduleDet", &with("SUNDRY DEBTORS")).await;
    assert_eq!(shouted.json()["schedule"], "SUNDRY DEBTORS");
    assert_eq!(shouted.rows(), debtors);
}

async fn counted(addr: SocketAddr, key: &str) -> String {
    request(addr, "GET", &format!("/_faults/count/{key}"), None)
        .await
        .text()
        .to_owned()
}

#[tokio::test]
async fn the_fault_prefixes_apply_to_the_functions() {
    let addr = start(Config::default()).await;
    for (n, (func, params)) in CALLS.into_iter().enumerate() {
        let q = query(func, params);
        let plain = call(addr, func, params).await;
        let get = |target: String| async move { request(addr, "GET", &target, None).await };
        let pass = get(format!("/_faults/pass/fp/apis/ajax.php?{q}")).await;
        assert_eq!(pass.body, plain.body, "{func}");
        let native = call_at(addr, "/_style/native", func, params).await;
        let styled = get(format!("/_style/native/_faults/pass/fp/apis/ajax.php?{q}")).await;
        assert_eq!(styled.body, native.body, "{func}");
        let cut = get(format!("/_faults/truncate-40/ft/apis/ajax.php?{q}")).await;
        assert_eq!(cut.body, plain.body[..40], "{func}");
        let key = format!("fs{n}");
        let target = format!("/_faults/status-503x1/{key}/apis/ajax.php?{q}");
        assert_eq!(get(target.clone()).await.status, 503, "{func}");
        assert_eq!(get(target).await.body, plain.body, "{func}");
        let broken = get(format!("/_faults/service-error/fe/apis/ajax.php?{q}")).await;
        assert_eq!(broken.error(), "Database connection failed");
        // A POST with every parameter in the form body, as a client
        // sending the token does, meets the fault the same way.
        let post = request(
            addr,
            "POST",
            "/_faults/truncate-40/ft/apis/ajax.php",
            Some(&q),
        )
        .await;
        assert_eq!(post.body, plain.body[..40], "{func}");
    }
    assert_eq!(counted(addr, "fp").await, (2 * CALLS.len()).to_string());
    assert_eq!(counted(addr, "ft").await, (2 * CALLS.len()).to_string());

    // `--fault` meets them on the plain paths.
    let faulty = start(Config {
        fault: Some("status-503x1".into()),
        ..Config::default()
    })
    .await;
    let (func, params) = CALLS[3];
    assert_eq!(call(faulty, func, params).await.status, 503);
    assert_eq!(
        call(faulty, func, params).await.body,
        call(addr, func, params).await.body
    );
}

#[tokio::test]
async fn a_form_body_wins_over_the_query_string() {
    let addr = start(Config::default()).await;
    let (func, params) = CALLS[2];
    let want = call(addr, func, params).await;
    assert_eq!(want.json()["status"], "success");
    // Everything in the body, nothing in the URL.
    let post = request(addr, "POST", "/apis/ajax.php", Some(&query(func, params))).await;
    assert_eq!(post.body, want.body);
    // The body's values replace the query string's.
    let target = "/apis/ajax.php?func=getduesSumm&sdate=nonsense&edate=2024-01-01";
    let post = request(addr, "POST", target, Some(&query(func, params))).await;
    assert_eq!(post.body, want.body);
    // And the two are merged.
    let target = format!("/apis/ajax.php?{}", query(func, &[("sdate", "2025-12-31")]));
    let post = request(addr, "POST", &target, Some(&form(params))).await;
    assert_eq!(post.body, want.body);
    // A GET's body is read too, when it is a form, as PHP reads it.
    let get = request(addr, "GET", &target, Some(&form(params))).await;
    assert_eq!(get.body, want.body);
}

#[tokio::test]
async fn the_ajax_token_guards_every_function() {
    let guarded = start(Config {
        ajax_token: true,
        ..Config::default()
    })
    .await;
    for (func, params) in CALLS {
        let q = query(func, params);
        let bare = call(guarded, func, params).await;
        assert_eq!(bare.error(), "Invalid access token", "{func}");
        let right = format!("{q}&accesstoken={DEFAULT_TOKEN}");
        let post = request(guarded, "POST", "/apis/ajax.php", Some(&right)).await;
        assert_eq!(post.json()["status"], "success", "{func}");
        assert!(!post.text().contains(DEFAULT_TOKEN), "{func}");
        let target = format!("/apis/ajax.php?{right}");
        let get = request(guarded, "GET", &target, None).await;
        assert_eq!(get.body, post.body, "{func}");
    }
    let q = query("getduesSumm", &[]);
    // The body's token wins over the query string's, either way.
    let target = format!("/apis/ajax.php?{q}&accesstoken=wrong-one");
    let body = format!("accesstoken={DEFAULT_TOKEN}");
    let reply = request(guarded, "POST", &target, Some(&body)).await;
    assert_eq!(reply.json()["status"], "success");
    let target = format!("/apis/ajax.php?{q}&accesstoken={DEFAULT_TOKEN}");
    let reply = request(guarded, "POST", &target, Some("accesstoken=wrong-one")).await;
    assert_eq!(reply.error(), "Invalid access token");
    assert!(!reply.text().contains("wrong-one"));
    // A blank token is no token; a prefix of the token is wrong.
    let prefix = &DEFAULT_TOKEN[..DEFAULT_TOKEN.len() - 1];
    for token in [" ", prefix] {
        let body = format!("{q}&accesstoken={token}");
        let reply = request(guarded, "POST", "/apis/ajax.php", Some(&body)).await;
        assert_eq!(reply.error(), "Invalid access token", "{token:?}");
    }
    // The folder and the function are required first; the token is
    // checked before the function is looked up.
    let reply = request(
        guarded,
        "GET",
        "/apis/ajax.php?sys_projectfolder=demo",
        None,
    )
    .await;
    assert_eq!(reply.error(), "Missing parameter: func");
    assert_eq!(
        call(guarded, "nothing", &[]).await.error(),
        "Invalid access token"
    );
    let body = format!("{}&accesstoken={DEFAULT_TOKEN}", query("nothing", &[]));
    let reply = request(guarded, "POST", "/apis/ajax.php", Some(&body)).await;
    assert_eq!(reply.error(), "Unknown function: nothing");
    // Under the style and fault prefixes too.
    let target = format!("/_style/strings/_faults/pass/tk/apis/ajax.php?{q}");
    let reply = request(guarded, "GET", &target, None).await;
    assert_eq!(reply.error(), "Invalid access token");
    let right = format!("{q}&accesstoken={DEFAULT_TOKEN}");
    let reply = request(
        guarded,
        "POST",
        "/_style/strings/_faults/pass/tk/apis/ajax.php",
        Some(&right),
    )
    .await;
    assert!(
        reply.text().contains(r#""documents":"6""#),
        "{}",
        reply.text()
    );
}
