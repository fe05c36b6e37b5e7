//! Core batches -> plain JS objects of typed arrays, built without serde
//! and without writing JSON: numbers go out as `Float64Array` /
//! `Int32Array` / `BigInt64Array`, the strings of a column as one JS string
//! (decoded once) with UTF-16 offsets to slice it by, or as a dictionary of
//! distinct values and an index per row when values repeat.
//!
//! Shape of one batch: `{numRows, columns: [{name, type, validity, ...}]}`
//! where `validity` is the packed bitmap (`Uint8Array`, bit i = row i has a
//! value) or `null` when every row has one, and by `type`:
//!
//! - `null`: nothing more;
//! - `bool`: `values` (`Uint8Array`, 0 or 1 per row);
//! - `int32` / `int64`: `values` (`Int32Array` / `BigInt64Array`);
//! - `float64`: `values` (`Float64Array`), a decimal column as JS numbers,
//!   each equal to what `JSON.parse` gives for its text;
//! - `date`: `values` (`Int32Array`, days since 1970-01-01);
//! - `string`, `json`, `decimal` (exact text, with `numbers: "string"`):
//!   `text` and `offsets` (`Int32Array`, `numRows + 1` UTF-16 offsets), or
//!   for a `string` column with few distinct values `dictionary` (`{text,
//!   offsets}` of the distinct values) and `indices` (`Int32Array`).

use std::collections::HashMap;

use erpdata::{Batch, Bitmap, Cell, Column, ColumnData, Texts};
use js_sys::{Array, BigInt64Array, Float64Array, Int32Array, Object, Uint8Array};
use wasm_bindgen::JsValue;

use crate::convert::set;
use crate::rows::Numbers;

/// Values sampled to decide on a dictionary.
const SAMPLE: usize = 1024;

pub(crate) fn batch(batch: &Batch, numbers: Numbers) -> JsValue {
    let out = Object::new();
    set(&out, "numRows", &(batch.num_rows as f64).into());
    let columns: Array = batch.columns.iter().map(|c| column(c, numbers)).collect();
    set(&out, "columns", &columns);
    out.into()
}

fn column(column: &Column, numbers: Numbers) -> JsValue {
    let out = Object::new();
    set(&out, "name", &column.name.as_str().into());
    let validity = column
        .data
        .validity()
        .map_or(JsValue::NULL, |v| Uint8Array::from(v.as_bytes()).into());
    set(&out, "validity", &validity);
    let kind = match &column.data {
        ColumnData::Null { .. } => "null",
        ColumnData::Bool { values, .. } => {
            let bytes: Vec<u8> = (0..values.len()).map(|i| u8::from(values.get(i))).collect();
            set(&out, "values", &Uint8Array::from(bytes.as_slice()));
            "bool"
        }
        ColumnData::Int { values, .. } => {
            let small: Option<Vec<i32>> = values.iter().map(|&v| i32::try_from(v).ok()).collect();
            if let Some(small) = small {
                set(&out, "values", &Int32Array::from(small.as_slice()));
                "int32"
            } else {
                set(&out, "values", &BigInt64Array::from(values.as_slice()));
                "int64"
            }
        }
        ColumnData::Decimal { values, scale, .. } if numbers == Numbers::Number => {
            let floats: Vec<f64> = values.iter().map(|&v| to_f64(v, *scale)).collect();
            set(&out, "values", &Float64Array::from(floats.as_slice()));
            "float64"
        }
        ColumnData::Decimal { .. } => {
            let mut texts = Texts::with_capacity(column.data.len(), column.data.len() * 8);
            for i in 0..column.data.len() {
                match column.data.cell(i) {
                    Cell::Number(t) => texts.push(&t),
                    _ => texts.push(""),
                }
            }
            strings(&out, &texts);
            "decimal"
        }
        ColumnData::Date { values, .. } => {
            set(&out, "values", &Int32Array::from(values.as_slice()));
            "date"
        }
        ColumnData::String { values, validity } => {
            if !dictionary(&out, values, validity.as_ref()) {
                strings(&out, values);
            }
            "string"
        }
        ColumnData::Json { values, .. } => {
            strings(&out, values);
            "json"
        }
    };
    set(&out, "type", &kind.into());
    out.into()
}

/// `unscaled × 10^-scale` as the nearest double, as `JSON.parse` rounds its
/// text. Both operands are exact doubles in the common case, and one IEEE
/// division rounds once, correctly; otherwise the text is parsed.
fn to_f64(unscaled: i128, scale: u8) -> f64 {
    const EXACT: i128 = 1 << 53;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if unscaled.abs() <= EXACT && (scale as usize) < POW10.len() {
        return unscaled as f64 / POW10[scale as usize];
    }
    let mut text = unscaled.to_string();
    let (sign, digits) = match text.strip_prefix('-') {
        Some(d) => ("-", d.to_owned()),
        None => ("", text.clone()),
    };
    text = format!("{sign}{digits}e-{scale}");
    text.parse().unwrap_or(f64::NAN)
}

/// `text` (one JS string) and `offsets` (UTF-16 units) of `texts`.
fn strings(out: &Object, texts: &Texts) {
    let (text, offsets) = joined(texts.data(), texts.offsets());
    set(out, "text", &text);
    set(out, "offsets", &offsets);
}

fn joined(data: &str, offsets: &[i32]) -> (JsValue, Int32Array) {
    let js = JsValue::from_str(data);
    if data.is_ascii() {
        return (js, Int32Array::from(offsets));
    }
    let mut units = Vec::with_capacity(offsets.len());
    units.push(0i32);
    let mut at = 0i32;
    for w in offsets.windows(2) {
        let s = &data[w[0] as usize..w[1] as usize];
        at += s.chars().map(|c| c.len_utf16() as i32).sum::<i32>();
        units.push(at);
    }
    (js, Int32Array::from(units.as_slice()))
}

/// Writes `dictionary` and `indices` when the values repeat enough for it
/// to pay (judged on a sample, confirmed on all); `false` if not.
fn dictionary(out: &Object, values: &Texts, validity: Option<&Bitmap>) -> bool {
    let n = values.len();
    if n < 64 {
        return false;
    }
    let sample = n.min(SAMPLE);
    let mut seen: HashMap<&str, ()> = HashMap::with_capacity(sample);
    for i in 0..sample {
        seen.insert(values.get(i), ());
    }
    if seen.len() * 4 > sample {
        return false;
    }
    let mut index: HashMap<&str, i32> = HashMap::with_capacity(seen.len() * 2);
    let mut distinct = Texts::new();
    let mut indices = Vec::with_capacity(n);
    for i in 0..n {
        if validity.is_some_and(|v| !v.get(i)) {
            indices.push(0);
            continue;
        }
        let value = values.get(i);
        let next = index.len() as i32;
        let at = *index.entry(value).or_insert_with(|| {
            distinct.push(value);
            next
        });
        indices.push(at);
        if index.len() * 2 > n {
            return false;
        }
    }
    if distinct.is_empty() {
        distinct.push("");
    }
    let dict = Object::new();
    strings(&dict, &distinct);
    set(out, "dictionary", &dict);
    set(out, "indices", &Int32Array::from(indices.as_slice()));
    true
}
