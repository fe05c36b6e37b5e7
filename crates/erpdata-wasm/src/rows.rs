//! Core rows -> plain JS objects, built directly from the cells (no serde),
//! so each number is converted from its exact text exactly once.

use std::collections::HashMap;

use erpdata::{Cell, Error, Row};
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::JsValue;

use crate::convert::{invalid, opt_text};

/// How numbers reach JS: `Number` (as `JSON.parse` would give them) or
/// their exact decimal text, for money that must not be rounded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbers {
    Number,
    Text,
}

pub(crate) fn numbers(value: &JsValue) -> Result<Numbers, Error> {
    match opt_text("numbers", value)?.as_deref() {
        None | Some("number") => Ok(Numbers::Number),
        Some("string") => Ok(Numbers::Text),
        Some(_) => Err(invalid("numbers", "must be \"number\" or \"string\"")),
    }
}

/// One JS string per column name, made once per answer rather than once
/// per row: crossing into JS to make a string is the expensive part.
pub(crate) struct Keys {
    names: Vec<(String, JsValue)>,
    index: HashMap<String, usize>,
}

impl Keys {
    pub(crate) fn new(columns: &[String]) -> Self {
        let mut keys = Keys {
            names: Vec::with_capacity(columns.len()),
            index: HashMap::with_capacity(columns.len()),
        };
        for (i, c) in columns.iter().enumerate() {
            keys.key(i, c);
        }
        keys
    }

    /// The column names, in first-seen order.
    pub(crate) fn columns(&self) -> Array {
        self.names.iter().map(|(_, js)| js.clone()).collect()
    }

    /// The shared JS string for `name`. Rows usually list their fields in
    /// column order, so position `at` is tried before hashing.
    fn key(&mut self, at: usize, name: &str) -> &JsValue {
        let i = match self.names.get(at) {
            Some((n, _)) if n == name => at,
            _ => match self.index.get(name) {
                Some(&i) => i,
                None => {
                    self.index.insert(name.to_owned(), self.names.len());
                    self.names.push((name.to_owned(), JsValue::from_str(name)));
                    self.names.len() - 1
                }
            },
        };
        &self.names[i].1
    }

    pub(crate) fn rows(&mut self, rows: &[Row], numbers: Numbers) -> Result<Array, JsValue> {
        let out = Array::new_with_length(rows.len() as u32);
        for (i, row) in rows.iter().enumerate() {
            out.set(i as u32, self.row(row, numbers)?.into());
        }
        Ok(out)
    }

    fn row(&mut self, row: &Row, numbers: Numbers) -> Result<Object, JsValue> {
        let obj = Object::new();
        for (at, (name, value)) in row.fields.iter().enumerate() {
            let value = cell(value, numbers)?;
            let key = self.key(at, name);
            if name == "__proto__" {
                // A plain assignment would replace the prototype; JSON.parse
                // makes it an own property, and so do we.
                define(&obj, key, &value);
            } else {
                Reflect::set(&obj, key, &value)?;
            }
        }
        Ok(obj)
    }
}

fn define(obj: &Object, key: &JsValue, value: &JsValue) {
    let descriptor = Object::new();
    for flag in ["writable", "enumerable", "configurable"] {
        let _ = Reflect::set(&descriptor, &flag.into(), &JsValue::TRUE);
    }
    let _ = Reflect::set(&descriptor, &"value".into(), value);
    Object::define_property(obj, key, &descriptor);
}

fn cell(cell: &Cell, numbers: Numbers) -> Result<JsValue, JsValue> {
    Ok(match (cell, numbers) {
        (Cell::Null, _) => JsValue::NULL,
        (Cell::Bool(b), _) => JsValue::from_bool(*b),
        (Cell::String(s), _) => JsValue::from_str(s),
        // Rounds to nearest like JSON.parse (exact up to 2^53).
        (Cell::Int(n), Numbers::Number) => JsValue::from_f64(*n as f64),
        // An integer that fits i64 has one JSON spelling, so this is the
        // text that was sent.
        (Cell::Int(n), Numbers::Text) => JsValue::from_str(&n.to_string()),
        // Rust's and JS's decimal-to-double conversions are both correctly
        // rounded, so this equals JSON.parse's value (`-0` included).
        (Cell::Number(t), Numbers::Number) => match t.parse::<f64>() {
            Ok(n) => JsValue::from_f64(n),
            Err(_) => JSON::parse(t)?,
        },
        (Cell::Number(t), Numbers::Text) => JsValue::from_str(t),
        // Nested values are JS values as JSON.parse gives them (their
        // numbers are JS numbers even with `numbers: "string"`).
        (Cell::Json(t), _) => JSON::parse(t)?,
    })
}
