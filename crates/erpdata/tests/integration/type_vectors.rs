//! Runs every case of `tests/vectors/types.json` against the core's
//! decoder: each column's type and values, or the error.

use crate::common;

use common::config;
use erpdata::{
    unify_schemas, Batch, Column, ColumnData, DeclaredSchema, DecoderOptions, Error, TableDecoder,
};
use serde_json::{Map, Value};

fn options(case: &Value) -> Result<(DecoderOptions, bool), Error> {
    let o = case.get("options").cloned().unwrap_or(Value::Null);
    let mut options = DecoderOptions::default();
    if let Some(schema) = o.get("schema").and_then(Value::as_object) {
        options.schema = DeclaredSchema::parse(
            "schema",
            schema
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap())),
        )?;
    }
    if let Some(infer) = o.get("infer_strings") {
        options.infer_strings = infer.as_bool().unwrap();
    }
    if let Some(rows) = o.get("batch_rows") {
        options.batch_rows = rows.as_u64().unwrap() as usize;
    }
    let stream = if let Some(rows) = o.get("stream_batch_rows") {
        options.batch_rows = rows.as_u64().unwrap() as usize;
        options.one_schema = true;
        true
    } else {
        false
    };
    Ok((options, stream))
}

/// The columns of a case: a stream's batches (which must share one
/// schema) or a whole table's, unified.
fn decode(case: &Value) -> Result<Vec<Column>, Error> {
    let (options, stream) = options(case)?;
    let body = format!(
        r#"{{"status":"success","data":{}}}"#,
        case["data"].as_str().unwrap()
    );
    let mut decoder = TableDecoder::new(&config(), 200, options);
    let mut batches = decoder.feed(body.as_bytes())?;
    batches.extend(decoder.finish()?.batches);
    let schema = batches
        .iter()
        .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
    if stream {
        for b in &batches {
            assert_eq!(b.schema(), schema, "{}: one schema", case["name"]);
        }
    }
    let batches: Vec<Batch> = batches.iter().map(|b| b.cast(&schema).unwrap()).collect();
    Ok(schema
        .iter()
        .map(|(name, _)| {
            let parts: Vec<&Column> = batches.iter().map(|b| b.column(name).unwrap()).collect();
            concat(parts)
        })
        .collect())
}

/// One column of the batches' rows (test-only: through values).
fn concat(parts: Vec<&Column>) -> Column {
    let mut iter = parts.into_iter();
    let first = iter.next().unwrap().clone();
    iter.fold(first, |mut acc, c| {
        acc.data = append(acc.data, &c.data);
        acc
    })
}

fn append(a: ColumnData, b: &ColumnData) -> ColumnData {
    // Rebuilt from JSON texts: only the canonical values are compared.
    let mut texts = Vec::new();
    for data in [&a, b] {
        for i in 0..data.len() {
            texts.push(canonical(data, i));
        }
    }
    ColumnData::Json {
        values: {
            let mut t = erpdata::Texts::new();
            for v in &texts {
                t.push(v.as_deref().unwrap_or("\u{0}"));
            }
            t
        },
        validity: None,
    }
}

/// Row `i`'s canonical text, as the vectors write it.
fn canonical(data: &ColumnData, i: usize) -> Option<String> {
    if let ColumnData::Json {
        values,
        validity: None,
    } = data
    {
        // An `append`ed column: the texts themselves.
        let v = values.get(i);
        return (v != "\u{0}").then(|| v.to_owned());
    }
    if !data.is_valid(i) {
        return None;
    }
    Some(match (data, data.cell(i)) {
        (ColumnData::Decimal { values, scale, .. }, _) => {
            let v = values[i];
            let digits = v.unsigned_abs().to_string();
            let scale = *scale as usize;
            let digits = format!("{digits:0>width$}", width = scale + 1);
            let (int, frac) = digits.split_at(digits.len() - scale);
            let sign = if v < 0 { "-" } else { "" };
            if scale == 0 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac}")
            }
        }
        (ColumnData::Json { values, .. }, _) => values.get(i).to_owned(),
        (_, erpdata::Cell::Bool(b)) => b.to_string(),
        (_, erpdata::Cell::Int(n)) => n.to_string(),
        (_, erpdata::Cell::String(s) | erpdata::Cell::Number(s) | erpdata::Cell::Json(s)) => s,
        (_, erpdata::Cell::Null) => unreachable!(),
    })
}

#[test]
fn type_vectors() {
    let cases = common::cases("types");
    assert!(cases.len() >= 30);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let result = decode(case);
        match (case.get("expect"), result) {
            (Some(expect), Ok(columns)) => {
                let want: &Map<String, Value> = expect["columns"].as_object().unwrap();
                let mut got: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                got.sort_unstable();
                let names: Vec<&str> = want.keys().map(String::as_str).collect();
                assert_eq!(got, names, "{name}: columns");
                // Types come from the unified schema, before `append`.
                let (options, _) = options(case).unwrap();
                let types = types_of(case, options);
                for column in &columns {
                    let col_name = &column.name;
                    let spec = &want[col_name];
                    assert_eq!(
                        types[col_name.as_str()],
                        spec["type"],
                        "{name}: {col_name} type"
                    );
                    let values: Vec<Value> = (0..column.len())
                        .map(|i| canonical(&column.data, i).map_or(Value::Null, Value::String))
                        .collect();
                    assert_eq!(
                        Value::Array(values),
                        spec["values"],
                        "{name}: {col_name} values"
                    );
                }
            }
            (None, Err(err)) => {
                let e = &case["expect_error"];
                assert_eq!(err.kind(), e["kind"], "{name}: {err}");
                for part in e["message_contains"].as_array().unwrap() {
                    let part = part.as_str().unwrap();
                    assert!(err.to_string().contains(part), "{name}: {part:?} in {err}");
                }
            }
            (Some(_), Err(err)) => panic!("{name}: {err}"),
            (None, Ok(_)) => panic!("{name}: expected an error"),
        }
    }
}

fn types_of(case: &Value, options: DecoderOptions) -> std::collections::HashMap<String, Value> {
    let body = format!(
        r#"{{"status":"success","data":{}}}"#,
        case["data"].as_str().unwrap()
    );
    let mut decoder = TableDecoder::new(&config(), 200, options);
    let mut batches = decoder.feed(body.as_bytes()).unwrap();
    batches.extend(decoder.finish().unwrap().batches);
    batches
        .iter()
        .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()))
        .into_iter()
        .map(|(n, t)| (n, Value::String(t.name())))
        .collect()
}

/// A row whose value does not fit is not counted among the rows that
/// arrived before the error.
#[test]
fn a_refused_row_is_not_counted() {
    let options = DecoderOptions {
        batch_rows: 2,
        one_schema: true,
        ..DecoderOptions::default()
    };
    let body = br#"{"status":"success","data":[{"a":"1.50","b":1},{"a":"2.00","b":2},{"a":"3.00","b":3},{"a":"x","b":4},{"a":"5.00","b":5}]}"#;
    let mut decoder = TableDecoder::new(&config(), 200, options);
    let err = decoder
        .feed(body)
        .and_then(|_| decoder.finish().map(|_| ()));
    let err = err.unwrap_err();
    assert!(err.to_string().contains("row 4"), "{err}");
    let mut decoder = TableDecoder::new(
        &config(),
        200,
        DecoderOptions {
            batch_rows: 2,
            one_schema: true,
            ..DecoderOptions::default()
        },
    );
    let _ = decoder.feed(body);
    assert_eq!(decoder.rows(), 3);
}
