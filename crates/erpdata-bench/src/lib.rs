//! The decoder's benchmarks (`benches/`: `ratios` for same-run ratios to
//! serde_json, `decode` for criterion's figures; `clients` times the
//! clients over HTTP), and what the first two share: the
//! configuration, feeding a body to the streaming decoder the way a
//! client does, and the [`ceiling`] of typed decoding. `make bench-rust`
//! runs them.

pub mod ceiling;

use erpdata::{Batch, Config, DecoderOptions, TableDecoder};

/// Rows of the sandbox's `sales_invoice` answer both benches decode.
pub const ROWS: u64 = 1_000_000;
/// Chunks of the body as a client might receive them.
const CHUNK: usize = 64 * 1024;

pub fn config() -> Config {
    Config::builder("https://erp.example.com/")
        .project("demo")
        .access_token("bench-token")
        .build()
        .expect("a valid config")
}

/// Feeds `body` in chunks; `each` consumes every batch. Returns the rows.
pub fn streamed(config: &Config, body: &[u8], mut each: impl FnMut(Batch)) -> u64 {
    let mut d = TableDecoder::new(config, 200, DecoderOptions::default());
    for chunk in body.chunks(CHUNK) {
        d.feed(chunk)
            .expect("decodes")
            .into_iter()
            .for_each(&mut each);
    }
    let f = d.finish().expect("decodes");
    f.batches.into_iter().for_each(each);
    f.total_rows
}
