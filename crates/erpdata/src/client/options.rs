//! What the ready clients need besides a [`Config`](crate::Config): the
//! call's limits (the core's [`CallOptions`]), the decoder's options and
//! the certificates to trust.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::call::{CallOptions, Timeouts};
use crate::decode::{DeclaredSchema, DecoderOptions};
use crate::retry::RetryPolicy;

/// Settings of the ready clients, `AsyncClient` (feature `reqwest`) and
/// `BlockingClient` (feature `blocking`); every default is finite and is
/// the core's (see [`Timeouts`], [`RetryPolicy`]).
///
/// ```
/// use std::time::Duration;
/// use erpdata::{ClientOptions, RetryPolicy};
///
/// let options = ClientOptions::default()
///     .timeout(Duration::from_secs(120))
///     .retry_policy(RetryPolicy::with_max_retries(4))
///     .batch_rows(10_000);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClientOptions {
    pub(crate) call: CallOptions,
    pub(crate) decoder: DecoderOptions,
    pub(crate) root_certificates: Option<RootCertificates>,
}

/// PEM text of the certificates to trust instead of the system's store.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct RootCertificates(pub(crate) Arc<[u8]>);

impl fmt::Debug for RootCertificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RootCertificates({} bytes of PEM)", self.0.len())
    }
}

impl ClientOptions {
    /// The whole call's limit (default 300 s): every attempt, the waits
    /// between them and the whole answer; for `stream_table`, the time
    /// spent waiting for the service, not the time the caller holds a
    /// batch. The connect and read limits are capped by it. Checked when
    /// the client is made: it must be above zero and at most a day.
    pub fn timeout(mut self, total: Duration) -> Self {
        let t = &mut self.call.timeouts;
        t.total = total;
        t.connect = t.connect.min(total);
        t.read = t.read.min(total);
        self
    }

    /// Time allowed to open a connection, TLS handshake included
    /// (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.call.timeouts.connect = timeout;
        self
    }

    /// Time allowed without a byte from the service: for an answer's
    /// head, and between parts of its body (default 30 s).
    ///
    /// `BlockingClient` (ureq) waits at most this for the head once the
    /// request is sent. `AsyncClient` (reqwest) cannot tell connecting
    /// from waiting for the head, as JavaScript's fetch cannot: there the
    /// two share one wait of the connect limit plus this one (capped by
    /// the total), so a head may come later than this after a quick
    /// connect.
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.call.timeouts.read = timeout;
        self
    }

    /// All three limits at once.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.call.timeouts = timeouts;
        self
    }

    /// The retry policy (default [`RetryPolicy::default`]: 2 retries).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.call.retry = policy;
        self
    }

    /// Shorthand for the retry policy's `max_retries`; 0 turns retrying
    /// off. Checked when the client is made (at most
    /// [`MAX_RETRIES`](crate::MAX_RETRIES)).
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.call.retry.max_retries = max_retries;
        self
    }

    /// Shorthand for the retry policy's `max_retry_after`: the longest
    /// wait a `Retry-After` may ask for that a call waits out (default
    /// 30 s); a longer one ends the call at once with an error that keeps
    /// the wait. Checked when the client is made (at most
    /// [`MAX_TIMEOUT`](crate::MAX_TIMEOUT)).
    pub fn max_retry_after(mut self, wait: Duration) -> Self {
        self.call.retry.max_retry_after = wait;
        self
    }

    /// Rows per streamed batch (default
    /// [`DEFAULT_BATCH_ROWS`](crate::DEFAULT_BATCH_ROWS)). Checked when the
    /// client is made.
    pub fn batch_rows(mut self, rows: usize) -> Self {
        self.decoder.batch_rows = rows;
        self
    }

    /// Declared column types for `table` and `stream_table`, in place of
    /// the typing rule (see [`DeclaredType`](crate::DeclaredType)). They
    /// apply to every table the client reads, and a stream's batches carry
    /// every declared column (null where the table has none): for one
    /// table's types, `client.with_schema(schema)` gives a client for its
    /// calls that shares the connections.
    pub fn schema(mut self, schema: DeclaredSchema) -> Self {
        self.decoder.schema = schema;
        self
    }

    /// Whether strings are typed from their text (default on: `"1500.00"`
    /// is a decimal); off, every JSON string is a string.
    pub fn infer_strings(mut self, on: bool) -> Self {
        self.decoder.infer_strings = on;
        self
    }

    /// The call's limits.
    pub fn call_options(&self) -> &CallOptions {
        &self.call
    }

    /// How answers are decoded: batch size, declared types, typing of
    /// strings.
    pub fn decoder_options(&self) -> &DecoderOptions {
        &self.decoder
    }

    /// Trust exactly the certificates in this PEM text (one or more
    /// `BEGIN CERTIFICATE` blocks) instead of the system's certificate
    /// store: for a private CA, or a test server's self-signed
    /// certificate. Read when the client is made, which fails with
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) on field
    /// `root_certificates` if the text holds no certificate.
    pub fn root_certificates_pem(mut self, pem: impl AsRef<[u8]>) -> Self {
        self.root_certificates = Some(RootCertificates(Arc::from(pem.as_ref())));
        self
    }

    /// Checks every limit against the core's ranges.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        self.call.validate()?;
        crate::call::check_batch_rows(self.decoder.batch_rows)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn limits_are_checked_when_used() {
        let o = ClientOptions::default().timeout(Duration::from_secs(5));
        assert_eq!(o.call.timeouts.read, Duration::from_secs(5));
        o.validate().unwrap();
        for bad in [
            ClientOptions::default().timeout(Duration::ZERO),
            ClientOptions::default().batch_rows(0),
            ClientOptions::default().max_retries(99),
            ClientOptions::default().max_retry_after(Duration::from_secs(86_401)),
        ] {
            assert!(matches!(bad.validate(), Err(Error::InvalidInput { .. })));
        }
        // The number given, not its wrap-around as i64 (-1).
        let err = ClientOptions::default().batch_rows(usize::MAX).validate();
        let text = err.unwrap_err().to_string();
        assert!(text.ends_with(&format!("got {}", usize::MAX)), "{text}");
    }
}
