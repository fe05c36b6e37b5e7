//! Ready transports over the sans-IO core: [`AsyncClient`](crate::AsyncClient)
//! (feature `reqwest`) and [`BlockingClient`](crate::BlockingClient)
//! (feature `blocking`).
//!
//! They only move bytes, sleep and draw the jitter's random number: every
//! request is built by the [`Config`], every answer parsed by it, and
//! whether to retry or follow a redirect is asked of [`RetryPolicy`] and
//! [`Config::follow_redirect`]. Their HTTP stacks are told never to follow
//! redirects and never to retry by themselves.

#[cfg(feature = "reqwest")]
mod async_client;
#[cfg(feature = "blocking")]
mod blocking_client;
mod options;
#[cfg(feature = "reqwest")]
mod tls;

use std::time::{Duration, SystemTime};

use http::header::{LOCATION, RETRY_AFTER};

#[cfg(feature = "reqwest")]
pub use async_client::{AsyncClient, BatchStream};
#[cfg(feature = "blocking")]
pub use blocking_client::{BatchIter, BlockingClient};
pub use options::{ClientOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT};

use crate::config::Config;
use crate::error::{Error, Result, TransportKind};
use crate::query::TableQuery;
use crate::retry::{Decision, Outcome, RetryPolicy};

/// What a streamed table leaves once its body ended and decoded without
/// error: only then are its batches known to be the whole table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamEnd {
    /// PHP notices or warnings that preceded the JSON (redacted).
    pub notices: Vec<String>,
    /// Rows in the whole answer.
    pub total_rows: u64,
}

/// Asks the core's policy, supplying what it leaves to transports: a
/// uniform random number for the jitter and the clock for `Retry-After`
/// dates.
fn decide(policy: &RetryPolicy, retries_done: u32, outcome: Outcome<'_>) -> Decision {
    policy.decide(
        retries_done,
        outcome,
        fastrand::f64(),
        Some(SystemTime::now()),
    )
}

/// What the core makes of an answer's head.
enum Step {
    /// Send this request next: a redirect the core allows.
    Follow(Box<http::Request<Vec<u8>>>),
    /// Sleep this long, then send the same request again.
    Retry(Duration),
    /// This is the answer to parse.
    Answer,
}

/// The core's decisions on an answer's head, in their order: a redirect
/// (followed or refused), then a retry, else the answer itself.
fn after_head(
    config: &Config,
    policy: &RetryPolicy,
    sent: &http::Request<Vec<u8>>,
    status: u16,
    headers: &http::HeaderMap,
    hops: u32,
    retries: u32,
) -> Result<Step> {
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(next) = config.follow_redirect(sent, status, header(LOCATION), hops)? {
        return Ok(Step::Follow(Box::new(next)));
    }
    let outcome = Outcome::Status {
        status,
        retry_after: header(RETRY_AFTER),
    };
    Ok(match decide(policy, retries, outcome) {
        Decision::RetryAfter(delay) => Step::Retry(delay),
        Decision::Stop => Step::Answer,
    })
}

/// The delay before retrying after `error`, or the error if the policy
/// stops (it never retries anything but transport failures).
fn after_failure(policy: &RetryPolicy, retries: u32, error: Error) -> Result<Duration> {
    let Error::Transport { kind, .. } = &error else {
        return Err(error);
    };
    match decide(policy, retries, Outcome::Transport(*kind)) {
        Decision::RetryAfter(delay) => Ok(delay),
        Decision::Stop => Err(error),
    }
}

/// A transport error: a short account of what failed, naming only the
/// origin (never a path or query, where the token may be), with the host
/// stack's error as its source, redacted link by link.
fn failure(
    config: &Config,
    kind: TransportKind,
    error: &(dyn std::error::Error + 'static),
) -> Error {
    let origin = config.base_url().origin().ascii_serialization();
    let message = match kind {
        TransportKind::Connect => format!("could not connect to {origin}"),
        TransportKind::Timeout => format!("no complete answer from {origin} in time"),
        TransportKind::Reset => {
            format!("the connection to {origin} broke before the answer was complete")
        }
        TransportKind::Other => format!("the request to {origin} failed"),
    };
    config.transport_error_with_source(kind, &message, error)
}

/// The error for an attempt that ran out of time by this crate's own
/// deadline (the host stack's timeouts go through [`failure`]).
#[cfg(feature = "reqwest")]
fn timed_out(
    config: &Config,
    what: &str,
    timeout: Duration,
    elapsed: &(dyn std::error::Error + 'static),
) -> Error {
    let origin = config.base_url().origin().ascii_serialization();
    config.transport_error_with_source(
        TransportKind::Timeout,
        &format!("{what} from {origin} took longer than the timeout of {timeout:?}"),
        elapsed,
    )
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

impl From<&TableQuery> for TableQuery {
    /// A copy, so that clients take a query by reference too.
    fn from(query: &TableQuery) -> Self {
        query.clone()
    }
}
