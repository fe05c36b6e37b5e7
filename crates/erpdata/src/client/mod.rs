//! Ready transports over the sans-IO core: [`AsyncClient`](crate::AsyncClient)
//! (feature `reqwest`) and [`BlockingClient`](crate::BlockingClient)
//! (feature `blocking`).
//!
//! Each is a loop over a [`Call`](crate::Call)'s actions: it sends, reads,
//! sleeps and hands out batches as told, and reports what happened; every
//! decision (attempts, redirects, retries, time limits, errors) is the
//! call's. Their HTTP stacks are told never to follow redirects and never
//! to retry by themselves.

#[macro_use]
mod operations;
#[cfg(feature = "reqwest")]
mod async_client;
#[cfg(feature = "blocking")]
mod blocking_client;
#[cfg(any(feature = "blocking", feature = "reqwest"))]
mod events;
mod options;
#[cfg(any(feature = "blocking", feature = "reqwest"))]
mod read_ahead;
#[cfg(any(feature = "blocking", feature = "reqwest"))]
mod tls;

use std::time::{Duration, Instant, SystemTime};

use http::header::{LOCATION, RETRY_AFTER};

#[cfg(feature = "reqwest")]
pub use async_client::{AsyncClient, BatchStream};
#[cfg(feature = "blocking")]
pub use blocking_client::{BatchIter, BlockingClient};
pub use options::ClientOptions;

use crate::body::RequestBody;
use crate::call::{Call, Head, Sink};
use crate::config::Config;
use crate::query::TableQuery;

/// A call of a ready client (a stream's, if `streaming`): the monotonic
/// clock's origin is the call's start, the jitter's seed a fresh random
/// number.
fn start<S: Sink>(
    config: &Config,
    options: &ClientOptions,
    request: http::Request<RequestBody>,
    sink: S,
    streaming: bool,
) -> (Call<S>, Instant) {
    let origin = Instant::now();
    let call = Call::new(
        config,
        request,
        options.call,
        sink,
        Duration::ZERO,
        fastrand::u64(..),
    );
    (if streaming { call.streaming() } else { call }, origin)
}

/// An answer's head as the call takes it.
fn head(status: u16, headers: &http::HeaderMap) -> Head<'_> {
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    Head {
        status,
        location: header(LOCATION),
        retry_after: header(RETRY_AFTER),
        date: Some(SystemTime::now()),
    }
}

impl From<&str> for TableQuery {
    /// A POST fetch of the named table with the config's company and year,
    /// so that clients take `client.table("sales_invoice")`.
    fn from(table: &str) -> Self {
        TableQuery::new(table)
    }
}

impl From<String> for TableQuery {
    /// As `From<&str>`.
    fn from(table: String) -> Self {
        TableQuery::new(table)
    }
}

impl From<&String> for TableQuery {
    /// As `From<&str>`, for a name held in a `String`
    /// (`client.table(&name)`).
    fn from(table: &String) -> Self {
        TableQuery::new(table.as_str())
    }
}

impl From<&TableQuery> for TableQuery {
    /// A copy, so that clients take a query by reference too.
    fn from(query: &TableQuery) -> Self {
        query.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_named_by_any_of_the_usual_strings() {
        let name = String::from("sales_invoice");
        let query = TableQuery::new("sales_invoice");
        assert_eq!(TableQuery::from(&name), query);
        assert_eq!(TableQuery::from(name.as_str()), query);
        assert_eq!(TableQuery::from(&query), query);
        assert_eq!(TableQuery::from(name), query);
    }
}
