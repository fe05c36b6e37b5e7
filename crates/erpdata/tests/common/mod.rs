//! Reading `tests/vectors/*.json`, shared by the vector runners.
#![allow(dead_code)] // each test binary uses its own part

use std::path::PathBuf;

use erpdata::{Cell, Config, ConfigBuilder, Error, Id, Row, Schema};
use serde_json::{Map, Value};

/// The cases of every vector file whose name starts with `prefix`
/// (`"requests"` takes `requests.json` and any `requests-*.json`).
pub fn cases(prefix: &str) -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".json")
        })
        .collect();
    files.sort();
    let mut all = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        all.extend(doc["cases"].as_array().unwrap().iter().cloned());
    }
    assert!(!all.is_empty(), "no {prefix} vectors found");
    all
}

/// A case's response body: `body` as UTF-8 text, or `body_hex` for bytes
/// that are not.
pub fn body(case: &Value) -> Vec<u8> {
    let resp = &case["response"];
    match resp.get("body_hex") {
        Some(hex) => {
            let hex = hex.as_str().unwrap();
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()
        }
        None => resp["body"].as_str().unwrap().as_bytes().to_vec(),
    }
}

/// Checks an expected error's `not_contains` list (the token, mostly)
/// against everything the error shows.
/// Every part of an `expect_error`'s `message_contains` (one string or a
/// list) is in `message`.
pub fn assert_message_contains(expected: &Value, message: &str, name: &str) {
    let parts = match expected.get("message_contains") {
        None => return,
        Some(Value::Array(parts)) => parts.iter().collect(),
        Some(one) => vec![one],
    };
    for part in parts {
        let part = part.as_str().unwrap();
        assert!(message.contains(part), "{name}: {message} lacks {part:?}");
    }
}

pub fn assert_not_contains(expected: &Value, text: &str, name: &str) {
    for s in expected
        .get("not_contains")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        assert!(!text.contains(s.as_str().unwrap()), "{name}: {text}");
    }
}

/// The config the response vectors are parsed with (unless a case gives
/// its own): a fake token, so tests can check it never shows.
pub fn config() -> Config {
    Config::builder("https://erp.example.com/")
        .project("demo")
        .access_token("fake-token-for-tests")
        .build()
        .unwrap()
}

/// A response case's config: its own `config`, or [`config`].
pub fn case_config(case: &Value) -> Config {
    match case.get("config").and_then(Value::as_object) {
        Some(own) => config_from(own).unwrap(),
        None => config(),
    }
}

/// A vector's `config` object as a [`Config`].
pub fn config_from(c: &Map<String, Value>) -> Result<Config, Error> {
    builder_from(c).build()
}

/// A vector's `config` (or `settings`) object as a builder; keys left out
/// are not given.
pub fn builder_from(c: &Map<String, Value>) -> ConfigBuilder {
    let mut b = ConfigBuilder::new();
    if let Some(v) = c.get("base_url") {
        b = b.base_url(v.as_str().unwrap());
    }
    if let Some(v) = c.get("project") {
        b = b.project(v.as_str().unwrap());
    }
    if let Some(v) = c.get("project_folder") {
        b = b.project_folder(v.as_str().unwrap());
    }
    if let Some(v) = c.get("access_token") {
        b = b.access_token(v.as_str().unwrap());
    }
    if let Some(v) = c.get("company_id") {
        b = b.company_id(id(v));
    }
    if let Some(v) = c.get("year_id") {
        b = b.year_id(id(v));
    }
    if let Some(v) = c.get("allow_insecure_http") {
        b = b.allow_insecure_http(v.as_bool().unwrap());
    }
    if let Some(v) = c.get("ajax_token") {
        b = b.ajax_token(v.as_bool().unwrap());
    }
    b
}

/// An id as the vectors write it: a string stays a string, an integer an
/// integer.
pub fn id(v: &Value) -> Id {
    match v {
        Value::String(s) => Id::from(s.as_str()),
        Value::Number(n) => Id::from(n.as_i64().expect("integer id")),
        other => panic!("id must be a string or integer, got {other}"),
    }
}

/// A value as the vectors write it: numbers as `{"$number": text}`,
/// nested JSON as `{"$json": text}`, the rest as themselves.
pub fn cell_json(cell: &Cell) -> Value {
    match cell {
        Cell::Null => Value::Null,
        Cell::Bool(b) => Value::Bool(*b),
        Cell::Int(i) => serde_json::json!({ "$number": i.to_string() }),
        Cell::Number(t) => serde_json::json!({ "$number": t }),
        Cell::String(s) => Value::String(s.clone()),
        Cell::Json(t) => serde_json::json!({ "$json": t }),
    }
}

/// Rows as the vectors write them: objects of [`cell_json`] values.
pub fn rows_json(rows: &[Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                Value::Object(
                    r.fields
                        .iter()
                        .map(|(k, v)| (k.clone(), cell_json(v)))
                        .collect(),
                )
            })
            .collect(),
    )
}

/// A schema as the vectors write it: `[[name, type name], ...]`.
pub fn schema_json(schema: &Schema) -> Value {
    Value::Array(
        schema
            .iter()
            .map(|(name, t)| serde_json::json!([name, t.name()]))
            .collect(),
    )
}
