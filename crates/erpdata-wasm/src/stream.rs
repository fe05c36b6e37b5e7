//! Test-only (the `testing` feature). `TableStream`: the core's streaming
//! table decoder for JS, fed a body's chunks directly: for the shared
//! decoding vectors (tests/js/vectors.js).
//! The client's calls decode inside the core's `Call` (see `call`).
//!
//! Two modes. A stream (`streamTable`) has one schema, fixed by its first
//! batch (`DecoderOptions::one_schema`); each complete batch goes out at
//! once as typed columns (see `columns`), so memory stays bounded by the
//! batch size. A whole table (`table()`) keeps its batches in here until
//! the body is complete, then decides each column's type over all of them
//! (`unify_schemas`), casts each batch to it (`Batch::cast`) and gives them
//! out as one JS batch.

use erpdata::{Batch, TableDecoder};

use crate::output::{strings, unified};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::columns;
use crate::convert::{self, set};
use crate::errors::JsResult;
use crate::rows::{self, Numbers};
use crate::Core;

/// One answer being decoded.
#[wasm_bindgen]
pub struct TableStream {
    decoder: Option<TableDecoder>,
    numbers: Numbers,
    /// A whole table's batches so far (`None` for a stream).
    kept: Option<Vec<Batch>>,
    regular: bool,
    rows: f64,
}

#[wasm_bindgen]
impl Core {
    /// A decoder for a table answer with HTTP status `status`, in batches
    /// of `batchRows` rows; `numbers` and `typing` as `Core.invoke` reads
    /// them (`{numbers}` and `{schema, inferStrings}`).
    /// `whole` false: a stream of one schema, each batch given out by
    /// `feed`; true: a whole table, given out by `finish` as one batch of
    /// unified column types.
    #[wasm_bindgen(js_name = tableStream)]
    pub fn table_stream(
        &self,
        status: u16,
        batch_rows: u32,
        numbers: &JsValue,
        typing: &JsValue,
        whole: bool,
    ) -> JsResult<TableStream> {
        let numbers = rows::numbers(numbers)?;
        let mut options = convert::typing(typing).map_err(|e| self.config.redact_error(e))?;
        options.batch_rows = batch_rows.max(1) as usize;
        options.one_schema = !whole;
        Ok(TableStream {
            decoder: Some(TableDecoder::new(&self.config, status, options)),
            numbers,
            kept: whole.then(Vec::new),
            regular: true,
            rows: 0.0,
        })
    }
}

#[wasm_bindgen]
impl TableStream {
    /// Takes the next chunk; returns the batches it completed (often none;
    /// always none for a whole table).
    pub fn feed(&mut self, chunk: &[u8]) -> JsResult<Array> {
        let decoder = self.decoder.as_mut().ok_or_else(finished)?;
        let batches = decoder.feed(chunk)?;
        self.regular = decoder.rows_regular();
        self.rows = decoder.rows() as f64;
        if let Some(kept) = &mut self.kept {
            kept.extend(batches);
            return Ok(Array::new());
        }
        Ok(batches
            .iter()
            .map(|b| columns::batch(b, self.numbers))
            .collect())
    }

    /// Ends the body: `{batches, notices, totalRows}` with the batches not
    /// yet returned (a whole table's as one), or throws (a body cut short
    /// is a `decode` error).
    pub fn finish(&mut self) -> JsResult<JsValue> {
        let decoder = self.decoder.take().ok_or_else(finished)?;
        self.regular = decoder.rows_regular();
        let done = decoder.finish()?;
        self.rows = done.total_rows as f64;
        let batches: Array = match self.kept.take() {
            Some(mut kept) => {
                kept.extend(done.batches);
                let kept = unified(kept);
                std::iter::once(columns::batches(&kept, self.numbers)).collect()
            }
            None => done
                .batches
                .iter()
                .map(|b| columns::batch(b, self.numbers))
                .collect(),
        };
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
