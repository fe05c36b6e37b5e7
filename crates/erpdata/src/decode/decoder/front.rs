//! Before the JSON: BOMs, whitespace, PHP diagnostics, or an HTML page
//! instead of JSON.

use super::*;
use crate::php_notice::{self, Until};

/// The longest run of PHP diagnostics looked at before the JSON: PHP's
/// messages are a line or two; anything longer is not one of them.
const PRELUDE_LIMIT: usize = 64 * 1024;
/// How much of an HTML page is kept to find its `<title>`.
const HTML_LIMIT: usize = 64 * 1024;

impl<S: RowSink> Core<S> {
    pub(super) fn prelude(&mut self, chunk: &[u8], eof: bool) -> Step {
        if self.phase == Phase::Html {
            let room = HTML_LIMIT.saturating_sub(self.pending.len());
            self.pending
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            return self.html(eof);
        }
        // Undecided text from earlier chunks is joined with this one; in the
        // usual case (nothing undecided) the chunk is read in place.
        let joined;
        let (buf, base): (&[u8], u64) = if self.pending.is_empty() {
            (chunk, self.offset)
        } else {
            let at = self.offset - self.pending.len() as u64;
            self.pending.extend_from_slice(chunk);
            joined = std::mem::take(&mut self.pending);
            (&joined[..], at)
        };
        let mut pos = 0;
        loop {
            match self.phase {
                Phase::Prelude => {
                    // `php_notice::is_blank`: Unicode whitespace, not just
                    // JSON's, and the BOMs of the files PHP included.
                    loop {
                        match buf.get(pos) {
                            Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => pos += 1,
                            Some(&b) if b >= 0x80 => match utf8_char(buf, pos) {
                                Utf8::Char(n) => {
                                    let c = std::str::from_utf8(&buf[pos..pos + n])
                                        .ok()
                                        .and_then(|s| s.chars().next());
                                    if c.is_some_and(php_notice::is_blank) {
                                        pos += n;
                                    } else {
                                        break;
                                    }
                                }
                                Utf8::Incomplete if !eof => {
                                    self.pending.extend_from_slice(&buf[pos..]);
                                    return Ok(());
                                }
                                _ => break,
                            },
                            _ => break,
                        }
                    }
                    let rest = &buf[pos..];
                    if rest.is_empty() {
                        if !eof {
                            return Ok(());
                        }
                        let reason = php_notice::empty_body_reason(&self.notices);
                        return Err(Failure::Decode(reason));
                    }
                    let window = &rest[..rest.len().min(PRELUDE_LIMIT)];
                    let (text, invalid_at) = match std::str::from_utf8(window) {
                        Ok(t) => (t, None),
                        Err(e) => (
                            // The prefix up to `valid_up_to` is UTF-8.
                            std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or(""),
                            e.error_len().map(|_| e.valid_up_to()),
                        ),
                    };
                    let until = if rest.len() > PRELUDE_LIMIT {
                        Until::Cut
                    } else if eof {
                        Until::End
                    } else {
                        Until::More
                    };
                    match php_notice::step(text, until) {
                        php_notice::Step::Notice(notice, used) => {
                            let notice = self.redactor.redact(&notice);
                            self.notices.push(notice);
                            pos += used;
                        }
                        php_notice::Step::NeedMore => {
                            // The diagnostic would go on into bytes that are
                            // not UTF-8.
                            if let Some(at) = invalid_at {
                                return Err(utf8_error(base + (pos + at) as u64));
                            }
                            self.pending.extend_from_slice(rest);
                            return Ok(());
                        }
                        php_notice::Step::Body if rest[0] == b'<' => {
                            // An HTML page (a proxy's or PHP's error page);
                            // a JSON answer never starts with `<`.
                            self.phase = Phase::Html;
                            self.html_at = base + pos as u64;
                            let n = rest.len().min(HTML_LIMIT);
                            self.pending.extend_from_slice(&rest[..n]);
                            return self.html(eof);
                        }
                        php_notice::Step::Body => {
                            self.phase = Phase::Json;
                            return self.json(rest, base + pos as u64, eof);
                        }
                    }
                }
                Phase::Html | Phase::Json | Phase::Trailing => unreachable!("left the prelude"),
            }
        }
    }

    /// Decides about an HTML page from its first [`HTML_LIMIT`] bytes.
    fn html(&mut self, eof: bool) -> Step {
        let full = self.pending.len() >= HTML_LIMIT;
        if !full && !eof {
            return Ok(());
        }
        let page = &self.pending[..self.pending.len().min(HTML_LIMIT)];
        let text = match std::str::from_utf8(page) {
            Ok(t) => t,
            // A character cut by the limit, not by the end of the body.
            Err(e) if e.error_len().is_none() && full => {
                std::str::from_utf8(&page[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(e) => return Err(utf8_error(self.html_at + e.valid_up_to() as u64)),
        };
        Err(Failure::Decode(html_reason(&self.redactor, text)))
    }
}

/// Names an HTML page by its `<title>`, if it has one: redacted, then cut
/// (a title quoting the token at its 80th character showed it but its last
/// bytes when cut first).
pub(crate) fn html_reason(redactor: &Redactor, text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let title = lower.find("<title>").and_then(|start| {
        let from = start + "<title>".len();
        lower[from..]
            .find("</title>")
            .map(|end| text[from..from + end].trim().to_owned())
    });
    match title {
        Some(t) if !t.is_empty() => {
            format!(
                "expected JSON, got an HTML page titled {:?}",
                redactor.redact_cut(&t, 80, false)
            )
        }
        _ => "expected JSON, got HTML".to_owned(),
    }
}

/// At most `max` characters, with `…` when there were more.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::same_in_chunks;

    #[test]
    fn a_bom_and_notices_split_anywhere() {
        let body = "\u{feff} \u{a0}<br />\n<b>Warning</b>:  a in <b>/f.php</b> on line <b>1</b><br />\nPHP Notice: b in /g.php on line 2\r\n{\"status\":\"success\",\"data\":null}\u{2028}";
        let (calls, notices) = same_in_chunks(body.as_bytes()).unwrap();
        assert_eq!(calls, ["release true"]);
        assert_eq!(
            notices,
            [
                "Warning: a in /f.php on line 1",
                "PHP Notice: b in /g.php on line 2"
            ]
        );
    }

    #[test]
    fn only_diagnostics_or_nothing() {
        let err = same_in_chunks(b"Fatal error: x in /a.php on line 3\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("only PHP diagnostics: Fatal error"),
            "{err}"
        );
        let err = same_in_chunks(b"\xef\xbb\xbf \r\n").unwrap_err();
        assert!(err.to_string().contains("the body is empty"), "{err}");
    }

    #[test]
    fn html_pages_are_named_by_title() {
        let err = same_in_chunks(b"<!doctype html><TITLE> 502 Bad Gateway </TITLE>").unwrap_err();
        assert!(
            err.to_string().contains("titled \"502 Bad Gateway\""),
            "{err}"
        );
        let err = same_in_chunks(b"<p>x</p>\xff").unwrap_err();
        assert!(err.to_string().contains("UTF-8 (at byte 8)"), "{err}");
        // A page longer than the limit: decided on its start.
        let mut page = b"<html><title>Long</title>".to_vec();
        page.extend(vec![b'x'; super::HTML_LIMIT]);
        let err = super::super::tests::run(&page, 4096).unwrap_err();
        assert!(err.to_string().contains("titled \"Long\""), "{err}");
    }

    #[test]
    fn a_notice_cut_by_the_end_is_not_one() {
        let err = same_in_chunks(b"Notice: x in /a.php on li").unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        let err = same_in_chunks(b"\xef\xbb").unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }
}
