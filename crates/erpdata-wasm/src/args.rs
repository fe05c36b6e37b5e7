//! JS values -> the core's `Arg`, by shape only: whether a value suits a
//! parameter is the catalogue's to say (`Config::invoke`, the plans), with
//! the core's messages, the same in every language.
//!
//! string -> Text; boolean -> Flag; an integer number (exact: within
//! `Number.MAX_SAFE_INTEGER`) or a bigint -> Int (a bigint beyond i64 ->
//! its digits as Text, as ids took it before); a Date at midnight UTC ->
//! that day's `YYYY-MM-DD` Text, any other Date -> DateTime (refused where
//! a date is wanted: its day depends on the time zone); a plain object, a
//! Map or an array of `[name, value]` pairs -> Pairs; any other array or
//! iterable -> List; `undefined`/`null` -> not given; anything else ->
//! Unsupported, naming what it was.

use erpdata::{Arg, Args};
use js_sys::{Array, BigInt, Date, JsString, Object, Reflect, Symbol};
use wasm_bindgen::{JsCast, JsValue};

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// `value` as an argument, `None` when not given (`undefined`, `null`).
pub(crate) fn arg(value: &JsValue) -> Option<Arg> {
    if value.is_undefined() || value.is_null() {
        return None;
    }
    Some(shape(value))
}

/// A member's value inside a list or pairs, where "not given" is a value
/// of its own kind.
fn inner(value: &JsValue) -> Arg {
    arg(value).unwrap_or_else(|| {
        Arg::Unsupported(if value.is_null() { "null" } else { "undefined" }.to_owned())
    })
}

fn shape(value: &JsValue) -> Arg {
    if let Some(s) = value.dyn_ref::<JsString>() {
        // A lone surrogate cannot go on the wire as UTF-8: refused, not
        // silently turned into U+FFFD.
        return if s.is_valid_utf16() {
            Arg::Text(String::from(s))
        } else {
            Arg::Unsupported("string with a lone surrogate (not valid Unicode text)".to_owned())
        };
    }
    if let Some(b) = value.as_bool() {
        return Arg::Flag(b);
    }
    if let Some(n) = value.as_f64() {
        return number(n);
    }
    if let Some(big) = value.dyn_ref::<BigInt>() {
        return match i64::try_from(big.clone()) {
            Ok(n) => Arg::Int(n),
            Err(_) => big
                .to_string(10)
                .map(|d| Arg::Text(String::from(d)))
                .unwrap_or_else(|_| Arg::Unsupported("bigint".to_owned())),
        };
    }
    if let Some(date) = value.dyn_ref::<Date>() {
        return date_arg(date);
    }
    if Array::is_array(value) {
        return list(&Array::from(value));
    }
    if value.is_object() && !value.is_function() {
        if plain(value) {
            let entries = Object::entries(value.unchecked_ref::<Object>());
            return Arg::Pairs(entries.iter().filter_map(|e| pair(&e)).collect());
        }
        let iterator = Reflect::get(value, &Symbol::iterator()).unwrap_or(JsValue::UNDEFINED);
        if iterator.is_function() {
            return list(&Array::from(value));
        }
        return Arg::Unsupported("object".to_owned());
    }
    Arg::Unsupported(value.js_typeof().as_string().unwrap_or_default())
}

fn number(n: f64) -> Arg {
    if !n.is_finite() || n.fract() != 0.0 {
        return Arg::Unsupported("number (not an integer)".to_owned());
    }
    // Beyond 2^53 the number is already not what the caller wrote.
    if n.abs() > MAX_SAFE_INTEGER {
        return Arg::Unsupported(
            "number beyond Number.MAX_SAFE_INTEGER, which a JS number cannot hold \
             exactly (pass it as a string or a bigint)"
                .to_owned(),
        );
    }
    // `-0` is 0 here, as `String(-0)` says.
    Arg::Int(n as i64)
}

fn date_arg(date: &Date) -> Arg {
    let ms = date.get_time();
    if ms.is_nan() {
        return Arg::Unsupported("Date (an invalid Date)".to_owned());
    }
    let iso = String::from(date.to_iso_string());
    if ms % 86_400_000.0 == 0.0 {
        Arg::Text(iso[..iso.len() - "T00:00:00.000Z".len()].to_owned())
    } else {
        // The core's message quotes this text: say why a Date is refused.
        Arg::DateTime(format!(
            "{iso}, a Date not at midnight UTC: its calendar day depends on the time zone"
        ))
    }
}

/// An array: pairs when every item is a `[name, value]` pair (what
/// `Object.entries` and a Map give), else a list.
fn list(items: &Array) -> Arg {
    let pairs = items.length() > 0
        && items.iter().all(|item| {
            Array::is_array(&item) && {
                let item = Array::from(&item);
                item.length() == 2 && item.get(0).is_string()
            }
        });
    if pairs {
        Arg::Pairs(items.iter().filter_map(|e| pair(&e)).collect())
    } else {
        Arg::List(items.iter().map(|v| inner(&v)).collect())
    }
}

fn pair(entry: &JsValue) -> Option<(String, Arg)> {
    let entry = Array::from(entry);
    Some((entry.get(0).as_string()?, inner(&entry.get(1))))
}

/// An object made by `{...}` or `Object.create(null)`.
fn plain(value: &JsValue) -> bool {
    let proto = JsValue::from(Object::get_prototype_of(value));
    proto.is_null() || proto == JsValue::from(Object::get_prototype_of(&Object::new()))
}

/// A call's named arguments (a plain object; names in JS or snake
/// spelling, as the catalogue knows both), those not given left out.
pub(crate) fn args(value: &JsValue) -> Args {
    let mut out = Args::new();
    if value.is_object() {
        for entry in Object::entries(value.unchecked_ref::<Object>()).iter() {
            let entry = Array::from(&entry);
            if let (Some(name), Some(value)) = (entry.get(0).as_string(), arg(&entry.get(1))) {
                out.set(name, value);
            }
        }
    }
    out
}
