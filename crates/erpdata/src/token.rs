use std::fmt;

/// The marker printed wherever a token would otherwise appear.
pub const REDACTED: &str = "[REDACTED]";

/// The table fetch's access token.
///
/// `Debug` and `Display` print [`REDACTED`] so that a token held in a config,
/// an error or a log line can never be printed by accident; the only way to
/// read it is [`AccessToken::expose_secret`], which the request builder calls.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(String);

impl AccessToken {
    /// Wraps a token. Validation happens when a [`crate::Config`] is built.
    pub fn new(token: impl Into<String>) -> Self {
        AccessToken(token.into())
    }

    /// The token's text, for putting it on the wire.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AccessToken({REDACTED})")
    }
}

impl fmt::Display for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<&str> for AccessToken {
    fn from(s: &str) -> Self {
        AccessToken::new(s)
    }
}

impl From<String> for AccessToken {
    fn from(s: String) -> Self {
        AccessToken::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_printed() {
        let t = AccessToken::new("fake-token-123");
        assert!(!format!("{t:?}").contains("fake-token-123"));
        assert!(!format!("{t}").contains("fake-token-123"));
        assert_eq!(t.expose_secret(), "fake-token-123");
    }
}
