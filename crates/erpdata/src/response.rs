//! Turning a status and a body into a result or a typed error.
//!
//! Tables go through the streaming decoder (`crate::decode::decoder`, where
//! each of its rules is documented); the dues answer, whose shape is not
//! documented and which is small, is parsed whole here.
//!
//! Decisions for what a PHP service may send (each pinned by a vector):
//! - a status outside 2xx is `HttpStatus`, whatever the body says;
//! - UTF-8 BOMs, surrounding whitespace and leading PHP notices are
//!   removed (the notices are kept on the result);
//! - an empty body, an HTML page, invalid UTF-8, invalid or truncated JSON,
//!   or JSON of another shape is `Decode`, with an excerpt;
//! - `status` other than `success` (compared ignoring case) is `Service`;
//! - `data` may be an array of row objects, an object keyed by row number
//!   (PHP's `json_encode` of an array with gaps), or `null` (no rows);
//!   `false` (a failed query in PHP) and anything else are `Decode`, and
//!   so are two `data` fields.

use serde_json::value::RawValue;

use crate::ajax_answer::TypedRows;
use crate::cell::{Cell, Row};
use crate::config::Config;
use crate::decode::decoder::{html_reason, truncate, Core, DATA_TWICE};
use crate::decode::sink::RowCollector;
use crate::decode::{unify_schemas, Batch, DecoderOptions, Schema, TableDecoder};
use crate::error::{Error, Result};
use crate::excerpt::excerpt;
use crate::id::Id;
use crate::json;
use crate::php_array::is_row_number;
use crate::php_notice;
use crate::query::{DuesKind, DuesQuery};

/// The rows of one table fetch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// Every key seen in any row, in first-seen order.
    pub columns: Vec<String>,
    /// Each column's type, decided over the whole table (see
    /// [`TableDecoder`](crate::TableDecoder) for the rule).
    pub schema: Schema,
    /// The rows in the order sent, each with the keys it was sent with;
    /// values as their column's type gives them (a decimal as the text it
    /// was sent as, a number sent as a string included; a date or
    /// timestamp in its canonical form; a zero date null: see
    /// [`ColumnData::cell`](crate::ColumnData::cell)).
    pub rows: Vec<Row>,
    /// PHP notices or warnings that preceded the JSON, if any.
    pub notices: Vec<String>,
}

/// The answer of one dues query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dues {
    /// The account asked about.
    pub acid: Id,
    /// Receivables or payables.
    pub kind: DuesKind,
    /// Each column's type, decided over all the rows as a table's is.
    pub schema: Schema,
    /// The dues rows (the service's `data`, or its top-level array), each
    /// with the keys it was sent with; values as their column's type
    /// gives them.
    pub rows: Vec<Row>,
    /// The same rows as typed columns (for Arrow and data frames).
    pub batches: Vec<Batch>,
    /// The JSON text the service sent, because the interface does not
    /// document the dues fields and callers may need the rest of it.
    pub raw: String,
    /// PHP notices or warnings that preceded the JSON, if any.
    pub notices: Vec<String>,
}

pub(crate) struct Body<'a> {
    pub(crate) value: &'a RawValue,
    pub(crate) notices: Vec<String>,
}

/// A table fetch's answer typed by `options` ([`Config::parse_table_with`]).
pub(crate) fn parse_table_with(
    config: &Config,
    status: u16,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<Table> {
    let options = DecoderOptions {
        one_schema: false,
        ..options.clone()
    };
    let mut decoder = TableDecoder::new(config, status, options);
    let mut batches = decoder.feed(body)?;
    let finished = decoder.finish()?;
    batches.extend(finished.batches);
    let (schema, batches) = unify(batches);
    // The rows again, for the keys each was sent with.
    let mut core = Core::new(&config.redactor(), status, RowCollector::default());
    core.feed(body)?;
    let done = core.finish()?;
    Ok(Table {
        columns: done.sink.columns(),
        schema,
        rows: typed_rows(done.sink.rows, &batches),
        notices: finished.notices,
    })
}

/// A dues query's answer typed by `options` ([`Config::parse_dues_with`]).
pub(crate) fn parse_dues_with(
    config: &Config,
    query: &DuesQuery,
    status: u16,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<Dues> {
    let parsed = parse_json(config, status, body)?;
    let rows = if parsed.value.get().starts_with('[') {
        data_rows(config, parsed.value, body)?
    } else {
        let entries = json::entries(parsed.value).map_err(|_| {
            decode_error(
                config,
                format!(
                    "expected a JSON object or array, got {}",
                    json::type_name(parsed.value)
                ),
                body,
            )
        })?;
        let status = check_status(config, &entries, body)?;
        match (data_field(config, &entries, body)?, status) {
            (Some(data), _) => data_rows(config, data, body)?,
            (None, StatusField::Success) => Vec::new(),
            (None, StatusField::Missing) => {
                return Err(decode_error(
                    config,
                    "the answer has neither a `status` nor a `data` field",
                    body,
                ))
            }
        }
    };
    let typed = type_rows(config, rows, options, body)?;
    Ok(Dues {
        acid: query.acid.clone(),
        kind: query.kind,
        schema: typed.schema,
        rows: typed.rows,
        batches: typed.batches,
        raw: config.redact(parsed.value.get()),
        notices: parsed.notices,
    })
}

/// The JSON of a 2xx answer, with its leading PHP notices (redacted).
pub(crate) fn parse_json<'b>(config: &Config, status: u16, body: &'b [u8]) -> Result<Body<'b>> {
    if !(200..300).contains(&status) {
        return Err(Error::HttpStatus {
            status,
            excerpt: excerpt(&config.redactor(), body),
            call: None,
        });
    }
    let text = std::str::from_utf8(body).map_err(|e| {
        decode_error(
            config,
            format!("the body is not valid UTF-8 (at byte {})", e.valid_up_to()),
            body,
        )
    })?;
    let (json, notices) = php_notice::split(text);
    // A PHP notice may quote a request parameter, the token included.
    let notices: Vec<String> = notices.iter().map(|n| config.redact(n)).collect();
    if json.is_empty() {
        let reason = php_notice::empty_body_reason(&notices);
        return Err(decode_error(config, config.redact(&reason), body));
    }
    if json.starts_with('<') {
        return Err(decode_error(
            config,
            html_reason(&config.redactor(), json),
            body,
        ));
    }
    let value: &RawValue = serde_json::from_str(json).map_err(|e| {
        let reason = if e.is_eof() {
            "the body ended before the JSON was complete (truncated)".to_owned()
        } else {
            format!("the body is not valid JSON ({e})")
        };
        decode_error(config, reason, body)
    })?;
    Ok(Body { value, notices })
}

/// The envelope's `data`, after [`check_status`]: the one value, none, or
/// a `Decode` error for two (see [`DATA_TWICE`]).
pub(crate) fn data_field<'a>(
    config: &Config,
    entries: &[(String, &'a RawValue)],
    body: &[u8],
) -> Result<Option<&'a RawValue>> {
    let mut data = entries.iter().filter(|(k, _)| k == "data").map(|(_, v)| *v);
    let first = data.next();
    if data.next().is_some() {
        return Err(decode_error(config, DATA_TWICE, body));
    }
    Ok(first)
}

/// The envelope's `status`: success, missing, or a `Service` error.
pub(crate) fn check_status(
    config: &Config,
    entries: &[(String, &RawValue)],
    body: &[u8],
) -> Result<StatusField> {
    let Some(status) = json::last(entries, "status") else {
        return Ok(StatusField::Missing);
    };
    let text = match Cell::from_raw(status) {
        Ok(Cell::String(s)) => s,
        // `'status' => false` is how some PHP code says "failed".
        Ok(Cell::Bool(false)) => "false".to_owned(),
        _ => {
            return Err(decode_error(
                config,
                format!("`status` is {}, expected a string", json::type_name(status)),
                body,
            ))
        }
    };
    if text.eq_ignore_ascii_case("success") {
        return Ok(StatusField::Success);
    }
    let redactor = config.redactor();
    Err(Error::Service {
        status: redactor.redact_cut(&text, 80, false),
        message: redactor.redact_cut(&service_message(entries), 300, false),
        call: None,
    })
}

/// The rows of `data`: an array of objects, an object keyed by row
/// number, or null.
pub(crate) fn data_rows(config: &Config, data: &RawValue, body: &[u8]) -> Result<Vec<Row>> {
    let bad = |reason: String| decode_error(config, reason, body);
    match data.get().as_bytes().first() {
        Some(b'[') => {
            let items = json::elements(data).map_err(|e| bad(format!("`data`: {e}")))?;
            items
                .into_iter()
                .enumerate()
                .map(|(i, raw)| row(config, &(i + 1).to_string(), raw, body))
                .collect()
        }
        Some(b'{') => {
            let entries = json::entries(data).map_err(|e| bad(format!("`data`: {e}")))?;
            if let Some((k, _)) = entries.iter().find(|(k, _)| !is_row_number(k)) {
                return Err(bad(format!(
                    "`data` is an object whose key {:?} is not a row number",
                    truncate(k, 40)
                )));
            }
            entries
                .into_iter()
                .map(|(k, raw)| row(config, &k, raw, body))
                .collect()
        }
        Some(b'n') => Ok(Vec::new()),
        Some(b'f') => Err(bad(
            "`data` is false: the service reported success but sent no rows \
             (PHP returns false from a failed query)"
                .to_owned(),
        )),
        _ => Err(bad(format!(
            "`data` is {}, expected an array of rows",
            json::type_name(data)
        ))),
    }
}

/// One row object of `data`.
fn row(config: &Config, index: &str, raw: &RawValue, body: &[u8]) -> Result<Row> {
    let entries = json::entries(raw).map_err(|_| {
        decode_error(
            config,
            format!(
                "row {index} is {}, expected an object",
                json::type_name(raw)
            ),
            body,
        )
    })?;
    let mut fields: Vec<(String, Cell)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let cell = Cell::from_raw(value)
            .map_err(|e| decode_error(config, format!("row {index}, field {key:?}: {e}"), body))?;
        match fields.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = cell,
            None => fields.push((key, cell)),
        }
    }
    Ok(Row { fields })
}

/// Rows typed by the table rule: written back as a table answer (they
/// are few) and decoded like one, in one batch where they fit.
pub(crate) fn type_rows(
    config: &Config,
    rows: Vec<Row>,
    options: &DecoderOptions,
    body: &[u8],
) -> Result<TypedRows> {
    let mut text = String::from(r#"{"status":"success","data":["#);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push('{');
        for (j, (key, cell)) in row.fields.iter().enumerate() {
            if j > 0 {
                text.push(',');
            }
            crate::decode::json_string(key, &mut text);
            text.push(':');
            cell.write_json(&mut text);
        }
        text.push('}');
    }
    text.push_str("]}");
    let options = DecoderOptions {
        one_schema: false,
        batch_rows: crate::MAX_BATCH_ROWS,
        ..options.clone()
    };
    let mut decoder = TableDecoder::new(config, 200, options);
    let typed = decoder
        .feed(text.as_bytes())
        .and_then(|mut batches| {
            batches.extend(decoder.finish()?.batches);
            Ok(batches)
        })
        .map_err(|e| match e {
            Error::Decode { reason, .. } => decode_error(config, reason, body),
            other => other,
        })?;
    let (schema, batches) = unify(typed);
    Ok(TypedRows {
        schema,
        rows: typed_rows(rows, &batches),
        batches,
        notices: Vec::new(),
    })
}

/// A `Decode` error: the reason and an excerpt of `body`, redacted.
pub(crate) fn decode_error(config: &Config, reason: impl Into<String>, body: &[u8]) -> Error {
    // A reason may quote the body (an HTML page's title), so it is
    // redacted like the excerpt.
    Error::Decode {
        reason: config.redact(&reason.into()),
        excerpt: excerpt(&config.redactor(), body),
        excerpt_at: None,
        call: None,
    }
}

pub(crate) enum StatusField {
    Success,
    Missing,
}

fn service_message(entries: &[(String, &RawValue)]) -> String {
    for key in ["message", "msg", "error", "errors", "data"] {
        if let Some(raw) = json::last(entries, key) {
            match Cell::from_raw(raw) {
                Ok(Cell::String(s)) if !s.trim().is_empty() => return s,
                Ok(Cell::Json(j)) if key != "data" => return j,
                // An error code (`"message": 5`) is the service's word too.
                Ok(Cell::Int(_) | Cell::Number(_)) if key != "data" => {
                    return raw.get().trim().to_owned()
                }
                _ => {}
            }
        }
    }
    "the service gave no message".to_owned()
}

/// The batches' unified schema, and each batch cast to it.
pub(crate) fn unify(batches: Vec<Batch>) -> (Schema, Vec<Batch>) {
    let schema = batches
        .iter()
        .fold(Schema::new(), |s, b| unify_schemas(&s, &b.schema()));
    let batches = batches
        .into_iter()
        .map(|b| {
            if b.schema() == schema {
                b
            } else {
                b.cast(&schema).expect("a unified schema holds its batches")
            }
        })
        .collect();
    (schema, batches)
}

/// `rows` (in the order, and with the keys, they were sent) with each
/// value taken from its column in `batches`, which hold the same rows.
pub(crate) fn typed_rows(rows: Vec<Row>, batches: &[Batch]) -> Vec<Row> {
    let mut out = Vec::with_capacity(rows.len());
    let mut rows = rows.into_iter();
    for batch in batches {
        let index: std::collections::HashMap<&str, usize> = batch
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        for i in 0..batch.num_rows {
            let Some(mut row) = rows.next() else {
                return out;
            };
            for (key, cell) in &mut row.fields {
                if let Some(&c) = index.get(key.as_str()) {
                    *cell = batch.columns[c].cell(i);
                }
            }
            out.push(row);
        }
    }
    out
}

/// A JSON array of the rows (feature `serde`), each an object of every
/// column of [`Table::columns`] in that order, null where the row had no
/// such key; each value as [`Cell`]'s `Serialize` gives it (a decimal its
/// exact text as a string, an integer a number, a date or timestamp its
/// canonical text):
///
/// ```json
/// [{"doc_no":"INV-1","doc_date":"2025-04-01","qty":3,"amount":"1500.00"}]
/// ```
///
/// The rows alone, as Python's `Table` is a sequence of row dicts, so that
/// an axum handler's `Json(table)` answers what its clients would read
/// from the ERP; `schema` and `notices` are left out (send them beside it
/// if your clients need them). Nothing of the [`Config`] is in a table, so
/// the access token is not either.
#[cfg(feature = "serde")]
impl serde::Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::cell::serialize_rows(&self.columns, String::as_str, &self.rows, serializer)
    }
}

/// The rows, as a [`Table`] serializes (feature `serde`): a JSON array of
/// objects of every column of `schema`, in order. `acid`, `kind`, `raw`
/// and `notices` are left out: the caller knows the first two, and `raw`
/// is the service's own text.
#[cfg(feature = "serde")]
impl serde::Serialize for Dues {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::cell::serialize_rows(&self.schema, column_name, &self.rows, serializer)
    }
}

/// The rows, as a [`Table`] serializes (feature `serde`): a JSON array of
/// objects of every column of `schema`, in order (a plan's table: the
/// dues of many accounts, aging, credit status).
#[cfg(feature = "serde")]
impl serde::Serialize for TypedRows {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::cell::serialize_rows(&self.schema, column_name, &self.rows, serializer)
    }
}

#[cfg(feature = "serde")]
fn column_name(column: &(String, crate::ColumnType)) -> &str {
    &column.0
}

#[cfg(all(test, feature = "serde"))]
mod serde_tests {
    use crate::{Config, DuesKind, DuesQuery};

    fn config() -> Config {
        Config::builder("https://erp.example.com/")
            .project("demo")
            .access_token("tok-SECRET-123")
            .build()
            .unwrap()
    }

    #[test]
    fn a_table_is_an_array_of_row_objects_typed_by_column() {
        // Decimals sent as strings and as numbers, a date, a timestamp, a
        // zero date, an id too large for i64, nested JSON, a row lacking
        // a key.
        let body = br#"{"status":"success","data":[
 {"doc_no":"INV-1","doc_date":"2025-04-01","posted":"2025-04-01 09:30:00","amount":"1500.00","qty":3,"big":18446744073709551615,"due":"0000-00-00","meta":{"k":1.5}},
 {"doc_no":"INV-2","doc_date":"2025-04-02","posted":"2025-04-02 10:00:00.5","amount":12.5,"qty":4,"big":1,"due":"2025-05-01"}
]}"#;
        let table = config().parse_table(200, body).unwrap();
        let text = serde_json::to_string(&table).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"[{"doc_no":"INV-1","doc_date":"2025-04-01","posted":"2025-04-01 09:30:00","#,
                r#""amount":"1500.00","qty":3,"big":"18446744073709551615","due":null,"meta":{"k":"1.5"}},"#,
                r#"{"doc_no":"INV-2","doc_date":"2025-04-02","posted":"2025-04-02 10:00:00.500000","#,
                r#""amount":"12.5","qty":4,"big":"1","due":"2025-05-01","meta":null}]"#
            )
        );
    }

    #[test]
    fn an_ajax_answer_is_its_rows_its_object_or_its_value() {
        let config = config();
        let query = crate::AjaxQuery::new("f", [("acid", "C001")]);
        for (body, json) in [
            (
                &br#"{"status":"success","data":[{"doc_no":"INV-1","balance":"1034.50"},{"doc_no":"INV-2","balance":"7.25","due":"2025-05-01"}]}"#[..],
                r#"[{"doc_no":"INV-1","balance":"1034.50","due":null},{"doc_no":"INV-2","balance":"7.25","due":"2025-05-01"}]"#,
            ),
            (
                br#"{"status":"success","avgPayDays":"12.50","since":"2025-01-01","n":3}"#,
                r#"{"avgPayDays":"12.50","since":"2025-01-01","n":3}"#,
            ),
            (br#""1500.00""#, r#""1500.00""#),
            (b"42", "42"),
            (b"null", "null"),
            (br#"{"status":"success"}"#, "null"),
        ] {
            let answer = config.parse_ajax(&query, 200, body).unwrap();
            let text = serde_json::to_string(&answer).unwrap();
            assert_eq!(text, json, "{}", String::from_utf8_lossy(body));
            assert_eq!(serde_json::to_string(&answer.value).unwrap(), json);
        }
    }

    #[test]
    fn dues_are_their_rows_and_hold_no_token() {
        let config = config();
        let query = DuesQuery::new("C001", DuesKind::Receipt);
        let body = br#"{"status":"success","token_echo":"tok-SECRET-123","data":[{"doc_no":"INV-1","balance":1034.50},{"doc_no":"INV-2"}]}"#;
        let dues = config.parse_dues(&query, 200, body).unwrap();
        let text = serde_json::to_string(&dues).unwrap();
        assert_eq!(
            text,
            r#"[{"doc_no":"INV-1","balance":"1034.50"},{"doc_no":"INV-2","balance":null}]"#
        );
        assert!(!text.contains("SECRET"));
        let rows = config.dues_table(&[dues], &Default::default()).unwrap();
        assert_eq!(
            serde_json::to_string(&rows).unwrap(),
            r#"[{"acid":"C001","doc_no":"INV-1","balance":"1034.50"},{"acid":"C001","doc_no":"INV-2","balance":null}]"#
        );
    }
}
