//! What a PHP service may put in front of its JSON, and how it is removed.
//!
//! PHP prints notices, warnings and deprecations into the response when
//! `display_errors` is on, before the script's own `echo json_encode(...)`.
//! They say nothing about the data, so they are taken off and reported as
//! notices rather than failing the call. Only the exact shapes PHP prints
//! are recognised; anything else is left for the JSON parser to reject.
//!
//! The rules live in [`step`], which looks at one position of the text and
//! can say "wait for more" — so the whole-body [`split`] (used by the dues
//! parser) and the streaming table decoder apply literally the same code.

/// How much of the text after the current position [`step`] may rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// More text may follow: a diagnostic not yet complete is `NeedMore`.
    More,
    /// The text is complete (end of body): decide from what is there.
    End,
    /// More may follow, but the candidate is already longer than anything
    /// PHP prints: decide now, and an incomplete diagnostic is not one.
    Cut,
}

/// What [`step`] found at the start of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A diagnostic, as text, and how many bytes of the input it took.
    Notice(String, usize),
    /// No diagnostic here: the body proper (JSON, HTML, garbage) starts at
    /// the start of the text.
    Body,
    /// The text so far could still become a diagnostic.
    NeedMore,
}

/// The JSON text of a body with its UTF-8 BOMs, surrounding whitespace and
/// any leading PHP diagnostics removed, plus those diagnostics as text.
pub(crate) fn split(text: &str) -> (&str, Vec<String>) {
    let mut rest = text;
    let mut notices = Vec::new();
    loop {
        rest = rest.trim_start_matches(is_blank);
        match step(rest, Until::End) {
            Step::Notice(notice, used) => {
                notices.push(notice);
                rest = &rest[used..];
            }
            Step::Body | Step::NeedMore => break,
        }
    }
    (rest.trim_end(), notices)
}

/// What may stand between PHP's diagnostics and the JSON, and is no part of
/// either: whitespace, and a UTF-8 byte order mark. PHP prints every
/// included file as it is, so each file saved with a BOM (a config file, a
/// functions file) puts one more in front of the JSON, at the start or
/// after a diagnostic.
pub(crate) fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Looks for one diagnostic at the very start of `s` (the caller has skipped
/// whitespace before it).
pub(crate) fn step(s: &str, until: Until) -> Step {
    match html_diagnostic(s, until) {
        Found::Yes(notice, used) => return Step::Notice(notice, used),
        Found::Maybe => return Step::NeedMore,
        Found::No => {}
    }
    match text_diagnostic(s, until) {
        Found::Yes(notice, used) => Step::Notice(notice, used),
        Found::Maybe => Step::NeedMore,
        Found::No => Step::Body,
    }
}

const LEVELS: [&str; 6] = [
    "Notice",
    "Warning",
    "Deprecated",
    "Strict Standards",
    "Fatal error",
    "Parse error",
];

enum Found {
    Yes(String, usize),
    Maybe,
    No,
}

/// `s` starts with `lit`: `Ok(rest)`; `s` is a proper prefix of `lit` and
/// more text may come: `Err(true)`; otherwise `Err(false)`.
fn lit<'a>(s: &'a str, lit: &str, until: Until) -> Result<&'a str, bool> {
    if let Some(rest) = s.strip_prefix(lit) {
        Ok(rest)
    } else {
        Err(until == Until::More && lit.starts_with(s))
    }
}

fn maybe(wait: bool) -> Found {
    if wait {
        Found::Maybe
    } else {
        Found::No
    }
}

/// `<br />\n<b>Warning</b>:  message in <b>/file.php</b> on line <b>12</b><br />`
/// (`html_errors = On`, PHP's default for web requests).
fn html_diagnostic(s: &str, until: Until) -> Found {
    let after_br = match lit(s, "<br />", until) {
        Ok(rest) => rest.trim_start(),
        Err(wait) => return maybe(wait),
    };
    if after_br.is_empty() {
        return maybe(until == Until::More);
    }
    let inner = match lit(after_br, "<b>", until) {
        Ok(rest) => rest,
        Err(wait) => return maybe(wait),
    };
    // No level is a prefix of another, so at most one can match or be
    // partly there: the first hit decides.
    let mut found = None;
    for level in LEVELS {
        match lit(inner, level, until) {
            Ok(rest) => {
                found = Some((level, rest));
                break;
            }
            Err(true) => return Found::Maybe,
            Err(false) => {}
        }
    }
    let Some((level, after_level)) = found else {
        return Found::No;
    };
    let after_level = match lit(after_level, "</b>:", until) {
        Ok(rest) => rest,
        Err(wait) => return maybe(wait),
    };
    let Some(end) = after_level.find("<br />") else {
        return maybe(until == Until::More);
    };
    let message = unescape_html(&after_level[..end].replace("<b>", "").replace("</b>", ""));
    let notice = format!(
        "{level}: {}",
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let used = s.len() - after_level.len() + end + "<br />".len();
    Found::Yes(notice, used)
}

/// `Warning: message in /file.php on line 12` on a line of its own
/// (`html_errors = Off`).
fn text_diagnostic(s: &str, until: Until) -> Found {
    let s_no_prefix = match lit(s, "PHP ", until) {
        Ok(rest) => rest,
        Err(true) => return Found::Maybe,
        Err(false) => s,
    };
    let mut any = false;
    for level in LEVELS {
        match lit(s_no_prefix, level, until).and_then(|rest| lit(rest, ":", until)) {
            Ok(_) => {
                any = true;
                break;
            }
            Err(true) => return Found::Maybe,
            Err(false) => {}
        }
    }
    if !any {
        return Found::No;
    }
    let end = match text_end(s, until) {
        Ok(end) => end,
        Err(wait) => return maybe(wait),
    };
    let lines = s[..end].lines().map(str::trim).filter(|l| !l.is_empty());
    Found::Yes(lines.collect::<Vec<_>>().join(" "), end)
}

/// How far past its first line break a diagnostic without `html_errors`
/// may go on: a message's own line breaks are few (an HTTP status line,
/// a query), and a longer run is not PHP's.
const MORE_LINES: usize = 4 * 1024;

/// Where a diagnostic without `html_errors` ends: at the end of the line
/// that ends in ` on line N`, the last words PHP prints. Not always its
/// first line: a message may hold line breaks of its own, as a failed
/// `file_get_contents` ends its warning with the HTTP status line and its
/// `\r\n`. A line that opens JSON is the body's, never the message's.
/// `Err(wait)`: no end yet, and whether more text could bring one.
fn text_end(s: &str, until: Until) -> Result<usize, bool> {
    let first_break = s.find('\n');
    let mut start = 0;
    loop {
        let end = s[start..].find('\n').map(|at| start + at);
        let line = &s[start..end.unwrap_or(s.len())];
        if start > 0 && line.trim_start_matches(is_blank).starts_with(['{', '[']) {
            return Err(false);
        }
        if ends_in_line_number(line.trim_end()) {
            match (end, until) {
                (Some(end), _) => return Ok(end),
                (None, Until::End) => return Ok(s.len()),
                // The number, or the line, may go on in the next chunk.
                (None, Until::More) => return Err(true),
                (None, Until::Cut) => return Err(false),
            }
        }
        match end {
            Some(end) if first_break.is_some_and(|first| end < first + MORE_LINES) => {
                start = end + 1;
            }
            Some(_) => return Err(false),
            None => return Err(until == Until::More),
        }
    }
}

/// `... on line 12`.
fn ends_in_line_number(line: &str) -> bool {
    let number = line.trim_end_matches(|c: char| c.is_ascii_digit());
    number.len() < line.len() && number.ends_with(" on line ")
}

/// Why a body holds no JSON: nothing at all, or only PHP's diagnostics.
/// An empty answer with status 200 is what PHP sends when `json_encode`
/// fails (it returns `false` on text that is not valid UTF-8, as a latin1
/// database connection gives, and `echo false` prints nothing), so the
/// reason names that cause.
pub(crate) fn empty_body_reason(notices: &[String]) -> String {
    if notices.is_empty() {
        "the body is empty: a PHP service sends nothing when json_encode fails, which it \
         does on text that is not valid UTF-8 (a database connection in latin1, for one)"
            .to_owned()
    } else {
        format!(
            "the body holds only PHP diagnostics: {}",
            notices.join(" | ")
        )
    }
}

/// How far into the text where a body broke off [`failure_at`] looks for
/// PHP's message: past a `<br />` and the row text PHP's output buffer had
/// not yet flushed, not into what a later part of the page says.
pub(crate) const FAILURE_SEARCH: usize = 512;

/// The PHP error printed where a body stopped being JSON (`text` starts
/// there), as one line: `PHP Fatal error: Uncaught Error: Call to undefined
/// function f() in /x.php:20`. PHP prints a fatal error where the script's
/// output had got to, so a body of rows echoed one by one breaks off into
/// it: `<br />\n<b>Fatal error</b>:  ...` with `html_errors`, `PHP Fatal
/// error:  ...` or `Fatal error: ...` without. The message ends at its line's
/// end, a `<br />`, or a `Stack trace:`; the level is any PHP prints.
pub(crate) fn failure_at(text: &str) -> Option<String> {
    let window = &text[..floor_boundary(text, FAILURE_SEARCH)];
    let (start, level) = LEVELS
        .iter()
        .filter_map(|level| {
            // As a level, not as a word of a row: followed by `:` (text) or
            // `</b>:` (HTML).
            [format!("{level}:"), format!("{level}</b>:")]
                .into_iter()
                .filter_map(|marker| window.find(&marker).map(|i| (i, marker.len())))
                .min()
                .map(|(i, len)| (i, (*level, len)))
        })
        .min_by_key(|(i, _)| *i)?;
    let (level, marker) = level;
    let html = marker > level.len() + 1;
    let rest = &text[start + marker..];
    let end = ["<br />", "Stack trace:", "\n"]
        .iter()
        .filter_map(|stop| rest.find(stop))
        .min()
        .unwrap_or(rest.len());
    let mut message = rest[..end].replace("<b>", "").replace("</b>", "");
    if html {
        message = unescape_html(&message);
    }
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(format!("PHP {level}: {message}"))
}

/// A message PHP printed with `html_errors` as it was written: PHP escapes
/// it for HTML (`unexpected identifier &quot;row&quot;`), which is noise in
/// an error or a notice. One pass, so `&amp;quot;` is `&quot;`; anything
/// else PHP does not write stays as it is.
fn unescape_html(s: &str) -> String {
    const REFERENCES: [(&str, char); 7] = [
        ("&quot;", '"'),
        ("&#039;", '\''),
        ("&#39;", '\''),
        ("&apos;", '\''),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&amp;", '&'),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match REFERENCES.iter().find(|(name, _)| rest.starts_with(name)) {
            Some((name, c)) => {
                out.push(*c);
                rest = &rest[name.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_at_names_what_php_printed() {
        let html = "<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function nope() in /var/www/apis/dataapi.php:20\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/apis/dataapi.php</b> on line <b>20</b><br />\n";
        assert_eq!(
            failure_at(html).as_deref(),
            Some("PHP Fatal error: Uncaught Error: Call to undefined function nope() in /var/www/apis/dataapi.php:20")
        );
        let text = "PHP Fatal error:  Allowed memory size of 2097152 bytes exhausted (tried to allocate 4096 bytes) in /x.php on line 9\n";
        assert_eq!(
            failure_at(text).as_deref(),
            Some("PHP Fatal error: Allowed memory size of 2097152 bytes exhausted (tried to allocate 4096 bytes) in /x.php on line 9")
        );
        // Row text the output buffer had not flushed comes first.
        let cut = "\"INV-00\n<br />\n<b>Fatal error</b>:  Maximum execution time of 1 second exceeded in <b>/x.php</b> on line <b>7</b><br />";
        assert_eq!(
            failure_at(cut).as_deref(),
            Some(
                "PHP Fatal error: Maximum execution time of 1 second exceeded in /x.php on line 7"
            )
        );
        let parse = "\nParse error: syntax error, unexpected token \"}\" in /x.php on line 3\n";
        assert_eq!(
            failure_at(parse).as_deref(),
            Some("PHP Parse error: syntax error, unexpected token \"}\" in /x.php on line 3")
        );
        // With html_errors PHP escapes the message; it is said as written
        // (once: `&amp;quot;` is the text `&quot;`).
        let escaped = "<br />\n<b>Parse error</b>:  syntax error, unexpected identifier &quot;row&quot;, expecting &quot;,&quot; or &quot;;&quot; near &lt;tag&gt; &amp;quot; &#039;x&#039; in <b>/x.php</b> on line <b>3</b><br />";
        assert_eq!(
            failure_at(escaped).as_deref(),
            Some("PHP Parse error: syntax error, unexpected identifier \"row\", expecting \",\" or \";\" near <tag> &quot; 'x' in /x.php on line 3")
        );
        let (_, notices) = split("<br />\n<b>Warning</b>:  Undefined array key &quot;acid&quot; in <b>/x.php</b> on line <b>4</b><br />\n{}");
        assert_eq!(
            notices,
            ["Warning: Undefined array key \"acid\" in /x.php on line 4"]
        );
        // Without html_errors PHP writes the message as it is.
        assert_eq!(
            failure_at("PHP Warning:  a &amp; b in /x.php on line 1\n").as_deref(),
            Some("PHP Warning: a &amp; b in /x.php on line 1")
        );
        // A level's name as data is no PHP error; nor is one far away.
        assert_eq!(failure_at("{\"note\":\"Fatal error on site\"}"), None);
        assert_eq!(
            failure_at(&format!("{}Fatal error: x", " ".repeat(FAILURE_SEARCH))),
            None
        );
        assert_eq!(failure_at(""), None);
    }

    #[test]
    fn strips_bom_space_and_notices() {
        let body = "\u{feff}  <br />\n<b>Warning</b>:  Undefined variable $x in <b>/var/www/apis/dataapi.php</b> on line <b>12</b><br />\n{\"a\":1}\n";
        let (json, notices) = split(body);
        assert_eq!(json, "{\"a\":1}");
        assert_eq!(
            notices,
            vec!["Warning: Undefined variable $x in /var/www/apis/dataapi.php on line 12"]
        );
        let (json, notices) = split("\nDeprecated: old thing in /x.php on line 3\n[1]");
        assert_eq!(json, "[1]");
        assert_eq!(notices.len(), 1);
        let (json, notices) = split("<html>Warning</html>");
        assert_eq!(json, "<html>Warning</html>");
        assert!(notices.is_empty());
    }

    #[test]
    fn a_prefix_waits_and_a_mismatch_does_not() {
        for partial in [
            "<",
            "<br /",
            "<br />\n",
            "<br />\n<b>Warn",
            "<br /><b>Warning</b",
            "<br /><b>Warning</b>: x in <b>y</b> on line <b>1</b>",
            "PHP",
            "PHP Notice",
            "Notice",
            "Notice: x in /y.php on line 3",
        ] {
            assert_eq!(step(partial, Until::More), Step::NeedMore, "{partial}");
        }
        for other in [
            "{",
            "<!DOCTYPE html>",
            "<br /><i>",
            "PHPX",
            "Note: x",
            "<b>",
        ] {
            assert_eq!(step(other, Until::More), Step::Body, "{other}");
        }
        assert_eq!(
            step("Notice: x in /y.php on line 3", Until::End),
            Step::Notice("Notice: x in /y.php on line 3".into(), 29)
        );
        assert_eq!(
            step("Notice: x in /y.php on line 3", Until::Cut),
            Step::Body
        );
        assert_eq!(
            step("Notice: x\n{}", Until::More),
            Step::Body,
            "a line without ` on line ` is not PHP's"
        );
    }

    #[test]
    fn a_message_of_several_lines_ends_at_its_line_number() {
        // PHP 8.2 with html_errors off, after a failed file_get_contents:
        // the HTTP status line ends the message with its own `\r\n`.
        let body = "\nWarning: file_get_contents(http://rates.example/x.json): Failed to open \
                    stream: HTTP request failed! HTTP/1.1 404 Not Found\r\n in \
                    /var/www/apis/fx.php on line 3\n{\"status\":\"success\",\"data\":[]}";
        let (json, notices) = split(body);
        assert_eq!(json, "{\"status\":\"success\",\"data\":[]}");
        assert_eq!(
            notices,
            [
                "Warning: file_get_contents(http://rates.example/x.json): Failed to open stream: \
              HTTP request failed! HTTP/1.1 404 Not Found in /var/www/apis/fx.php on line 3"
            ]
        );
        // A line that opens JSON is the body's: the first line was no
        // diagnostic, whatever the JSON holds.
        let pretty = "Warning: x\n{\n  \"note\": \"see f.php on line 3\"\n}";
        assert_eq!(split(pretty), (pretty, vec![]));
        let marked = "Warning: x\n\u{feff}{\"a\":\"f.php on line 3\"}\n on line 4\n{}";
        assert_eq!(split(marked).1, Vec::<String>::new());
        assert_eq!(step("Warning: x\n[", Until::More), Step::Body);
        // Not past a few KiB of lines.
        let long = format!(
            "Warning: x\n{}\n in /f.php on line 3\n{{}}",
            "y\n".repeat(MORE_LINES)
        );
        assert_eq!(split(&long).1, Vec::<String>::new());
        // Only ` on line N` at a line's end ends one.
        assert_eq!(
            step(
                "Notice: x on line 3 of y\n in /f.php on line 4\n{}",
                Until::More
            ),
            Step::Notice("Notice: x on line 3 of y in /f.php on line 4".into(), 45)
        );
    }

    #[test]
    fn byte_order_marks_may_stand_before_and_between_diagnostics() {
        let body = "\u{feff}\u{feff}\nNotice: a in /f.php on line 1\n\u{feff}{\"x\":1}";
        assert_eq!(
            split(body),
            (
                "{\"x\":1}",
                vec!["Notice: a in /f.php on line 1".to_owned()]
            )
        );
    }

    #[test]
    fn stepping_agrees_with_the_whole_text_at_every_cut() {
        let body = "<br />\n<b>Warning</b>:  a in <b>/f.php</b> on line <b>1</b><br />\nPHP Notice: b in /g.php on line 2\r\nWarning: c\r\n in /h.php on line 3\n{\"x\":1}";
        let whole = step(body, Until::End);
        for cut in 0..body.len() {
            if !body.is_char_boundary(cut) {
                continue;
            }
            match step(&body[..cut], Until::More) {
                Step::NeedMore => {}
                other => assert_eq!(other, whole, "cut at {cut}"),
            }
        }
    }
}
