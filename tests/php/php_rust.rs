//! `BlockingClient` against the real PHP service over MariaDB (tests/php).
//!
//! Wired into crates/erpdata/Cargo.toml as
//! `[[test]] name = "php", path = "../../tests/php/php_rust.rs"` (feature
//! `blocking`); every test is `#[ignore]`d because it needs the service,
//! which tests/php/run.sh (`make test-php`) starts before running
//! `cargo test -p erpdata --features blocking --test php -- --ignored`
//! with the service's URL in `ERPDATA_PHP_URL`.
//!
//! Each test runs against both code paths of the service: project `modern`
//! (mysqlnd prepared statements: INT native, DECIMAL and dates as strings)
//! and `legacy` (mysqli_query: every value a string).

use std::time::Duration;

use erpdata::{
    Batch, BlockingClient, Cell, ClientOptions, ColumnData, ColumnType, Config, Error, Method,
    TableQuery,
};

const TOKEN: &str = "php-test-token-not-secret";
const PROJECTS: [&str; 2] = ["modern", "legacy"];
/// 2025-01-01 in days since 1970-01-01.
const JAN_1_2025: i32 = 20_089;

fn url() -> String {
    // Never a silent pass: without the service nothing here was tested.
    std::env::var("ERPDATA_PHP_URL").unwrap_or_else(|_| {
        panic!("ERPDATA_PHP_URL is not set: run `make test-php` (tests/php/run.sh starts the PHP service)")
    })
}

fn config(project: &str, token: &str) -> Config {
    Config::builder(url())
        .project(project)
        .access_token(token)
        .company_id(1)
        .year_id(2025)
        .build()
        .unwrap()
}

fn options() -> ClientOptions {
    ClientOptions::default()
        .max_retries(0)
        .timeout(Duration::from_secs(20))
}

fn client(project: &str) -> BlockingClient {
    BlockingClient::with_options(config(project, TOKEN), options()).unwrap()
}

/// The whole table as one batch (the stream's typed columns).
fn one_batch(c: &BlockingClient, table: &str) -> Batch {
    let batches: Vec<Batch> = c
        .stream_table(table)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(batches.len(), 1, "{table}: one batch");
    batches.into_iter().next().unwrap()
}

fn text(cell: Option<&Cell>) -> String {
    match cell {
        Some(Cell::String(s)) | Some(Cell::Number(s)) | Some(Cell::Json(s)) => s.clone(),
        Some(Cell::Int(n)) => n.to_string(),
        other => panic!("not a text or number: {other:?}"),
    }
}

// --- the wire ---------------------------------------------------------------

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn get_and_post_give_the_same_rows() {
    for project in PROJECTS {
        let c = client(project);
        let posted = c.table("sales_invoice").unwrap();
        let fetched = c
            .table(TableQuery::new("sales_invoice").method(Method::Get))
            .unwrap();
        assert_eq!(posted.rows.len(), 40, "{project}");
        assert_eq!(posted, fetched, "{project}");
        assert!(posted.notices.is_empty(), "{project}");
        assert_eq!(posted.columns[3], "invoice_no");
        let other = c
            .table(TableQuery::new("sales_invoice").company_id(2).year_id(2024))
            .unwrap();
        assert_eq!(other.rows.len(), 22, "{project}");
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn json_encode_escapes_are_decoded() {
    for project in PROJECTS {
        let accounts = client(project).table("account").unwrap();
        let names: Vec<String> = accounts.rows.iter().map(|r| text(r.get("name"))).collect();
        for name in [
            "Müller GmbH",
            "A/B Traders",
            "Café \"Zum Löwen\"",
            "Tokyo 商事",
            "Emoji Shop 🛒",
        ] {
            assert!(
                names.iter().any(|n| n == name),
                "{project}: {name} in {names:?}"
            );
        }
        let invoices = client(project).table("sales_invoice").unwrap();
        assert_eq!(
            text(invoices.rows[1].get("remarks")),
            "Delivered ✓ 👍",
            "{project}"
        );
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn a_php_warning_is_a_notice_and_the_rows_parse() {
    for project in PROJECTS {
        let table = client(project).table("noisy").unwrap();
        assert_eq!(table.notices.len(), 1, "{project}: {:?}", table.notices);
        assert!(
            table.notices[0].contains("Undefined variable $debug_where"),
            "{:?}",
            table.notices
        );
        let labels: Vec<String> = table.rows.iter().map(|r| text(r.get("label"))).collect();
        assert_eq!(labels, ["first", "zweite Zeile", "third"], "{project}");
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn a_fatal_error_page_is_a_decode_error() {
    for project in PROJECTS {
        let err = client(project).table("broken").unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{project}: {err:?}");
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn a_php_error_after_echoed_rows_leads_the_message() {
    let echoed = [
        (
            "echoed_fatal",
            "PHP Fatal error: Uncaught Error: Call to undefined function erp_format_row()",
        ),
        (
            "echoed_memory",
            "PHP Fatal error: Allowed memory size of 4194304 bytes exhausted",
        ),
        (
            "echoed_timeout",
            "PHP Fatal error: Maximum execution time of 1 second exceeded",
        ),
    ];
    for project in PROJECTS {
        let half = one_batch(&client(project), "sales_invoice").num_rows / 2;
        for (table, said) in echoed {
            let err = client(project).table(table).unwrap_err();
            let message = err.to_string();
            // Out of memory, PHP drops what its output buffer held: fewer
            // rows arrive than were echoed.
            let rows = (1..=half)
                .find(|n| {
                    message.contains(&format!(
                        "the service failed after {n} complete rows: {said}"
                    ))
                })
                .unwrap_or_else(|| panic!("{project} {table}: {message}"));
            assert!(
                rows == half || table == "echoed_memory",
                "{project} {table}: {message}"
            );
            assert_eq!(
                err.call().and_then(|c| c.rows_received),
                Some(rows as u64),
                "{project} {table}"
            );
            assert!(
                matches!(&err, Error::Decode { excerpt, excerpt_at: Some(at), .. }
                    if *at > 1000 && excerpt.contains("Fatal error")),
                "{project} {table}: {err:?}"
            );
        }
        let err = client(project).table("latin1").unwrap_err();
        assert!(
            err.to_string().contains("the body is empty")
                && err.to_string().contains("json_encode"),
            "{project}: {err}"
        );
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn service_errors() {
    for project in PROJECTS {
        let wrong =
            BlockingClient::with_options(config(project, "wrong-token"), options()).unwrap();
        let err = wrong.table("account").unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message.contains("Invalid access token")),
            "{project}: {err:?}"
        );
        let err = client(project).table("users").unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message.contains("Unknown table: users")),
            "{project}: {err:?}"
        );
        let err = client(project).receivables("NOPE").unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message.contains("Unknown account: NOPE")),
            "{project}: {err:?}"
        );
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn dues_of_an_account() {
    for project in PROJECTS {
        let c = client(project);
        let dues = c.receivables("C001").unwrap();
        let docs: Vec<String> = dues.rows.iter().map(|r| text(r.get("doc_no"))).collect();
        assert_eq!(
            docs,
            ["INV-2025-0001", "INV-2025-0014", "INV-2025-0040"],
            "{project}"
        );
        assert_eq!(text(dues.rows[0].get("balance")), "1650.00", "{project}");
        assert_eq!(c.payables("S001").unwrap().rows.len(), 3, "{project}");
        assert!(c.receivables("C012").unwrap().rows.is_empty(), "{project}");

        let bond = c.receivables("007").unwrap();
        assert_eq!(bond.acid.as_str(), "007");
        assert_eq!(bond.rows.len(), 2, "{project}");
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn an_id_with_a_leading_zero_stays_text() {
    for project in PROJECTS {
        let accounts = client(project).table("account").unwrap();
        // Ordered by acid: '007' first.
        assert_eq!(
            accounts.rows[0].get("acid"),
            Some(&Cell::String("007".into())),
            "{project}"
        );
        let batch = one_batch(&client(project), "account");
        let acid = batch.column("acid").unwrap();
        assert_eq!(acid.column_type(), ColumnType::String, "{project}");
        assert_eq!(acid.cell(0), Cell::String("007".into()), "{project}");
    }
}

// --- typed columns ---------------------------------------------------------------

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn sales_invoice_column_types() {
    for project in PROJECTS {
        let batch = one_batch(&client(project), "sales_invoice");
        let types: Vec<(&str, ColumnType)> = [
            "id",
            "items",
            "amount",
            "total",
            "date",
            "due_date",
            "posted_at",
            "cleared_on",
            "invoice_no",
            "remarks",
        ]
        .into_iter()
        .map(|name| (name, batch.column(name).unwrap().column_type()))
        .collect();
        let decimal = |t: ColumnType| matches!(t, ColumnType::Decimal { scale: 2, .. });
        // One assertion over every column, so a failure shows them all.
        let ok = types.iter().all(|(name, t)| match *name {
            "id" | "items" => *t == ColumnType::Int,
            "amount" | "total" => decimal(*t),
            "date" | "due_date" | "cleared_on" => *t == ColumnType::Date,
            "posted_at" => *t == ColumnType::Timestamp,
            _ => *t == ColumnType::String,
        });
        assert!(ok, "{project}: {types:?}");
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn sales_invoice_values() {
    for project in PROJECTS {
        let batch = one_batch(&client(project), "sales_invoice");
        assert_eq!(batch.num_rows, 40);
        match &batch.column("amount").unwrap().data {
            ColumnData::Decimal { values, scale, .. } => {
                assert_eq!((values[0], *scale), (150_000, 2), "{project}: 1500.00");
                assert_eq!(values[9], -25_000, "{project}: -250.00");
            }
            other => panic!("{project}: amount is {other:?}"),
        }
        match &batch.column("items").unwrap().data {
            ColumnData::Int { values, .. } => assert_eq!(values[0], 8, "{project}"),
            other => panic!("{project}: items is {other:?}"),
        }
        match &batch.column("date").unwrap().data {
            ColumnData::Date { values, .. } => assert_eq!(values[0], JAN_1_2025, "{project}"),
            other => panic!("{project}: date is {other:?}"),
        }
        let posted_at = batch.column("posted_at").unwrap();
        match &posted_at.data {
            ColumnData::Timestamp { values, .. } => {
                let seconds = i64::from(JAN_1_2025) * 86_400 + 9 * 3600 + 22 * 60 + 53;
                assert_eq!(
                    values[0],
                    seconds * 1_000_000,
                    "{project}: 2025-01-01 09:22:53"
                );
            }
            other => panic!("{project}: posted_at is {other:?}"),
        }
        // The draft's zero datetime and every 4th invoice's zero date are nulls.
        assert!(!posted_at.data.is_valid(39), "{project}");
        assert_eq!(posted_at.data.null_count(), 1, "{project}");
        let cleared_on = batch.column("cleared_on").unwrap();
        assert!(!cleared_on.data.is_valid(3), "{project}");
        assert_eq!(cleared_on.data.null_count(), 10, "{project}");
        assert_eq!(
            batch.column("remarks").unwrap().data.null_count(),
            12,
            "{project}"
        );
    }
}

#[test]
#[ignore = "needs the PHP service: make test-php"]
fn account_timestamps_keep_microseconds() {
    for project in PROJECTS {
        let batch = one_batch(&client(project), "account");
        let acid = batch.column("acid").unwrap();
        let row = |id: &str| {
            (0..batch.num_rows)
                .find(|&i| acid.cell(i) == Cell::String(id.into()))
                .unwrap()
        };
        assert_eq!(
            batch.column("active").unwrap().column_type(),
            ColumnType::Int,
            "{project}"
        );
        let updated_at = batch.column("updated_at").unwrap();
        match &updated_at.data {
            ColumnData::Timestamp { values, .. } => {
                // 2025-04-01 13:45:00.123456
                let seconds = (i64::from(JAN_1_2025) + 90) * 86_400 + 13 * 3600 + 45 * 60;
                assert_eq!(
                    values[row("C001")],
                    seconds * 1_000_000 + 123_456,
                    "{project}"
                );
            }
            other => panic!("{project}: updated_at is {other:?}"),
        }
        assert!(
            !updated_at.data.is_valid(row("C005")),
            "{project}: zero datetime"
        );
        assert!(!updated_at.data.is_valid(row("C007")), "{project}: NULL");
        let created_at = batch.column("created_at").unwrap();
        assert_eq!(created_at.column_type(), ColumnType::Timestamp, "{project}");
        assert!(
            !created_at.data.is_valid(row("C005")),
            "{project}: zero datetime"
        );
    }
}

// --- the other functions of ajax.php ------------------------------------------

/// Names and types, a decimal's precision left out (it follows the data).
fn schema_of(schema: &erpdata::Schema) -> Vec<(String, String)> {
    schema
        .iter()
        .map(|(n, t)| match t {
            ColumnType::Decimal { scale, .. } => (n.clone(), format!("decimal(_,{scale})")),
            t => (n.clone(), t.name()),
        })
        .collect()
}

/// Each function's answer shape and types are the same on both code paths
/// (counts typed int whether mysqlnd sent them as numbers or as strings).
#[test]
#[ignore = "needs the PHP service: make test-php"]
fn every_function_answers_typed() {
    use erpdata::AjaxValue;
    let owned = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    for project in PROJECTS {
        let c = client(project);
        // Rows.
        let AjaxValue::Rows(summary) = c.dues_summary().unwrap().value else {
            panic!("{project}: getduesSumm answers rows")
        };
        assert_eq!(
            schema_of(&summary.schema),
            owned(&[
                ("acid", "string"),
                ("name", "string"),
                ("documents", "int"),
                ("amount", "decimal(_,2)"),
                ("paid", "decimal(_,2)"),
                ("balance", "decimal(_,2)"),
                ("oldest_due_date", "date"),
            ]),
            "{project}"
        );
        // Fields beside status: one object.
        let AjaxValue::Object { schema, fields } = c.avg_pay_days("C001").unwrap().value else {
            panic!("{project}: avgPayDays answers one object")
        };
        assert_eq!(
            schema_of(&schema),
            owned(&[
                ("acid", "string"),
                ("payments", "int"),
                ("avg_pay_days", "decimal(_,4)")
            ]),
            "{project}"
        );
        assert_eq!(fields.get("payments"), Some(&Cell::Int(3)), "{project}");
        // A bare JSON string: one exact decimal.
        let AjaxValue::Value { column_type, cell } =
            c.net_profit("2025-01-01", "2025-12-31").unwrap().value
        else {
            panic!("{project}: netProfit answers one value")
        };
        assert!(
            matches!(column_type, ColumnType::Decimal { scale: 2, .. }),
            "{project}: {column_type:?}"
        );
        assert!(matches!(cell, Cell::Number(_)), "{project}: {cell:?}");
        // data: one object, its profit equal to the sums it reports.
        let AjaxValue::Object { fields, .. } =
            c.gross_profit("2025-01-01", "2025-06-30").unwrap().value
        else {
            panic!("{project}: grossProfit answers one object")
        };
        let cents = |k: &str| -> i64 { text(fields.get(k)).replace('.', "").parse().unwrap() };
        assert_eq!(
            cents("sales") - cents("cost_of_sales"),
            cents("gross_profit"),
            "{project}"
        );
        let AjaxValue::Rows(schedule) = c
            .schedule_accounts("Sundry Creditors", "2025-01-01", "2025-12-31")
            .unwrap()
            .value
        else {
            panic!("{project}: scheduleDet answers rows")
        };
        assert!(
            schedule
                .rows
                .iter()
                .all(|r| text(r.get("acid")).starts_with('S')),
            "{project}"
        );
        // The service's own errors.
        let err = c
            .schedule_accounts("Nobody", "2025-01-01", "2025-12-31")
            .unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message.contains("Unknown schedule")),
            "{project}: {err}"
        );
    }
}

/// The summary equals the dues of its accounts joined into one table.
#[test]
#[ignore = "needs the PHP service: make test-php"]
fn the_summary_is_the_sum_of_the_dues() {
    use erpdata::{AjaxValue, DuesKind};
    for project in PROJECTS {
        let c = client(project);
        let AjaxValue::Rows(summary) = c.dues_summary().unwrap().value else {
            panic!("rows")
        };
        let acids: Vec<String> = summary.rows.iter().map(|r| text(r.get("acid"))).collect();
        assert!(acids.len() >= 3, "{project}: {acids:?}");
        let table = c.dues_table(&acids, DuesKind::Receipt, 4).unwrap();
        assert_eq!(table.schema[0], ("acid".into(), ColumnType::String));
        for row in &summary.rows {
            let acid = text(row.get("acid"));
            let cents = |c: Option<&Cell>| -> i64 { text(c).replace('.', "").parse().unwrap() };
            let sum: i64 = table
                .rows
                .iter()
                .filter(|r| text(r.get("acid")) == acid)
                .map(|r| cents(r.get("balance")))
                .sum();
            assert_eq!(sum, cents(row.get("balance")), "{project} {acid}");
        }
    }
}
