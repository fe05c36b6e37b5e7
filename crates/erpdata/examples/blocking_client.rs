//! The blocking client (feature `blocking`): no async runtime, typed
//! errors to act on.
//!
//! ```text
//! cargo run -p erpdata-sandbox -- --port 8787 &
//! export ERPDATA_BASE_URL=http://127.0.0.1:8787 ERPDATA_PROJECT=demo \
//!     ERPDATA_ACCESS_TOKEN=sandbox-token-not-secret ERPDATA_COMPANY_ID=1 ERPDATA_YEAR_ID=2025
//! cargo run -p erpdata --features blocking --example blocking_client
//! ```

use std::time::Duration;

use erpdata::{BlockingClient, ClientOptions, Config, Error};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    let options = ClientOptions::default()
        .timeout(Duration::from_secs(20))
        .max_retries(3);
    let client = BlockingClient::with_options(config, options)?;

    let payables = client.payables("S001")?;
    println!("payables of S001: {} open documents", payables.rows.len());

    let accounts = client.table("account")?;
    println!("account: {} rows", accounts.rows.len());

    // Each failure is one variant of `erpdata::Error`.
    match client.receivables("X999") {
        Ok(dues) => println!("X999: {} dues", dues.rows.len()),
        Err(Error::Service { message, .. }) => println!("X999: the service says {message:?}"),
        Err(Error::Transport { kind, .. }) => println!("X999: not reached ({kind})"),
        Err(other) => return Err(other.into()),
    }
    match client.table("no such table") {
        Err(Error::InvalidInput { field, reason }) => {
            println!("refused before sending: {field} {reason}")
        }
        other => println!("unexpected: {other:?}"),
    }
    Ok(())
}
