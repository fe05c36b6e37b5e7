//! A column's key as rows write it (`"name":`), and the compare that tells
//! whether the bytes at a place are that key.

use std::sync::Arc;

/// `"name":` when the name can only be written one way in JSON (no
/// character that needs escaping): a key followed by these bytes is this
/// column, and one compare stands for the key's scan, its closing quote
/// and the colon. Empty otherwise (never found).
#[derive(Debug, Clone, Default)]
pub(super) struct KeyText {
    text: Arc<[u8]>,
    /// A text of up to 16 bytes as one little-endian word, and the mask of
    /// its bytes: the compare is then one 16-byte load, an `and` and a
    /// compare, whatever the length (rather than a branch on the length
    /// and two loads of the text, then of the bytes).
    word: u128,
    mask: u128,
    /// Whether the text has 1 to 16 bytes (`word` and `mask` hold it).
    short: bool,
}

impl KeyText {
    pub(super) fn new(name: &str) -> Self {
        if !name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            return KeyText::default();
        }
        let text: Arc<[u8]> = [b"\"", name.as_bytes(), b"\":"].concat().into();
        let n = text.len();
        let short = n <= 16;
        let (mut word, mut mask) = (0, 0);
        if short {
            let mut bytes = [0; 16];
            bytes[..n].copy_from_slice(&text);
            word = u128::from_le_bytes(bytes);
            mask = u128::MAX >> (8 * (16 - n));
        }
        KeyText {
            text,
            word,
            mask,
            short,
        }
    }

    /// The text (empty for a name written in more than one way).
    pub(super) fn bytes(&self) -> &[u8] {
        &self.text
    }

    /// Whether `buf[p..]` begins with the text (never, for an empty one).
    /// `p <= buf.len()`.
    #[inline(always)]
    pub(super) fn is_at(&self, buf: &[u8], p: usize) -> bool {
        let rest = &buf[p..];
        if let (true, Some(head)) = (self.short, rest.first_chunk::<16>()) {
            return u128::from_le_bytes(*head) & self.mask == self.word;
        }
        // A longer text, or one near the end of the chunk.
        !self.text.is_empty() && rest.starts_with(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word compare and the plain one agree, for every length of name
    /// and wherever the chunk ends.
    #[test]
    fn a_key_is_found_as_a_byte_compare_finds_it() {
        for n in 0..20 {
            let name: String = "abcdefghijklmnopqrstuvwxyz"[..n].into();
            let key = KeyText::new(&name);
            assert_eq!(key.bytes(), format!("\"{name}\":").as_bytes());
            let other = KeyText::new(&format!("{name}x"));
            for tail in ["", " 1", "\"v\",\"next\":2,\"more\":3"] {
                let row = format!("{{\"{name}\":{tail}");
                for end in 1..=row.len() {
                    let buf = &row.as_bytes()[..end];
                    let expected = buf[1..].starts_with(key.bytes());
                    assert_eq!(key.is_at(buf, 1), expected, "{name:?} in {buf:?}");
                    assert!(!other.is_at(buf, 1), "{name:?}x in {buf:?}");
                    assert!(!key.is_at(buf, 0));
                }
            }
        }
        // A change to any one byte of the key is seen.
        let key = KeyText::new("due_date");
        let row = b"\"due_date\":\"2025-01-31\",\"x\":1";
        for i in 0..key.bytes().len() {
            let mut buf = row.to_vec();
            buf[i] ^= 0x01;
            assert!(!key.is_at(&buf, 0), "byte {i}");
        }
        assert!(key.is_at(row, 0));
        for name in ["a\"b", "a\\b", "tab\there"] {
            let key = KeyText::new(name);
            assert!(key.bytes().is_empty());
            assert!(!key.is_at(b"\"\":1234567890123456789", 0));
        }
    }
}
