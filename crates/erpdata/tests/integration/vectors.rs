//! Runs every case of `tests/vectors/*.json` against the core.

use crate::common;

use erpdata::{AjaxQuery, AjaxValue, Config, DuesKind, DuesQuery, Error, Method, TableQuery};
use serde_json::Value;

/// A response case's config (its own or the default), status and body.
fn response_of(case: &Value) -> (Config, u16, Vec<u8>) {
    let status = case["response"]["status"].as_u64().unwrap() as u16;
    (common::case_config(case), status, common::body(case))
}

fn dues_query(args: &Value) -> Result<DuesQuery, Error> {
    let kind: DuesKind = args["kind"].as_str().unwrap().parse()?;
    let mut q = DuesQuery::new(common::id(&args["acid"]), kind);
    if let Some(v) = args.get("send_token") {
        q = q.send_token(v.as_bool().unwrap());
    }
    if let Some(v) = args.get("method") {
        q = q.method(v.as_str().unwrap().parse::<Method>()?);
    }
    Ok(q)
}

fn text(args: &Value, key: &str) -> String {
    args[key].as_str().unwrap().to_owned()
}

/// A case's `ajax.php` function call (`call` other than dues and table).
fn ajax_query(call: &str, args: &Value) -> Result<AjaxQuery, Error> {
    let mut q = match call {
        "dues_summary" => AjaxQuery::dues_summary(),
        "avg_pay_days" => AjaxQuery::avg_pay_days(common::id(&args["acid"])),
        "net_profit" => AjaxQuery::net_profit(text(args, "start"), text(args, "end")),
        "gross_profit" => AjaxQuery::gross_profit(text(args, "start"), text(args, "end")),
        "schedule_accounts" => AjaxQuery::schedule_accounts(
            text(args, "schedule"),
            text(args, "start"),
            text(args, "end"),
        ),
        "ajax" => {
            let params = args
                .get("params")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| (p[0].as_str().unwrap(), p[1].as_str().unwrap()));
            AjaxQuery::new(text(args, "func"), params)
        }
        other => panic!("unknown call {other}"),
    };
    if let Some(v) = args.get("send_token") {
        q = q.send_token(v.as_bool().unwrap());
    }
    if let Some(v) = args.get("method") {
        q = q.method(v.as_str().unwrap().parse::<Method>()?);
    }
    Ok(q)
}

fn build_request(case: &Value) -> Result<http::Request<erpdata::RequestBody>, Error> {
    let config = common::config_from(case["config"].as_object().unwrap())?;
    let args = &case["args"];
    match case["call"].as_str().unwrap() {
        "dues" => config.dues_request(&dues_query(args)?),
        "table" => {
            let mut q = TableQuery::new(args["table"].as_str().unwrap());
            if let Some(v) = args.get("company_id") {
                q = q.company_id(common::id(v));
            }
            if let Some(v) = args.get("year_id") {
                q = q.year_id(common::id(v));
            }
            if let Some(v) = args.get("method") {
                q = q.method(v.as_str().unwrap().parse::<Method>()?);
            }
            config.table_request(&q)
        }
        other => config.ajax_request(&ajax_query(other, args)?),
    }
}

#[test]
fn request_vectors() {
    let cases = common::cases("requests");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let result = build_request(case);
        if let Some(expected) = case.get("expect_error") {
            match result {
                Err(Error::InvalidInput { field, .. }) => {
                    assert_eq!(field, expected["field"].as_str().unwrap(), "{name}")
                }
                other => panic!("{name}: expected invalid_input, got {other:?}"),
            }
            continue;
        }
        let req = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = &case["expect"];
        assert_eq!(req.method().as_str(), expected["method"], "{name}");
        assert_eq!(
            req.uri().to_string(),
            expected["url"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            String::from_utf8(req.body().to_vec()).unwrap(),
            expected["body"].as_str().unwrap(),
            "{name}"
        );
        let ct = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(ct.as_deref(), expected["content_type"].as_str(), "{name}");
    }
    eprintln!("{} request vectors passed", cases.len());
}

/// An ajax answer as the vectors write it: `shape` and its parts.
fn ajax_json(value: &AjaxValue) -> Value {
    match value {
        AjaxValue::Rows(t) => serde_json::json!({
            "shape": "rows", "schema": common::schema_json(&t.schema), "rows": common::rows_json(&t.rows),
        }),
        AjaxValue::Object { schema, fields } => serde_json::json!({
            "shape": "object", "schema": common::schema_json(schema),
            "fields": common::rows_json(std::slice::from_ref(fields))[0],
        }),
        AjaxValue::Value { column_type, cell } => serde_json::json!({
            "shape": "value", "type": column_type.name(), "value": common::cell_json(cell),
        }),
    }
}

#[test]
fn ajax_response_vectors() {
    let cases: Vec<Value> = common::cases("responses")
        .into_iter()
        .filter(|c| c["call"] == "ajax")
        .collect();
    assert!(!cases.is_empty());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (cfg, status, body) = response_of(case);
        let query = AjaxQuery::new(
            case["func"].as_str().unwrap(),
            Vec::<(String, String)>::new(),
        );
        let result = cfg.parse_ajax(&query, status, &body);
        if let Some(expected) = case.get("expect_error") {
            let err = match result {
                Err(e) => e,
                Ok(v) => panic!("{name}: expected an error, got {v:?}"),
            };
            check_error(name, expected, &err);
            continue;
        }
        let answer = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = &case["expect"];
        assert_eq!(answer.func, case["func"].as_str().unwrap(), "{name}");
        let got = ajax_json(&answer.value);
        let wrong: Vec<String> = got
            .as_object()
            .unwrap()
            .iter()
            .filter(|(key, value)| *value != &expected[key.as_str()])
            .map(|(key, value)| format!("{key}: got {value}, expected {}", expected[key.as_str()]))
            .collect();
        assert!(wrong.is_empty(), "{name}:\n{}", wrong.join("\n"));
        assert_eq!(Value::from(answer.notices), expected["notices"], "{name}");
        if let Some(raw) = expected.get("raw") {
            assert_eq!(answer.raw, raw.as_str().unwrap(), "{name}");
        }
    }
    eprintln!("{} ajax response vectors passed", cases.len());
}

#[test]
fn dues_table_vectors() {
    let cases = common::cases("dues-tables");
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let cfg = common::config();
        let dues: Vec<_> = case["dues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let q = dues_query(d).unwrap();
                cfg.parse_dues(&q, 200, d["body"].as_str().unwrap().as_bytes())
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
            })
            .collect();
        let result = cfg.dues_table(&dues, &Default::default());
        if let Some(expected) = case.get("expect_error") {
            let err = result.expect_err(name);
            assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
            assert_eq!(err.field(), expected["field"].as_str(), "{name}: {err}");
            continue;
        }
        let table = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(each) = case["expect"].get("dues_schemas") {
            let got: Vec<Value> = dues
                .iter()
                .map(|d| common::schema_json(&d.schema))
                .collect();
            assert_eq!(&Value::from(got), each, "{name}: each account's dues");
        }
        assert_eq!(
            common::schema_json(&table.schema),
            case["expect"]["schema"],
            "{name}"
        );
        assert_eq!(
            common::rows_json(&table.rows),
            case["expect"]["rows"],
            "{name}"
        );
        let in_batches: usize = table.batches.iter().map(|b| b.num_rows).sum();
        assert_eq!(in_batches, table.rows.len(), "{name}");
    }
    eprintln!("{} dues table vectors passed", cases.len());
}

fn check_error(name: &str, expected: &Value, err: &Error) {
    assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
    let text = format!("{err} {err:?}");
    if let Some(s) = expected.get("status") {
        match (err, s) {
            (Error::HttpStatus { status, .. }, Value::Number(n)) => {
                assert_eq!(u64::from(*status), n.as_u64().unwrap(), "{name}")
            }
            (Error::Service { status, .. }, Value::String(s)) => assert_eq!(status, s, "{name}"),
            _ => panic!("{name}: status {s} does not fit {err:?}"),
        }
    }
    common::assert_message_contains(expected, &err.to_string(), name);
    common::assert_not_contains(expected, &text, name);
}

/// Rows, notices, columns (tables) and raw text (dues) of a parsed answer.
type Parsed = (Value, Vec<String>, Option<Value>, Option<String>);

#[test]
fn response_vectors() {
    let cases: Vec<Value> = common::cases("responses")
        .into_iter()
        .filter(|c| c["call"] != "ajax")
        .collect();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (cfg, status, body) = response_of(case);
        let result: Result<Parsed, Error> = match case["call"].as_str().unwrap() {
            "table" => cfg.parse_table(status, &body).map(|t| {
                let cols = Value::from(t.columns.clone());
                (common::rows_json(&t.rows), t.notices, Some(cols), None)
            }),
            "dues" => {
                let q = dues_query(&case["dues"]).unwrap();
                cfg.parse_dues(&q, status, &body).map(|d| {
                    assert_eq!(d.acid, q.acid);
                    assert_eq!(d.kind, q.kind);
                    (common::rows_json(&d.rows), d.notices, None, Some(d.raw))
                })
            }
            other => panic!("unknown call {other}"),
        };
        if let Some(expected) = case.get("expect_error") {
            let err = match result {
                Err(e) => e,
                Ok(v) => panic!("{name}: expected an error, got {v:?}"),
            };
            check_error(name, expected, &err);
            continue;
        }
        let (rows, notices, columns, raw) = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = &case["expect"];
        assert_eq!(rows, expected["rows"], "{name}");
        assert_eq!(Value::from(notices), expected["notices"], "{name}");
        if let (Some(cols), Some(exp)) = (columns, expected.get("columns")) {
            assert_eq!(cols, *exp, "{name}");
        }
        if let (Some(raw), Some(exp)) = (raw, expected.get("raw")) {
            assert_eq!(raw, exp.as_str().unwrap(), "{name}");
        }
    }
    eprintln!("{} response vectors passed", cases.len());
}
