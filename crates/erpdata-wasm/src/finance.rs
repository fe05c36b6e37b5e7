//! The core's finance views for JS: aging and credit status over the
//! batches JS tables hold (see `from_js.rs`), answered as tables.

use erpdata::{AgingOptions, Cell};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::args::arg;
use crate::convert::{invalid, opt_text, text};
use crate::errors::JsResult;
use crate::from_js;
use crate::output::typed_js;
use crate::rows;

fn table(typed: &erpdata::TypedRows, numbers: &JsValue) -> JsResult<JsValue> {
    Ok(typed_js(typed, rows::numbers(numbers)?))
}

/// A day as the finance views take it: `YYYY-MM-DD` text or a Date at
/// midnight UTC (converted by shape, as every argument is); what the text
/// must be is the core's to check.
fn day(field: &str, value: &JsValue) -> Result<String, erpdata::Error> {
    match arg(value) {
        Some(erpdata::Arg::Text(t)) => Ok(t),
        Some(erpdata::Arg::DateTime(t)) => Err(invalid(
            field,
            format!("must be a date, not a date and time ({t}); pass its date"),
        )),
        _ => text(field, value),
    }
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
    let mut options = AgingOptions::new(day("as_of", as_of)?);
    if let Some(bounds) = bounds(buckets)? {
        options.buckets = bounds;
    }
    Ok(options)
}

/// The aging of a table's batch as of `asOf`; `buckets` an array of day
/// bounds or undefined; column names or undefined; `account` the one
/// account whose dues a batch without `acid` holds (a Dues), or undefined.
#[wasm_bindgen]
pub fn aging(
    batch: &JsValue,
    as_of: &JsValue,
    buckets: &JsValue,
    due_date_column: &JsValue,
    balance_column: &JsValue,
    numbers: &JsValue,
    account: &JsValue,
) -> JsResult<JsValue> {
    let batch = from_js::batch(batch, "dues")?;
    let mut options = aging_options(as_of, buckets)?;
    options.accounts = opt_text("account", account)?.map(|acid| vec![acid]);
    options.due_date_column = opt_text("due_date_column", due_date_column)?;
    options.balance_column = opt_text("balance_column", balance_column)?;
    let typed = erpdata::aging(&[batch], &options)?;
    table(&typed, numbers)
}

/// The credit status of an account table's customers. `payDays`: an array
/// of `[acid, decimal text or null]` (each checked by the core); `acids`:
/// the caller's list of ids as given (checked by the core, naming `acids`),
/// or undefined.
#[wasm_bindgen(js_name = creditStatus)]
pub fn credit_status(
    accounts: &JsValue,
    dues: &JsValue,
    pay_days: &JsValue,
    as_of: &JsValue,
    acids: &JsValue,
    numbers: &JsValue,
) -> JsResult<JsValue> {
    let accounts = from_js::batch(accounts, "accounts")?;
    let dues = from_js::batch(dues, "dues")?;
    let as_of = day("as_of", as_of)?;
    let mut pairs = Vec::new();
    for pair in Array::from(pay_days).iter() {
        let pair = Array::from(&pair);
        let acid = text("pay_days", &pair.get(0))?;
        let days = opt_text("pay_days", &pair.get(1))?;
        pairs.push((acid, days.map_or(Cell::Null, Cell::Number)));
    }
    let typed = match arg(acids) {
        None => erpdata::credit_status(&[accounts], &[dues], &pairs, &as_of)?,
        Some(acids) => {
            let acids = erpdata::CreditStatusPlan::account_ids("acids", &acids)?;
            erpdata::credit_status_of(&[accounts], &[dues], &pairs, &as_of, &acids)?
        }
    };
    table(&typed, numbers)
}

/// The acids of an account table's customers (`receipt`) or suppliers
/// (`payment`).
#[cfg(feature = "testing")]
#[wasm_bindgen(js_name = accountIds)]
pub fn account_ids(accounts: &JsValue, kind: &JsValue) -> JsResult<Array> {
    let accounts = from_js::batch(accounts, "accounts")?;
    let kind: erpdata::DuesKind = std::str::FromStr::from_str(&text("kind", kind)?)?;
    let ids = erpdata::account_ids(&[accounts], kind)?;
    Ok(ids.into_iter().map(JsValue::from).collect())
}

/// The average payment days in an `avgPayDays` answer's JSON text, as
/// decimal text, or null.
#[wasm_bindgen(js_name = payDays)]
pub fn pay_days(acid: &str, answer: &str) -> JsResult<JsValue> {
    Ok(match erpdata::pay_days_of_text(acid, answer.as_bytes())? {
        Cell::Int(n) => n.to_string().into(),
        Cell::Number(t) => t.into(),
        _ => JsValue::NULL,
    })
}

/// The core's default bucket bounds: the test that pins the package's
/// `DEFAULT_BUCKETS` (a constant at import, before any wasm is loaded) to
/// them.
#[cfg(feature = "testing")]
#[wasm_bindgen(js_name = defaultBuckets)]
pub fn default_buckets() -> Vec<u32> {
    erpdata::DEFAULT_BUCKETS.to_vec()
}
