//! Removing the access token from text that may have seen a request.
//!
//! Kept apart from [`Config`](crate::Config) so that the decoder, excerpts
//! and transport error chains can redact without holding (or importing) the
//! whole configuration: this module depends on nothing but the token.

use crate::token::{AccessToken, REDACTED};

/// What redaction needs: the token, if one is configured. `Debug` never
/// shows it (see [`AccessToken`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Redactor {
    token: Option<AccessToken>,
}

impl Redactor {
    /// A redactor for `token`; `None` leaves every text as it is.
    pub(crate) fn new(token: Option<AccessToken>) -> Self {
        Redactor { token }
    }

    /// The length of the longest text [`redact`](Self::redact) replaces (the
    /// token raw or in an encoding), or 0: a cut made this many bytes before
    /// a text cannot leave part of a token inside it.
    pub(crate) fn reach(&self) -> usize {
        self.token.as_ref().map_or(0, |token| {
            let raw = token.expose_secret();
            let form: String = url::form_urlencoded::byte_serialize(raw.as_bytes()).collect();
            raw.len()
                .max(form.replace('+', "%20").len())
                .max(form.len())
        })
    }

    /// Replaces every occurrence of the token (raw and in the encodings a
    /// URL or form body would carry) with [`REDACTED`].
    pub(crate) fn redact(&self, text: &str) -> String {
        let Some(token) = &self.token else {
            return text.to_owned();
        };
        let raw = token.expose_secret();
        let mut out = text.replace(raw, REDACTED);
        let form: String = url::form_urlencoded::byte_serialize(raw.as_bytes()).collect();
        if form != raw {
            out = out.replace(&form, REDACTED);
            let pct = form.replace('+', "%20");
            if pct != form {
                out = out.replace(&pct, REDACTED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding() {
        let r = Redactor::new(Some(AccessToken::new("tok/+=en")));
        assert_eq!(
            r.redact("x tok/+=en y tok%2F%2B%3Den z"),
            "x [REDACTED] y [REDACTED] z"
        );
        assert!(!format!("{r:?}").contains("tok/"));
    }

    #[test]
    fn no_token_no_change() {
        assert_eq!(Redactor::default().redact("a tok b"), "a tok b");
    }
}
