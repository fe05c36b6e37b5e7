//! The one entry point for any operation: `core.invoke(operation, args,
//! reading)` looks the operation up in the core's catalogue (snake or JS
//! name), converts `args` by shape (see `args`) and has the core check
//! them. The `Invocation` it gives builds the request, parses an answer,
//! or starts a `Call`; nothing here knows one operation from another.

use erpdata::{Config, DecoderOptions};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::call::{self, Call};
use crate::errors::JsResult;
use crate::output::output_js;
use crate::rows::{self, Numbers};
use crate::{args, convert, Core};

/// An operation with its arguments checked by the core.
#[wasm_bindgen]
pub struct Invocation {
    inner: erpdata::Invocation,
    config: Config,
    decoder: DecoderOptions,
    numbers: Numbers,
}

/// How an answer is read: `{numbers, schema, inferStrings}` (each
/// optional; the object `undefined` or `null` for none).
pub(crate) fn reading(reading: &JsValue) -> Result<(Numbers, DecoderOptions), erpdata::Error> {
    let numbers = if reading.is_object() {
        Reflect::get(reading, &"numbers".into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    };
    Ok((rows::numbers(&numbers)?, convert::typing(reading)?))
}

#[wasm_bindgen]
impl Core {
    /// Operation `operation` of the catalogue (`"avg_pay_days"` or
    /// `"avgPayDays"`) with `args`, a plain object of its arguments by
    /// name; `reading` as for `Invocation`. Throws the core's
    /// `invalid_input` error for anything it would not send.
    pub fn invoke(
        &self,
        operation: &str,
        args: &JsValue,
        reading: &JsValue,
    ) -> JsResult<Invocation> {
        let op = erpdata::operation(operation)?;
        let invocation = self.config.invoke(op, &args::args(args))?;
        let (numbers, decoder) = self::reading(reading).map_err(|e| self.config.redact_error(e))?;
        Ok(Invocation {
            inner: invocation,
            config: self.config.clone(),
            decoder,
            numbers,
        })
    }

    /// The whole catalogue as JSON (each operation's names, parameters,
    /// answer and doc line).
    #[wasm_bindgen]
    pub fn catalogue() -> String {
        erpdata::catalogue::catalogue_json()
    }
}

#[wasm_bindgen]
impl Invocation {
    /// The request, as `{method, url, headers, body, displayUrl}`.
    pub fn request(&self) -> JsResult<JsValue> {
        let request = self.inner.request(&self.config)?;
        Ok(call::request_js(&self.config, &request, true).into())
    }

    /// A whole answer read as the operation's entry says: dues, a
    /// function's answer, or a table with each row as sent (`{columns,
    /// rows, notices}`).
    pub fn parse(&self, status: u16, body: &[u8]) -> JsResult<JsValue> {
        let output = self
            .inner
            .parse(&self.config, status, body, &self.decoder)?;
        Ok(output_js(output, self.numbers)?)
    }

    /// The operation as a call (a table's answer as its typed columns);
    /// `options` as for `checkCallOptions`, `nowMs` the monotonic clock,
    /// `seed` any random number (the backoff's jitter).
    pub fn call(&self, options: &JsValue, now_ms: f64, seed: f64) -> JsResult<Call> {
        let invocation = self.inner.clone().columns_only();
        Ok(Call::start(
            &self.config,
            &invocation,
            self.decoder.clone(),
            options,
            (now_ms, seed),
            self.numbers,
            false,
        )?)
    }

    /// A table's answer as a stream: each batch handed out by an `emit`
    /// action as soon as it is complete, all of one schema; `done` gives
    /// `{notices, totalRows}`. Arguments as for `call`.
    pub fn stream(&self, options: &JsValue, now_ms: f64, seed: f64) -> JsResult<Call> {
        if self.inner.operation().answer != erpdata::catalogue::AnswerKind::Table {
            return Err(convert::invalid(
                "operation",
                format!("{} answers no table to stream", self.inner.operation().name),
            )
            .into());
        }
        Ok(Call::stream(
            &self.config,
            &self.inner,
            self.decoder.clone(),
            options,
            (now_ms, seed),
            self.numbers,
        )?)
    }
}
