//! Turning a status and a body into a result or a typed error.
//!
//! Tables go through the streaming decoder (`crate::decode::decoder`, where
//! each of its rules is documented); the dues answer, whose shape is not
//! documented and which is small, is parsed whole here.
//!
//! Decisions for what a PHP service may send (each pinned by a vector):
//! - a status outside 2xx is `HttpStatus`, whatever the body says;
//! - a UTF-8 BOM, surrounding whitespace and leading PHP notices are
//!   removed (the notices are kept on the result);
//! - an empty body, an HTML page, invalid UTF-8, invalid or truncated JSON,
//!   or JSON of another shape is `Decode`, with an excerpt;
//! - `status` other than `success` (compared ignoring case) is `Service`;
//! - `data` may be an array of row objects, an object keyed by row number
//!   (PHP's `json_encode` of an array with gaps), or `null` (no rows);
//!   `false` (a failed query in PHP) and anything else are `Decode`.

use serde_json::value::RawValue;

use crate::cell::{Cell, Row};
use crate::config::Config;
use crate::decode::decoder::{html_reason, truncate, Core};
use crate::decode::sink::RowCollector;
use crate::error::{Error, Result};
use crate::excerpt::excerpt;
use crate::id::Id;
use crate::json;
use crate::prelude;
use crate::query::{DuesKind, DuesQuery};

/// The rows of one table fetch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// Every key seen in any row, in first-seen order.
    pub columns: Vec<String>,
    /// The rows in the order sent.
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
    /// The dues rows (the service's `data`, or its top-level array).
    pub rows: Vec<Row>,
    /// The JSON text the service sent, because the interface does not
    /// document the dues fields and callers may need the rest of it.
    pub raw: String,
    /// PHP notices or warnings that preceded the JSON, if any.
    pub notices: Vec<String>,
}

struct Body<'a> {
    value: &'a RawValue,
    notices: Vec<String>,
}

impl Config {
    /// Parses the answer to a table fetch, by feeding the whole body to the
    /// same decoder as [`TableDecoder`](crate::TableDecoder) and keeping
    /// every row (see the decoder's module for each rule).
    ///
    /// No header is consulted, `Content-Type` included: PHP sends
    /// `text/html` unless a script sets otherwise, so valid JSON under that
    /// type is common, and an HTML page is recognised by its bytes whatever
    /// type it claims.
    pub fn parse_table(&self, status: u16, body: &[u8]) -> Result<Table> {
        let mut core = Core::new(self, status, RowCollector::default());
        core.feed(body)?;
        let done = core.finish()?;
        Ok(Table {
            columns: done.sink.columns(),
            rows: done.sink.rows,
            notices: done.notices,
        })
    }

    /// Parses the answer to a dues query.
    ///
    /// The interface does not show this answer's shape, so it accepts the
    /// table fetch's envelope (`status` optional here) or a bare array of
    /// rows, and keeps the raw JSON either way.
    pub fn parse_dues(&self, query: &DuesQuery, status: u16, body: &[u8]) -> Result<Dues> {
        let parsed = self.parse_json(status, body)?;
        let rows = if parsed.value.get().starts_with('[') {
            self.rows(parsed.value, body)?
        } else {
            let entries = json::entries(parsed.value).map_err(|_| {
                self.decode(
                    format!(
                        "expected a JSON object or array, got {}",
                        json::type_name(parsed.value)
                    ),
                    body,
                )
            })?;
            let status = self.check_status(&entries, body)?;
            match (json::last(&entries, "data"), status) {
                (Some(data), _) => self.rows(data, body)?,
                (None, StatusField::Success) => Vec::new(),
                (None, StatusField::Missing) => {
                    return Err(
                        self.decode("the answer has neither a `status` nor a `data` field", body)
                    )
                }
            }
        };
        Ok(Dues {
            acid: query.acid.clone(),
            kind: query.kind,
            rows,
            raw: self.redact(parsed.value.get()),
            notices: parsed.notices,
        })
    }

    fn parse_json<'b>(&self, status: u16, body: &'b [u8]) -> Result<Body<'b>> {
        if !(200..300).contains(&status) {
            return Err(Error::HttpStatus {
                status,
                excerpt: excerpt(self, body),
            });
        }
        let text = std::str::from_utf8(body).map_err(|e| {
            self.decode(
                format!("the body is not valid UTF-8 (at byte {})", e.valid_up_to()),
                body,
            )
        })?;
        let (json, notices) = prelude::split(text);
        // A PHP notice may quote a request parameter, the token included.
        let notices: Vec<String> = notices.iter().map(|n| self.redact(n)).collect();
        if json.is_empty() {
            let reason = if notices.is_empty() {
                "the body is empty".to_owned()
            } else {
                format!(
                    "the body holds only PHP diagnostics: {}",
                    notices.join(" | ")
                )
            };
            return Err(self.decode(self.redact(&reason), body));
        }
        if json.starts_with('<') {
            return Err(self.decode(html_reason(json), body));
        }
        let value: &RawValue = serde_json::from_str(json).map_err(|e| {
            let reason = if e.is_eof() {
                "the body ended before the JSON was complete (truncated)".to_owned()
            } else {
                format!("the body is not valid JSON ({e})")
            };
            self.decode(reason, body)
        })?;
        Ok(Body { value, notices })
    }

    fn check_status(&self, entries: &[(String, &RawValue)], body: &[u8]) -> Result<StatusField> {
        let Some(status) = json::last(entries, "status") else {
            return Ok(StatusField::Missing);
        };
        let text = match Cell::from_raw(status) {
            Ok(Cell::String(s)) => s,
            // `'status' => false` is how some PHP code says "failed".
            Ok(Cell::Bool(false)) => "false".to_owned(),
            _ => {
                return Err(self.decode(
                    format!("`status` is {}, expected a string", json::type_name(status)),
                    body,
                ))
            }
        };
        if text.eq_ignore_ascii_case("success") {
            return Ok(StatusField::Success);
        }
        Err(Error::Service {
            status: self.redact(&truncate(&text, 80)),
            message: self.redact(&truncate(&service_message(entries), 300)),
        })
    }

    fn rows(&self, data: &RawValue, body: &[u8]) -> Result<Vec<Row>> {
        let bad = |reason: String| self.decode(reason, body);
        match data.get().as_bytes().first() {
            Some(b'[') => {
                let items = json::elements(data).map_err(|e| bad(format!("`data`: {e}")))?;
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, raw)| self.row(&i.to_string(), raw, body))
                    .collect()
            }
            Some(b'{') => {
                let entries = json::entries(data).map_err(|e| bad(format!("`data`: {e}")))?;
                if let Some((k, _)) = entries.iter().find(|(k, _)| k.parse::<u64>().is_err()) {
                    return Err(bad(format!(
                        "`data` is an object whose key {:?} is not a row number",
                        truncate(k, 40)
                    )));
                }
                entries
                    .into_iter()
                    .map(|(k, raw)| self.row(&k, raw, body))
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

    fn row(&self, index: &str, raw: &RawValue, body: &[u8]) -> Result<Row> {
        let entries = json::entries(raw).map_err(|_| {
            self.decode(
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
                .map_err(|e| self.decode(format!("row {index}, field {key:?}: {e}"), body))?;
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = cell,
                None => fields.push((key, cell)),
            }
        }
        Ok(Row { fields })
    }

    fn decode(&self, reason: impl Into<String>, body: &[u8]) -> Error {
        // A reason may quote the body (an HTML page's title), so it is
        // redacted like the excerpt.
        Error::Decode {
            reason: self.redact(&reason.into()),
            excerpt: excerpt(self, body),
        }
    }
}

enum StatusField {
    Success,
    Missing,
}

fn service_message(entries: &[(String, &RawValue)]) -> String {
    for key in ["message", "msg", "error", "errors", "data"] {
        if let Some(raw) = json::last(entries, key) {
            match Cell::from_raw(raw) {
                Ok(Cell::String(s)) if !s.trim().is_empty() => return s,
                Ok(Cell::Json(j)) if key != "data" => return j,
                _ => {}
            }
        }
    }
    "the service gave no message".to_owned()
}
