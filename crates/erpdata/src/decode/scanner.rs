//! Byte-level scanning of single JSON tokens in a slice.
//!
//! Every function here looks at one token starting at a given index and says
//! where it ends, whether the slice ended first (`Incomplete`: the caller
//! keeps the partial token for the next chunk), or which byte is wrong. They
//! allocate nothing except when a string with escapes is decoded into the
//! caller's scratch buffer.

pub(crate) mod simd;

/// What follows the end of the slice a token is scanned in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// More bytes may come: a token running to the end is `Incomplete`.
    More,
    /// The token is known to be complete (its delimiter is in the next
    /// chunk): running to the end means it ends there.
    Delimiter,
    /// The body ends here: a token running to the end is truncated.
    Eof,
}

/// Why a token is not valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bad {
    /// Not valid JSON at this index; the text says what was expected.
    Json(usize, &'static str),
    /// Not valid UTF-8 starting at this index.
    Utf8(usize),
    /// The body ended inside the token.
    Truncated,
}

/// The outcome of scanning one token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan<T> {
    /// The token, and the index just past it.
    Done(T, usize),
    /// The slice ended inside the token and more may come.
    Incomplete,
    /// The token is invalid.
    Bad(Bad),
}

/// JSON's four whitespace bytes (RFC 8259 §2); anything else between
/// tokens is an error, as with serde_json.
#[inline(always)]
pub(crate) fn skip_ws(buf: &[u8], mut pos: usize) -> usize {
    // Every byte after a space is no whitespace: one test for the usual
    // case, a compact body.
    if matches!(buf.get(pos), Some(&b) if b > b' ') {
        return pos;
    }
    while let Some(&b) = buf.get(pos) {
        if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
            pos += 1;
        } else {
            break;
        }
    }
    pos
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The index of the first byte at or after `i` that ends a plain run of a
/// string: `"`, `\`, a control character, or a non-ASCII byte (which needs
/// UTF-8 validation). Strings in ERP tables are mostly short ASCII, and this
/// one pass both finds the end and proves the run valid: with SIMD, most
/// strings take a single 16-byte compare, so the loop's exit is predictable
/// (a loop of 8-byte steps exits after a varying count, and the CPU guesses
/// wrong about once a string).
#[inline(always)]
pub(crate) fn find_special(buf: &[u8], i: usize) -> usize {
    if simd::scalar_only() {
        return find_special_scalar(buf, i);
    }
    simd::find_special(buf, i)
}

/// [`find_special`] without SIMD, eight bytes at a time: the reference, and
/// what targets without SIMD use.
#[inline(always)]
pub(crate) fn find_special_scalar(buf: &[u8], mut i: usize) -> usize {
    while i + 8 <= buf.len() {
        let w = u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
        // Mycroft's zero-byte test, per byte: the lowest flagged byte is
        // always a true hit (borrows only propagate upwards).
        let ctrl = w.wrapping_sub(ONES * 0x20);
        let q = w ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let s = w ^ (ONES * u64::from(b'\\'));
        let slash = s.wrapping_sub(ONES) & !s;
        let hits = (ctrl | quote | slash | w) & HIGHS;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = buf.get(i) {
        if b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b) {
            return i;
        }
        i += 1;
    }
    i
}

/// One UTF-8 character starting at `buf[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Utf8 {
    /// A valid character of this many bytes.
    Char(usize),
    /// A valid beginning that the slice cuts off.
    Incomplete,
    /// Not UTF-8.
    Invalid,
}

/// Validates one character as `std::str::from_utf8` would (no overlongs,
/// no surrogates, nothing above U+10FFFF).
#[inline]
pub(crate) fn utf8_char(buf: &[u8], i: usize) -> Utf8 {
    let lead = buf[i];
    let (len, lo, hi) = match lead {
        0x00..=0x7F => return Utf8::Char(1),
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return Utf8::Invalid,
    };
    for k in 1..len {
        let Some(&b) = buf.get(i + k) else {
            return Utf8::Incomplete;
        };
        let (l, h) = if k == 1 { (lo, hi) } else { (0x80, 0xBF) };
        if b < l || b > h {
            return Utf8::Invalid;
        }
    }
    Utf8::Char(len)
}

/// A scanned string token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Str {
    /// Whether it had escapes (then the decoded text is in the scratch
    /// buffer; otherwise it is the bytes between the quotes).
    pub escaped: bool,
    /// Whether a `\u` escape was a lone surrogate (decoded as U+FFFD): fine
    /// for a value only checked, an error for one decoded into a `String`,
    /// as with serde_json.
    pub lone_surrogate: bool,
}

fn ran_out<T>(after: After, i: usize, len: usize) -> Scan<T> {
    debug_assert!(i >= len);
    match after {
        After::More => Scan::Incomplete,
        _ => Scan::Bad(Bad::Truncated),
    }
}

/// Scans the string token at `buf[start] == '"'`. With `decode`, a string
/// with escapes is decoded into `scratch` (cleared first); without, escapes
/// are only checked.
#[inline]
pub(crate) fn scan_str(
    buf: &[u8],
    start: usize,
    scratch: &mut Vec<u8>,
    decode: bool,
    after: After,
) -> Scan<Str> {
    debug_assert_eq!(buf[start], b'"');
    let len = buf.len();
    let mut i = start + 1;
    let mut run = i;
    let mut out = Str {
        escaped: false,
        lone_surrogate: false,
    };
    loop {
        i = find_special(buf, i);
        let Some(&b) = buf.get(i) else {
            return ran_out(after, i, len);
        };
        if b == b'"' {
            if out.escaped && decode {
                scratch.extend_from_slice(&buf[run..i]);
            }
            return Scan::Done(out, i + 1);
        }
        if b == b'\\' {
            if decode {
                if !out.escaped {
                    scratch.clear();
                }
                scratch.extend_from_slice(&buf[run..i]);
            }
            out.escaped = true;
            let Some(&e) = buf.get(i + 1) else {
                return ran_out(after, i + 1, len);
            };
            let simple = match e {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => 0,
                _ => return Scan::Bad(Bad::Json(i + 1, "invalid escape in a string")),
            };
            if e != b'u' {
                if decode {
                    scratch.push(simple);
                }
                i += 2;
            } else {
                let n = match hex4(buf, i + 2, after) {
                    Ok(n) => n,
                    Err(s) => return s,
                };
                i += 6;
                let c = if (0xD800..0xDC00).contains(&n) {
                    // A high surrogate must be followed by `\u` and a low
                    // one; anything else makes it a lone surrogate.
                    match low_surrogate(buf, i, after) {
                        Ok(Some(lo)) => {
                            i += 6;
                            char::from_u32(0x10000 + ((n - 0xD800) << 10) + (lo - 0xDC00))
                        }
                        Ok(None) => None,
                        Err(s) => return s,
                    }
                } else {
                    char::from_u32(n)
                };
                let c = c.unwrap_or_else(|| {
                    out.lone_surrogate = true;
                    char::REPLACEMENT_CHARACTER
                });
                if decode {
                    let mut tmp = [0u8; 4];
                    scratch.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
            }
            run = i;
            continue;
        }
        if b < 0x20 {
            return Scan::Bad(Bad::Json(i, "control character in a string"));
        }
        match utf8_char(buf, i) {
            Utf8::Char(n) => i += n,
            Utf8::Incomplete if after == After::More => return Scan::Incomplete,
            // A body that ends inside a character of a string was cut off,
            // like one that ends anywhere else in a string.
            Utf8::Incomplete if after == After::Eof => return Scan::Bad(Bad::Truncated),
            Utf8::Incomplete | Utf8::Invalid => return Scan::Bad(Bad::Utf8(i)),
        }
    }
}

fn hex4<T>(buf: &[u8], at: usize, after: After) -> Result<u32, Scan<T>> {
    let mut n = 0u32;
    for k in 0..4 {
        let Some(&h) = buf.get(at + k) else {
            return Err(ran_out(after, at + k, buf.len()));
        };
        let d = match h {
            b'0'..=b'9' => h - b'0',
            b'a'..=b'f' => h - b'a' + 10,
            b'A'..=b'F' => h - b'A' + 10,
            _ => return Err(Scan::Bad(Bad::Json(at + k, "invalid \\u escape"))),
        };
        n = n * 16 + u32::from(d);
    }
    Ok(n)
}

/// After a high surrogate at `i`: `Some(low)` if `\uDC00`–`\uDFFF` follows,
/// `None` if something else does (the escape after it is scanned as usual).
fn low_surrogate<T>(buf: &[u8], i: usize, after: After) -> Result<Option<u32>, Scan<T>> {
    for (k, want) in [b'\\', b'u'].into_iter().enumerate() {
        match buf.get(i + k) {
            None if after == After::More => return Err(Scan::Incomplete),
            None => return Ok(None),
            Some(&b) if b != want => return Ok(None),
            Some(_) => {}
        }
    }
    let mut n = 0u32;
    for k in 0..4 {
        let Some(&h) = buf.get(i + 2 + k) else {
            if after == After::More {
                return Err(Scan::Incomplete);
            }
            return Ok(None);
        };
        let d = match h {
            b'0'..=b'9' => h - b'0',
            b'a'..=b'f' => h - b'a' + 10,
            b'A'..=b'F' => h - b'A' + 10,
            // Let the ordinary escape scan report it.
            _ => return Ok(None),
        };
        n = n * 16 + u32::from(d);
    }
    Ok((0xDC00..0xE000).contains(&n).then_some(n))
}

/// Where a string token that began in an earlier chunk ends in this one:
/// the index just past the closing quote, or `None` (all of `buf` belongs
/// to it). `escape` carries a backslash that ended the previous chunk.
/// Only finds the end; the completed token is then scanned whole.
pub(crate) fn str_end(buf: &[u8], escape: &mut bool) -> Option<usize> {
    let mut i = 0;
    if *escape {
        if buf.is_empty() {
            return None;
        }
        *escape = false;
        i = 1;
    }
    while i < buf.len() {
        let k = memchr::memchr2(b'"', b'\\', &buf[i..])?;
        let j = i + k;
        if buf[j] == b'"' {
            return Some(j + 1);
        }
        if j + 1 >= buf.len() {
            *escape = true;
            return None;
        }
        i = j + 2;
    }
    None
}

/// A number as scanned: its exact text is the token; this is its value,
/// digit by digit, so that columns need not parse it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Number {
    /// A leading minus sign.
    pub negative: bool,
    /// No fraction and no exponent written.
    pub integral: bool,
    /// All digits written (integer and fraction), as one integer; only
    /// meaningful when `!overflow`.
    pub mantissa: u128,
    /// More significant digits than a 38-digit decimal holds.
    pub overflow: bool,
    /// Digits after the decimal point.
    pub fraction_digits: u32,
    /// The written exponent (saturating).
    pub exponent: i32,
}

/// The largest 38-digit integer: Arrow's and SQL's widest decimal.
pub(crate) const MAX_38_DIGITS: u128 = 99_999_999_999_999_999_999_999_999_999_999_999_999;

#[inline(always)]
fn push_digit(m: &mut u64, big: &mut u128, wide: &mut bool, overflow: &mut bool, d: u8) {
    if !*wide {
        if *m < 1_000_000_000_000_000_000 {
            *m = *m * 10 + u64::from(d);
            return;
        }
        *wide = true;
        *big = u128::from(*m);
    }
    if !*overflow {
        match big.checked_mul(10).map(|x| x + u128::from(d)) {
            Some(x) if x <= MAX_38_DIGITS => *big = x,
            _ => *overflow = true,
        }
    }
}

/// Scans the number token at `buf[start]` (`-` or a digit) with JSON's
/// grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn scan_number(buf: &[u8], start: usize, after: After) -> Scan<Number> {
    let mut n = Number::default();
    match scan_number_into(buf, start, after, &mut n) {
        Scan::Done((), end) => Scan::Done(n, end),
        Scan::Incomplete => Scan::Incomplete,
        Scan::Bad(bad) => Scan::Bad(bad),
    }
}

/// [`scan_number`] writing the value into `out`, for the hot paths: a
/// `Number` returned inside a `Scan` is written to the stack with narrow
/// stores and moved out with wide loads, which stalls on store forwarding.
///
/// Inline for what tables mostly hold — up to 19 digits, maybe a fraction,
/// no exponent, its delimiter in `buf`; everything else (and every error)
/// takes the full scan.
#[inline(always)]
pub(crate) fn scan_number_into(
    buf: &[u8],
    start: usize,
    after: After,
    out: &mut Number,
) -> Scan<()> {
    let negative = buf[start] == b'-';
    let int_start = start + usize::from(negative);
    let mut i = int_start;
    let mut m: u64 = 0;
    while let Some(&b) = buf.get(i) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        m = m.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    let int_digits = i - int_start;
    let mut fraction_digits = 0;
    if buf.get(i) == Some(&b'.') {
        i += 1;
        let first = i;
        while let Some(&b) = buf.get(i) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            m = m.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        fraction_digits = i - first;
        if fraction_digits == 0 {
            return scan_number_slow(buf, start, after, out);
        }
    }
    let simple = int_digits > 0
        && (int_digits == 1 || buf[int_start] != b'0')
        && int_digits + fraction_digits <= 19
        && matches!(buf.get(i), Some(&b) if b != b'e' && b != b'E');
    if !simple {
        return scan_number_slow(buf, start, after, out);
    }
    out.negative = negative;
    out.integral = fraction_digits == 0;
    out.mantissa = u128::from(m);
    out.overflow = false;
    out.fraction_digits = fraction_digits as u32;
    out.exponent = 0;
    Scan::Done((), i)
}

#[cold]
#[inline(never)]
fn scan_number_slow(buf: &[u8], start: usize, after: After, out: &mut Number) -> Scan<()> {
    match scan_number_full(buf, start, after) {
        Scan::Done(n, end) => {
            *out = n;
            Scan::Done((), end)
        }
        Scan::Incomplete => Scan::Incomplete,
        Scan::Bad(bad) => Scan::Bad(bad),
    }
}

/// [`scan_number`] for every case.
fn scan_number_full(buf: &[u8], start: usize, after: After) -> Scan<Number> {
    let len = buf.len();
    let mut i = start;
    let mut n = Number {
        integral: true,
        ..Number::default()
    };
    let (mut m, mut big, mut wide) = (0u64, 0u128, false);
    // A part that needs at least one more byte and met the end of the
    // slice: whether that is "wait", "truncated" or "invalid" depends on
    // what follows the slice.
    let needs_more = |i: usize| -> Scan<Number> {
        match after {
            After::More => Scan::Incomplete,
            After::Eof => Scan::Bad(Bad::Truncated),
            After::Delimiter => Scan::Bad(Bad::Json(i, "invalid number")),
        }
    };
    if buf[i] == b'-' {
        n.negative = true;
        i += 1;
    }
    match buf.get(i) {
        None => return needs_more(i),
        Some(b'0') => i += 1,
        Some(&d @ b'1'..=b'9') => {
            push_digit(&mut m, &mut big, &mut wide, &mut n.overflow, d - b'0');
            i += 1;
            while let Some(&d @ b'0'..=b'9') = buf.get(i) {
                push_digit(&mut m, &mut big, &mut wide, &mut n.overflow, d - b'0');
                i += 1;
            }
        }
        Some(_) => return Scan::Bad(Bad::Json(i, "invalid number")),
    }
    if buf.get(i) == Some(&b'.') {
        n.integral = false;
        i += 1;
        let first = i;
        while let Some(&d @ b'0'..=b'9') = buf.get(i) {
            push_digit(&mut m, &mut big, &mut wide, &mut n.overflow, d - b'0');
            i += 1;
        }
        n.fraction_digits = (i - first) as u32;
        if i == first {
            return if i == len {
                needs_more(i)
            } else {
                Scan::Bad(Bad::Json(i, "invalid number"))
            };
        }
    }
    if let Some(b'e' | b'E') = buf.get(i) {
        n.integral = false;
        i += 1;
        let mut negative = false;
        if let Some(&s @ (b'+' | b'-')) = buf.get(i) {
            negative = s == b'-';
            i += 1;
        }
        let first = i;
        let mut e: i32 = 0;
        while let Some(&d @ b'0'..=b'9') = buf.get(i) {
            e = e.saturating_mul(10).saturating_add(i32::from(d - b'0'));
            i += 1;
        }
        n.exponent = if negative { -e } else { e };
        if i == first {
            return if i == len {
                needs_more(i)
            } else {
                Scan::Bad(Bad::Json(i, "invalid number"))
            };
        }
    }
    // Digits may go on in the next chunk.
    if i == len && after == After::More {
        return Scan::Incomplete;
    }
    done(n, m, big, wide, i)
}

#[inline(always)]
fn done(mut n: Number, m: u64, big: u128, wide: bool, end: usize) -> Scan<Number> {
    n.mantissa = if wide { big } else { u128::from(m) };
    Scan::Done(n, end)
}

/// `true`, `false` or `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

/// Scans the literal at `buf[start]` (`t`, `f` or `n`).
#[inline]
pub(crate) fn scan_literal(buf: &[u8], start: usize, after: After) -> Scan<Literal> {
    let (word, lit): (&[u8], Literal) = match buf[start] {
        b't' => (b"true", Literal::True),
        b'f' => (b"false", Literal::False),
        _ => (b"null", Literal::Null),
    };
    for (k, &want) in word.iter().enumerate() {
        match buf.get(start + k) {
            None => {
                return match after {
                    After::More => Scan::Incomplete,
                    After::Eof => Scan::Bad(Bad::Truncated),
                    After::Delimiter => Scan::Bad(Bad::Json(start + k, "expected a value")),
                }
            }
            Some(&b) if b != want => return Scan::Bad(Bad::Json(start + k, "expected a value")),
            Some(_) => {}
        }
    }
    Scan::Done(lit, start + word.len())
}

/// Whether `b` can continue a number token (for finding where a number
/// that began in an earlier chunk ends).
pub(crate) fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_bytes_are_found_at_every_offset() {
        for special in [b'"', b'\\', 0x00, 0x1F, 0x80, 0xFF] {
            for at in 0..20 {
                let mut buf = vec![b'a'; 20];
                buf[at] = special;
                assert_eq!(find_special(&buf, 0), at, "{special:#x} at {at}");
                assert_eq!(find_special_scalar(&buf, 0), at, "{special:#x} at {at}");
            }
        }
        assert_eq!(find_special(b"abcdefghijklmnop", 0), 16);
        assert_eq!(find_special(b" ~!#[]", 0), 6);
    }

    fn s(text: &str, decode: bool, after: After) -> (Scan<Str>, String) {
        let mut scratch = Vec::new();
        let r = scan_str(text.as_bytes(), 0, &mut scratch, decode, after);
        (r, String::from_utf8(scratch).unwrap())
    }

    #[test]
    fn strings() {
        let plain = Str {
            escaped: false,
            lone_surrogate: false,
        };
        let esc = Str {
            escaped: true,
            ..plain
        };
        assert_eq!(s(r#""abc" x"#, true, After::More).0, Scan::Done(plain, 5));
        assert_eq!(
            s(r#""M\u00fcller \"&\" S\u00f6hne\n""#, true, After::More),
            (Scan::Done(esc, 32), "Müller \"&\" Söhne\n".to_owned())
        );
        assert_eq!(s("\"é€😀\"", true, After::More).0, Scan::Done(plain, 11));
        assert_eq!(
            s(r#""\ud83d\ude00""#, true, After::More),
            (Scan::Done(esc, 14), "😀".to_owned())
        );
        let (r, text) = s(r#""\ud800x""#, true, After::More);
        assert_eq!(
            r,
            Scan::Done(
                Str {
                    escaped: true,
                    lone_surrogate: true
                },
                9
            )
        );
        assert_eq!(text, "\u{fffd}x");
        assert_eq!(s(r#""\udc00""#, false, After::More).0, {
            Scan::Done(
                Str {
                    escaped: true,
                    lone_surrogate: true,
                },
                8,
            )
        });
        for partial in [
            "\"ab",
            "\"a\\",
            "\"a\\u00",
            "\"\\ud800",
            "\"\\ud800\\",
            "\"\u{e9}",
        ] {
            let cut = if partial.ends_with('\u{e9}') {
                partial.len() - 1
            } else {
                partial.len()
            };
            let bytes = &partial.as_bytes()[..cut];
            let mut scratch = Vec::new();
            assert_eq!(
                scan_str(bytes, 0, &mut scratch, true, After::More),
                Scan::Incomplete,
                "{partial}"
            );
            let r = scan_str(bytes, 0, &mut scratch, true, After::Eof);
            assert!(
                matches!(r, Scan::Bad(Bad::Truncated | Bad::Utf8(_)) | Scan::Done(..)),
                "{partial}: {r:?}"
            );
        }
        assert_eq!(
            s("\"a\u{1}\"", true, After::More).0,
            Scan::Bad(Bad::Json(2, "control character in a string"))
        );
        assert_eq!(
            s(r#""\x""#, true, After::More).0,
            Scan::Bad(Bad::Json(2, "invalid escape in a string"))
        );
        let mut scratch = Vec::new();
        assert_eq!(
            scan_str(b"\"a\xffb\"", 0, &mut scratch, true, After::More),
            Scan::Bad(Bad::Utf8(2))
        );
        assert_eq!(
            scan_str(b"\"\xed\xa0\x80\"", 0, &mut scratch, true, After::More),
            Scan::Bad(Bad::Utf8(1)),
            "an encoded surrogate is not UTF-8"
        );
    }

    #[test]
    fn string_ends_across_chunks() {
        let mut esc = false;
        assert_eq!(str_end(b"abc\\", &mut esc), None);
        assert!(esc);
        assert_eq!(str_end(b"\"def\"x", &mut esc), Some(5));
        assert!(!esc);
        assert_eq!(str_end(b"a\\\\\"", &mut esc), Some(4));
    }

    fn num(text: &str, after: After) -> Scan<Number> {
        scan_number(text.as_bytes(), 0, after)
    }

    #[test]
    fn numbers() {
        let Scan::Done(n, 7) = num("1234.50,", After::More) else {
            panic!()
        };
        assert_eq!(
            (n.mantissa, n.fraction_digits, n.integral),
            (123450, 2, false)
        );
        let Scan::Done(n, 4) = num("1e-7}", After::More) else {
            panic!()
        };
        assert_eq!((n.mantissa, n.exponent), (1, -7));
        let Scan::Done(n, 2) = num("-0", After::Eof) else {
            panic!()
        };
        assert!(n.negative && n.integral && n.mantissa == 0);
        let Scan::Done(n, 41) = num(&format!("{}1", "9".repeat(40)), After::Delimiter) else {
            panic!()
        };
        assert!(n.overflow);
        let Scan::Done(n, 38) = num(&"9".repeat(38), After::Delimiter) else {
            panic!()
        };
        assert!(!n.overflow && n.mantissa == MAX_38_DIGITS);
        assert_eq!(num("12", After::More), Scan::Incomplete);
        assert_eq!(num("12.", After::More), Scan::Incomplete);
        assert_eq!(num("12.", After::Eof), Scan::Bad(Bad::Truncated));
        assert_eq!(num("-", After::Eof), Scan::Bad(Bad::Truncated));
        assert_eq!(
            num("12.", After::Delimiter),
            Scan::Bad(Bad::Json(3, "invalid number"))
        );
        assert_eq!(
            num("1.x", After::More),
            Scan::Bad(Bad::Json(2, "invalid number"))
        );
        assert_eq!(
            num("-a", After::More),
            Scan::Bad(Bad::Json(1, "invalid number"))
        );
        assert!(matches!(num("01", After::More), Scan::Done(_, 1)));
        assert!(matches!(num("2.5E+3 ", After::More), Scan::Done(_, 6)));
        assert_eq!(num("2.5E+", After::More), Scan::Incomplete);
    }

    #[test]
    fn literals() {
        assert_eq!(
            scan_literal(b"null,", 0, After::More),
            Scan::Done(Literal::Null, 4)
        );
        assert_eq!(scan_literal(b"fal", 0, After::More), Scan::Incomplete);
        assert_eq!(
            scan_literal(b"fal", 0, After::Eof),
            Scan::Bad(Bad::Truncated)
        );
        assert_eq!(
            scan_literal(b"tru", 0, After::Delimiter),
            Scan::Bad(Bad::Json(3, "expected a value"))
        );
        assert_eq!(
            scan_literal(b"nul!", 0, After::More),
            Scan::Bad(Bad::Json(3, "expected a value"))
        );
    }

    #[test]
    fn utf8_matches_std() {
        let samples: [&[u8]; 10] = [
            b"\xc3\xa9",
            b"\xc0\x80",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xf0\x9f\x98\x80",
            b"\xe2\x82",
            b"\xff",
            b"\x80",
            b"\xef\xbb\xbf",
        ];
        for s in samples {
            let std = std::str::from_utf8(s);
            let ours = utf8_char(s, 0);
            match std {
                Ok(t) => assert_eq!(ours, Utf8::Char(t.len())),
                Err(e) if e.error_len().is_none() => assert_eq!(ours, Utf8::Incomplete),
                Err(_) => assert_eq!(ours, Utf8::Invalid, "{s:?}"),
            }
        }
    }
}
