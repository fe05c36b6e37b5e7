//! The answers of `ajax.php`'s functions, and the dues of many accounts as
//! one table.
//!
//! Their shapes are not published, so the parser takes what a PHP script
//! may print, with the dues answer's tolerance (BOM, leading notices, HTML
//! error pages, truncation: see [`crate::response`]'s rules), and says what
//! it found:
//!
//! 1. the payload is, in this order: a top-level array; else, in an object,
//!    `data` if there is one (after `status`, if present, is checked:
//!    anything but `success` is a `Service` error; two `data` fields are a
//!    `Decode` error, as in a table's answer); else the object's other
//!    fields (`status` left out), or null when there are none; else the
//!    top-level value itself (`"12.5"`, `42`, `null`);
//! 2. a payload that is a list of objects is **rows** (so is an object
//!    keyed by row numbers, PHP's `json_encode` of an array with gaps);
//!    an empty list is no rows; a list of plain values is rows of one
//!    column, `value`; a list mixing objects and other values is a
//!    `Decode` error;
//! 3. any other object is **one object**, its fields typed one by one;
//! 4. anything else is **one value**.
//!
//! Values are typed by the table rule (`"1500.00"` an exact decimal,
//! `"2025-04-01"` a date, a zero date null), rows by column over all rows.

use serde_json::value::RawValue;

use crate::cell::{Cell, Row};
use crate::config::Config;
use crate::decode::{Batch, ColumnType, DeclaredType, DecoderOptions, Schema};
use crate::error::{Error, Result};
use crate::json;
use crate::php_array::is_row_number;
use crate::response::{
    check_status, data_field, data_rows, decode_error, parse_json, type_rows, Dues, StatusField,
};
use crate::AjaxQuery;

/// Rows typed by column, as a dues answer's are.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypedRows {
    /// Each column's type, decided over all the rows.
    pub schema: Schema,
    /// The rows in the order sent, each with the keys it was sent with.
    pub rows: Vec<Row>,
    /// The same rows as typed columns (for Arrow and data frames).
    pub batches: Vec<Batch>,
    /// For the table of a plan (dues of many accounts, aging, credit
    /// status): the PHP notices or warnings printed before the answers of
    /// its calls, each text once. Empty elsewhere (a function's answer
    /// keeps its own on [`AjaxAnswer::notices`]).
    pub notices: Vec<String>,
}

/// What an `ajax.php` function answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AjaxValue {
    /// A list of objects.
    Rows(TypedRows),
    /// One object: its fields, each typed by the rule on its own.
    Object {
        /// Each field's type.
        schema: Schema,
        /// The fields in the order sent.
        fields: Row,
    },
    /// One value, typed by the rule (`Null` for `null`).
    Value {
        /// Its type (`Null` for null).
        column_type: ColumnType,
        /// The value.
        cell: Cell,
    },
}

/// The parsed answer of one `ajax.php` function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AjaxAnswer {
    /// The function called (`func`).
    pub func: String,
    /// Rows, one object or one value (see the module's rules).
    pub value: AjaxValue,
    /// The JSON text the service sent (redacted), for whatever the rules
    /// left aside (an envelope's other fields).
    pub raw: String,
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
}

/// The payload as JSON (feature `serde`): rows as [`TypedRows`] serialize
/// (an array of objects of every column), one object as its fields in the
/// order sent, one value as [`Cell`]'s `Serialize` gives it (a decimal its
/// exact text, as everywhere).
#[cfg(feature = "serde")]
impl serde::Serialize for AjaxValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AjaxValue::Rows(rows) => rows.serialize(serializer),
            AjaxValue::Object { fields, .. } => fields.serialize(serializer),
            AjaxValue::Value { cell, .. } => cell.serialize(serializer),
        }
    }
}

/// The answer's [`value`](AjaxAnswer::value) alone (feature `serde`), as a
/// [`Dues`] serializes its rows alone: `func` is the caller's, `raw` the
/// service's own text, and the notices are PHP's.
#[cfg(feature = "serde")]
impl serde::Serialize for AjaxAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

/// A function's answer typed by `options` ([`Config::parse_ajax_with`]).
pub(crate) fn parse_ajax_with(
    config: &Config,
    query: &AjaxQuery,
    status: u16,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<AjaxAnswer> {
    let parsed = parse_json(config, status, body)?;
    let payload = payload(config, parsed.value, body)?;
    let value = match payload {
        Payload::Raw(raw) => classify(config, raw, body, options)?,
        Payload::Fields(fields) => object(config, fields, body, options)?,
        Payload::Null => AjaxValue::Value {
            column_type: ColumnType::Null,
            cell: Cell::Null,
        },
    };
    Ok(AjaxAnswer {
        func: query.func().to_owned(),
        value,
        raw: config.redact(parsed.value.get()),
        notices: parsed.notices,
    })
}

/// What the answer carries (see the module's first rule).
fn payload<'a>(config: &Config, value: &'a RawValue, body: &[u8]) -> Result<Payload<'a>> {
    if !value.get().starts_with('{') {
        return Ok(Payload::Raw(value));
    }
    let entries = json::entries(value).map_err(|e| decode_error(config, format!("{e}"), body))?;
    let status = check_status(config, &entries, body)?;
    if let Some(data) = data_field(config, &entries, body)? {
        return Ok(Payload::Raw(data));
    }
    if matches!(status, StatusField::Missing) {
        return Ok(Payload::Raw(value));
    }
    let rest: Vec<(String, &RawValue)> =
        entries.into_iter().filter(|(k, _)| k != "status").collect();
    Ok(if rest.is_empty() {
        Payload::Null
    } else {
        Payload::Fields(rest)
    })
}

/// Rows, one object or one value (the module's other rules).
fn classify(
    config: &Config,
    raw: &RawValue,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<AjaxValue> {
    let text = raw.get();
    if text.starts_with('[') {
        let items = json::elements(raw).map_err(|e| decode_error(config, format!("{e}"), body))?;
        let objects = items.iter().filter(|i| i.get().starts_with('{')).count();
        let rows = if objects == items.len() {
            data_rows(config, raw, body)?
        } else if objects == 0 {
            items
                .iter()
                .map(|i| single(config, "value", i, body))
                .collect::<Result<_>>()?
        } else {
            return Err(decode_error(
                config,
                format!(
                    "the answer's list mixes {objects} objects with {} other values",
                    items.len() - objects
                ),
                body,
            ));
        };
        return Ok(AjaxValue::Rows(type_rows(config, rows, options, body)?));
    }
    if text.starts_with('{') {
        let entries = json::entries(raw).map_err(|e| decode_error(config, format!("{e}"), body))?;
        let keyed_rows = !entries.is_empty()
            && entries
                .iter()
                .all(|(k, v)| is_row_number(k) && v.get().starts_with('{'));
        if keyed_rows {
            let rows = data_rows(config, raw, body)?;
            return Ok(AjaxValue::Rows(type_rows(config, rows, options, body)?));
        }
        return object(config, entries, body, options);
    }
    let row = single(config, "value", raw, body)?;
    let typed = type_rows(config, vec![row], options, body)?;
    let column_type = typed.schema.first().map_or(ColumnType::Null, |(_, t)| *t);
    let cell = typed.rows[0].fields[0].1.clone();
    Ok(AjaxValue::Value { column_type, cell })
}

/// An object's fields, each typed alone: a one-row table whose columns
/// are the fields.
fn object(
    config: &Config,
    entries: Vec<(String, &RawValue)>,
    body: &[u8],
    options: &DecoderOptions,
) -> Result<AjaxValue> {
    let mut fields = Row::default();
    for (key, raw) in entries {
        let cell = Cell::from_raw(raw)
            .map_err(|e| decode_error(config, format!("field {key:?}: {e}"), body))?;
        match fields.fields.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = cell,
            None => fields.fields.push((key, cell)),
        }
    }
    let mut typed = type_rows(config, vec![fields], options, body)?;
    Ok(AjaxValue::Object {
        schema: typed.schema,
        fields: typed.rows.pop().unwrap_or_default(),
    })
}

/// A one-field row of a plain value.
fn single(config: &Config, key: &str, raw: &RawValue, body: &[u8]) -> Result<Row> {
    let cell =
        Cell::from_raw(raw).map_err(|e| decode_error(config, format!("the value: {e}"), body))?;
    Ok(Row {
        fields: vec![(key.to_owned(), cell)],
    })
}

/// The dues of many accounts as one table ([`Config::dues_table`]).
pub(crate) fn dues_table(
    config: &Config,
    dues: &[Dues],
    options: &DecoderOptions,
) -> Result<TypedRows> {
    if let Some(first) = dues.first() {
        if let Some(other) = dues.iter().find(|d| d.kind != first.kind) {
            return Err(Error::invalid(
                "kind",
                format!(
                    "the dues mix {} ({}) with {} ({}); make one table per kind",
                    first.kind, first.acid, other.kind, other.acid
                ),
            ));
        }
    }
    let rows = dues
        .iter()
        .flat_map(|d| {
            d.rows.iter().map(|row| {
                let mut fields = Vec::with_capacity(row.fields.len() + 1);
                fields.push(("acid".to_owned(), Cell::String(d.acid.to_string())));
                fields.extend(row.fields.iter().filter(|(k, _)| k != "acid").cloned());
                Row { fields }
            })
        })
        .collect();
    let mut options = options.clone();
    options.schema = options.schema.declare("acid", DeclaredType::String);
    let mut typed = type_rows(config, rows, &options, b"")?;
    // Nobody owes anything: the other columns are the service's and not
    // known without a row, but `acid` is always there, so code that
    // selects or joins on it works on an empty table too.
    if typed.schema.is_empty() {
        typed.schema.push(("acid".to_owned(), ColumnType::String));
    }
    Ok(typed)
}

enum Payload<'a> {
    Raw(&'a RawValue),
    Fields(Vec<(String, &'a RawValue)>),
    Null,
}
