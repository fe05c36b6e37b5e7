//! Test-only (the `testing` feature): the core's retry and redirect
//! decisions one at a time, for the shared vectors (tests/vectors, run by
//! tests/js/vectors.test.js). The client does not use them: its calls are
//! the core's `Call` (see `call`), which makes these decisions itself.

use std::time::{Duration, UNIX_EPOCH};

use erpdata::{Decision, Outcome, TransportKind};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::convert::invalid;
use crate::errors::JsResult;
use crate::Core;

/// When to try a failed call again (`erpdata::RetryPolicy`).
#[wasm_bindgen]
pub struct RetryPolicy {
    inner: erpdata::RetryPolicy,
}

#[wasm_bindgen]
impl RetryPolicy {
    /// The default policy with `maxRetries` retries, honouring a
    /// `Retry-After` of at most `maxRetryAfterMs` milliseconds.
    #[wasm_bindgen(constructor)]
    pub fn new(max_retries: u32, max_retry_after_ms: Option<f64>) -> JsResult<RetryPolicy> {
        let mut inner = erpdata::RetryPolicy::with_max_retries(max_retries);
        if let Some(ms) = max_retry_after_ms {
            inner.max_retry_after = erpdata::binding::check_max_retry_after_millis(ms)?;
        }
        Ok(RetryPolicy { inner })
    }

    /// Retries after the first attempt.
    #[wasm_bindgen(getter, js_name = maxRetries)]
    pub fn max_retries(&self) -> u32 {
        self.inner.max_retries
    }

    /// After an answer with `status`: milliseconds to wait before the next
    /// attempt, or `undefined` to stop. `retryAfter` is the raw header (or
    /// `undefined`), `random` uniform in [0, 1), `nowMs` the Unix time in
    /// milliseconds (for a `Retry-After` date).
    #[wasm_bindgen(js_name = afterStatus)]
    pub fn after_status(
        &self,
        retries_done: u32,
        status: u16,
        retry_after: Option<String>,
        random: f64,
        now_ms: Option<f64>,
    ) -> Option<f64> {
        let outcome = Outcome::Status {
            status,
            retry_after: retry_after.as_deref(),
        };
        let now = now_ms
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| UNIX_EPOCH + Duration::from_secs_f64(n / 1000.0));
        millis(self.inner.decide(retries_done, outcome, random, now))
    }

    /// After a transport failure of `kind` (`"connect"`, `"timeout"`,
    /// `"reset"`, `"tls"`, `"other"`): milliseconds to wait, or `undefined` to stop.
    #[wasm_bindgen(js_name = afterTransport)]
    pub fn after_transport(&self, retries_done: u32, kind: &str, random: f64) -> Option<f64> {
        let outcome = Outcome::Transport(TransportKind::from_name(kind));
        millis(self.inner.decide(retries_done, outcome, random, None))
    }
}

fn millis(decision: Decision) -> Option<f64> {
    match decision {
        Decision::RetryAfter(d) => Some(d.as_secs_f64() * 1000.0),
        Decision::Stop => None,
    }
}

#[wasm_bindgen]
impl Core {
    /// The request to send after a redirect answer, `undefined` when
    /// `status` is not a redirect to follow; throws an `http_status` error
    /// object for one the core refuses (another origin, https to http, no
    /// `Location`, too many). `sent` is a request object this `Core` made.
    #[wasm_bindgen(js_name = followRedirect)]
    pub fn follow_redirect(
        &self,
        sent: &JsValue,
        status: u16,
        location: Option<String>,
        hops_done: u32,
    ) -> JsResult<JsValue> {
        let sent = request_from_js(sent)?;
        let next = self
            .config
            .follow_redirect(&sent, status, location.as_deref(), hops_done)?;
        Ok(next.map_or(JsValue::UNDEFINED, |r| {
            crate::call::request_js(&self.config, &r, true).into()
        }))
    }
}

/// A request object (`{method, url, headers, body}`) back into the core's
/// type.
fn request_from_js(value: &JsValue) -> Result<http::Request<erpdata::RequestBody>, erpdata::Error> {
    let bad = |what: &str| invalid("request", format!("is not a request object ({what})"));
    let get = |key: &str| Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let method = get("method").as_string().ok_or_else(|| bad("method"))?;
    let url = get("url").as_string().ok_or_else(|| bad("url"))?;
    let mut builder = http::Request::builder().method(method.as_str()).uri(url);
    let headers = get("headers");
    if Array::is_array(&headers) {
        for pair in Array::from(&headers).iter() {
            let pair = Array::from(&pair);
            let (name, value) = (pair.get(0).as_string(), pair.get(1).as_string());
            let (Some(name), Some(value)) = (name, value) else {
                return Err(bad("headers"));
            };
            builder = builder.header(name, value);
        }
    }
    let body = get("body");
    let body = if body.is_instance_of::<Uint8Array>() {
        Uint8Array::from(body).to_vec()
    } else {
        Vec::new()
    };
    builder.body(body.into()).map_err(|_| bad("unparseable"))
}
