//! Runs `tests/vectors/retry.json` and `tests/vectors/redirects.json`.

use crate::common;

use std::time::Duration;

use erpdata::{
    Config, Decision, DuesKind, DuesQuery, Error, Method, Outcome, RetryPolicy, TableQuery,
    TransportKind,
};
use serde_json::Value;

#[test]
fn retry_vectors() {
    for case in common::cases("retry") {
        let name = case["name"].as_str().unwrap();
        let mut policy = match case.get("max_retries") {
            Some(n) => RetryPolicy::with_max_retries(n.as_u64().unwrap() as u32),
            None => RetryPolicy::default(),
        };
        if let Some(ms) = case.get("max_retry_after_ms") {
            policy.max_retry_after = Duration::from_millis(ms.as_u64().unwrap());
        }
        let o = &case["outcome"];
        let outcome = match o.get("transport") {
            Some(k) => Outcome::Transport(TransportKind::from_name(k.as_str().unwrap())),
            None => Outcome::Status {
                status: o["status"].as_u64().unwrap() as u16,
                retry_after: o.get("retry_after").and_then(Value::as_str),
            },
        };
        let now = case
            .get("now")
            .map(|n| httpdate::parse_http_date(n.as_str().unwrap()).unwrap());
        let decision = policy.decide(
            case["retries_done"].as_u64().unwrap() as u32,
            outcome,
            case["random"].as_f64().unwrap(),
            now,
        );
        let expected = match case["expect"].get("retry_after_ms") {
            Some(ms) => Decision::RetryAfter(Duration::from_millis(ms.as_u64().unwrap())),
            None => Decision::Stop,
        };
        assert_eq!(decision, expected, "{name}");
    }
}

#[test]
fn redirect_vectors() {
    for case in common::cases("redirects") {
        let name = case["name"].as_str().unwrap();
        let c = &case["config"];
        let config = Config::builder(c["base_url"].as_str().unwrap())
            .project(c["project"].as_str().unwrap())
            .access_token(c["access_token"].as_str().unwrap())
            .company_id(c["company_id"].as_i64().unwrap())
            .year_id(c["year_id"].as_str().unwrap())
            .build()
            .unwrap();
        let args = &case["args"];
        let sent = if case["call"] == "dues" {
            let kind: DuesKind = args["kind"].as_str().unwrap().parse().unwrap();
            config
                .dues_request(&DuesQuery::new(args["acid"].as_str().unwrap(), kind))
                .unwrap()
        } else {
            let mut q = TableQuery::new(args["table"].as_str().unwrap());
            if let Some(m) = args.get("method") {
                q = q.method(m.as_str().unwrap().parse::<Method>().unwrap());
            }
            config.table_request(&q).unwrap()
        };
        let resp = &case["response"];
        let result = config.follow_redirect(
            &sent,
            resp["status"].as_u64().unwrap() as u16,
            resp.get("location").and_then(Value::as_str),
            case["hops_done"].as_u64().unwrap() as u32,
        );
        if let Some(e) = case.get("expect_error") {
            let err = result.expect_err(name);
            let text = format!("{err} {err:?}");
            assert!(
                matches!(err, Error::HttpStatus { status, .. } if u64::from(status) == e["status"].as_u64().unwrap()),
                "{name}: {err:?}"
            );
            assert!(
                text.contains(e["message_contains"].as_str().unwrap()),
                "{name}: {text}"
            );
            common::assert_not_contains(e, &text, name);
            continue;
        }
        let next = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        match (next, &case["expect"]["follow"]) {
            (None, Value::Null) => {}
            (Some(next), f) if f.is_object() => {
                assert_eq!(next.method().as_str(), f["method"], "{name}");
                assert_eq!(next.uri().to_string(), f["url"].as_str().unwrap(), "{name}");
                assert_eq!(
                    String::from_utf8(next.body().to_vec()).unwrap(),
                    f["body"].as_str().unwrap(),
                    "{name}"
                );
            }
            (got, f) => panic!("{name}: got {got:?}, expected {f}"),
        }
    }
}
