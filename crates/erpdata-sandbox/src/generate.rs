//! The sandbox's table answers as bytes in memory, for benchmarks that
//! decode exactly what the sandbox would send without a server in the way.

use std::sync::Arc;

use crate::config::DEFAULT_SEED;
use crate::data::Dataset;
use crate::style::Style;
use crate::tables::{Chunks, Table};

/// The whole answer the sandbox gives by default (style
/// [`Style::Mysqlnd`]) for `table` (as named on the wire, e.g.
/// `sales_invoice`) of the current company and year, with the sales
/// invoice table sized to `sales_invoice_rows`; `None` for an unknown
/// table.
pub fn table_body(table: &str, sales_invoice_rows: u64) -> Option<Vec<u8>> {
    table_body_styled(table, sales_invoice_rows, Style::default())
}

/// [`table_body`] in the answer style `style`.
pub fn table_body_styled(table: &str, sales_invoice_rows: u64, style: Style) -> Option<Vec<u8>> {
    let table = Table::from_name(table)?;
    let data = Arc::new(Dataset::new(DEFAULT_SEED, Some(sales_invoice_rows)));
    let (company, year) = crate::data::CURRENT;
    let ledger = data.find(i64::from(company), i64::from(year))?;
    let mut body = Vec::new();
    for chunk in Chunks::new(data, ledger, table, style) {
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bodies_are_the_documented_envelope() {
        let body = super::table_body("sales_invoice", 3).unwrap();
        assert!(body.starts_with(br#"{"status":"success","data":[{"#));
        assert!(body.ends_with(b"}]}"));
        assert_eq!(
            body.windows(14)
                .filter(|w| w == b"\"invoice_no\":\"")
                .count(),
            3
        );
        assert!(super::table_body("nope", 3).is_none());
    }

    #[test]
    fn styled_bodies() {
        use crate::style::Style;
        let default = super::table_body("account", 3).unwrap();
        for style in Style::ALL {
            let body = super::table_body_styled("account", 3, style).unwrap();
            let q = if style == Style::Strings { "\"" } else { "" };
            let first = format!(r#"{{"status":"success","data":[{{"compid":{q}1{q},"acid":"C001""#);
            assert!(body.starts_with(first.as_bytes()), "{style}");
            assert_eq!(body == default, style == Style::Mysqlnd, "{style}");
        }
        let strings = super::table_body_styled("sales_invoice", 3, Style::Strings).unwrap();
        for quoted_int in [&br#""items":""#[..], br#""yearid":"2025""#] {
            assert!(strings.windows(quoted_int.len()).any(|w| w == quoted_int));
        }
    }
}
