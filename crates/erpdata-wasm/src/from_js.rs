//! A JS batch (the layout `columns.rs` writes, kept by every `Table`) back
//! into a core batch, so the core's finance views (aging, credit status)
//! run on tables JS already holds, without fetching them again.
//!
//! Decimals given to JS as numbers come back exactly when they have at
//! most 15 significant digits at the column's scale (a double gives those
//! back as sent); otherwise the error says to fetch the table with
//! `numbers: "string"`, whose exact texts come back as sent.

use erpdata::{
    parse_decimal, parse_plain_decimal, Batch, Bitmap, Column, ColumnData, Error, Sent, Texts,
};
use js_sys::{
    Array, BigInt64Array, Float64Array, Int32Array, JsString, Reflect, Uint32Array, Uint8Array,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::convert::invalid;
use crate::errors::JsResult;

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// The core batch of JS batch `value`; `field` names the argument.
pub(crate) fn batch(value: &JsValue, field: &str) -> Result<Batch, Error> {
    let bad = || {
        invalid(
            field,
            "must be a Table (as table(), duesTable() or aging() give it)",
        )
    };
    let num_rows = get(value, "numRows").as_f64().ok_or_else(bad)? as usize;
    let columns = get(value, "columns");
    if !Array::is_array(&columns) {
        return Err(bad());
    }
    let mut out = Vec::new();
    for c in Array::from(&columns).iter() {
        let name = get(&c, "name").as_string().ok_or_else(bad)?;
        let data = column(&c, num_rows, field, &name)?;
        out.push(Column { name, data });
    }
    Ok(Batch {
        num_rows,
        columns: out,
    })
}

/// The exact values of a decimal column of a JS batch (`column`, of a
/// batch of `numRows` rows) as Arrow's Decimal128 holds them: each value
/// unscaled at the column's scale, in four little-endian 32-bit words (two's
/// complement), 0 where a row has none. Read by the core from the texts
/// sent (`numbers: "string"`), whatever their form, so that JS never parses
/// a decimal itself.
#[wasm_bindgen(js_name = decimalWords)]
pub fn decimal_words(column: &JsValue, num_rows: usize) -> JsResult<Uint32Array> {
    let name = get(column, "name").as_string().unwrap_or_default();
    let ColumnData::Decimal { values, .. } = self::column(column, num_rows, "columns", &name)?
    else {
        return Err(invalid(
            "columns",
            format!("column {name:?} is not a decimal column"),
        )
        .into());
    };
    let mut words = Vec::with_capacity(values.len() * 4);
    for value in values {
        let bits = value as u128;
        words.extend((0..4).map(|w| (bits >> (32 * w)) as u32));
    }
    Ok(Uint32Array::from(words.as_slice()))
}

fn validity(c: &JsValue, len: usize) -> Option<Bitmap> {
    let bytes = get(c, "validity").dyn_into::<Uint8Array>().ok()?.to_vec();
    let mut bits = Bitmap::with_capacity(len);
    for i in 0..len {
        bits.push(bytes.get(i >> 3).is_some_and(|b| (b >> (i & 7)) & 1 == 1));
    }
    Some(bits)
}

fn column(c: &JsValue, len: usize, field: &str, name: &str) -> Result<ColumnData, Error> {
    let kind = get(c, "type").as_string().unwrap_or_default();
    let valid = validity(c, len);
    let is_valid = |i: usize| valid.as_ref().is_none_or(|v| v.get(i));
    let values = get(c, "values");
    let scale = get(c, "scale").as_f64().unwrap_or(0.0) as u8;
    let precision = get(c, "precision").as_f64().unwrap_or(38.0) as u8;
    Ok(match kind.as_str() {
        "null" => ColumnData::Null { len },
        "bool" => {
            let bytes = values.unchecked_into::<Uint8Array>().to_vec();
            let mut bits = Bitmap::with_capacity(len);
            bytes.iter().for_each(|&b| bits.push(b != 0));
            ColumnData::Bool {
                values: bits,
                validity: valid,
            }
        }
        "int32" => ColumnData::Int {
            values: values
                .unchecked_into::<Int32Array>()
                .to_vec()
                .into_iter()
                .map(i64::from)
                .collect(),
            validity: valid,
        },
        "int64" => ColumnData::Int {
            values: values.unchecked_into::<BigInt64Array>().to_vec(),
            validity: valid,
        },
        "date" => ColumnData::Date {
            values: values.unchecked_into::<Int32Array>().to_vec(),
            validity: valid,
        },
        "timestamp" => ColumnData::Timestamp {
            values: values.unchecked_into::<BigInt64Array>().to_vec(),
            validity: valid,
            sent: Sent::default(),
        },
        "float64" => {
            let floats = values.unchecked_into::<Float64Array>().to_vec();
            let mut out = Vec::with_capacity(len);
            for (i, x) in floats.into_iter().enumerate() {
                if !is_valid(i) {
                    out.push(0);
                    continue;
                }
                let text = format!("{x}");
                // Up to 15 significant digits a double gives its decimal
                // back exactly; past that its shortest text may be another
                // number than the one sent.
                let exact =
                    parse_plain_decimal(&text, scale).filter(|v| v.abs() < 1_000_000_000_000_000);
                out.push(exact.ok_or_else(|| {
                    invalid(
                        field,
                        format!(
                            "column {name:?} row {i}: {text} is not exact as a JS number at \
                             scale {scale}; fetch the table with numbers: \"string\""
                        ),
                    )
                })?);
            }
            ColumnData::Decimal {
                values: out,
                precision,
                scale,
                validity: valid,
                sent: Sent::default(),
            }
        }
        "decimal" => {
            // Each value's text as sent: a number JSON wrote with an
            // exponent (`1.0e-5`) included.
            let texts = strings(c, len)?;
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                if !is_valid(i) {
                    out.push(0);
                    continue;
                }
                out.push(parse_decimal(texts.get(i), scale).ok_or_else(|| {
                    invalid(
                        field,
                        format!(
                            "column {name:?} row {i}: {:?} is not a decimal at scale {scale}",
                            texts.get(i)
                        ),
                    )
                })?);
            }
            ColumnData::Decimal {
                values: out,
                precision,
                scale,
                validity: valid,
                sent: Sent::default(),
            }
        }
        "string" => ColumnData::String {
            values: strings(c, len)?,
            validity: valid,
        },
        "json" => ColumnData::Json {
            values: strings(c, len)?,
            validity: valid,
        },
        other => {
            return Err(invalid(
                field,
                format!("column {name:?} has an unknown layout {other:?}"),
            ))
        }
    })
}

/// The texts of a `{text, offsets}` pair (UTF-16 offsets into `text`).
fn split(pair: &JsValue, out: &mut Vec<String>) {
    let text = String::from(get(pair, "text").unchecked_into::<JsString>());
    let offsets = get(pair, "offsets").unchecked_into::<Int32Array>().to_vec();
    let mut chars = text.char_indices().peekable();
    let mut unit = 0usize;
    let mut byte_at = |target: usize| -> usize {
        while unit < target {
            match chars.next() {
                Some((_, ch)) => unit += ch.len_utf16(),
                None => break,
            }
        }
        chars.peek().map_or(text.len(), |(b, _)| *b)
    };
    let bytes: Vec<usize> = offsets.iter().map(|&o| byte_at(o as usize)).collect();
    for w in bytes.windows(2) {
        out.push(text[w[0]..w[1]].to_owned());
    }
}

/// A string column's values: `chunks`, or `dictionary` and `indices`.
fn strings(c: &JsValue, len: usize) -> Result<Texts, Error> {
    let mut all = Vec::with_capacity(len);
    let dictionary = get(c, "dictionary");
    if dictionary.is_object() {
        let mut distinct = Vec::new();
        split(&dictionary, &mut distinct);
        let indices = get(c, "indices").unchecked_into::<Int32Array>().to_vec();
        for i in indices {
            all.push(distinct.get(i as usize).cloned().unwrap_or_default());
        }
    } else {
        for chunk in Array::from(&get(c, "chunks")).iter() {
            split(&chunk, &mut all);
        }
    }
    let mut texts = Texts::with_capacity(len, 0);
    for i in 0..len {
        texts.push(all.get(i).map_or("", String::as_str));
    }
    Ok(texts)
}
