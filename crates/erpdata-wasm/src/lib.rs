//! wasm-bindgen glue: the `Core` class of the npm package's wasm module.
//!
//! It converts between JS values and the core's types and nothing else:
//! every rule of the wire format (encoding, validation, parsing, redaction)
//! lives in the `erpdata` crate, so JS behaves exactly like Rust and Python.
//! Errors are thrown as plain objects (see `errors`); `js/src/errors.js`
//! turns them into `Error` subclasses. A client's call is a `Call` (see
//! `call`): the core's state machine, which JS only carries out.

use std::str::FromStr;

use erpdata::{Config, DuesKind, DuesQuery, Method, TableQuery};
use js_sys::{Array, Object, Uint8Array};
use wasm_bindgen::prelude::*;

mod call;
mod columns;
mod convert;
mod errors;
mod finance;
mod from_js;
mod functions;
mod policy;
mod rows;
mod stream;

pub use call::{check_call_options, limits, Call};
pub use policy::RetryPolicy;
pub use stream::TableStream;

use convert::{id, opt_id, opt_text, set, text};
use errors::core;
use rows::Keys;

/// A validated configuration; the access token lives only in here, so no JS
/// object ever holds it.
#[wasm_bindgen]
pub struct Core {
    config: Config,
}

#[wasm_bindgen]
impl Core {
    /// `options`: `{baseUrl, project, projectFolder, accessToken, companyId,
    /// yearId, allowInsecureHttp}`; `undefined`/`null` members are unset.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue) -> Result<Core, JsValue> {
        core(convert::config(options)).map(|config| Core { config })
    }

    /// The dues query as `{method, url, headers, body, displayUrl}`;
    /// `options` (optional): `{sendToken, method}`.
    #[wasm_bindgen(js_name = duesRequest)]
    pub fn dues_request(
        &self,
        acid: &JsValue,
        kind: &JsValue,
        options: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let mut query = core(dues_query(acid, kind))?;
        query.options = core(functions::ajax_options(options))?;
        let request = core(self.config.dues_request(&query))?;
        Ok(self.request(&request))
    }

    /// The table fetch as `{method, url, headers, body, displayUrl}`;
    /// `companyId`/`yearId` `undefined` or `null` use the configured default,
    /// `method` `undefined` or `null` is POST.
    #[wasm_bindgen(js_name = tableRequest)]
    pub fn table_request(
        &self,
        table: &JsValue,
        company_id: &JsValue,
        year_id: &JsValue,
        method: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = core(table_query(table, company_id, year_id, method))?;
        let request = core(self.config.table_request(&query))?;
        Ok(self.request(&request))
    }

    /// Checks typing options (`{schema, inferStrings}`, see `parseTable`)
    /// and throws the `invalid_input` error they would give, so that a call
    /// can refuse them before it sends anything.
    #[wasm_bindgen(js_name = checkTyping)]
    pub fn check_typing(&self, typing: &JsValue) -> Result<(), JsValue> {
        core(convert::typing(typing)).map(drop)
    }

    /// Parses a dues answer into `{acid, kind, rows, raw, notices}`, the
    /// rows' values typed by column as a table's are.
    /// `numbers` (optional): `"number"` (default) or `"string"`; `typing`
    /// (optional) as for `parseTable`.
    #[wasm_bindgen(js_name = parseDues)]
    pub fn parse_dues(
        &self,
        acid: &JsValue,
        kind: &JsValue,
        status: u16,
        body: &[u8],
        numbers: &JsValue,
        typing: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = core(dues_query(acid, kind))?;
        let as_text = core(rows::numbers(numbers))?;
        let options = core(convert::typing(typing))?;
        let dues = core(self.config.parse_dues_with(&query, status, body, &options))?;
        dues_js(&dues, as_text)
    }

    /// Parses a table answer into `{columns, rows, notices}`, each row
    /// with the keys it was sent with and its values typed by column over
    /// the whole table (a decimal as a number or, with `numbers: "string"`,
    /// the text it was sent as; a date `YYYY-MM-DD`, a timestamp
    /// `YYYY-MM-DD HH:MM:SS[.ffffff]`; a zero date null).
    /// `numbers` (optional): `"number"` (default) or `"string"`. `typing`
    /// (optional): `{schema, inferStrings}`, `schema` a plain object of
    /// column name -> declared type name, `inferStrings` a boolean (default
    /// true).
    #[wasm_bindgen(js_name = parseTable)]
    pub fn parse_table(
        &self,
        status: u16,
        body: &[u8],
        numbers: &JsValue,
        typing: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let as_text = core(rows::numbers(numbers))?;
        let options = core(convert::typing(typing))?;
        let table = core(self.config.parse_table_with(status, body, &options))?;
        let mut keys = Keys::new(&table.columns);
        let rows = keys.rows(&table.rows, as_text)?;
        let out = Object::new();
        set(&out, "columns", &keys.columns());
        set(&out, "rows", &rows);
        set(&out, "notices", &strings(&table.notices));
        Ok(out.into())
    }

    /// Makes room in wasm memory for parsing a body of `length` bytes, to be
    /// called (as its own call) before `parseTable`/`parseDues`.
    ///
    /// Memory that grows in the middle of a long wasm call makes V8 run full
    /// GCs back to back until the call returns (Node 20: the first parse of
    /// a 38 MB table took 11 s instead of 1 s, worse with a larger JS heap).
    /// Growing it here, in a short call, avoids that; the allocator keeps
    /// the freed block for the parse, and later parses of that size need no
    /// growth at all.
    #[wasm_bindgen(js_name = reserveForBody)]
    pub fn reserve_for_body(&self, length: usize) {
        // The body's copy plus rows of owned strings: about 4x the body.
        let mut block = Vec::<u8>::new();
        // A failure only means the parse grows memory itself (or fails the
        // way it would have anyway); it must not abort here.
        let _ = block.try_reserve_exact(length.saturating_mul(5));
        // Without this the optimiser drops the unused allocation.
        std::hint::black_box(&block);
    }

    /// `text` with every encoding of the token replaced by `[REDACTED]`.
    pub fn redact(&self, text: &str) -> String {
        self.config.redact(text)
    }

    /// The base URL as the core normalised it (ends with `/`).
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.config.base_url().to_string()
    }

    /// The project, if set.
    #[wasm_bindgen(getter)]
    pub fn project(&self) -> Option<String> {
        self.config.project().map(str::to_owned)
    }

    /// The project folder sent by the dues query (defaults to the project).
    #[wasm_bindgen(getter, js_name = projectFolder)]
    pub fn project_folder(&self) -> Option<String> {
        self.config.project_folder().map(str::to_owned)
    }

    /// The default company id's text, if set.
    #[wasm_bindgen(getter, js_name = companyId)]
    pub fn company_id(&self) -> Option<String> {
        self.config.company_id().map(|i| i.as_str().to_owned())
    }

    /// The default year id's text, if set.
    #[wasm_bindgen(getter, js_name = yearId)]
    pub fn year_id(&self) -> Option<String> {
        self.config.year_id().map(|i| i.as_str().to_owned())
    }

    /// Whether a token is configured (never its value).
    #[wasm_bindgen(getter, js_name = hasAccessToken)]
    pub fn has_access_token(&self) -> bool {
        self.config.has_access_token()
    }
}

impl Core {
    pub(crate) fn request(&self, request: &http::Request<Vec<u8>>) -> JsValue {
        let out = request_js(&self.config, request);
        let url = request.uri().to_string();
        set(&out, "displayUrl", &self.config.redact(&url).into());
        out.into()
    }
}

/// A request as `{method, url, headers, body}` for fetch.
fn request_js(_config: &Config, request: &http::Request<Vec<u8>>) -> Object {
    let url = request.uri().to_string();
    let headers = Array::new();
    for (name, value) in request.headers() {
        // The core only sets ASCII values; lossy is for the impossible case.
        let value = String::from_utf8_lossy(value.as_bytes());
        headers.push(&Array::of2(&name.as_str().into(), &value.as_ref().into()));
    }
    let body = if request.body().is_empty() {
        JsValue::NULL
    } else {
        Uint8Array::from(request.body().as_slice()).into()
    };
    let out = Object::new();
    set(&out, "method", &request.method().as_str().into());
    set(&out, "url", &url.as_str().into());
    set(&out, "headers", &headers);
    set(&out, "body", &body);
    out
}

/// Dues as `{acid, kind, rows, schema, raw, notices}`, and `batch` (the
/// rows as typed columns) and `totalRows` for `columns()`.
fn dues_js(dues: &erpdata::Dues, as_text: rows::Numbers) -> Result<JsValue, JsValue> {
    let rows = Keys::new(&[]).rows(&dues.rows, as_text)?;
    let out = Object::new();
    let batches = call::unified(dues.batches.clone());
    set(&out, "batch", &columns::batches(&batches, as_text));
    set(&out, "totalRows", &(dues.rows.len() as f64).into());
    set(&out, "acid", &dues.acid.as_str().into());
    set(&out, "kind", &dues.kind.as_str().into());
    set(&out, "rows", &rows);
    set(&out, "schema", &schema(&dues.schema)?.into());
    set(&out, "raw", &dues.raw.as_str().into());
    set(&out, "notices", &strings(&dues.notices));
    Ok(out.into())
}

pub(crate) fn dues_query(acid: &JsValue, kind: &JsValue) -> Result<DuesQuery, erpdata::Error> {
    let acid = id("acid", acid)?;
    let kind = DuesKind::from_str(&text("kind", kind)?)?;
    Ok(DuesQuery::new(acid, kind))
}

fn table_query(
    table: &JsValue,
    company_id: &JsValue,
    year_id: &JsValue,
    method: &JsValue,
) -> Result<TableQuery, erpdata::Error> {
    let method = match opt_text("method", method)? {
        Some(m) => Method::from_str(&m)?,
        None => Method::default(),
    };
    Ok(TableQuery {
        table: text("table", table)?,
        company_id: opt_id("company_id", company_id)?,
        year_id: opt_id("year_id", year_id)?,
        method,
    })
}

/// `{column: type name}`, own properties in column order (`__proto__`
/// too, as `Object.fromEntries` makes it).
pub(crate) fn schema(schema: &erpdata::Schema) -> Result<Object, JsValue> {
    let pairs: Array = schema
        .iter()
        .map(|(name, ty)| Array::of2(&name.as_str().into(), &ty.name().into()))
        .collect();
    Object::from_entries(&pairs)
}

pub(crate) fn strings(items: &[String]) -> Array {
    items.iter().map(|s| JsValue::from_str(s)).collect()
}
