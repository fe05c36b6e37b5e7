//! Runs `tests/vectors/catalogue.json` (each operation by name, its
//! arguments checked by its entry, the request it builds) and
//! `tests/vectors/plans.json` (flows over many calls, their results handed
//! back last started first).

use crate::common;

use erpdata::{
    operation, AgingPlan, Arg, Args, Config, CreditStatusPlan, DecoderOptions, Error, Plan,
    PlanStep,
};
use serde_json::{Map, Value};

fn config(c: &Map<String, Value>) -> Config {
    let mut b = Config::builder(c["base_url"].as_str().unwrap());
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let Some(v) = c.get("project") {
        b = b.project(text(v));
    }
    if let Some(v) = c.get("access_token") {
        b = b.access_token(text(v));
    }
    if let Some(v) = c.get("company_id") {
        b = b.company_id(text(v));
    }
    if let Some(v) = c.get("year_id") {
        b = b.year_id(text(v));
    }
    b.build().unwrap()
}

/// A JSON argument as a binding would hand it over, by shape.
fn arg(v: &Value) -> Arg {
    match v {
        Value::String(s) => Arg::Text(s.clone()),
        Value::Bool(b) => Arg::Flag(*b),
        Value::Number(n) => n
            .as_i64()
            .map(Arg::Int)
            .unwrap_or_else(|| Arg::Unsupported("float".into())),
        Value::Array(items) => Arg::List(items.iter().map(arg).collect()),
        Value::Object(o) => {
            if let Some(Value::String(d)) = o.get("$date") {
                Arg::Text(d.clone())
            } else if let Some(Value::String(d)) = o.get("$datetime") {
                Arg::DateTime(d.clone())
            } else {
                Arg::Pairs(o.iter().map(|(k, v)| (k.clone(), arg(v))).collect())
            }
        }
        Value::Null => Arg::Unsupported("null".into()),
    }
}

fn args(v: &Value) -> Args {
    let mut out = Args::new();
    for (k, v) in v.as_object().unwrap() {
        out.set(k.clone(), arg(v));
    }
    out
}

fn check_error(name: &str, expected: &Value, err: &Error) {
    assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
    if let Some(field) = expected.get("field") {
        assert_eq!(err.field(), field.as_str(), "{name}: {err}");
    }
    common::assert_message_contains(expected, &err.to_string(), name);
    common::assert_not_contains(expected, &format!("{err} {err:?}"), name);
    if let Some(status) = expected.get("status") {
        assert_eq!(
            Some(status.as_u64().unwrap() as u16),
            err.status_code(),
            "{name}"
        );
    }
}

fn request_json(request: &http::Request<erpdata::RequestBody>) -> Value {
    serde_json::json!({
        "method": request.method().as_str(),
        "url": request.uri().to_string(),
        "body": String::from_utf8(request.body().to_vec()).unwrap(),
    })
}

#[test]
fn catalogue_vectors() {
    for case in common::cases("catalogue") {
        let name = case["name"].as_str().unwrap();
        let config = config(case["config"].as_object().unwrap());
        let result = operation(case["operation"].as_str().unwrap())
            .and_then(|op| config.invoke(op, &args(&case["args"])))
            .and_then(|inv| inv.request(&config));
        if let Some(expected) = case.get("expect_error") {
            check_error(name, expected, &result.expect_err(name));
            continue;
        }
        let request = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = &case["expect"];
        assert_eq!(request_json(&request)["method"], expect["method"], "{name}");
        assert_eq!(request_json(&request)["url"], expect["url"], "{name}");
        assert_eq!(request_json(&request)["body"], expect["body"], "{name}");
        let content_type = request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(
            content_type.as_deref(),
            expect["content_type"].as_str(),
            "{name}"
        );
    }
}

fn plan_of(config: &Config, kind: &str, a: &Value) -> erpdata::Result<Plan> {
    let get = |k: &str| a.get(k).map(arg);
    let concurrency = a["concurrency"].as_i64().unwrap();
    let options = DecoderOptions::default();
    match kind {
        "dues_table" => Plan::dues_table(
            config,
            &get("acids").unwrap(),
            &get("kind").unwrap(),
            concurrency,
            options,
        ),
        "aging" => {
            let plan = AgingPlan {
                kind: get("kind").unwrap(),
                accounts: get("accounts"),
                as_of: get("as_of").unwrap(),
                buckets: get("buckets"),
                accounts_table: get("accounts_table"),
                company_id: get("company_id"),
                year_id: get("year_id"),
                concurrency,
            };
            Plan::aging(config, &plan, options)
        }
        "credit_status" => {
            let plan = CreditStatusPlan {
                accounts: get("accounts"),
                as_of: get("as_of").unwrap(),
                pay_days: get("pay_days").unwrap_or(Arg::Flag(true)),
                accounts_table: get("accounts_table"),
                company_id: get("company_id"),
                year_id: get("year_id"),
                concurrency,
            };
            Plan::credit_status(config, &plan, options)
        }
        other => panic!("unknown plan {other}"),
    }
}

/// Runs a plan case; the calls still running are completed last started
/// first. Returns the plan's result and the requests it made.
fn run(case: &Value) -> (erpdata::Result<erpdata::TypedRows>, usize) {
    let name = case["name"].as_str().unwrap();
    let config = config(case["config"].as_object().unwrap());
    let calls = case["calls"].as_array().unwrap();
    let mut plan = match plan_of(&config, case["plan"].as_str().unwrap(), &case["args"]) {
        Ok(plan) => plan,
        Err(e) => return (Err(e), 0),
    };
    let concurrency = case["args"]["concurrency"].as_u64().unwrap() as usize;
    let mut running = Vec::new();
    let mut made = 0;
    loop {
        match plan.next() {
            PlanStep::Call(call) => {
                let request = request_json(&call.invocation.request(&config).unwrap());
                let listed = calls
                    .iter()
                    .find(|c| c["request"] == request)
                    .unwrap_or_else(|| panic!("{name}: an unlisted request {request}"));
                made += 1;
                running.push((call, listed.clone()));
                assert!(running.len() <= concurrency, "{name}: over the concurrency");
                assert_eq!(plan.running(), running.len(), "{name}");
            }
            PlanStep::Wait => {
                let (call, listed) = running.pop().expect("a call runs while the plan waits");
                let status = listed["response"]["status"].as_u64().unwrap() as u16;
                let body = listed["response"]["body"].as_str().unwrap().as_bytes();
                let output = call.invocation.parse(&config, status, body, call.options());
                plan.done(call.id, output);
            }
            PlanStep::Done(rows) => return (Ok(rows), made),
            PlanStep::Failed(err) => return (Err(err), made),
        }
    }
}

#[test]
fn plan_vectors() {
    let mut missing = Vec::new();
    for case in common::cases("plans") {
        let name = case["name"].as_str().unwrap();
        let (result, made) = run(&case);
        if let Some(expected) = case.get("expect_error") {
            check_error(name, expected, &result.expect_err(name));
            continue;
        }
        let rows = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            made,
            case["calls"].as_array().unwrap().len(),
            "{name}: calls made"
        );
        let mut got = serde_json::json!({
            "schema": common::schema_json(&rows.schema),
            "rows": common::rows_json(&rows.rows),
        });
        // `notices` is left out of a case where there are none.
        if !rows.notices.is_empty() {
            got["notices"] = serde_json::json!(rows.notices);
        }
        match case.get("expect") {
            Some(expect) => assert_eq!(&got, expect, "{name}"),
            None => missing.push(serde_json::json!({"name": name, "expect": got})),
        }
    }
    assert!(
        missing.is_empty(),
        "cases without an expectation: {}",
        serde_json::to_string(&missing).unwrap()
    );
}

/// `Plan::dues_each` asks what `dues_table` asks (the first case's calls)
/// and keeps each account's dues on their own, in the order asked.
#[test]
fn dues_each_keeps_each_accounts_dues() {
    let case = common::cases("plans")
        .into_iter()
        .find(|c| c["plan"] == "dues_table" && c.get("expect").is_some())
        .unwrap();
    let config = config(case["config"].as_object().unwrap());
    let a = &case["args"];
    let mut plan = Plan::dues_each(
        &config,
        &arg(&a["acids"]),
        &arg(&a["kind"]),
        a["concurrency"].as_i64().unwrap(),
        DecoderOptions::default(),
    )
    .unwrap();
    let mut running = Vec::new();
    loop {
        match plan.next() {
            PlanStep::Call(call) => running.push(call),
            PlanStep::Wait => {
                let call = running.pop().unwrap();
                let request = request_json(&call.invocation.request(&config).unwrap());
                let listed = case["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["request"] == request)
                    .unwrap();
                let body = listed["response"]["body"].as_str().unwrap().as_bytes();
                let output = call.invocation.parse(&config, 200, body, call.options());
                plan.done(call.id, output);
            }
            PlanStep::Done(rows) => {
                assert!(rows.rows.is_empty(), "no joined table");
                break;
            }
            PlanStep::Failed(e) => panic!("{e}"),
        }
    }
    let dues = plan.take_dues();
    let acids: Vec<&str> = dues.iter().map(|d| d.acid.as_str()).collect();
    assert_eq!(acids, ["C001", "C002"]);
    assert_eq!(dues[0].rows.len(), 2);
    assert_eq!(dues[1].rows.len(), 1);
    assert!(plan.take_dues().is_empty(), "taken once");
}
