//! Test-only (the `testing` feature): dues answers joined into one table
//! by the core's `Config::dues_table`, for the shared dues-table vectors,
//! some of which (receivables and payables together) no plan can ask for.

use erpdata::Args;
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::convert::{invalid, text};
use crate::errors::JsResult;
use crate::output::typed_js;
use crate::rows::Numbers;
use crate::Core;

#[wasm_bindgen]
impl Core {
    /// `dues`: an array of `{acid, kind, body}`, each answer read as the
    /// dues operation reads it, then joined with an `acid` column first.
    #[wasm_bindgen(js_name = duesTableOf)]
    pub fn dues_table_of(&self, dues: &JsValue) -> JsResult<JsValue> {
        if !Array::is_array(dues) {
            return Err(invalid("dues", "must be an array of dues answers").into());
        }
        let op = erpdata::operation("dues")?;
        let options = erpdata::DecoderOptions::default();
        let mut parsed = Vec::new();
        for d in Array::from(dues).iter() {
            let get = |key: &str| Reflect::get(&d, &key.into()).unwrap_or(JsValue::UNDEFINED);
            let mut args = Args::new();
            for key in ["acid", "kind"] {
                if let Some(value) = crate::args::arg(&get(key)) {
                    args.set(key, value);
                }
            }
            let body = text("body", &get("body"))?;
            let invocation = self.config.invoke(op, &args)?;
            let output = invocation.parse(&self.config, 200, body.as_bytes(), &options)?;
            parsed.push(output.into_dues()?);
        }
        let typed = self.config.dues_table(&parsed, &options)?;
        Ok(typed_js(&typed, Numbers::Number))
    }
}
