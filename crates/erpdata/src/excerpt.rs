//! Short, printable, redacted excerpts of bodies for error messages.

use crate::redact::Redactor;

/// How many characters of a body an error message shows: enough to recognise
/// an HTML error page or a PHP notice, short enough for a log line.
pub const EXCERPT_CHARS: usize = 160;

/// How many bytes of a body an excerpt is made from: enough for
/// [`EXCERPT_CHARS`] characters after a long run of whitespace, and for a
/// token straddling the cut to be redacted whole. The streaming decoder keeps
/// exactly this much of a body, so its excerpts equal the whole-body ones.
pub(crate) const HEAD_BYTES: usize = EXCERPT_CHARS * 4 + 4096;

/// The body's first [`EXCERPT_CHARS`] characters, lossily decoded, with runs
/// of whitespace collapsed and the token redacted. Only the first
/// [`HEAD_BYTES`] of `body` are looked at.
pub(crate) fn excerpt(redactor: &Redactor, body: &[u8]) -> String {
    excerpt_of(redactor, body, body.len() >= HEAD_BYTES)
}

/// As [`excerpt`], of bytes of a body that end where it was cut (`cut`)
/// rather than where it ended.
pub(crate) fn excerpt_of(redactor: &Redactor, body: &[u8], cut: bool) -> String {
    // Redacted before it is cut to what is shown, so the cut cannot leave
    // part of a token behind; and where these bytes were cut from a longer
    // body, their end goes: a token straddling that cut matched no spelling
    // (after a long run of whitespace, collapsed, it was in the excerpt).
    let head = &body[..body.len().min(HEAD_BYTES)];
    let mut text = redactor.redact(&String::from_utf8_lossy(head));
    if cut || body.len() > HEAD_BYTES {
        redactor.drop_cut_end(&mut text);
    }
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
    let out = out.trim();
    if out.is_empty() {
        return "(blank)".to_owned();
    }
    out.to_owned()
}
