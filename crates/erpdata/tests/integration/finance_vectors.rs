//! Runs `tests/vectors/aging.json` and `credit-status.json`: tables' rows
//! decoded with the core's typing, then aged or set against credit limits.

use crate::common;

use erpdata::{
    aging, credit_status, AgingOptions, Batch, Cell, Config, DeclaredSchema, DecoderOptions,
    TableDecoder, TypedRows,
};
use serde_json::Value;

/// The batches of a success answer whose `data` is `data`.
fn decode(data: &str, typing: DecoderOptions) -> Vec<Batch> {
    let config = Config::builder("https://erp.example.com/").build().unwrap();
    let body = format!(r#"{{"status":"success","data":{data}}}"#);
    let mut decoder = TableDecoder::new(&config, 200, typing);
    let mut batches = decoder.feed(body.as_bytes()).unwrap();
    batches.extend(decoder.finish().unwrap().batches);
    batches
}

/// A case's expected report, or its expected error.
fn check(name: &str, case: &Value, result: erpdata::Result<TypedRows>) {
    if let Some(expected) = case.get("expect_error") {
        let err = result.expect_err(name);
        assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
        assert_eq!(err.field(), expected["field"].as_str(), "{name}: {err}");
        return;
    }
    let report = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        common::schema_json(&report.schema),
        case["expect"]["schema"],
        "{name}"
    );
    assert_eq!(
        common::rows_json(&report.rows),
        case["expect"]["rows"],
        "{name}"
    );
}

#[test]
fn credit_status_vectors() {
    let cases = common::cases("credit-status");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let accounts = decode(
            case["accounts"].as_str().unwrap(),
            DecoderOptions::default(),
        );
        let dues = decode(case["dues"].as_str().unwrap(), DecoderOptions::default());
        let pay_days: Vec<(String, Cell)> = case["pay_days"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let cell = match &p[1] {
                    Value::Null => Cell::Null,
                    v => Cell::Number(v["$number"].as_str().unwrap().to_owned()),
                };
                (p[0].as_str().unwrap().to_owned(), cell)
            })
            .collect();
        let as_of = case["as_of"].as_str().unwrap();
        let result = match case.get("acids").and_then(Value::as_array) {
            Some(acids) => {
                let acids: Vec<String> = acids
                    .iter()
                    .map(|a| a.as_str().unwrap().to_owned())
                    .collect();
                erpdata::credit_status_of(&accounts, &dues, &pay_days, as_of, &acids)
            }
            None => credit_status(&accounts, &dues, &pay_days, as_of),
        };
        check(name, case, result);
    }
    eprintln!("{} credit status vectors passed", cases.len());
}

#[test]
fn a_pay_days_text_that_is_no_number_is_refused_naming_its_account() {
    let accounts = decode(
        r#"[{"acid":"C1","credit_limit":"10.00"}]"#,
        DecoderOptions::default(),
    );
    let status = |days: Cell| credit_status(&accounts, &[], &[("C1".into(), days)], "2025-07-01");
    for bad in ["n/a", "", " 12", "NaN", "1,5", "+1"] {
        let err = status(Cell::Number(bad.into())).unwrap_err();
        assert_eq!(err.field(), Some("pay_days"), "{bad:?}: {err}");
        assert!(
            err.to_string()
                .contains(&format!("\"C1\": {bad:?} is not a number")),
            "{err}"
        );
    }
    let err = status(Cell::String("12".into())).unwrap_err();
    assert_eq!(err.field(), Some("pay_days"), "{err}");
    // Numbers as JSON writes them are taken, their text kept as given.
    for fine in ["12.5", "1.0e-5", "1E+2", "-3"] {
        let report = status(Cell::Number(fine.into())).unwrap();
        assert_eq!(
            common::rows_json(&report.rows)[0]["avg_pay_days"]["$number"],
            fine
        );
    }
}

#[test]
fn aging_vectors() {
    let cases = common::cases("aging");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let mut typing = DecoderOptions::default();
        if let Some(schema) = case.get("schema").and_then(Value::as_object) {
            let pairs = schema
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap()));
            typing.schema = DeclaredSchema::parse("schema", pairs).unwrap();
        }
        let batches = decode(case["data"].as_str().unwrap(), typing);

        let o = &case["options"];
        let mut options = AgingOptions::new(o["as_of"].as_str().unwrap());
        if let Some(b) = o.get("buckets") {
            options.buckets = b
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
        }
        options.due_date_column = o["due_date_column"].as_str().map(str::to_owned);
        options.balance_column = o["balance_column"].as_str().map(str::to_owned);

        check(name, case, aging(&batches, &options));
    }
    eprintln!("{} aging vectors passed", cases.len());
}

#[test]
fn pay_days_vectors() {
    let cases = common::cases("pay-days");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let result = erpdata::pay_days_of_text(
            case["acid"].as_str().unwrap(),
            case["answer"].as_str().unwrap().as_bytes(),
        );
        if let Some(expected) = case.get("expect_error") {
            let err = result.expect_err(name);
            assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
            assert_eq!(err.field(), expected["field"].as_str(), "{name}: {err}");
            let needle = expected["contains"].as_str().unwrap();
            assert!(err.to_string().contains(needle), "{name}: {err}");
            continue;
        }
        let cell = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(common::cell_json(&cell), case["expect"], "{name}");
    }
    eprintln!("{} pay days vectors passed", cases.len());
}

#[test]
fn account_ids_vectors() {
    let cases = common::cases("account-ids");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let accounts = decode(
            case["accounts"].as_str().unwrap(),
            DecoderOptions::default(),
        );
        let kind = match case["kind"].as_str().unwrap() {
            "receipt" => erpdata::DuesKind::Receipt,
            _ => erpdata::DuesKind::Payment,
        };
        let result = erpdata::account_ids(&accounts, kind);
        if let Some(expected) = case.get("expect_error") {
            let err = result.expect_err(name);
            assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
            assert_eq!(err.field(), expected["field"].as_str(), "{name}: {err}");
            continue;
        }
        assert_eq!(
            serde_json::json!(result.unwrap_or_else(|e| panic!("{name}: {e}"))),
            case["expect"],
            "{name}"
        );
    }
    eprintln!("{} account id vectors passed", cases.len());
}
