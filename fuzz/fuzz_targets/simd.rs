//! The SIMD scanner against the scalar one, and against serde_json: any
//! bytes, cut into chunks where the fuzzer says. The decoder must give the
//! same batches, notices, row count or error on both paths (the scalar path
//! is the reference: it is what targets without SIMD run), and a body that
//! serde_json accepts as the documented answer (an object whose `status` is
//! `"success"` and whose `data` is an array of objects) must decode, with
//! every row.
#![cfg_attr(not(target_family = "wasm"), no_main)]

#[cfg(target_family = "wasm")]
#[macro_use]
mod wasm;

mod common;

use common::{config, stream};
use erpdata::Error;
#[cfg(not(target_family = "wasm"))]
use libfuzzer_sys::fuzz_target;

extern "C" {
    /// Defined by erpdata in `--cfg fuzzing` builds: makes this thread's
    /// decoding take the scalar paths (`true`) or the SIMD ones.
    fn erpdata_fuzz_scalar_only(on: bool);
}

fn scalar_only(on: bool) {
    // SAFETY: a plain Rust function behind a C name, setting a thread-local.
    unsafe { erpdata_fuzz_scalar_only(on) }
}

/// How the decoder's error for a body with two `data` fields begins, which
/// serde_json reads by keeping the last (one of the two would be a shorter
/// table than was sent).
const TWO_DATA: &str = "the answer has two `data` fields";

/// The rows of a body serde_json reads as the documented answer.
fn documented_rows(body: &[u8]) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let object = value.as_object()?;
    if object.get("status")?.as_str()? != "success" {
        return None;
    }
    let rows = object.get("data")?.as_array()?;
    rows.iter().all(|r| r.is_object()).then_some(rows.len())
}

fuzz_target!(|input: &[u8]| {
    // Header: batch size, then the number of cuts and the cuts (each a
    // fraction of the body in 256ths); the rest is the body.
    let Some((&rows, rest)) = input.split_first() else {
        return;
    };
    let Some((&n, rest)) = rest.split_first() else {
        return;
    };
    let n = usize::from(n % 8).min(rest.len());
    let (cuts, body) = rest.split_at(n);
    let batch_rows = 1 + usize::from(rows % 8);
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| usize::from(c) * body.len() / 256)
        .collect();
    at.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for &to in &at {
        chunks.push(&body[from..to]);
        from = to;
    }
    chunks.push(&body[from..]);

    let config = config();
    scalar_only(true);
    let scalar = stream(&config, 200, batch_rows, chunks.iter().copied());
    let scalar_whole = config.parse_table(200, body);
    scalar_only(false);
    let simd = stream(&config, 200, batch_rows, chunks.iter().copied());
    let simd_whole = config.parse_table(200, body);
    let simd_bytewise = stream(&config, 200, batch_rows, body.chunks(1));

    assert_eq!(simd, scalar, "the SIMD path differs from the scalar one");
    assert_eq!(simd_whole, scalar_whole, "parse_table differs");
    assert_eq!(simd, simd_bytewise, "the result depends on the chunking");

    if let Some(rows) = documented_rows(body) {
        match &simd {
            Ok(streamed) => assert_eq!(streamed.total_rows, rows as u64, "rows lost"),
            // serde_json keeps the last of two `data` fields; the decoder
            // refuses them.
            Err(Error::Decode { reason, .. }) if reason.starts_with(TWO_DATA) => {}
            Err(e) => panic!("serde_json accepts the body, the decoder says {e}"),
        }
        assert_eq!(
            simd_whole.is_ok(),
            simd.is_ok(),
            "parse_table: {simd_whole:?}"
        );
    }
});
