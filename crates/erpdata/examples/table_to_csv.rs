//! Streams a table of any size to CSV in bounded memory (feature
//! `blocking`): batches of typed columns go straight to the file, with
//! money written as the exact decimal text the service sent.
//!
//! ```text
//! cargo run -p erpdata-sandbox -- --port 8787 --rows 1000000 &
//! export ERPDATA_BASE_URL=http://127.0.0.1:8787 ERPDATA_PROJECT=demo \
//!     ERPDATA_ACCESS_TOKEN=sandbox-token-not-secret ERPDATA_COMPANY_ID=1 ERPDATA_YEAR_ID=2025
//! cargo run -p erpdata --features blocking --example table_to_csv -- sales_invoice out.csv
//! ```

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Instant;

use erpdata::{Batch, BlockingClient, Cell, ClientOptions, Config};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let table = args.next().unwrap_or_else(|| "sales_invoice".to_owned());
    let path = args.next();
    let out: Box<dyn Write> = match &path {
        Some(p) if p != "-" => Box::new(File::create(p)?),
        _ => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);

    // Smaller batches than the default keep the memory low; a stream of
    // any length never holds more than one batch and one read.
    let options = ClientOptions::default().batch_rows(16_384);
    let client = BlockingClient::with_options(Config::from_env()?, options)?;
    let start = Instant::now();
    let mut header: Option<Vec<String>> = None;
    let (mut rows, mut batches) = (0, 0);
    for batch in client.stream_table(table.as_str())? {
        let batch = batch?;
        let columns =
            header.get_or_insert_with(|| batch.columns.iter().map(|c| c.name.clone()).collect());
        if rows == 0 {
            write_record(&mut out, columns.iter().map(|c| Cell::String(c.clone())))?;
        }
        // A CSV header cannot grow: a column first seen after it was
        // written is an error rather than a silently dropped value.
        if let Some(new) = batch.columns.iter().find(|c| !columns.contains(&c.name)) {
            return Err(format!(
                "column {:?} appeared after the header was written",
                new.name
            )
            .into());
        }
        write_batch(&mut out, &batch, columns)?;
        rows += batch.num_rows;
        batches += 1;
    }
    out.flush()?;
    eprintln!(
        "{table}: {rows} rows in {batches} batches to {} in {:.2?}",
        path.as_deref().unwrap_or("stdout"),
        start.elapsed()
    );
    Ok(())
}

fn write_batch(out: &mut impl Write, batch: &Batch, columns: &[String]) -> io::Result<()> {
    let by_position: Vec<_> = columns.iter().map(|name| batch.column(name)).collect();
    for i in 0..batch.num_rows {
        write_record(
            out,
            by_position
                .iter()
                .map(|c| c.map_or(Cell::Null, |c| c.cell(i))),
        )?;
    }
    Ok(())
}

fn write_record(out: &mut impl Write, cells: impl Iterator<Item = Cell>) -> io::Result<()> {
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        match cell {
            Cell::Null => {}
            Cell::Bool(b) => write!(out, "{b}")?,
            Cell::Int(n) => write!(out, "{n}")?,
            Cell::Number(text) => out.write_all(text.as_bytes())?,
            Cell::String(text) | Cell::Json(text) => write_text(out, &text)?,
        }
    }
    out.write_all(b"\r\n")
}

/// RFC 4180: quoted when it holds a comma, quote or line break.
fn write_text(out: &mut impl Write, text: &str) -> io::Result<()> {
    if text.contains([',', '"', '\r', '\n']) {
        write!(out, "\"{}\"", text.replace('"', "\"\""))
    } else {
        out.write_all(text.as_bytes())
    }
}
