//! Where the elements of the `data` array end: a structural scan that
//! follows only strings, escapes and nesting depth, for cutting the rows
//! into pieces that other threads decode.
//!
//! The scan does not check the JSON: each piece is decoded by a full
//! decoder, which does. A wrong bound can only make a piece fail to decode
//! (and the caller then decodes the body in one piece), never let a body
//! decode differently: pieces that each decode as a sequence of rows,
//! joined by the commas that were between them, are a sequence of rows.

/// Byte classes outside strings.
const OTHER: u8 = 0;
const QUOTE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const COMMA: u8 = 4;

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    t[b'"' as usize] = QUOTE;
    t[b'{' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b',' as usize] = COMMA;
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// How a scan of part of the array ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// At the `]` that closes the array, at this offset.
    Closed(usize),
    /// At a comma between elements at or after the scan's limit, at this
    /// offset.
    Comma(usize),
    /// The bytes are not an array's elements as far as the scan can tell
    /// (an unbalanced bracket, or the end came first).
    Broken,
}

/// The commas between the elements in `region[from..]`, scanning from a
/// point between elements (the array's start, or just after a comma
/// between elements), up to the first such comma at or after `limit` or
/// the array's closing `]`.
pub(crate) fn scan(region: &[u8], from: usize, limit: usize, commas: &mut Vec<usize>) -> End {
    let n = region.len();
    let mut depth = 0usize;
    let mut i = from;
    while i < n {
        let b = region[i];
        match CLASS[b as usize] {
            OTHER => i += 1,
            QUOTE => match string_end(region, i + 1) {
                Some(end) => i = end,
                None => return End::Broken,
            },
            OPEN => {
                depth += 1;
                i += 1;
            }
            CLOSE => {
                if depth == 0 {
                    return if b == b']' {
                        End::Closed(i)
                    } else {
                        End::Broken
                    };
                }
                depth -= 1;
                i += 1;
            }
            _ => {
                if depth == 0 {
                    commas.push(i);
                    if i >= limit {
                        return End::Comma(i);
                    }
                }
                i += 1;
            }
        }
    }
    End::Broken
}

/// Just past the `"` that ends the string whose text starts at `i`.
#[inline(always)]
fn string_end(buf: &[u8], mut i: usize) -> Option<usize> {
    loop {
        // Eight bytes at a time: the lowest flagged byte of Mycroft's
        // zero-byte test is always a true hit.
        while i + 8 <= buf.len() {
            let w = u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
            let q = w ^ (ONES * u64::from(b'"'));
            let s = w ^ (ONES * u64::from(b'\\'));
            let hits = ((q.wrapping_sub(ONES) & !q) | (s.wrapping_sub(ONES) & !s)) & HIGHS;
            if hits != 0 {
                break;
            }
            i += 8;
        }
        let j = i + memchr::memchr2(b'"', b'\\', buf.get(i..)?)?;
        if buf[j] == b'"' {
            return Some(j + 1);
        }
        // An escape: the next byte is never the string's end.
        i = j + 2;
    }
}

/// A point near `from` where a scan can start as if between two rows: a
/// comma with `}` before it and `{` after it (whitespace aside), searched
/// for in the next `window` bytes. It may be a comma inside a string or a
/// nested value: the scan of the part before proves or disproves it.
pub(crate) fn guess_comma(region: &[u8], from: usize, window: usize) -> Option<usize> {
    let end = region.len().min(from.saturating_add(window));
    let mut at = from;
    while at < end {
        let c = at + memchr::memchr(b',', &region[at..end])?;
        let before = region[..c].iter().rev().find(|b| !is_ws(**b));
        let after = region[c + 1..].iter().find(|b| !is_ws(**b));
        if before == Some(&b'}') && after == Some(&b'{') {
            return Some(c);
        }
        at = c + 1;
    }
    None
}

/// JSON's whitespace.
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commas(region: &str) -> (Vec<usize>, End) {
        let mut c = Vec::new();
        let end = scan(region.as_bytes(), 0, usize::MAX, &mut c);
        (c, end)
    }

    #[test]
    fn commas_between_elements_only() {
        let r = r#"{"a":"x,]}\"\\","b":[1,{"c":2}]} , {"d":"\u005d"}] tail"#;
        let (c, end) = commas(r);
        assert_eq!(c, [r.find(" , ").unwrap() + 1]);
        assert_eq!(end, End::Closed(r.find("] tail").unwrap()));
        assert_eq!(commas(" ]"), (vec![], End::Closed(1)));
        assert_eq!(commas(r#"{"a":1}}"#).1, End::Broken);
        assert_eq!(commas(r#"{"a":"1}]"#).1, End::Broken);
        assert_eq!(commas(r#"{"a":1"#).1, End::Broken);
    }

    #[test]
    fn a_scan_stops_at_the_first_comma_past_its_limit() {
        let r = br#"{},{},{"x":[1,2]},{}]"#;
        let mut c = Vec::new();
        assert_eq!(scan(r, 0, 4, &mut c), End::Comma(5));
        assert_eq!(c, [2, 5]);
        let mut c = Vec::new();
        assert_eq!(scan(r, 6, 7, &mut c), End::Comma(17));
    }

    #[test]
    fn strings_end_at_their_unescaped_quote() {
        for (s, end) in [
            (&br#"abc" x"#[..], Some(4)),
            (br#"abcdefghijklmnop\"q" x"#, Some(20)),
            (br#"\\" x"#, Some(3)),
            (br#"abcdefgh\"#, None),
            (b"abcdefghijkl", None),
        ] {
            assert_eq!(string_end(s, 0), end, "{}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn guessed_commas_look_like_row_boundaries() {
        let r = br#"{"a":"},{"} , {"b":1}]"#;
        assert_eq!(guess_comma(r, 0, 100), Some(7), "inside a string: a guess");
        assert_eq!(guess_comma(r, 8, 100), Some(12));
        assert_eq!(guess_comma(r, 13, 100), None);
        assert_eq!(guess_comma(r, 8, 3), None);
    }
}
