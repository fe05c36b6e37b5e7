//! What a PHP service may put in front of its JSON, and how it is removed.

/// The JSON text of a body with a UTF-8 BOM, surrounding whitespace and any
/// leading PHP diagnostics removed, plus those diagnostics as text.
///
/// PHP prints notices, warnings and deprecations into the response when
/// `display_errors` is on, before the script's own `echo json_encode(...)`.
/// They say nothing about the data, so they are taken off and reported as
/// notices rather than failing the call. Only the exact shapes PHP prints
/// are recognised; anything else is left for the JSON parser to reject.
pub(crate) fn split(text: &str) -> (&str, Vec<String>) {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut notices = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some((notice, after)) = html_diagnostic(rest).or_else(|| text_diagnostic(rest)) {
            notices.push(notice);
            rest = after;
        } else {
            break;
        }
    }
    (rest.trim_end(), notices)
}

const LEVELS: [&str; 6] = [
    "Notice",
    "Warning",
    "Deprecated",
    "Strict Standards",
    "Fatal error",
    "Parse error",
];

/// `<br />\n<b>Warning</b>:  message in <b>/file.php</b> on line <b>12</b><br />`
/// (`html_errors = On`, PHP's default for web requests).
fn html_diagnostic(s: &str) -> Option<(String, &str)> {
    let after_br = s.strip_prefix("<br />")?.trim_start();
    let inner = after_br.strip_prefix("<b>")?;
    let level = LEVELS.iter().find(|l| inner.starts_with(**l))?;
    let after_level = inner[level.len()..].strip_prefix("</b>:")?;
    let end = after_level.find("<br />")?;
    let message = after_level[..end].replace("<b>", "").replace("</b>", "");
    let notice = format!(
        "{level}: {}",
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    Some((notice, &after_level[end + "<br />".len()..]))
}

/// `Warning: message in /file.php on line 12` on a line of its own
/// (`html_errors = Off`).
fn text_diagnostic(s: &str) -> Option<(String, &str)> {
    let s_no_prefix = s.strip_prefix("PHP ").unwrap_or(s);
    if !LEVELS
        .iter()
        .any(|l| s_no_prefix.starts_with(&format!("{l}:")))
    {
        return None;
    }
    let line_end = s.find('\n').unwrap_or(s.len());
    let line = &s[..line_end];
    if !line.contains(" on line ") {
        return None;
    }
    Some((line.trim().to_owned(), &s[line_end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
