//! Feature `serde`: a sandbox answer decoded by the blocking client and
//! serialized as a web service would answer it (`Json(table)` in axum),
//! compared with the JSON text expected.

use crate::sandbox;

use erpdata::BlockingClient;
use sandbox::{config, quick, Sandbox, TOKEN};

fn client(base: &str) -> BlockingClient {
    BlockingClient::with_options(config(base), quick(2)).unwrap()
}

#[test]
fn dues_serialize_as_row_objects_with_exact_decimals() {
    let sb = Sandbox::start();
    let dues = client(&sb.url).receivables("C001").unwrap();
    let text = serde_json::to_string(&dues).unwrap();
    let expected = concat!(
        r#"[{"doc_no":"INV-2025-0001","date":"2025-01-01","due_date":"2025-01-31","amount":"44243.33","paid":"0.00","balance":"44243.33"},"#,
        r#"{"doc_no":"INV-2025-0006","date":"2025-02-19","due_date":"2025-03-21","amount":"1924637.17","paid":"1327999.00","balance":"596638.17"},"#,
        r#"{"doc_no":"INV-2025-0016","date":"2025-05-17","due_date":"2025-06-16","amount":"6322.75","paid":"0.00","balance":"6322.75"},"#,
        r#"{"doc_no":"INV-2025-0021","date":"2025-07-04","due_date":"2025-08-03","amount":"102610.75","paid":"26678.00","balance":"75932.75"},"#,
        r#"{"doc_no":"INV-2025-0031","date":"2025-09-29","due_date":"2025-10-29","amount":"6270.06","paid":"0.00","balance":"6270.06"},"#,
        r#"{"doc_no":"INV-2025-0036","date":"2025-11-13","due_date":"2025-12-13","amount":"16333.71","paid":"12250.00","balance":"4083.71"}]"#,
    );
    assert_eq!(text, expected);
    assert!(
        !text.contains(TOKEN),
        "the token is not in what a table holds"
    );
}

#[test]
fn a_table_serializes_alike_however_the_service_typed_its_values() {
    let sb = Sandbox::start();
    let table = client(&sb.url).table("account").unwrap();
    let text = serde_json::to_string(&table).unwrap();
    let first = concat!(
        r#"[{"compid":1,"acid":"C001","name":"Acme Traders","kind":"customer","city":"Springfield","#,
        r#""credit_limit":"500000.00","credit_days":30,"active":1,"created_at":"2019-04-01 10:15:00"},"#,
        r#"{"compid":1,"acid":"C002","name":"Smith & Sons","kind":"customer","city":"Leeds","#,
        r#""credit_limit":"250000.00","credit_days":45,"active":1,"created_at":"2019-06-12 14:02:31"},"#,
        r#"{"compid":1,"acid":"C003","name":"Müller GmbH","kind":"customer","city":"München","#,
    );
    assert!(text.starts_with(first), "{text}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(rows.len(), table.rows.len());
    assert!(!text.contains(TOKEN));

    // Every value a string (`--style strings`, as some PHP code sends
    // them), or money and integers as JSON numbers (`native`): the
    // same types, so the same JSON.
    for style in ["strings", "native"] {
        let sb = Sandbox::start_with(&["--style", style]);
        let other = client(&sb.url).table("account").unwrap();
        assert_eq!(
            serde_json::to_string(&other).unwrap(),
            text,
            "--style {style}"
        );
    }
}
