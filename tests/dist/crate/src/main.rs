//! The packaged erpdata crate against the sandbox (ERPDATA_BASE_URL): dues,
//! a table, typed errors, the token kept out of what is printed.

use erpdata::{BlockingClient, Config, Error};

const TOKEN: &str = "sandbox-token-not-secret";

fn client(base_url: &str, token: &str) -> BlockingClient {
    let config = Config::builder(base_url)
        .project("demo")
        .access_token(token)
        .company_id(1)
        .year_id(2025)
        .build()
        .expect("a valid config");
    BlockingClient::new(config).expect("a client")
}

fn main() {
    let base_url = std::env::var("ERPDATA_BASE_URL").expect("ERPDATA_BASE_URL (the sandbox)");
    let client = client(&base_url, TOKEN);

    let dues = client.receivables("C001").expect("receivables of C001");
    assert!(!dues.rows.is_empty(), "C001 has open receivables");

    let table = client.table("sales_invoice").expect("the sales_invoice table");
    assert_eq!(table.rows.len(), 40, "the sandbox's sales_invoice rows");
    assert!(table.columns.iter().any(|c| c == "invoice_no"), "{:?}", table.columns);

    match client.table("no such table") {
        Err(Error::InvalidInput { field, .. }) => assert_eq!(field, "table"),
        other => panic!("a table name with spaces: {other:?}"),
    }

    let wrong = "wrong-token-not-secret";
    match self::client(&base_url, wrong).table("account") {
        Err(err @ Error::Service { .. }) => {
            let shown = format!("{err} {err:?}");
            assert!(shown.contains("Invalid access token"), "{shown}");
            assert!(!shown.contains(wrong), "the token in an error: {shown}");
            println!("a wrong token: {err}");
        }
        other => panic!("a wrong token: {other:?}"),
    }
    println!(
        "erpdata crate smoke test passed: {} dues, {} rows of sales_invoice",
        dues.rows.len(),
        table.rows.len()
    );
}
