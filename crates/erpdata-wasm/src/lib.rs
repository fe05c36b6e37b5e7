//! wasm-bindgen glue: the `Core` class of the npm package's wasm module.
//!
//! It converts between JS values and the core's types and nothing else:
//! every rule of the wire format (encoding, validation, parsing, redaction)
//! lives in the `erpdata` crate, so JS behaves exactly like Rust and Python.
//! Errors are thrown as plain objects (see `errors`); `js/src/errors.js`
//! turns them into `Error` subclasses.
//!
//! One entry point for any operation, `Core.invoke` (see `invocation`),
//! and one per plan (`duesTable`, `aging`, `creditStatus`, see `plan`); a
//! client's call is a `Call` (see `call`): the core's state machine, which
//! JS only carries out. Nothing here is written per operation.

use erpdata::Config;
use wasm_bindgen::prelude::*;

mod args;
mod call;
mod columns;
mod convert;
#[cfg(feature = "testing")]
mod dues_join;
mod errors;
mod finance;
mod from_js;
mod invocation;
mod output;
mod plan;
#[cfg(feature = "testing")]
mod policy;
mod rows;
#[cfg(feature = "testing")]
mod stream;

pub use call::{check_call_options, limits, Call, Outcome};
pub use errors::Thrown;
pub use invocation::Invocation;
pub use plan::Plan;
#[cfg(feature = "testing")]
pub use policy::RetryPolicy;
#[cfg(feature = "testing")]
pub use stream::TableStream;

use errors::JsResult;

/// A validated configuration; the access token lives only in here, so no JS
/// object ever holds it.
#[wasm_bindgen]
pub struct Core {
    config: Config,
}

#[wasm_bindgen]
impl Core {
    /// `options`: `{baseUrl, project, projectFolder, accessToken, companyId,
    /// yearId, allowInsecureHttp, ajaxToken}`; `undefined`/`null` members
    /// are unset. `vars` (optional): the `ERPDATA_*` environment variables
    /// of the settings `options` does not give, by name; an error about a
    /// value of one names the variable.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue, vars: &JsValue) -> JsResult<Core> {
        Ok(Core {
            config: convert::config(options, vars)?,
        })
    }

    /// Makes room in wasm memory for parsing a body of `length` bytes, to be
    /// called (as its own call) before `Invocation.parse`.
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

    /// The base URL to show (`util.inspect`, `toJSON`): the token redacted
    /// where the caller put it in the URL.
    #[wasm_bindgen(getter, js_name = displayBaseUrl)]
    pub fn display_base_url(&self) -> String {
        self.config.display_base_url()
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

    /// Whether requests may go through a proxy the runtime takes from the
    /// environment: not to a loopback base URL (`Config::proxy_allowed`).
    #[wasm_bindgen(getter, js_name = proxyAllowed)]
    pub fn proxy_allowed(&self) -> bool {
        self.config.proxy_allowed()
    }

    /// Whether a token is configured (never its value).
    #[wasm_bindgen(getter, js_name = hasAccessToken)]
    pub fn has_access_token(&self) -> bool {
        self.config.has_access_token()
    }
}
