//! The core's finance views for JS: aging and credit status over the
//! batches JS tables hold (see `from_js.rs`), answered as tables.

use std::str::FromStr;

use erpdata::{AgingOptions, Cell, DuesKind};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::convert::{invalid, opt_text, set, text};
use crate::errors::core;
use crate::from_js;
use crate::rows;

fn table(typed: &erpdata::TypedRows, numbers: &JsValue) -> Result<JsValue, JsValue> {
    let numbers = core(rows::numbers(numbers))?;
    let out = Object::new();
    crate::functions::set_table(&out, typed, numbers);
    set(&out, "notices", &Array::new());
    Ok(out.into())
}

fn strings(field: &str, value: &JsValue) -> Result<Vec<String>, erpdata::Error> {
    if !Array::is_array(value) {
        return Err(invalid(field, "must be an array of strings"));
    }
    Array::from(value).iter().map(|v| text(field, &v)).collect()
}

/// The bucket bounds JS gave: an array of whole, positive day counts, or
/// undefined for the default.
fn bounds(buckets: &JsValue) -> Result<Option<Vec<u32>>, erpdata::Error> {
    if buckets.is_undefined() || buckets.is_null() {
        return Ok(None);
    }
    if !Array::is_array(buckets) {
        return Err(invalid("buckets", "must be an array of day counts"));
    }
    Array::from(buckets)
        .iter()
        .map(|b| match b.as_f64() {
            Some(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => Ok(n as u32),
            _ => Err(invalid(
                "buckets",
                "must hold whole, positive numbers of days",
            )),
        })
        .collect::<Result<Vec<u32>, _>>()
        .map(Some)
}

fn aging_options(as_of: &JsValue, buckets: &JsValue) -> Result<AgingOptions, erpdata::Error> {
    let mut options = AgingOptions::new(text("as_of", as_of)?);
    if let Some(bounds) = bounds(buckets)? {
        options.buckets = bounds;
    }
    Ok(options)
}

/// Throws the `invalid_input` error naming `as_of` or `buckets` where
/// `aging` would refuse them: a client checks them before fetching dues.
#[wasm_bindgen(js_name = checkAging)]
pub fn check_aging(as_of: &JsValue, buckets: &JsValue) -> Result<(), JsValue> {
    core(aging_options(as_of, buckets).and_then(|o| o.check()))
}

/// The aging of a table's batch as of `asOf`; `buckets` an array of day
/// bounds or undefined; column names or undefined.
#[wasm_bindgen]
pub fn aging(
    batch: &JsValue,
    as_of: &JsValue,
    buckets: &JsValue,
    due_date_column: &JsValue,
    balance_column: &JsValue,
    numbers: &JsValue,
) -> Result<JsValue, JsValue> {
    let batch = core(from_js::batch(batch, "dues"))?;
    let mut options = core(aging_options(as_of, buckets))?;
    options.due_date_column = core(opt_text("due_date_column", due_date_column))?;
    options.balance_column = core(opt_text("balance_column", balance_column))?;
    let typed = core(erpdata::aging(&[batch], &options))?;
    table(&typed, numbers)
}

/// The credit status of an account table's customers. `payDays`: an array
/// of `[acid, decimal text or null]`; `acids`: an array or undefined.
#[wasm_bindgen(js_name = creditStatus)]
pub fn credit_status(
    accounts: &JsValue,
    dues: &JsValue,
    pay_days: &JsValue,
    as_of: &JsValue,
    acids: &JsValue,
    numbers: &JsValue,
) -> Result<JsValue, JsValue> {
    let accounts = core(from_js::batch(accounts, "accounts"))?;
    let dues = core(from_js::batch(dues, "dues"))?;
    let as_of = core(text("as_of", as_of))?;
    let mut pairs = Vec::new();
    for pair in Array::from(pay_days).iter() {
        let pair = Array::from(&pair);
        let acid = core(text("pay_days", &pair.get(0)))?;
        let days = core(opt_text("pay_days", &pair.get(1)))?;
        pairs.push((acid, days.map_or(Cell::Null, Cell::Number)));
    }
    let typed = if acids.is_undefined() || acids.is_null() {
        core(erpdata::credit_status(&[accounts], &[dues], &pairs, &as_of))?
    } else {
        let acids = core(strings("accounts", acids))?;
        core(erpdata::credit_status_of(
            &[accounts],
            &[dues],
            &pairs,
            &as_of,
            &acids,
        ))?
    };
    table(&typed, numbers)
}

/// The acids of an account table's customers (`receipt`) or suppliers
/// (`payment`).
#[wasm_bindgen(js_name = accountIds)]
pub fn account_ids(accounts: &JsValue, kind: &JsValue) -> Result<Array, JsValue> {
    let accounts = core(from_js::batch(accounts, "accounts"))?;
    let kind = core(DuesKind::from_str(&core(text("kind", kind))?))?;
    let ids = core(erpdata::account_ids(&[accounts], kind))?;
    Ok(ids.into_iter().map(JsValue::from).collect())
}

/// The average payment days in an `avgPayDays` answer's JSON text, as
/// decimal text, or null.
#[wasm_bindgen(js_name = payDays)]
pub fn pay_days(acid: &str, answer: &str) -> Result<JsValue, JsValue> {
    Ok(
        match core(erpdata::pay_days_of_text(acid, answer.as_bytes()))? {
            Cell::Int(n) => n.to_string().into(),
            Cell::Number(t) => t.into(),
            _ => JsValue::NULL,
        },
    )
}
