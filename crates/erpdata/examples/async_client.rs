//! The async client (feature `reqwest`): configuration from the
//! environment, two calls at once, and a table streamed in batches.
//!
//! ```text
//! cargo run -p erpdata-sandbox -- --port 8787 &
//! export ERPDATA_BASE_URL=http://127.0.0.1:8787 ERPDATA_PROJECT=demo \
//!     ERPDATA_ACCESS_TOKEN=sandbox-token-not-secret ERPDATA_COMPANY_ID=1 ERPDATA_YEAR_ID=2025
//! cargo run -p erpdata --features reqwest --example async_client
//! ```

use erpdata::{AsyncClient, Cell, TableQuery};
use futures_util::TryStreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // ERPDATA_BASE_URL, ERPDATA_PROJECT, ERPDATA_ACCESS_TOKEN, ...
    let client = AsyncClient::from_env()?;

    let (dues, invoices) =
        tokio::try_join!(client.receivables("C001"), client.table("sales_invoice"),)?;
    println!("receivables of C001: {} open documents", dues.rows.len());
    for row in &dues.rows {
        if let (Some(Cell::String(doc)), Some(Cell::Number(balance))) =
            (row.get("doc_no"), row.get("balance"))
        {
            println!("  {doc:<16} {balance:>12}");
        }
    }
    println!(
        "sales_invoice: {} rows, columns {:?}",
        invoices.rows.len(),
        invoices.columns
    );

    // Another company's invoices, decoded batch by batch as they arrive.
    let mut batches = client
        .stream_table(TableQuery::new("sales_invoice").company_id(2))
        .await?;
    let mut rows = 0;
    while let Some(batch) = batches.try_next().await? {
        rows += batch.num_rows;
    }
    println!("sales_invoice of company 2, streamed: {rows} rows");
    Ok(())
}
