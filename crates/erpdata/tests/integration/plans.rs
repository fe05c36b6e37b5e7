//! The core's plans through both ready clients against the sandbox: aging
//! and credit status equal to their steps done one by one, the first
//! failure as the result, bad input refused with nothing sent.

use crate::clients;
use crate::sandbox;

use clients::{Client, FLAVOURS};
use erpdata::{
    account_ids, aging, credit_status, pay_days, AgingOptions, AgingPlan, Arg, Cell,
    CreditStatusPlan, DuesKind, TableBatches, TableDecoder,
};
use sandbox::{config, quick, Sandbox};

/// The account table's batches, as a plan reads them.
fn accounts(c: &Client, url: &str) -> TableBatches {
    let table = c.table("account").unwrap();
    let body = serde_json::json!({
        "status": "success",
        "data": table.rows.iter().map(|r| {
            r.fields.iter().map(|(k, v)| (k.clone(), match v {
                Cell::Number(n) => serde_json::Value::String(n.clone()),
                Cell::Int(n) => serde_json::Value::String(n.to_string()),
                Cell::String(s) => serde_json::Value::String(s.clone()),
                Cell::Null => serde_json::Value::Null,
                other => serde_json::Value::String(format!("{other:?}")),
            })).collect::<serde_json::Map<_, _>>()
        }).collect::<Vec<_>>(),
    });
    let mut decoder = TableDecoder::new(&config(url), 200, Default::default());
    let mut batches = decoder.feed(body.to_string().as_bytes()).unwrap();
    batches.extend(decoder.finish().unwrap().batches);
    TableBatches {
        batches,
        ..Default::default()
    }
}

#[test]
fn aging_and_credit_status_equal_their_steps() {
    let sb = Sandbox::start();
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config(&sb.url), quick(0)).unwrap();
        let customers = account_ids(&accounts(&c, &sb.url).batches, DuesKind::Receipt).unwrap();
        assert!(customers.len() > 3, "{flavour}: the sandbox has customers");
        let refs: Vec<&str> = customers.iter().map(String::as_str).collect();
        let dues = c.dues_table(&refs, DuesKind::Receipt, 4).unwrap();

        let by_plan = c
            .aging(&AgingPlan::new(DuesKind::Receipt, "2025-12-31"))
            .unwrap();
        // The plan gives every customer a row, zeros where nothing is owed:
        // the steps are told the same accounts.
        let mut options = AgingOptions::new("2025-12-31");
        options.accounts = Some(customers.clone());
        let by_steps = aging(&dues.batches, &options).unwrap();
        assert_eq!(by_plan, by_steps, "{flavour}: aging");

        let days: Vec<(String, Cell)> = customers
            .iter()
            .map(|a| {
                let answer = match &c {
                    Client::Blocking(b) => b.avg_pay_days(a.as_str()).unwrap(),
                    Client::Async(x, rt) => rt.block_on(x.avg_pay_days(a.as_str())).unwrap(),
                };
                (a.clone(), pay_days(a, &answer).unwrap())
            })
            .collect();
        let by_plan = c
            .credit_status(&CreditStatusPlan::new("2025-12-31"))
            .unwrap();
        let by_steps = credit_status(
            &accounts(&c, &sb.url).batches,
            &dues.batches,
            &days,
            "2025-12-31",
        )
        .unwrap();
        assert_eq!(by_plan.rows, by_steps.rows, "{flavour}: credit status");
        assert_eq!(by_plan.rows.len(), customers.len(), "{flavour}");
    }
}

#[test]
fn plans_refuse_bad_input_and_report_the_first_failure() {
    let sb = Sandbox::start();
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config(&sb.url), quick(0)).unwrap();
        let mut plan = AgingPlan::new(DuesKind::Receipt, "2025-12-31");
        plan.buckets = Some(Arg::List(vec![Arg::Int(60), Arg::Int(30)]));
        let err = c.aging(&plan).unwrap_err();
        assert_eq!(err.field(), Some("buckets"), "{flavour}: {err}");

        let mut plan = CreditStatusPlan::new("2025-12-31");
        plan.accounts_table = Some(Arg::Text("no_such_table".into()));
        let err = c.credit_status(&plan).unwrap_err();
        assert_eq!(err.kind(), "service", "{flavour}: {err}");

        let mut plan = AgingPlan::new(DuesKind::Payment, "2025-12-31");
        plan.accounts = Some(Arg::Text("S001".into()));
        let err = c.aging(&plan).unwrap_err();
        assert_eq!(err.field(), Some("accounts"), "{flavour}: {err}");
    }
}

/// The plans' methods set what a caller otherwise writes as arguments
/// (`Arg::List` of `Arg::Text`...), whose shapes are only checked when
/// the plan runs: ids as `Id` takes them, buckets as day counts.
#[test]
fn plans_are_built_with_typed_methods() {
    let plan = AgingPlan::new(DuesKind::Payment, "2025-12-31")
        .accounts(["S001", "S002"])
        .buckets([15, 45])
        .accounts_table("account")
        .company_id(1)
        .year_id(2025)
        .concurrency(2);
    let mut by_fields = AgingPlan::new(DuesKind::Payment, "2025-12-31");
    by_fields.accounts = Some(Arg::List(vec!["S001".into(), "S002".into()]));
    by_fields.buckets = Some(Arg::List(vec![Arg::Int(15), Arg::Int(45)]));
    by_fields.accounts_table = Some("account".into());
    by_fields.company_id = Some("1".into());
    by_fields.year_id = Some("2025".into());
    by_fields.concurrency = 2;
    assert_eq!(plan, by_fields);

    let credit = CreditStatusPlan::new("2025-12-31")
        .accounts(vec![String::from("C001")])
        .pay_days(false)
        .concurrency(1);
    let mut by_fields = CreditStatusPlan::new("2025-12-31");
    by_fields.accounts = Some(Arg::List(vec!["C001".into()]));
    by_fields.pay_days = Arg::Flag(false);
    by_fields.concurrency = 1;
    assert_eq!(credit, by_fields);

    let sb = Sandbox::start();
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config(&sb.url), quick(0)).unwrap();
        let aged = c.aging(&plan).unwrap();
        let columns: Vec<&str> = aged.schema.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            columns,
            ["acid", "current", "1-15", "16-45", "46+", "undated", "total"],
            "{flavour}"
        );
        let acids: Vec<&Cell> = aged.rows.iter().filter_map(|r| r.get("acid")).collect();
        assert_eq!(
            acids,
            [&Cell::String("S001".into()), &Cell::String("S002".into())],
            "{flavour}"
        );
        let status = c.credit_status(&credit).unwrap();
        assert_eq!(status.rows.len(), 1, "{flavour}");
        let days = status.rows[0].get("avg_pay_days");
        assert!(
            matches!(days, None | Some(Cell::Null)),
            "{flavour}: {days:?}"
        );
    }
}
