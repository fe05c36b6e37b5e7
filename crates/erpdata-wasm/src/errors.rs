//! Core errors -> JS, in one place: every exported function returns
//! `Result<T, Thrown>`, and `?` turns an `erpdata::Error` into the plain
//! JS object below (as polars' `From<PyPolarsErr> for PyErr` does), so no
//! call site wraps errors itself.
//!
//! The object:
//! `{kind, message, retryable, field?, reason?, status?, excerpt?,
//! retryAfterMs?, serviceStatus?, serviceMessage?, transportKind?,
//! attempts?, url?, rowsReceived?, rowsDelivered?}`; `retryable` is the
//! core's `Error::is_retryable`, `retryAfterMs` its `Error::retry_after`;
//! the last four say where a call stood (the core's `CallInfo`), for
//! errors a call ended with.
//!
//! Plain objects rather than `Error`s: the classes live in
//! `js/src/errors.js`, where users can subclass-check and document them, and
//! that layer turns these into instances. `message` is the core's `Display`,
//! already redacted.
//!
//! The glue names fields as the core does (`company_id`); here, once, an
//! error is spelled for JS (`companyId`, `timeoutMs`) by the core's own
//! rule (`Error::js_spelled`), so no call site and no JS code renames.

use erpdata::Error;
use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::convert::set;

pub(crate) fn to_js(err: &Error) -> JsValue {
    let err = &err.js_spelled();
    let obj = Object::new();
    set(&obj, "kind", &err.kind().into());
    set(&obj, "message", &err.to_string().into());
    set(&obj, "retryable", &err.is_retryable().into());
    match err {
        Error::InvalidInput { field, reason } => {
            set(&obj, "field", &field.into());
            set(&obj, "reason", &reason.into());
        }
        Error::Transport { kind, .. } => {
            set(&obj, "transportKind", &kind.as_str().into());
        }
        Error::HttpStatus {
            status, excerpt, ..
        } => {
            set(&obj, "status", &(*status).into());
            set(&obj, "excerpt", &excerpt.into());
            if let Some(wait) = err.retry_after() {
                // Milliseconds, as the package's options give durations.
                set(&obj, "retryAfterMs", &(wait.as_secs_f64() * 1000.0).into());
            }
        }
        Error::Service {
            status, message, ..
        } => {
            set(&obj, "serviceStatus", &status.into());
            set(&obj, "serviceMessage", &message.into());
        }
        Error::Decode {
            reason,
            excerpt,
            excerpt_at,
            ..
        } => {
            set(&obj, "reason", &reason.into());
            set(&obj, "excerpt", &excerpt.into());
            // A JS number holds every byte offset a body can have.
            let at = excerpt_at.map_or(JsValue::NULL, |at| JsValue::from_f64(at as f64));
            set(&obj, "excerptAt", &at);
        }
        // Non-exhaustive: a new core variant still arrives with its kind
        // and message, and becomes a plain ErpError in JS.
        _ => {}
    }
    if let Some(info) = err.call() {
        set(&obj, "attempts", &info.attempts.into());
        set(&obj, "url", &info.url.as_str().into());
        if let Some(n) = info.rows_received {
            set(&obj, "rowsReceived", &(n as f64).into());
        }
        if let Some(n) = info.rows_delivered {
            set(&obj, "rowsDelivered", &(n as f64).into());
        }
    }
    obj.into()
}

/// What an exported function throws: a core error as the object above, or
/// a JS exception met on the way (from `Reflect`, say) as it was.
pub struct Thrown(JsValue);

impl From<Error> for Thrown {
    fn from(err: Error) -> Self {
        Thrown(to_js(&err))
    }
}

impl From<JsValue> for Thrown {
    fn from(value: JsValue) -> Self {
        Thrown(value)
    }
}

impl From<Thrown> for JsValue {
    fn from(thrown: Thrown) -> Self {
        thrown.0
    }
}

/// An exported function's result.
pub type JsResult<T> = Result<T, Thrown>;

/// The name among `known` that `given` most likely meant, if one is close
/// (the core's `closest`): the "did you mean" of an unknown option.
#[wasm_bindgen(js_name = closestName)]
pub fn closest_name(given: &str, known: Vec<String>) -> Option<String> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    erpdata::binding::closest(given, &known).map(str::to_owned)
}
