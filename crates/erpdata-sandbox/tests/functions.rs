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
    let mut pairs = vec![("sys_projectfolder", "demo"), ("func", func)];
    pairs.extend_from_slice(params);
    request(
        addr,
        "GET",
        &format!("/apis/ajax.php?{}", form(&pairs)),
        None,
    )
    .await
}

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
    let invoices = table(addr, "sales_invoice").await;
    let receipts = table(addr, "receipt").await;
    let day = |iso: &str| -> i64 {
        let p: Vec<i64> = iso.split('-').map(|x| x.parse().unwrap()).collect();
        // Days from a civil date (the range is inside one century).
        let (y, m, d) = (p[0], p[1], p[2]);
        let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
        365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d
    };
    let issued: BTreeMap<String, i64> = invoices
        .iter()
        .map(|i| (text(&i["invoice_no"]), day(&text(&i["date"]))))
        .collect();
    let mine: Vec<i64> = receipts
        .iter()
        .filter(|r| r["customer"] == "C001")
        .map(|r| day(&text(&r["date"])) - issued[&text(&r["invoice_no"])])
        .collect();
    assert!(!mine.is_empty());
    let avg = call(addr, "avgPayDays", &[("acid", "c001")]).await.json()["data"].clone();
    assert_eq!(text(&avg["payments"]), mine.len().to_string());
    let total: i64 = mine.iter().sum();
    let n = mine.len() as i64;
    // Hundredths, half away from zero.
    assert_eq!(cents(&avg["avg_pay_days"]), (total * 200 + n) / (2 * n));
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
