use std::fmt;

use crate::source::TransportSource;

/// What went wrong at the transport level; set by the binding that sent the
/// request, because only it sees sockets and clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// The connection could not be made (refused, DNS, TLS handshake).
    Connect,
    /// The connect, read or whole-call deadline passed.
    Timeout,
    /// The connection broke after it was made (reset, closed mid-body).
    Reset,
    /// Anything else the host stack reported.
    Other,
}

impl TransportKind {
    /// The stable lower-case name used in vectors and bindings.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Connect => "connect",
            TransportKind::Timeout => "timeout",
            TransportKind::Reset => "reset",
            TransportKind::Other => "other",
        }
    }

    /// Parses [`TransportKind::as_str`]'s names; unknown names are `Other`.
    pub fn from_name(name: &str) -> Self {
        match name {
            "connect" => TransportKind::Connect,
            "timeout" => TransportKind::Timeout,
            "reset" => TransportKind::Reset,
            _ => TransportKind::Other,
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every failure of a call, in one enum that each language maps one to one.
///
/// No variant ever holds the access token: excerpts and messages pass through
/// the config's redaction before they are stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Rejected before anything was sent.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// The parameter's name as the caller knows it (`acid`, `table`, ...).
        field: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The request did not complete (made by the binding).
    #[error("transport error ({kind}): {message}")]
    Transport {
        /// What kind of failure.
        kind: TransportKind,
        /// The host stack's message, redacted.
        message: String,
        /// The host stack's error behind it, redacted link by link, when
        /// the binding kept it (see [`Config::transport_error_from`]).
        ///
        /// [`Config::transport_error_from`]: crate::Config::transport_error_from
        #[source]
        source: Option<TransportSource>,
    },
    /// The service answered with a status outside 2xx.
    #[error("HTTP status {status}: {excerpt}")]
    HttpStatus {
        /// The HTTP status code.
        status: u16,
        /// A short, redacted excerpt of the body.
        excerpt: String,
    },
    /// The service answered JSON whose `status` is not `success`.
    #[error("service error (status {status:?}): {message}")]
    Service {
        /// The `status` value the service sent.
        status: String,
        /// The service's message, or a description of what it sent instead.
        message: String,
    },
    /// The answer was not of the documented shape.
    #[error("could not decode the answer: {reason}; body starts: {excerpt}")]
    Decode {
        /// What was wrong.
        reason: String,
        /// A short, redacted excerpt of the body.
        excerpt: String,
    },
}

impl Error {
    /// The stable kind name used in vectors and by the bindings.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidInput { .. } => "invalid_input",
            Error::Transport { .. } => "transport",
            Error::HttpStatus { .. } => "http_status",
            Error::Service { .. } => "service",
            Error::Decode { .. } => "decode",
        }
    }

    pub(crate) fn invalid(field: &str, reason: impl Into<String>) -> Self {
        Error::InvalidInput {
            field: field.to_owned(),
            reason: reason.into(),
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
