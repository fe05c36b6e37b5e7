//! Short, printable, redacted excerpts of bodies for error messages.

use crate::config::Config;

/// How many characters of a body an error message shows: enough to recognise
/// an HTML error page or a PHP notice, short enough for a log line.
pub const EXCERPT_CHARS: usize = 160;

/// The body's first [`EXCERPT_CHARS`] characters, lossily decoded, with runs
/// of whitespace collapsed and the token redacted.
pub(crate) fn excerpt(config: &Config, body: &[u8]) -> String {
    // Redact before cutting, so a token straddling the cut cannot leave half
    // of itself behind.
    let head = &body[..body.len().min(EXCERPT_CHARS * 4 + 4096)];
    let text = config.redact(&String::from_utf8_lossy(head));
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = false;
    for c in text.chars() {
        let c = if c.is_whitespace() || c.is_control() {
            ' '
        } else {
            c
        };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if count == EXCERPT_CHARS {
            out.push('…');
            return out.trim().to_owned();
        }
        out.push(c);
        count += 1;
    }
    if body.is_empty() {
        return "(empty body)".to_owned();
    }
    out.trim().to_owned()
}
