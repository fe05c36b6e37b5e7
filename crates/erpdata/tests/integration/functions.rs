//! The other functions of ajax.php through both ready clients against the
//! sandbox: each named method's answer, the generic call, dues as one
//! table, and the access token sent only when asked.

use crate::clients;
use crate::sandbox;

use clients::{Client, FLAVOURS};
use erpdata::{AjaxQuery, AjaxValue, Cell, ColumnType, Config, DuesKind, Error, Method};
use sandbox::{config, quick, Sandbox, TOKEN};

fn cents(cell: Option<&Cell>) -> i64 {
    let text = match cell {
        Some(Cell::Number(t)) => t.clone(),
        Some(Cell::Int(n)) => n.to_string(),
        other => panic!("not a number: {other:?}"),
    };
    let (units, frac) = text.split_once('.').unwrap_or((&text, ""));
    let sign = if units.starts_with('-') { -1 } else { 1 };
    sign * (units.trim_start_matches('-').parse::<i64>().unwrap() * 100
        + format!("{frac:0<2}").parse::<i64>().unwrap())
}

fn rows(value: AjaxValue) -> erpdata::TypedRows {
    match value {
        AjaxValue::Rows(rows) => rows,
        other => panic!("expected rows, got {other:?}"),
    }
}

fn object(value: AjaxValue) -> (erpdata::Schema, erpdata::Row) {
    match value {
        AjaxValue::Object { schema, fields } => (schema, fields),
        other => panic!("expected one object, got {other:?}"),
    }
}

#[test]
fn every_function_through_both_clients() {
    let sb = Sandbox::start();
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config(&sb.url), quick(0)).unwrap();
        let run = |q: AjaxQuery| c.ajax(q).unwrap_or_else(|e| panic!("{flavour}: {e}"));

        let summary = rows(run(AjaxQuery::dues_summary()).value);
        let types: Vec<(&str, ColumnType)> = summary
            .schema
            .iter()
            .map(|(n, t)| (n.as_str(), *t))
            .collect();
        assert_eq!(types[2], ("documents", ColumnType::Int), "{flavour}");
        assert!(matches!(
            types[5],
            ("balance", ColumnType::Decimal { scale: 2, .. })
        ));
        assert_eq!(types[6], ("oldest_due_date", ColumnType::Date), "{flavour}");

        // The summary is the dues of its accounts, joined into one table.
        let acids: Vec<String> = summary
            .rows
            .iter()
            .map(|r| match r.get("acid") {
                Some(Cell::String(s)) => s.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        let acid_refs: Vec<&str> = acids.iter().map(String::as_str).collect();
        let table = c.dues_table(&acid_refs, DuesKind::Receipt, 3).unwrap();
        assert_eq!(table.schema[0], ("acid".to_owned(), ColumnType::String));
        for row in &summary.rows {
            let acid = row.get("acid");
            let sum: i64 = table
                .rows
                .iter()
                .filter(|r| r.get("acid") == acid)
                .map(|r| cents(r.get("balance")))
                .sum();
            assert_eq!(sum, cents(row.get("balance")), "{flavour} {acid:?}");
        }
        assert_eq!(
            table.batches.iter().map(|b| b.num_rows).sum::<usize>(),
            table.rows.len()
        );

        let (schema, fields) = object(run(AjaxQuery::avg_pay_days("C001")).value);
        assert_eq!(schema[1], ("payments".to_owned(), ColumnType::Int));
        assert!(matches!(schema[2].1, ColumnType::Decimal { scale: 2, .. }));
        assert!(cents(fields.get("avg_pay_days")) > 0, "{flavour}");

        let (_, gross) = object(run(AjaxQuery::gross_profit("2025-01-01", "2025-12-31")).value);
        assert_eq!(
            cents(gross.get("sales")) - cents(gross.get("cost_of_sales")),
            cents(gross.get("gross_profit"))
        );
        let (schema, net) = object(run(AjaxQuery::net_profit("2025-01-01", "2025-12-31")).value);
        assert_eq!(schema[0], ("sdate".to_owned(), ColumnType::Date));
        assert_eq!(
            cents(net.get("income")) - cents(net.get("expenses")),
            cents(net.get("net_profit"))
        );
        let debtors = rows(
            run(AjaxQuery::schedule_accounts(
                "Sundry Debtors",
                "2025-01-01",
                "2025-12-31",
            ))
            .value,
        );
        assert!(debtors.rows.len() >= 5, "{flavour}");

        // The generic call gives what the named one gives.
        let generic = run(AjaxQuery::new("avgPayDays", [("acid", "C001")]));
        assert_eq!(generic.value, run(AjaxQuery::avg_pay_days("C001")).value);
        assert_eq!(generic.func, "avgPayDays");

        // The service's own errors, and input refused before sending.
        let err = c
            .ajax(AjaxQuery::schedule_accounts(
                "Nope",
                "2025-01-01",
                "2025-01-31",
            ))
            .unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message == "Unknown schedule: Nope"),
            "{flavour}: {err}"
        );
        let err = c
            .ajax(AjaxQuery::net_profit("2025-02-01", "2025-01-31"))
            .unwrap_err();
        assert_eq!(err.field(), Some("end"), "{flavour}");
        let err = c
            .dues_table(&["C001", "C\u{7}"], DuesKind::Receipt, 2)
            .unwrap_err();
        assert_eq!(err.field(), Some("acids"), "{flavour}");
        let err = c.dues_table(&["C001"], DuesKind::Receipt, 0).unwrap_err();
        assert_eq!(err.field(), Some("concurrency"), "{flavour}");
    }
}

/// A sandbox that guards ajax.php: calls without the token are refused by
/// the service; with it (per call, or for the whole client) they pass.
#[test]
fn the_token_goes_to_ajax_php_only_when_asked() {
    let sb = Sandbox::start_with(&["--ajax-token"]);
    let guarded = |flavour: &str, ajax_token: bool| {
        let config = Config::builder(sb.url.as_str())
            .project("demo")
            .access_token(TOKEN)
            .ajax_token(ajax_token)
            .build()
            .unwrap();
        Client::new(flavour, config, quick(0)).unwrap()
    };
    for flavour in FLAVOURS {
        let plain = guarded(flavour, false);
        let err = plain.ajax(AjaxQuery::dues_summary()).unwrap_err();
        assert!(
            matches!(&err, Error::Service { message, .. } if message == "Invalid access token"),
            "{flavour}: {err}"
        );
        assert!(plain.dues("C001", DuesKind::Receipt).is_err());
        for query in [
            AjaxQuery::dues_summary().send_token(true),
            AjaxQuery::dues_summary()
                .send_token(true)
                .method(Method::Get),
        ] {
            let answer = plain.ajax(query).unwrap();
            assert!(!rows(answer.value).rows.is_empty(), "{flavour}");
        }
        let dues = plain
            .dues_query(erpdata::DuesQuery::new("C001", DuesKind::Receipt).send_token(true))
            .unwrap();
        assert!(!dues.rows.is_empty());

        let everywhere = guarded(flavour, true);
        assert!(everywhere.ajax(AjaxQuery::dues_summary()).is_ok());
        assert!(!everywhere
            .dues("C001", DuesKind::Receipt)
            .unwrap()
            .rows
            .is_empty());
        // A call may still decline.
        assert!(everywhere
            .ajax(AjaxQuery::dues_summary().send_token(false))
            .is_err());
    }
}
