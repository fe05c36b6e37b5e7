//! Core batches -> plain JS objects of typed arrays, built without serde
//! and without writing JSON: numbers go out as `Float64Array` /
//! `Int32Array` / `BigInt64Array`, the strings of a column as one JS string
//! per batch (decoded once) with UTF-16 offsets to slice it by, or as a
//! dictionary of distinct values and an index per row when values repeat.
//!
//! A JS batch is made of one core batch (a streamed batch) or of several
//! that share one schema (a whole table, unified and cast by the core):
//! each column is then the parts' values back to back. Which type a column
//! has is the core's decision; this file only picks the JS array for it.
//!
//! Shape of one batch: `{numRows, columns: [{name, type, dataType,
//! validity, ...}]}` where `dataType` is the core's type name (`int`,
//! `decimal(14,2)`, `timestamp`, ...), `validity` is the packed bitmap
//! (`Uint8Array`, bit i = row i has a value) or `null` when every row has
//! one, and by `type` (the JS representation):
//!
//! - `null`: nothing more;
//! - `bool`: `values` (`Uint8Array`, 0 or 1 per row);
//! - `int32` / `int64`: `values` (`Int32Array` / `BigInt64Array`), int32
//!   when every value of the column fits;
//! - `float64`: `values` (`Float64Array`), a decimal column as JS numbers,
//!   each equal to what `JSON.parse` gives for its text; `precision` and
//!   `scale`;
//! - `date`: `values` (`Int32Array`, days since 1970-01-01);
//! - `timestamp`: `values` (`BigInt64Array`, microseconds since
//!   1970-01-01 00:00:00, no time zone);
//! - `string`, `json`, `decimal` (exact text, with `numbers: "string"`;
//!   `precision` and `scale` too): `chunks`, one `{text, offsets}` per core
//!   batch (`offsets` an `Int32Array` of the chunk's rows + 1 UTF-16
//!   offsets), or for a `string` column with few distinct values
//!   `dictionary` (`{text, offsets}` of the distinct values) and `indices`
//!   (`Int32Array`).

use erpdata::{Batch, Bitmap, Cell, ColumnData, ColumnType, Numbering, Texts};
use js_sys::{Array, BigInt64Array, Float64Array, Int32Array, Object, Uint8Array};
use wasm_bindgen::JsValue;

use crate::convert::set;
use crate::rows::Numbers;

/// Values sampled to decide on a dictionary.
const SAMPLE: usize = 1024;

/// One JS batch of `batches`, which share one schema (the same columns, in
/// the same order, of the same types): one streamed batch, or a whole
/// table's batches after the core unified them.
pub(crate) fn batches(batches: &[Batch], numbers: Numbers) -> JsValue {
    let out = Object::new();
    let num_rows: usize = batches.iter().map(|b| b.num_rows).sum();
    set(&out, "numRows", &(num_rows as f64).into());
    let columns = Array::new();
    if let Some(first) = batches.first() {
        for (j, c) in first.columns.iter().enumerate() {
            let parts: Vec<&ColumnData> = batches.iter().map(|b| &b.columns[j].data).collect();
            debug_assert!(batches.iter().all(|b| b.columns[j].name == c.name));
            columns.push(&column(&c.name, &parts, numbers));
        }
    }
    set(&out, "columns", &columns);
    out.into()
}

/// One streamed batch.
pub(crate) fn batch(batch: &Batch, numbers: Numbers) -> JsValue {
    batches(std::slice::from_ref(batch), numbers)
}

/// The values of `parts`, back to back, as one JS column.
fn column(name: &str, parts: &[&ColumnData], numbers: Numbers) -> JsValue {
    let out = Object::new();
    set(&out, "name", &name.into());
    let ty = parts.first().map_or(ColumnType::Null, |p| p.column_type());
    debug_assert!(parts.iter().all(|p| p.column_type() == ty));
    set(&out, "dataType", &ty.name().into());
    set(&out, "validity", &validity(parts));
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let kind = match ty {
        ColumnType::Null => "null",
        ColumnType::Bool => {
            let mut bytes = Vec::with_capacity(len);
            for p in parts {
                if let ColumnData::Bool { values, .. } = p {
                    bytes.extend((0..values.len()).map(|i| u8::from(values.get(i))));
                }
            }
            set(&out, "values", &Uint8Array::from(bytes.as_slice()));
            "bool"
        }
        ColumnType::Int => {
            let ints = || {
                parts.iter().flat_map(|p| match p {
                    ColumnData::Int { values, .. } => values.as_slice(),
                    _ => &[],
                })
            };
            if ints().all(|&v| i32::try_from(v).is_ok()) {
                let small: Vec<i32> = ints().map(|&v| v as i32).collect();
                set(&out, "values", &Int32Array::from(small.as_slice()));
                "int32"
            } else {
                let wide: Vec<i64> = ints().copied().collect();
                set(&out, "values", &BigInt64Array::from(wide.as_slice()));
                "int64"
            }
        }
        ColumnType::Decimal { precision, scale } => {
            set(&out, "precision", &precision.into());
            set(&out, "scale", &scale.into());
            if numbers == Numbers::Number {
                let mut floats = Vec::with_capacity(len);
                for p in parts {
                    if let ColumnData::Decimal {
                        values,
                        scale,
                        sent,
                        ..
                    } = p
                    {
                        let base = floats.len();
                        floats.extend(values.iter().map(|&v| to_f64(v, *scale)));
                        // `-0` is held as 0 with its text kept: JSON.parse
                        // gives -0, and so does a row read from here.
                        for (row, text) in &sent.odd {
                            let at = base + *row as usize;
                            if values.get(*row as usize) == Some(&0) && text.starts_with('-') {
                                floats[at] = -0.0;
                            }
                        }
                    }
                }
                set(&out, "values", &Float64Array::from(floats.as_slice()));
                "float64"
            } else {
                let chunks: Array = parts
                    .iter()
                    .map(|p| {
                        let mut texts = Texts::with_capacity(p.len(), p.len() * 8);
                        for i in 0..p.len() {
                            match p.cell(i) {
                                Cell::Number(t) => texts.push(&t),
                                _ => texts.push(""),
                            }
                        }
                        chunk(&texts)
                    })
                    .collect();
                set(&out, "chunks", &chunks);
                "decimal"
            }
        }
        ColumnType::Date => {
            let mut days = Vec::with_capacity(len);
            for p in parts {
                if let ColumnData::Date { values, .. } = p {
                    days.extend_from_slice(values);
                }
            }
            set(&out, "values", &Int32Array::from(days.as_slice()));
            "date"
        }
        ColumnType::Timestamp => {
            let mut micros = Vec::with_capacity(len);
            for p in parts {
                if let ColumnData::Timestamp { values, .. } = p {
                    micros.extend_from_slice(values);
                }
            }
            set(&out, "values", &BigInt64Array::from(micros.as_slice()));
            "timestamp"
        }
        ColumnType::String => {
            if !dictionary(&out, parts, len) {
                set(&out, "chunks", &text_chunks(parts));
            }
            "string"
        }
        ColumnType::Json => {
            set(&out, "chunks", &text_chunks(parts));
            "json"
        }
    };
    set(&out, "type", &kind.into());
    out.into()
}

/// The parts' validity bitmaps back to back, or `null` when every row has
/// a value (and for an all-null column, which says so by its type).
fn validity(parts: &[&ColumnData]) -> JsValue {
    if parts.iter().all(|p| p.validity().is_none()) {
        return JsValue::NULL;
    }
    if let [one] = parts {
        if let Some(v) = one.validity() {
            return Uint8Array::from(v.as_bytes()).into();
        }
    }
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut bits = Bitmap::with_capacity(len);
    for p in parts {
        match p.validity() {
            Some(v) => (0..v.len()).for_each(|i| bits.push(v.get(i))),
            None => (0..p.len()).for_each(|i| bits.push(p.is_valid(i))),
        }
    }
    Uint8Array::from(bits.as_bytes()).into()
}

fn texts_of(part: &ColumnData) -> Option<&Texts> {
    match part {
        ColumnData::String { values, .. } | ColumnData::Json { values, .. } => Some(values),
        _ => None,
    }
}

/// One `{text, offsets}` chunk per part.
fn text_chunks(parts: &[&ColumnData]) -> Array {
    parts
        .iter()
        .filter_map(|p| texts_of(p))
        .map(chunk)
        .collect()
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
        // Through i64, which holds it: wasm has no instruction for an
        // i128, and its library conversion costs ten times as much.
        return unscaled as i64 as f64 / POW10[scale as usize];
    }
    let mut text = unscaled.to_string();
    let (sign, digits) = match text.strip_prefix('-') {
        Some(d) => ("-", d.to_owned()),
        None => ("", text.clone()),
    };
    text = format!("{sign}{digits}e-{scale}");
    text.parse().unwrap_or(f64::NAN)
}

/// `{text, offsets}`: one JS string and its UTF-16 offsets.
fn chunk(texts: &Texts) -> JsValue {
    let out = Object::new();
    let (text, offsets) = joined(texts.data(), texts.offsets());
    set(&out, "text", &text);
    set(&out, "offsets", &offsets);
    out.into()
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

/// Writes `dictionary` and `indices` for the string column of `parts`
/// (`len` rows in all) when its values repeat enough for it to pay: at
/// most a quarter of a sample distinct, then at most half of all; `false`
/// if not.
fn dictionary(out: &Object, parts: &[&ColumnData], len: usize) -> bool {
    if len < 64 {
        return false;
    }
    let sample = len.min(SAMPLE);
    let mut numbering = Numbering::new(len, |counted| {
        if counted <= sample {
            sample / 4
        } else {
            len / 2
        }
    });
    let paid = parts.iter().all(|part| match part {
        ColumnData::String { values, validity } => numbering.push_texts(values, validity.as_ref()),
        _ => true,
    });
    if !paid {
        return false;
    }
    let (index, indices) = numbering.finish();
    let mut distinct = Texts::with_capacity(index.len().max(1), 0);
    for value in index.values() {
        distinct.push(std::str::from_utf8(value).expect("a whole value of a String column"));
    }
    if distinct.is_empty() {
        distinct.push("");
    }
    let dict = Object::new();
    let (text, offsets) = joined(distinct.data(), distinct.offsets());
    set(&dict, "text", &text);
    set(&dict, "offsets", &offsets);
    set(out, "dictionary", &dict);
    set(out, "indices", &Int32Array::from(indices.as_slice()));
    true
}
