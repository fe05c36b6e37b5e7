//! Streams a table of any size into a Parquet file (features `blocking`
//! and `arrow`): each batch of typed columns becomes an Arrow record batch
//! and goes to the writer, so memory stays bounded by the batch size.
//! Money is Decimal128 at the column's scale, dates Date32, timestamps
//! microseconds: the types the core gives, not text.
//!
//! ```text
//! cargo run -p erpdata-sandbox -- --port 8787 --rows 1000000 &
//! export ERPDATA_BASE_URL=http://127.0.0.1:8787 ERPDATA_PROJECT=demo \
//!     ERPDATA_ACCESS_TOKEN=sandbox-token-not-secret ERPDATA_COMPANY_ID=1 ERPDATA_YEAR_ID=2025
//! cargo run -p erpdata --features blocking,arrow --example table_to_parquet -- sales_invoice out.parquet
//! ```

use std::fs::File;
use std::time::Instant;

use erpdata::{BlockingClient, ClientOptions, Config};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let table = args.next().unwrap_or_else(|| "sales_invoice".to_owned());
    let path = args.next().unwrap_or_else(|| format!("{table}.parquet"));

    let options = ClientOptions::default().batch_rows(16_384);
    let client = BlockingClient::with_options(Config::from_env()?, options)?;
    let start = Instant::now();
    // A stream keeps one schema for all its batches (a value that does not
    // fit the first batch's types is an error naming it), which is what a
    // Parquet file needs. Strings stay plain Utf8 (the default):
    // dictionary encoding chosen per batch could differ between batches;
    // Parquet dictionary-encodes pages by itself.
    let mut writer: Option<ArrowWriter<File>> = None;
    let (mut rows, mut batches) = (0, 0);
    for batch in client.stream_table(table.as_str())? {
        let batch = batch?.into_record_batch()?;
        let writer = match &mut writer {
            Some(w) => w,
            None => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .build();
                writer.insert(ArrowWriter::try_new(
                    File::create(&path)?,
                    batch.schema(),
                    Some(props),
                )?)
            }
        };
        rows += batch.num_rows();
        batches += 1;
        writer.write(&batch)?;
    }
    let Some(writer) = writer else {
        return Err(format!("{table}: the service sent no rows, so no file was written").into());
    };
    writer.close()?;
    let took = start.elapsed();

    // Read the file back: the rows and the types are what was written.
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&path)?)?;
    let schema = reader.schema().clone();
    let read: usize = reader
        .build()?
        .map(|b| b.map(|b| b.num_rows()))
        .sum::<Result<_, _>>()?;
    if read != rows {
        return Err(format!("{path}: {read} rows read back, {rows} written").into());
    }
    let types: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect();
    println!(
        "{table}: {rows} rows in {batches} batches to {path} ({} bytes) in {took:.2?}\n  {}",
        std::fs::metadata(&path)?.len(),
        types.join(", ")
    );
    Ok(())
}
