//! The dues answer: any bytes and status parse to `Dues` or a typed error,
//! never a panic, never the token in a message.
#![cfg_attr(not(target_family = "wasm"), no_main)]

#[cfg(target_family = "wasm")]
#[macro_use]
mod wasm;

use erpdata::{Config, DuesKind, DuesQuery};
#[cfg(not(target_family = "wasm"))]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&first, body)) = input.split_first() else {
        return;
    };
    let status = [200u16, 200, 200, 204, 301, 404, 500, 503][usize::from(first % 8)];
    let kind = if first & 0x80 == 0 {
        DuesKind::Receipt
    } else {
        DuesKind::Payment
    };
    let config = Config::builder("https://erp.example.com/")
        .project("demo")
        .access_token("fake-fuzz-token")
        .build()
        .expect("valid config");
    let query = DuesQuery::new("C001", kind);
    if let Err(e) = config.parse_dues(&query, status, body) {
        assert!(!e.to_string().contains("fake-fuzz-token"));
    }
});
