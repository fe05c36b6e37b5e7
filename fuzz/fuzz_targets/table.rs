//! The table answer, whole and streamed: any bytes, any status, any
//! chunking. Beyond "no panic", it checks the decoder's promises: the
//! streamed result does not depend on where the body is cut, it agrees with
//! `parse_table` (same error, or the same number of rows), every batch
//! converts to Arrow, a string column's dictionary holds each of its
//! values once and gives them back, and decoding on the threads of rayon's
//! pool (`decode_parallel`, cut into pieces whatever the body's size) gives
//! what streaming gives.
#![cfg_attr(not(target_family = "wasm"), no_main)]

#[cfg(target_family = "wasm")]
#[macro_use]
mod wasm;

mod common;

use common::{config, stream};
use erpdata::arrow_array::cast::AsArray;
use erpdata::arrow_array::types::Int32Type;
use erpdata::{Batch, ColumnData, DecoderOptions, Dictionary, ParallelOptions, TableDecoder};
#[cfg(not(target_family = "wasm"))]
use libfuzzer_sys::fuzz_target;

const STATUSES: [u16; 8] = [200, 200, 200, 200, 201, 404, 500, 503];

fuzz_target!(|input: &[u8]| {
    // Header: status, batch size, two cut points; the rest is the body.
    if input.len() < 4 {
        return;
    }
    let status = STATUSES[usize::from(input[0]) % STATUSES.len()];
    let batch_rows = 1 + usize::from(input[1] % 8);
    let body = &input[4..];
    let cut = |b: u8| usize::from(b) * body.len() / 256;
    let (a, b) = {
        let (x, y) = (cut(input[2]), cut(input[3]));
        (x.min(y), x.max(y))
    };

    let config = config();
    let whole = config.parse_table(status, body);
    let one = stream(&config, status, batch_rows, [body]);
    let split = stream(
        &config,
        status,
        batch_rows,
        [&body[..a], &body[a..b], &body[b..]],
    );
    let bytewise = stream(&config, status, batch_rows, body.chunks(1));

    let parallel = TableDecoder::decode_parallel(
        &config,
        status,
        body,
        DecoderOptions::with_batch_rows(batch_rows),
        ParallelOptions {
            threads: None,
            min_body_bytes: 0,
        },
    );

    assert_eq!(one, split, "result depends on the chunking");
    match (&parallel, &one) {
        (Ok(p), Ok(s)) => {
            assert_eq!(p.batches, s.batches, "decode_parallel's batches");
            assert_eq!(p.notices, s.notices, "decode_parallel's notices");
            assert_eq!(p.total_rows, s.total_rows, "decode_parallel's rows");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "decode_parallel's error"),
        (a, b) => panic!("decode_parallel {a:?} but streaming {b:?}"),
    }
    assert_eq!(one, bytewise, "result depends on the chunking (bytewise)");
    match (&whole, &one) {
        (Ok(table), Ok(streamed)) => {
            assert_eq!(table.rows.len() as u64, streamed.total_rows);
            let batch_rows: usize = streamed.batches.iter().map(|b| b.num_rows).sum();
            assert_eq!(
                batch_rows as u64, streamed.total_rows,
                "rows lost in batches"
            );
            for batch in &streamed.batches {
                batch
                    .to_record_batch()
                    .expect("every batch converts to Arrow");
                dictionaries_give_back_the_values(batch);
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!("parse_table {a:?} but streaming {b:?}"),
    }
    // The token never reaches an error message.
    if let Err(e) = &whole {
        assert!(!e.to_string().contains("fake-fuzz-token"));
    }
});

/// Each string column of `batch`, dictionary-encoded, reads as its values.
fn dictionaries_give_back_the_values(batch: &Batch) {
    let arrow = batch
        .clone()
        .into_record_batch_with(Dictionary::Always)
        .expect("every batch converts to Arrow");
    for (column, array) in batch.columns.iter().zip(arrow.columns()) {
        let ColumnData::String { values, validity } = &column.data else {
            continue;
        };
        let encoded = array.as_dictionary::<Int32Type>();
        let distinct = encoded.values().as_string::<i32>();
        for (i, key) in encoded.keys().iter().enumerate() {
            let valid = validity.as_ref().is_none_or(|v| v.get(i));
            assert_eq!(key.is_some(), valid, "row {i}: null or not");
            if let Some(key) = key {
                assert_eq!(distinct.value(key as usize), values.get(i), "row {i}");
            }
        }
        let mut once = std::collections::HashSet::new();
        for value in distinct.iter() {
            assert!(once.insert(value), "{value:?} twice in the dictionary");
        }
    }
}
