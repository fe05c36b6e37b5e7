//! Runs `tests/vectors/config.json`: a client's settings given in code and
//! read from the `ERPDATA_*` variables for those not given, as every
//! binding builds them (`ConfigBuilder::new`, the settings given,
//! `or_from_vars`, `build`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;

use erpdata::{Config, Error};
use serde_json::{json, Value};

use crate::common;

/// The variable each setting is read from.
const VARIABLES: [(&str, &str); 6] = [
    ("base_url", erpdata::BASE_URL_VAR),
    ("project", erpdata::PROJECT_VAR),
    ("project_folder", erpdata::PROJECT_FOLDER_VAR),
    ("access_token", erpdata::ACCESS_TOKEN_VAR),
    ("company_id", erpdata::COMPANY_ID_VAR),
    ("year_id", erpdata::YEAR_ID_VAR),
];

/// The case's config, and the variables the core asked for.
fn build(case: &Value) -> (Result<Config, Error>, Vec<String>) {
    let settings = case["settings"].as_object().unwrap();
    let vars: HashMap<String, OsString> = case["vars"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), OsString::from(v.as_str().unwrap())))
        .collect();
    let asked = RefCell::new(Vec::new());
    let lookup = |name: &str| {
        asked.borrow_mut().push(name.to_owned());
        vars.get(name).cloned()
    };
    let config = common::builder_from(settings)
        .or_from_vars(lookup)
        .and_then(|b| b.build());
    (config, asked.into_inner())
}

fn shown(config: &Config) -> Value {
    json!({
        "base_url": config.base_url().as_str(),
        "project": config.project(),
        "project_folder": config.project_folder(),
        "company_id": config.company_id().map(|c| c.as_str()),
        "year_id": config.year_id().map(|y| y.as_str()),
        "has_access_token": config.has_access_token(),
    })
}

#[test]
fn config_vectors() {
    for case in common::cases("config") {
        let name = case["name"].as_str().unwrap();
        let (config, asked) = build(&case);
        let settings = case["settings"].as_object().unwrap();
        for (setting, variable) in VARIABLES {
            assert!(
                !(settings.contains_key(setting) && asked.iter().any(|a| a == variable)),
                "{name}: read {variable} though {setting} was given"
            );
        }
        match (config, case.get("expect"), case.get("expect_error")) {
            (Ok(config), Some(expect), None) => assert_eq!(&shown(&config), expect, "{name}"),
            (Err(err), None, Some(expected)) => {
                assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
                assert_eq!(err.field(), expected["field"].as_str(), "{name}: {err}");
                let text = format!("{err} {err:?}");
                common::assert_message_contains(expected, &err.to_string(), name);
                common::assert_not_contains(expected, &text, name);
            }
            (got, _, _) => panic!("{name}: got {got:?}"),
        }
    }
}
