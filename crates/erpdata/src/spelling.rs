//! How the JavaScript package spells the names the core gives inputs, and
//! which known name a misspelt one most likely meant.
//!
//! The core names an input in its errors as Rust and Python spell it
//! (`company_id`, `as_of`); the JavaScript package's options and
//! parameters are camelCase (`companyId`, `asOf`). [`js_name`] is the one
//! rule between the two and [`Error::js_spelled`] applies it to an error,
//! so the wasm glue converts every error the same way and no JS code keeps
//! a second table. [`closest`] gives the "did you mean" of an unknown
//! option.

use std::borrow::Cow;

use crate::error::Error;

/// The core's own snake_case names of options and parameters, which
/// JavaScript spells in camelCase. Names not listed stay as they are:
/// one-word names spelled alike (`acid`, `table`), environment variables
/// (`ERPDATA_COMPANY_ID`), and names the caller chose (a function's
/// parameters, a column, `schema["due_date"]`), which are theirs to spell.
const SNAKE_NAMES: &[&str] = &[
    "access_token",
    "accounts_table",
    "ajax_token",
    "allow_insecure_http",
    "as_of",
    "balance_column",
    "base_url",
    "batch_rows",
    "company_id",
    "due_date_column",
    "max_retries",
    "pay_days",
    "project_folder",
    "send_token",
    "year_id",
];

/// The fields whose reasons are all the core's own words (the settings of
/// a client, given in code or by their variables, and of a call), so that an option named in them is one of the
/// core's names: "give the client a project or a project_folder". The
/// finance views' reasons list the caller's columns and answer fields
/// (`company_id` may be a column), which keep their spelling.
const OWN_WORDS: &[&str] = &[
    "ERPDATA_ACCESS_TOKEN",
    "ERPDATA_BASE_URL",
    "ERPDATA_COMPANY_ID",
    "ERPDATA_PROJECT",
    "ERPDATA_PROJECT_FOLDER",
    "ERPDATA_YEAR_ID",
    "access_token",
    "ajax_token",
    "allow_insecure_http",
    "base_url",
    "batch_rows",
    "company_id",
    "max_retries",
    "max_retry_after",
    "params",
    "project",
    "project_folder",
    "send_token",
    "timeout",
    "year_id",
];

/// Names JavaScript spells otherwise than in camelCase: a wait that
/// Python and Rust give in seconds, JavaScript gives in milliseconds, as
/// its time limits (`timeoutMs`), and its option says so.
const JS_RENAMED: [(&str, &str); 1] = [("max_retry_after", "maxRetryAfterMs")];

/// The core's words for a value's shape as Python and Rust say them, and
/// as JavaScript does: "must be a mapping of names to values, got a list"
/// is "must be an object of names to values, got an array" there.
const JS_SHAPES: [(&str, &str); 2] = [("a mapping", "an object"), ("a list", "an array")];

/// The core checks the time limits together as field `timeout`, its reason
/// naming the limit first (`total must be ...`); JavaScript has one option
/// a limit.
const TIMEOUT_OPTIONS: [(&str, &str); 3] = [
    ("total", "timeoutMs"),
    ("connect", "connectTimeoutMs"),
    ("read", "readTimeoutMs"),
];

/// The JavaScript spelling of `name`, a name the core gives an input in
/// its errors: `company_id` is `companyId`, `as_of` is `asOf`; any other
/// name is returned as it is (see the list above for which and why).
pub fn js_name(name: &str) -> Cow<'_, str> {
    if let Some((_, js)) = JS_RENAMED.iter().find(|(core, _)| *core == name) {
        Cow::Borrowed(js)
    } else if SNAKE_NAMES.contains(&name) {
        Cow::Owned(camel_case(name))
    } else {
        Cow::Borrowed(name)
    }
}

fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` with each of the core's snake_case names in it spelled as
/// [`js_name`] does. What is the caller's stays as it is: quoted text, and
/// a word after `/`, `.`, `` ` `` or `'` (part of a URL, a path or a
/// quoted name).
fn js_names_in(text: &str) -> String {
    outside_quotes(text, |run| {
        let mut out = String::with_capacity(run.len());
        let mut word = String::new();
        for c in run.chars() {
            if is_word_char(c) {
                word.push(c);
            } else {
                spell_word(&mut out, &mut word);
                out.push(c);
            }
        }
        spell_word(&mut out, &mut word);
        out
    })
}

/// `text` with each of [`JS_SHAPES`]' words as JavaScript says it, where
/// they stand as words outside quoted text (the caller's).
fn js_shapes_in(text: &str) -> String {
    outside_quotes(text, |run| {
        let mut out = run.to_owned();
        for (core, js) in JS_SHAPES {
            let mut from = 0;
            while let Some(at) = out[from..].find(core).map(|i| i + from) {
                let end = at + core.len();
                let whole =
                    !out[..at].ends_with(is_word_char) && !out[end..].starts_with(is_word_char);
                if whole {
                    out.replace_range(at..end, js);
                    from = at + js.len();
                } else {
                    from = end;
                }
            }
        }
        out
    })
}

/// `text` with `respell` applied to each run outside quoted text; quoted
/// text (as `{:?}` writes the caller's values, escapes and all) stays as
/// it is.
fn outside_quotes(text: &str, respell: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let (mut quoted, mut escaped) = (false, false);
    for c in text.chars() {
        if quoted {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
        } else if c == '"' {
            out.push_str(&respell(&run));
            run.clear();
            out.push(c);
            quoted = true;
        } else {
            run.push(c);
        }
    }
    out.push_str(&respell(&run));
    out
}

/// Appends `word` (emptying it), spelled for JS unless it is the caller's.
fn spell_word(out: &mut String, word: &mut String) {
    if out.ends_with(['/', '.', '`', '\'']) {
        out.push_str(word);
    } else {
        out.push_str(&js_name(word));
    }
    word.clear();
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The option of a `timeout` error and the rest of its reason.
fn timeout_option(reason: &str) -> Option<(&'static str, &str)> {
    TIMEOUT_OPTIONS.iter().find_map(|(limit, option)| {
        let rest = reason.strip_prefix(limit)?.strip_prefix(' ')?;
        Some((*option, rest))
    })
}

impl Error {
    /// This error as the JavaScript package shows it: an
    /// [`Error::InvalidInput`]'s field spelled as [`js_name`] spells it
    /// (`invalid companyId: ...`), a time limit named by its option
    /// (`timeoutMs`), the options a setting's reason names spelled so
    /// too, and a value's shape said as JS says it ("an object", "an
    /// array"). Other errors are returned as they are. For the JavaScript
    /// binding; not part of the documented API.
    #[doc(hidden)]
    pub fn js_spelled(&self) -> Error {
        let Error::InvalidInput { field, reason } = self else {
            return self.clone();
        };
        let own_words = OWN_WORDS.contains(&field.as_str());
        let limit = (field == "timeout")
            .then(|| timeout_option(reason))
            .flatten();
        let (js_field, reason) = match limit {
            Some((option, rest)) => (option.to_owned(), rest),
            None => (js_name(field).into_owned(), reason.as_str()),
        };
        Error::InvalidInput {
            field: js_field,
            reason: js_shapes_in(&if own_words {
                js_names_in(reason)
            } else {
                reason.to_owned()
            }),
        }
    }
}

/// The name among `known` that `given`, a name none of them is, most
/// likely meant, when one is close enough to suggest ("did you mean
/// accessToken?"). Case, `_` and `-` are ignored, so another language's
/// spelling of a name (`access_token`) finds it; then the fewest edits
/// (an insertion, deletion, substitution or swap of neighbours each) win,
/// at most a third of the name's length (at least one). Ties go to the
/// name listed first.
pub fn closest<'a>(given: &str, known: &[&'a str]) -> Option<&'a str> {
    let given = folded(given);
    known
        .iter()
        .filter_map(|name| {
            let candidate = folded(name);
            let limit = (candidate.len() / 3).max(1);
            edits_within(&given, &candidate, limit).map(|d| (d, *name))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// A name's letters as compared: lower case, without `_` and `-`.
fn folded(name: &str) -> Vec<char> {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The edits (optimal string alignment distance) from `a` to `b`, if at
/// most `limit`: names of very different lengths are not compared at all,
/// so a huge key costs no more than a short one.
fn edits_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // Three rows of the table: two back (for swaps), one back, this one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    let d = last[b.len()];
    (d <= limit).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::OPERATIONS;

    fn invalid(field: &str, reason: &str) -> Error {
        Error::InvalidInput {
            field: field.into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn js_names_are_camel_case_of_the_cores_own_names() {
        assert_eq!(js_name("company_id"), "companyId");
        assert_eq!(js_name("allow_insecure_http"), "allowInsecureHttp");
        assert_eq!(js_name("as_of"), "asOf");
        assert_eq!(js_name("max_retry_after"), "maxRetryAfterMs");
        // Spelled alike, or not the core's to spell.
        for same in [
            "acid",
            "table",
            "start",
            "ERPDATA_COMPANY_ID",
            "from_date",
            "schema[\"a_b\"]",
        ] {
            assert_eq!(js_name(same), same);
        }
    }

    #[test]
    fn a_values_shape_is_said_as_js_says_it_outside_the_callers_text() {
        let e = invalid("params", "must be a mapping of names to values, got a list");
        assert_eq!(
            e.js_spelled().to_string(),
            "invalid params: must be an object of names to values, got an array"
        );
        // The caller's text, quoted, stays; so do words that only begin so.
        let e = invalid("acid", r#"got "a list \" a mapping", a listing"#);
        assert_eq!(e.js_spelled(), e);
    }

    #[test]
    fn the_catalogue_spells_its_parameters_by_the_same_rule() {
        for op in OPERATIONS {
            for p in op.params {
                assert_eq!(js_name(p.name), p.js_name, "{}.{}", op.name, p.name);
            }
        }
    }

    #[test]
    fn an_error_is_spelled_for_js_field_and_message() {
        let err = invalid(
            "company_id",
            "is required: pass one with the call, give the client a default, or set \
             ERPDATA_COMPANY_ID",
        )
        .js_spelled();
        assert_eq!(err.field(), Some("companyId"));
        assert_eq!(
            err.to_string(),
            "invalid companyId: is required: pass one with the call, give the client a \
             default, or set ERPDATA_COMPANY_ID"
        );
        let err = invalid("access_token", "is required (send_token / ajax_token)").js_spelled();
        assert_eq!(
            err.to_string(),
            "invalid accessToken: is required (sendToken / ajaxToken)"
        );
        // The caller's quoted text keeps its spelling, escapes and all.
        let err = invalid("params", r#"has "a \"x send_token" (send_token)"#).js_spelled();
        assert_eq!(
            err.to_string(),
            r#"invalid params: has "a \"x send_token" (sendToken)"#
        );
        // A finance view's reason lists the caller's columns as they are.
        let err = invalid(
            "accounts",
            "needs a column \"acid\"; it has company_id, name",
        )
        .js_spelled();
        assert!(
            err.to_string().ends_with("it has company_id, name"),
            "{err}"
        );
        let err = invalid("pay_days", "looked for avg_pay_days, pay_days").js_spelled();
        assert_eq!(err.field(), Some("payDays"));
        assert!(
            err.to_string()
                .ends_with("looked for avg_pay_days, pay_days"),
            "{err}"
        );
        // A setting read from its variable: the variable as it is, the
        // option its reason names as JS spells it.
        let err = invalid("ERPDATA_BASE_URL", "use https, or set allow_insecure_http").js_spelled();
        assert_eq!(
            err.to_string(),
            "invalid ERPDATA_BASE_URL: use https, or set allowInsecureHttp"
        );
        // A URL keeps its path.
        let err = invalid("base_url", "use https://h/project_folder/").js_spelled();
        assert_eq!(
            err.to_string(),
            "invalid baseUrl: use https://h/project_folder/"
        );
        // Other kinds are untouched.
        let other = Error::Service {
            status: "error".into(),
            message: "company_id".into(),
            call: None,
        };
        assert_eq!(other.js_spelled(), other);
    }

    #[test]
    fn a_time_limit_is_named_by_its_option() {
        let err = invalid("timeout", "read must be a number, got a string").js_spelled();
        assert_eq!(err.field(), Some("readTimeoutMs"));
        assert_eq!(
            err.to_string(),
            "invalid readTimeoutMs: must be a number, got a string"
        );
        let err = crate::Timeouts::from_millis_f64(0.0, 1.0, 1.0)
            .unwrap_err()
            .js_spelled();
        assert_eq!(err.field(), Some("timeoutMs"));
        assert!(err.to_string().contains("milliseconds"), "{err}");
        // A reason that names no limit keeps the core's field.
        assert_eq!(
            invalid("timeout", "odd").js_spelled().field(),
            Some("timeout")
        );
    }

    #[test]
    fn closest_suggests_a_near_name_or_none() {
        let known = ["baseUrl", "accessToken", "companyId", "yearId", "timeoutMs"];
        assert_eq!(closest("accesToken", &known), Some("accessToken"));
        assert_eq!(closest("access_token", &known), Some("accessToken"));
        assert_eq!(closest("ACCESS-TOKEN", &known), Some("accessToken"));
        assert_eq!(closest("compnyId", &known), Some("companyId"));
        assert_eq!(closest("comapnyId", &known), Some("companyId"));
        assert_eq!(closest("base_url", &known), Some("baseUrl"));
        assert_eq!(closest("timeout", &known), Some("timeoutMs"));
        assert_eq!(closest("yaerId", &known), Some("yearId"));
        assert_eq!(closest("foo", &known), None);
        assert_eq!(closest("", &known), None);
        assert_eq!(closest(&"x".repeat(100_000), &known), None);
        assert_eq!(closest("anything", &[]), None);
    }
}
