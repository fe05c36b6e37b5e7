//! What the table fuzz targets share: the client they decode with, and a
//! streamed decoding of a body cut into chunks.

use erpdata::{Batch, Config, DecoderOptions, Error, TableDecoder};

pub fn config() -> Config {
    Config::builder("https://erp.example.com/")
        .project("demo")
        .access_token("fake-fuzz-token")
        .build()
        .expect("valid config")
}

/// What a stream gave, in all.
#[derive(Debug, PartialEq)]
pub struct Streamed {
    pub batches: Vec<Batch>,
    pub notices: Vec<String>,
    pub total_rows: u64,
}

/// The answer of `status` decoded from `chunks` in turn.
pub fn stream<'a>(
    config: &Config,
    status: u16,
    batch_rows: usize,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Streamed, Error> {
    let mut decoder =
        TableDecoder::new(config, status, DecoderOptions::with_batch_rows(batch_rows));
    let mut batches = Vec::new();
    for chunk in chunks {
        batches.extend(decoder.feed(chunk)?);
    }
    let finished = decoder.finish()?;
    batches.extend(finished.batches);
    Ok(Streamed {
        batches,
        notices: finished.notices,
        total_rows: finished.total_rows,
    })
}
