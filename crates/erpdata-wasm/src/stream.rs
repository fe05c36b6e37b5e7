//! `TableStream`: the core's streaming table decoder for JS, fed the body's
//! chunks as `fetch` delivers them; each complete batch goes out at once as
//! typed columns (see `columns`), so memory stays bounded by the batch size.

use erpdata::{DecoderOptions, TableDecoder};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::columns;
use crate::convert::set;
use crate::errors::core;
use crate::rows::{self, Numbers};
use crate::{strings, Core};

/// One answer being decoded.
#[wasm_bindgen]
pub struct TableStream {
    decoder: Option<TableDecoder>,
    numbers: Numbers,
    regular: bool,
    rows: f64,
}

#[wasm_bindgen]
impl Core {
    /// A decoder for a table answer with HTTP status `status`, in batches
    /// of `batchRows` rows; `numbers` as for `parseTable`.
    #[wasm_bindgen(js_name = tableStream)]
    pub fn table_stream(
        &self,
        status: u16,
        batch_rows: u32,
        numbers: &JsValue,
    ) -> Result<TableStream, JsValue> {
        let numbers = core(rows::numbers(numbers))?;
        let options = DecoderOptions::with_batch_rows(batch_rows.max(1) as usize);
        Ok(TableStream {
            decoder: Some(TableDecoder::new(&self.config, status, options)),
            numbers,
            regular: true,
            rows: 0.0,
        })
    }
}

#[wasm_bindgen]
impl TableStream {
    /// Takes the next chunk; returns the batches it completed (often none).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Array, JsValue> {
        let decoder = self.decoder.as_mut().ok_or_else(finished)?;
        let batches = core(decoder.feed(chunk))?;
        self.regular = decoder.rows_regular();
        self.rows = decoder.rows() as f64;
        Ok(batches
            .iter()
            .map(|b| columns::batch(b, self.numbers))
            .collect())
    }

    /// Ends the body: `{batches, notices, totalRows}` with the batches not
    /// yet returned, or throws (a body cut short is a `decode` error).
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let decoder = self.decoder.take().ok_or_else(finished)?;
        self.regular = decoder.rows_regular();
        let done = core(decoder.finish())?;
        self.rows = done.total_rows as f64;
        let batches: Array = done
            .batches
            .iter()
            .map(|b| columns::batch(b, self.numbers))
            .collect();
        let out = Object::new();
        set(&out, "batches", &batches);
        set(&out, "notices", &strings(&done.notices));
        set(&out, "totalRows", &self.rows.into());
        Ok(out.into())
    }

    /// Complete rows decoded so far.
    #[wasm_bindgen(getter)]
    pub fn rows(&self) -> f64 {
        self.rows
    }

    /// Whether every row so far had the first row's keys, in its order,
    /// each once (rows rebuilt from the columns are then the rows sent).
    #[wasm_bindgen(getter)]
    pub fn regular(&self) -> bool {
        self.regular
    }
}

fn finished() -> JsValue {
    JsValue::from_str("erpdata: TableStream used after finish()")
}
