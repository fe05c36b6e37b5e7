//! Input rules applied before any request is built. Every rule names the
//! field, so a binding can tell its user exactly which argument was wrong.

use crate::error::{Error, Result};

/// Longest value accepted for any parameter. The service takes these through
/// a URL or a form field, and no legitimate id, project or token is anywhere
/// near this long; a longer value is a bug in the caller.
pub const MAX_VALUE_LEN: usize = 1024;

/// Longest table name accepted (MySQL's identifier limit).
pub const MAX_TABLE_LEN: usize = 64;

/// A parameter value: not empty, not only whitespace, no control characters,
/// not absurdly long.
pub fn text(field: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        let reason = if value.is_empty() {
            "must not be empty"
        } else {
            "must not be only whitespace"
        };
        return Err(Error::invalid(field, reason));
    }
    if value.chars().count() > MAX_VALUE_LEN {
        return Err(Error::invalid(
            field,
            format!("is longer than {MAX_VALUE_LEN} characters"),
        ));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(Error::invalid(
            field,
            format!("contains the control character U+{:04X}", c as u32),
        ));
    }
    Ok(())
}

/// An id (an account, a company, a year): a [`text`] without characters
/// that print as nothing. A byte order mark, a zero-width space or a
/// direction mark copied along with an id from a spreadsheet, a web page or
/// a file saved by a Windows editor is sent, and the service then answers
/// `Invalid company or year`, or no dues, with nothing to see in the id.
pub fn id(field: &str, value: &str) -> Result<()> {
    text(field, value)?;
    invisible(field, value)
}

/// Refuses a character that prints as nothing (Unicode's format
/// characters that text in an id or a token has no use for), naming it.
fn invisible(field: &str, value: &str) -> Result<()> {
    match value.chars().find(|&c| is_invisible(c)) {
        Some(c) => Err(Error::invalid(
            field,
            format!(
                "contains U+{:04X}, a character that prints as nothing ({}); remove it",
                c as u32,
                invisible_name(c)
            ),
        )),
        None => Ok(()),
    }
}

fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

fn invisible_name(c: char) -> &'static str {
    match c {
        '\u{FEFF}' => "a byte order mark",
        '\u{00AD}' => "a soft hyphen",
        '\u{200B}' => "a zero-width space",
        '\u{200C}' | '\u{200D}' | '\u{2060}' => "a zero-width joiner or non-joiner",
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => "a text direction mark",
        _ => "a format character",
    }
}

/// A setting that names something of the ERP (project, project folder,
/// company, year): a [`text`] with no whitespace at either end. A value
/// read from a file or a variable (`ERPDATA_COMPANY_ID="1 "`) keeps a
/// stray space the eye does not see, and the service then answered
/// `Invalid company or year` or `Unknown project` with nothing to point at
/// the space.
///
/// Nor is it wrapped in quotes: a `.env` file's `ERPDATA_PROJECT="acme"`
/// reaches the variable with its quotes wherever the file is read as
/// plain `NAME=value` lines (`docker run --env-file`, systemd's
/// `EnvironmentFile`, `export $(cat .env)`), and the service then answered
/// `Unknown project: "acme"` or `Invalid company or year`.
///
/// Nor does it end with a comment: `ERPDATA_COMPANY_ID=1  # acme` keeps
/// `  # acme` as part of the value wherever the file is read as plain
/// lines, and the service answered `Invalid company or year`.
pub fn setting(field: &str, value: &str) -> Result<()> {
    id(field, value)?;
    if let Some(comment) = trailing_comment(value) {
        return Err(Error::invalid(
            field,
            format!("ends with what reads as a comment ({comment:?}); {COMMENT_HINT}"),
        ));
    }
    if value.trim() != value {
        return Err(Error::invalid(
            field,
            format!("has whitespace at its start or end ({value:?}); remove it"),
        ));
    }
    if quoted(value) {
        return Err(Error::invalid(
            field,
            format!("{value} is wrapped in quotes; {QUOTES_HINT}"),
        ));
    }
    Ok(())
}

/// How an error about a quoted value ends.
pub(crate) const QUOTES_HINT: &str =
    "a settings file's quotes are not part of the value (remove them, or read the file with a \
     tool that takes them off)";

/// How an error about a comment after a value ends.
pub(crate) const COMMENT_HINT: &str =
    "a settings file's comment after a value is part of the value where the file is read as \
     plain NAME=value lines (docker run --env-file, systemd's EnvironmentFile): put the comment \
     on a line of its own";

/// The comment a settings file's line put after `value`, as a reader of
/// plain `NAME=value` lines keeps it: from the first whitespace followed
/// by `#` to the end (`1  # acme` gives `# acme`).
pub(crate) fn trailing_comment(value: &str) -> Option<&str> {
    value.char_indices().find_map(|(i, c)| {
        let rest = value[i..].trim_start();
        (c.is_whitespace() && rest.starts_with('#')).then_some(rest)
    })
}

/// Whether `value` starts and ends with the same quote mark, `"` or `'`,
/// as a value written in a `.env` file does.
pub(crate) fn quoted(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 2 && matches!(bytes[0], b'"' | b'\'') && bytes[bytes.len() - 1] == bytes[0]
}

/// A date parameter: `YYYY-MM-DD` naming a real calendar day (the
/// service compares these in SQL, where `2025-02-30` would quietly match
/// nothing or something else).
pub fn date(field: &str, value: &str) -> Result<()> {
    text(field, value)?;
    if crate::date::parse(value.as_bytes()).is_none() {
        return Err(Error::invalid(
            field,
            format!(
                "must be a calendar date as YYYY-MM-DD, got {:?}",
                value.chars().take(40).collect::<String>()
            ),
        ));
    }
    Ok(())
}

/// A date range, `start` to `end` inclusive: both dates, `start` not
/// after `end`.
pub fn date_range(start: &str, end: &str) -> Result<()> {
    date("start", start)?;
    date("end", end)?;
    // Same fixed-width form: text order is date order.
    if start > end {
        return Err(Error::invalid(
            "end",
            format!("is before start ({end} < {start})"),
        ));
    }
    Ok(())
}

/// A function name or similar: a plain identifier
/// (`[A-Za-z_][A-Za-z0-9_]*`, at most 64 characters).
pub fn identifier(field: &str, value: &str) -> Result<()> {
    text(field, value)?;
    if value.len() > MAX_TABLE_LEN {
        return Err(Error::invalid(
            field,
            format!("is longer than {MAX_TABLE_LEN} characters"),
        ));
    }
    let mut chars = value.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(Error::invalid(
            field,
            "must be a plain identifier: ASCII letters, digits and '_', not starting with a digit",
        ));
    }
    Ok(())
}

/// A parameter's name in a generic `ajax.php` call: what PHP keeps as one
/// `$_REQUEST` key (no `[`, `]`, `.` or space, which PHP rewrites, no `=`
/// or `&`).
pub fn param_name(name: &str) -> Result<()> {
    text("params", name).map_err(|_| {
        Error::invalid(
            "params",
            format!(
                "has a parameter name {:?} that is empty or has control characters",
                name.chars().take(40).collect::<String>()
            ),
        )
    })?;
    if let Some(c) = name
        .chars()
        .find(|c| matches!(c, '[' | ']' | '.' | ' ' | '=' | '&' | '+' | '%'))
    {
        return Err(Error::invalid(
            "params",
            format!("has a parameter name {name:?} with {c:?}, which PHP would not keep as sent"),
        ));
    }
    Ok(())
}

/// A table name: a plain SQL identifier (`[A-Za-z_][A-Za-z0-9_]*`, at most
/// 64 characters). Anything else could only be a mistake or an injection
/// attempt, and the service would put it into a query.
pub fn table(value: &str) -> Result<()> {
    identifier("table", value)
}

/// An access token: a parameter value that also has no whitespace, because a
/// token with a space in it is always a copy-and-paste accident.
pub fn token(value: &str) -> Result<()> {
    // Named, never shown: which character it is says nothing of the token.
    id("access_token", value)?;
    if trailing_comment(value).is_some() {
        // Named, never shown: a comment may quote the token itself.
        return Err(Error::invalid(
            "access_token",
            format!("has whitespace then '#', as a comment after the value reads; {COMMENT_HINT}"),
        ));
    }
    if value.chars().any(char::is_whitespace) {
        return Err(Error::invalid(
            "access_token",
            "must not contain whitespace",
        ));
    }
    if quoted(value) {
        // Named, never shown: the service said only "Invalid access token".
        return Err(Error::invalid(
            "access_token",
            format!("is wrapped in quotes; {QUOTES_HINT}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        for ok in ["sales_invoice", "_x", "A1"] {
            assert!(table(ok).is_ok(), "{ok}");
        }
        for bad in ["", " ", "sales;drop", "a b", "../x", "1abc", "naïve", "x-y"] {
            let err = table(bad).unwrap_err();
            assert!(matches!(err, Error::InvalidInput { ref field, .. } if field == "table"));
        }
    }

    #[test]
    fn dates() {
        assert!(date_range("2025-04-01", "2026-03-31").is_ok());
        assert!(date_range("2024-02-29", "2024-02-29").is_ok());
        for (start, end, field) in [
            ("2025-02-29", "2025-03-01", "start"),
            ("2025-04-01", "2025-13-01", "end"),
            ("2025-4-1", "2025-05-01", "start"),
            ("2025-04-01 00:00:00", "2025-05-01", "start"),
            ("0000-00-00", "2025-05-01", "start"),
            ("2025-05-02", "2025-05-01", "end"),
            ("", "2025-05-01", "start"),
        ] {
            let err = date_range(start, end).unwrap_err();
            assert_eq!(err.field(), Some(field), "{start} {end}");
        }
    }

    #[test]
    fn param_names() {
        for ok in ["acid", "sdate", "x-y", "ä"] {
            assert!(param_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "a[]", "a.b", "a=b", "a&b", "a\nb"] {
            assert_eq!(
                param_name(bad).unwrap_err().field(),
                Some("params"),
                "{bad}"
            );
        }
    }

    #[test]
    fn settings_have_no_whitespace_at_either_end() {
        assert!(setting("company_id", "01").is_ok());
        assert!(setting("project", "my project").is_ok());
        for value in ["1 ", " 1", "demo  ", "\u{a0}2025"] {
            let e = setting("year_id", value).unwrap_err();
            assert_eq!(e.field(), Some("year_id"));
            assert!(
                e.to_string().contains("whitespace at its start or end"),
                "{e}"
            );
        }
        assert!(setting("project", "  ")
            .unwrap_err()
            .to_string()
            .contains("only whitespace"));
    }

    #[test]
    fn settings_are_not_wrapped_in_quotes() {
        for ok in ["demo", "\"", "O'Brien", "'a\"", "1", "my \"big\" project"] {
            assert!(setting("project", ok).is_ok(), "{ok}");
        }
        for value in ["\"demo\"", "'2025'", "\"\"", "''"] {
            let e = setting("year_id", value).unwrap_err();
            assert_eq!(e.field(), Some("year_id"));
            assert!(e.to_string().contains("wrapped in quotes"), "{e}");
        }
        let e = token("\"fake-token-for-tests\"").unwrap_err();
        assert_eq!(e.field(), Some("access_token"));
        assert!(e.to_string().contains("wrapped in quotes"), "{e}");
        assert!(!e.to_string().contains("fake-token"), "{e}");
        assert!(token("fake\"token\"").is_ok());
    }

    #[test]
    fn texts() {
        assert!(text("acid", "C 001 & co").is_ok());
        assert!(text("acid", "a\u{0}b").is_err());
        assert!(text("acid", "a\nb").is_err());
        assert!(text("acid", "\t ").is_err());
        assert!(text("acid", &"x".repeat(MAX_VALUE_LEN + 1)).is_err());
    }
}
