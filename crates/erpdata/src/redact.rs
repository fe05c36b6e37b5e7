//! Removing the access token from text that may have seen a request.
//!
//! Kept apart from [`Config`](crate::Config) so that the decoder, excerpts
//! and transport error chains can redact without holding (or importing) the
//! whole configuration: this module depends on nothing but the token.
//!
//! A service that echoes the token rarely echoes it byte for byte: PHP's
//! `json_encode` writes `/` as `\/` and other characters as `\uXXXX`,
//! `htmlspecialchars` writes `&` as `&amp;`, a URL carries `%2F` or `%2f`,
//! a form `+` for a space. So each character of the token is looked for
//! in every spelling those give it (see [`spelled`]), and a text is
//! redacted wherever the whole token appears in any mix of them.

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
    /// token in its longest spelling), or 0: a cut made this many bytes
    /// before a text cannot leave part of a token inside it.
    pub(crate) fn reach(&self) -> usize {
        self.secret()
            .map_or(0, |raw| raw.chars().map(longest).sum())
    }

    /// Whether the token is long enough to tell from the words of a
    /// message: a token of a few characters (`x`, a test's) is found
    /// inside them (`h[REDACTED]s`), where no real token is.
    pub(crate) fn stands_out(&self) -> bool {
        self.secret().is_some_and(|raw| raw.chars().count() >= 8)
    }

    /// A setting or argument's text about to be shown (a refused value's
    /// reason, a base URL in `Debug`): redacted only if the token
    /// [stands out](Self::stands_out), so a test's token `a` does not
    /// turn `has whitespace` into `h[REDACTED]s whitesp[REDACTED]ce`.
    pub(crate) fn redact_setting(&self, text: &str) -> String {
        if self.stands_out() {
            self.redact(text)
        } else {
            text.to_owned()
        }
    }

    /// `text` redacted, then cut to `max` characters (with `…` when cut).
    /// `more`: `text` is itself the start of a longer text, cut before it
    /// was redacted, so a token may straddle its end: that end is not
    /// shown (see [`drop_cut_end`](Self::drop_cut_end)). Cutting first and
    /// redacting after showed a token at the cut all but its last bytes.
    pub(crate) fn redact_cut(&self, text: &str, max: usize, more: bool) -> String {
        let mut out = self.redact(text);
        if more {
            self.drop_cut_end(&mut out);
        }
        match out.char_indices().nth(max) {
            Some((i, _)) => {
                out.truncate(i);
                out.push('…');
            }
            None if more => out.push('…'),
            None => {}
        }
        out
    }

    /// Drops the last [`reach`](Self::reach) bytes of `redacted`, a text
    /// redacted after it was cut from a longer one: whatever of a token
    /// its cut left is among them, unredacted, since a part of the token
    /// matches none of its spellings. Nothing without a token.
    pub(crate) fn drop_cut_end(&self, redacted: &mut String) {
        let mut keep = redacted.len().saturating_sub(self.reach());
        while !redacted.is_char_boundary(keep) {
            keep -= 1;
        }
        redacted.truncate(keep);
    }

    /// Replaces every occurrence of the token, raw or in any spelling of
    /// [`spelled`], with [`REDACTED`].
    pub(crate) fn redact(&self, text: &str) -> String {
        let Some(raw) = self.secret() else {
            return text.to_owned();
        };
        let token: Vec<char> = raw.chars().collect();
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut path = Vec::new();
        // The bytes a spelling can begin with: most of a text is passed
        // over on one look-up.
        let mut begins = [false; 256];
        for b in [raw.as_bytes()[0], b'%', b'\\', b'&', b'+'] {
            begins[usize::from(b)] = true;
        }
        if raw.starts_with('\\') {
            begins[usize::from(b'/')] = true;
        }
        let (mut copied, mut at) = (0, 0);
        while at < bytes.len() {
            if !begins[usize::from(bytes[at])] {
                at += 1;
                continue;
            }
            // The raw token first, whatever the search's bound below.
            let end = if bytes[at..].starts_with(raw.as_bytes()) {
                Some(at + raw.len())
            } else {
                spelled(bytes, at, &token, &mut path)
            };
            match end {
                Some(end) if text.is_char_boundary(at) && text.is_char_boundary(end) => {
                    out.push_str(&text[copied..at]);
                    out.push_str(REDACTED);
                    (copied, at) = (end, end);
                }
                _ => at += 1,
            }
        }
        out.push_str(&text[copied..]);
        parameter_redacted(out)
    }

    fn secret(&self) -> Option<&str> {
        let raw = self.token.as_ref()?.expose_secret();
        (!raw.is_empty()).then_some(raw)
    }
}

/// The name of the parameter the token is sent as, in a URL or a form.
const PARAMETER: &str = "accesstoken=";

/// `text` with whatever follows [`PARAMETER`] up to the next `&`, space or
/// quote redacted too: a host stack that cuts a URL of the GET form in its
/// message (`...&accesstoken=fake-secr…`) leaves a part of the token, which
/// matches none of its spellings.
fn parameter_redacted(text: String) -> String {
    if !text.contains(PARAMETER) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(PARAMETER) {
        let (before, after) = rest.split_at(at + PARAMETER.len());
        out.push_str(before);
        let end = after
            .find(|c: char| c == '&' || c == '"' || c == '\'' || c == '<' || c.is_whitespace())
            .unwrap_or(after.len());
        let value = &after[..end];
        if value.is_empty() || value.starts_with(REDACTED) {
            rest = after;
        } else {
            out.push_str(REDACTED);
            rest = &after[end..];
        }
    }
    out.push_str(rest);
    out
}

/// Where the token spelled character by character ends, if it starts at
/// `at`: each character as itself, percent-encoded (either case of hex),
/// `+` for a space, JSON-escaped, or as an HTML character reference.
///
/// `%`, `&`, `\` and `+` begin both themselves and an escape, so a path
/// that fails later goes back to the last such character and tries its
/// other reading (a token holding "%25" as such, echoed with its `&` as
/// `&amp;`). `path` holds, for each character matched, where it began and
/// which reading to try next; the steps are bounded, so a text made to
/// make the search branch costs no more than a few passes over the token.
fn spelled(text: &[u8], at: usize, token: &[char], path: &mut Vec<(usize, u8)>) -> Option<usize> {
    path.clear();
    let (mut pos, mut from) = (at, 0);
    let mut steps = 0;
    while path.len() < token.len() {
        steps += 1;
        if steps > 4 * token.len() + 16 {
            return None;
        }
        match spelling(text, pos, token[path.len()], from) {
            Some((end, reading)) => {
                path.push((pos, reading + 1));
                (pos, from) = (end, 0);
            }
            None => (pos, from) = path.pop()?,
        }
    }
    Some(pos)
}

/// Where a reading of `c` at `at` ends, and which: 0 an escape (as the
/// byte at `at` begins one), 1 the character itself; `from` is the first
/// reading to try.
fn spelling(text: &[u8], at: usize, c: char, from: u8) -> Option<(usize, u8)> {
    let rest = text.get(at..)?;
    let mut utf8 = [0; 4];
    let own = c.encode_utf8(&mut utf8).as_bytes();
    let escaped = || match rest.first()? {
        // A space's `+`, encoded once more, is `%2B`.
        b'%' if c == ' ' => percent(rest, own).or_else(|| escaped_byte(rest, b"%", b'+')),
        b'%' => percent(rest, own),
        b'\\' => json_escape(rest, c),
        b'&' => html_reference(rest, c),
        b'+' if c == ' ' => Some(1),
        // A URL parser writes `\` as `/` in an http(s) URL's path: a token
        // holding one, put in the base URL, is shown so.
        b'/' if c == '\\' => Some(1),
        _ => None,
    };
    let escape = if from == 0 {
        escaped().map(|len| (len, 0))
    } else {
        None
    };
    let own_reading = || (from <= 1 && rest.starts_with(own)).then_some((own.len(), 1));
    let (len, reading) = escape.or_else(own_reading)?;
    Some((at + len, reading))
}

/// `%XX` for each byte of the character (`%2F` and `%2f` alike), or
/// `%25XX`: a URL encoded twice, as a redirect to a login page carries the
/// URL it came from (`?return=...%3Faccesstoken%3Dab%252Fcd`).
fn percent(rest: &[u8], own: &[u8]) -> Option<usize> {
    let mut at = 0;
    for byte in own {
        at += [b"%".as_slice(), b"%25"]
            .iter()
            .find_map(|lead| escaped_byte(rest.get(at..)?, lead, *byte))?;
    }
    Some(at)
}

/// The length of `lead` and the two hex digits of `byte` (in either
/// case) at the start of `text`, if they are there.
fn escaped_byte(text: &[u8], lead: &[u8], byte: u8) -> Option<usize> {
    let n = lead.len();
    match text.get(..n + 2)? {
        [head @ .., hi, lo] if head == lead && hex_byte(*hi, *lo) == Some(byte) => Some(n + 2),
        _ => None,
    }
}

/// `\/`, `\"`, `\\`, or `\uXXXX` (a surrogate pair past U+FFFF), as JSON
/// encoders write them.
fn json_escape(rest: &[u8], c: char) -> Option<usize> {
    if matches!(c, '/' | '"' | '\\') && rest.get(1) == Some(&(c as u8)) {
        return Some(2);
    }
    let mut units = [0; 2];
    let units = c.encode_utf16(&mut units);
    for (i, unit) in units.iter().enumerate() {
        let escape = rest.get(6 * i..6 * i + 6)?;
        if !escape.starts_with(b"\\u") || hex_value(&escape[2..]) != Some(u32::from(*unit)) {
            return None;
        }
    }
    Some(6 * units.len())
}

/// `&amp;`, `&quot;`, `&apos;`, `&lt;`, `&gt;`, or a numeric reference
/// (`&#039;` as PHP writes a quote, `&#x27;` as Python does).
fn html_reference(rest: &[u8], c: char) -> Option<usize> {
    let named: &[u8] = match c {
        '&' => b"&amp;",
        '"' => b"&quot;",
        '\'' => b"&apos;",
        '<' => b"&lt;",
        '>' => b"&gt;",
        _ => b"",
    };
    if !named.is_empty() && rest.starts_with(named) {
        return Some(named.len());
    }
    let body = rest.strip_prefix(b"&#")?;
    let (digits, radix, skip) = match body.first()? {
        b'x' | b'X' => (&body[1..], 16, 3),
        _ => (body, 10, 2),
    };
    let n = digits
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let value = std::str::from_utf8(&digits[..n]).ok()?;
    let fits = (1..=MAX_REFERENCE_DIGITS).contains(&n) && digits.get(n) == Some(&b';');
    (fits && u32::from_str_radix(value, radix).ok()? == u32::from(c)).then_some(skip + n + 1)
}

/// The most digits of a numeric character reference looked at: U+10FFFF
/// is 1114111, seven decimal digits (six in hex).
const MAX_REFERENCE_DIGITS: usize = 7;

/// The longest spelling of `c` that [`spelling`] accepts.
fn longest(c: char) -> usize {
    let percent = 3 * c.len_utf8();
    let json = 6 * c.len_utf16();
    // "&#x" + seven digits + ";" bounds every reference, named or numeric.
    let reference = 3 + MAX_REFERENCE_DIGITS + 1;
    percent.max(json).max(reference)
}

fn hex_byte(hi: u8, lo: u8) -> Option<u8> {
    Some((hex_digit(hi)? << 4) | hex_digit(lo)?)
}

fn hex_value(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0u32, |v, d| Some((v << 4) | u32::from(hex_digit(*d)?)))
}

fn hex_digit(d: u8) -> Option<u8> {
    (d as char).to_digit(16).map(|v| v as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(token: &str) -> Redactor {
        Redactor::new(Some(AccessToken::new(token)))
    }

    #[test]
    fn a_text_is_redacted_before_it_is_cut() {
        let r = redactor("fake-secret-4711");
        // The token at the 300th character: cut first, "fake-secr" showed.
        let text = format!("{}fake-secret-4711 is not valid", "x".repeat(295));
        let shown = r.redact_cut(&text, 300, false);
        assert_eq!(shown, format!("{}[REDA…", "x".repeat(295)));
        // A text itself cut inside the token: its end is not shown.
        let kept = format!("{}fake-secret-47", "y".repeat(400));
        let left = kept.len() - r.reach();
        assert!(left < 400);
        assert_eq!(
            r.redact_cut(&kept, 300, true),
            format!("{}…", "y".repeat(left))
        );
        // Without a token, nothing is dropped.
        assert_eq!(Redactor::default().redact_cut("abcdef", 3, false), "abc…");
        assert_eq!(Redactor::default().redact_cut("abc", 3, true), "abc…");
    }

    #[test]
    fn a_token_cut_in_a_url_is_redacted_by_its_parameter() {
        // A host's message that cut the GET form's URL inside the token.
        let r = redactor("fake-secret-4711");
        let url = "https://erp.example.com/apis/dataapi.php?req=getdata&accesstoken=";
        assert_eq!(
            r.redact(&format!("request to {url}fake-secr… failed")),
            format!("request to {url}[REDACTED] failed")
        );
        assert_eq!(
            r.redact(&format!("{url}fake-secret-4711&table=x and {url}&y")),
            format!("{url}[REDACTED]&table=x and {url}&y")
        );
        // Without a token configured, nothing is secret.
        assert_eq!(
            Redactor::default().redact("accesstoken=abc"),
            "accesstoken=abc"
        );
    }

    #[test]
    fn every_encoding() {
        let r = redactor("tok/+=en");
        assert_eq!(
            r.redact("x tok/+=en y tok%2F%2B%3Den z"),
            "x [REDACTED] y [REDACTED] z"
        );
        assert!(!format!("{r:?}").contains("tok/"));
    }

    #[test]
    fn a_backslash_a_url_parser_made_a_slash() {
        // The URL parser writes a base URL's `\` as `/`: the token put in
        // its path showed with that one character changed.
        for token in [r"fake\token-4711-abcdef", r"\fake-token-4711-abcdef"] {
            let r = redactor(token);
            let url = url::Url::parse(&format!("https://erp.example.com/gw/{token}/")).unwrap();
            assert_eq!(
                r.redact(url.as_str()),
                "https://erp.example.com/gw/[REDACTED]/",
                "{url}"
            );
        }
        // A slash is no backslash in a token without one.
        assert_eq!(
            redactor("a/b-4711-abcdef").redact("a\\b-4711-abcdef"),
            "a\\b-4711-abcdef"
        );
    }

    #[test]
    fn the_spellings_a_php_service_echoes() {
        let r = redactor("q2Xv/9LmT+0aZ= &\"'<é😀");
        for spelled in [
            // json_encode, its default flags
            r#"q2Xv\/9LmT+0aZ= &\"'<\u00e9\ud83d\ude00"#,
            // json_encode with JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE
            r#"q2Xv/9LmT+0aZ= &\"'<é😀"#,
            // htmlspecialchars (ENT_QUOTES), and Python's html.escape
            "q2Xv/9LmT+0aZ= &amp;&quot;&#039;&lt;é😀",
            "q2Xv/9LmT+0aZ= &amp;&quot;&#x27;&lt;é😀",
            // urlencode, rawurlencode, and lowercase hex
            "q2Xv%2F9LmT%2B0aZ%3D+%26%22%27%3C%C3%A9%F0%9F%98%80",
            "q2Xv%2F9LmT%2B0aZ%3D%20%26%22%27%3C%C3%A9%F0%9F%98%80",
            "q2Xv%2f9LmT%2b0aZ%3d%20%26%22%27%3c%c3%a9%f0%9f%98%80",
            // urlencode of a URL that held it urlencoded: a login page's
            // return address, a redirect's Location
            "q2Xv%252F9LmT%252B0aZ%253D%2B%2526%2522%2527%253C%25C3%25A9%25F0%259F%2598%2580",
            "q2Xv%252f9LmT%252b0aZ%253d%2520%2526%2522%2527%253c%25c3%25a9%25f0%259f%2598%2580",
        ] {
            let text = format!("bad token {spelled}, try again");
            assert_eq!(
                r.redact(&text),
                "bad token [REDACTED], try again",
                "{spelled}"
            );
            assert!(spelled.len() <= r.reach(), "{spelled}");
        }
    }

    #[test]
    fn a_token_holding_escapes_as_such() {
        let r = redactor("a%25b&amp;c");
        assert_eq!(r.redact("<a%25b&amp;c>"), "<[REDACTED]>");
        assert_eq!(r.redact("<a%2525b%26amp%3Bc>"), "<[REDACTED]>");
        assert_eq!(r.redact("<a%25b&amp;amp;c>"), "<[REDACTED]>");
    }

    #[test]
    fn near_misses_are_kept() {
        let r = redactor("ab/cd");
        for text in [
            "ab/c",
            "ab\\cd",
            "ab%2Gcd",
            "ab&#48;cd",
            "ab&#x2f cd",
            "ab\\u002",
            "AB/CD",
        ] {
            assert_eq!(r.redact(text), text);
        }
        assert_eq!(
            r.redact("ab&#47;cd ab&#x2F;cd ab\\u002Fcd"),
            "[REDACTED] [REDACTED] [REDACTED]"
        );
    }

    #[test]
    fn text_around_multibyte_characters() {
        let r = redactor("tok");
        assert_eq!(r.redact("é tok ü%74ok 😀"), "é [REDACTED] ü[REDACTED] 😀");
    }

    #[test]
    fn no_token_no_change() {
        assert_eq!(Redactor::default().redact("a tok b"), "a tok b");
        assert_eq!(redactor("").redact("a tok b"), "a tok b");
        assert_eq!(Redactor::default().reach(), 0);
    }
}
