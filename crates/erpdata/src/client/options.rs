//! What the ready clients need besides a [`Config`](crate::Config):
//! timeouts, the retry policy and the batch size of streamed tables.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::decode::{DeclaredSchema, DecoderOptions};
use crate::retry::RetryPolicy;

/// The default time allowed for connecting (TCP and TLS).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time allowed for one whole call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Settings of the ready clients, `AsyncClient` (feature `reqwest`) and
/// `BlockingClient` (feature `blocking`); every default is finite.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) decoder: DecoderOptions,
    pub(crate) root_certificates: Option<RootCertificates>,
    pub(crate) stream_deadline: Option<Duration>,
}

/// PEM text of the certificates to trust instead of the system's store.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct RootCertificates(pub(crate) Arc<[u8]>);

impl fmt::Debug for RootCertificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RootCertificates({} bytes of PEM)", self.0.len())
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            retry: RetryPolicy::default(),
            decoder: DecoderOptions::default(),
            root_certificates: None,
            stream_deadline: None,
        }
    }
}

impl ClientOptions {
    /// Time allowed to connect, TLS handshake included (default 10 s).
    /// A zero duration is taken as the default: there is no "no timeout".
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = nonzero(timeout, DEFAULT_CONNECT_TIMEOUT);
        self
    }

    /// Time allowed for one attempt of a call, from sending the request to
    /// the last byte of the answer (default 30 s). For
    /// `stream_table` it bounds the wait
    /// for the answer's head and each wait for the next part of the body,
    /// so that a table of any size can stream. Retries get their own
    /// attempt time. A zero duration is taken as the default.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = nonzero(timeout, DEFAULT_TIMEOUT);
        self
    }

    /// The retry policy (default [`RetryPolicy::default`]: 2 retries).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Shorthand for a default [`RetryPolicy`] with `max_retries` retries;
    /// 0 turns retrying off.
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.retry.max_retries = max_retries;
        self
    }

    /// Rows per streamed batch (default 65,536; at least 1).
    pub fn batch_rows(mut self, rows: usize) -> Self {
        self.decoder.batch_rows = rows.max(1);
        self
    }

    /// Declared column types for `table` and `stream_table`, in place of
    /// the typing rule (see [`DeclaredType`](crate::DeclaredType)).
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

    /// The decoder options of a stream: one schema for every batch.
    pub(crate) fn stream_decoder(&self) -> DecoderOptions {
        DecoderOptions {
            one_schema: true,
            ..self.decoder.clone()
        }
    }

    /// Time allowed for one attempt of a whole `stream_table`, from
    /// sending the request to the body's last byte. None by default, since
    /// a table of any size may stream: [`timeout`](Self::timeout) bounds
    /// each wait instead. Without it, a body that never ends (rows that
    /// keep coming) streams until the caller stops reading. A zero
    /// duration is taken as none.
    pub fn stream_deadline(mut self, deadline: Duration) -> Self {
        self.stream_deadline = (!deadline.is_zero()).then_some(deadline);
        self
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
}

fn nonzero(d: Duration, default: Duration) -> Duration {
    if d.is_zero() {
        default
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_timeout_is_unbounded() {
        let o = ClientOptions::default()
            .timeout(Duration::ZERO)
            .connect_timeout(Duration::ZERO)
            .batch_rows(0);
        assert_eq!(o.timeout, DEFAULT_TIMEOUT);
        assert_eq!(o.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
        assert_eq!(o.decoder.batch_rows, 1);
        assert_eq!(o.stream_deadline, None);
        let o = ClientOptions::default().stream_deadline(Duration::ZERO);
        assert_eq!(o.stream_deadline, None);
        let o = ClientOptions::default().stream_deadline(Duration::from_secs(1));
        assert_eq!(o.stream_deadline, Some(Duration::from_secs(1)));
        let o = ClientOptions::default().max_retries(0);
        assert_eq!(o.retry.max_retries, 0);
        assert_eq!(o.retry.base_delay, RetryPolicy::default().base_delay);
    }
}
