//! The cause of a transport error, kept as a chain of redacted messages.
//!
//! Host stacks put the request URL in their errors (reqwest and ureq both
//! do), and with the table fetch's GET form that URL carries the token.
//! Keeping the original error as the `source` would let any error reporter
//! that walks the chain print it, so each link's text goes through
//! [`Config::redact`] once, here, and only the text is kept.
//!
//! [`Config::redact`]: crate::Config::redact

use std::fmt;
use std::sync::Arc;

use crate::redact::Redactor;

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
    /// Captures `error` and its sources, each message redacted by
    /// `redactor` ([`TransportSource::capture`] with a config's).
    pub(crate) fn redacted(redactor: &Redactor, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut messages = Vec::new();
        let mut link = Some(error);
        while let Some(e) = link {
            if messages.len() == MAX_LINKS {
                break;
            }
            messages.push(redactor.redact(&e.to_string()));
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
