//! The cause of a transport error, kept as a chain of redacted messages.
//!
//! Host stacks put the request URL in their errors (reqwest and ureq both
//! do), and with the table fetch's GET form that URL carries the token.
//! Keeping the original error as the `source` would let any error reporter
//! that walks the chain print it, so each link's text goes through
//! [`Config::redact`] once, here, and only the text is kept.

use std::fmt;
use std::sync::Arc;

use crate::config::Config;
use crate::error::{Error, TransportKind};

/// One link of a transport error's cause chain: the host stack's message,
/// redacted, and the link below it.
///
/// [`std::error::Error::source`] walks the chain as the host stack built it.
/// Two chains are equal when their messages are.
#[derive(Clone, PartialEq, Eq)]
pub struct TransportSource(Arc<Link>);

#[derive(PartialEq, Eq)]
struct Link {
    message: String,
    next: Option<TransportSource>,
}

/// How many links are kept; real chains are a handful long.
const MAX_LINKS: usize = 16;

impl TransportSource {
    /// Captures `error` and its sources, each message redacted with
    /// `config`'s token.
    pub fn capture(config: &Config, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut messages = Vec::new();
        let mut link = Some(error);
        while let Some(e) = link {
            if messages.len() == MAX_LINKS {
                break;
            }
            messages.push(config.redact(&e.to_string()));
            link = e.source();
        }
        let mut next = None;
        for message in messages.into_iter().rev() {
            next = Some(TransportSource(Arc::new(Link { message, next })));
        }
        // `messages` held at least `error`'s own text.
        next.expect("at least one link")
    }

    /// This link's message (already redacted).
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for TransportSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl fmt::Debug for TransportSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut link = Some(self);
        while let Some(l) = link {
            list.entry(&l.0.message);
            link = l.0.next.as_ref();
        }
        list.finish()
    }
}

impl std::error::Error for TransportSource {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .next
            .as_ref()
            .map(|n| n as &(dyn std::error::Error + 'static))
    }
}

impl Config {
    /// A transport error made from the host stack's error: the message is
    /// `error`'s own text and the [`std::error::Error::source`] is the
    /// chain below it, every link redacted (see [`TransportSource`]).
    ///
    /// ```
    /// use erpdata::{Config, TransportKind};
    ///
    /// let config = Config::builder("https://erp.example.com/")
    ///     .access_token("fake-token")
    ///     .build()?;
    /// let io = std::io::Error::new(
    ///     std::io::ErrorKind::ConnectionRefused,
    ///     "refused: https://erp.example.com/apis/dataapi.php?accesstoken=fake-token",
    /// );
    /// let err = config.transport_error_from(TransportKind::Connect, &io);
    /// assert!(!err.to_string().contains("fake-token"));
    /// assert!(err.to_string().contains("[REDACTED]"));
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn transport_error_from(
        &self,
        kind: TransportKind,
        error: &(dyn std::error::Error + 'static),
    ) -> Error {
        Error::Transport {
            kind,
            message: self.redact(&error.to_string()),
            source: error.source().map(|s| TransportSource::capture(self, s)),
            call: None,
        }
    }

    /// A transport error with a message of the caller's and the host
    /// stack's error as its source (redacted link by link).
    pub fn transport_error_with_source(
        &self,
        kind: TransportKind,
        message: &str,
        source: &(dyn std::error::Error + 'static),
    ) -> Error {
        Error::Transport {
            kind,
            message: self.redact(message),
            source: Some(TransportSource::capture(self, source)),
            call: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("error sending request for url (https://h/?accesstoken=fake-tok)")
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn chain_is_kept_and_redacted() {
        let c = Config::builder("https://h/")
            .access_token("fake-tok")
            .build()
            .unwrap();
        let inner = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by fake-tok");
        let err = c.transport_error_from(TransportKind::Reset, &Outer(inner));
        assert_eq!(
            err.to_string(),
            "transport error (reset): error sending request for url (https://h/?accesstoken=[REDACTED])"
        );
        let source = err.source().expect("a source");
        assert_eq!(source.to_string(), "reset by [REDACTED]");
        assert!(source.source().is_none());
        assert!(!format!("{err:?}").contains("fake-tok"));
        assert_eq!(err.clone(), err);
    }
}
