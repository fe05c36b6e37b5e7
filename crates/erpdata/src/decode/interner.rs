//! Numbering the distinct strings of a column (see [`Interner`]).

use super::scanner::same_bytes;

/// Distinct strings of a column, numbered in first-seen order: an
/// open-addressing table of indices, hashed by a few word loads (the values
/// are the service's own data, hashed only to count and number them). What
/// dictionary-encodes a string column, for Arrow here and for a binding's
/// own columns (a std `HashMap` spends twice the time in SipHash).
#[derive(Debug)]
pub struct Interner<'a> {
    slots: Vec<u32>,
    hashes: Vec<u64>,
    entries: Vec<&'a [u8]>,
    /// The last string and its number: a column's values come in runs
    /// (one currency, the rows of one customer).
    last: Option<(&'a [u8], u32)>,
}

impl Default for Interner<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Interner<'a> {
    /// An empty interner.
    pub fn new() -> Self {
        Interner {
            slots: vec![0; 64],
            hashes: Vec::new(),
            entries: Vec::new(),
            last: None,
        }
    }

    #[inline]
    fn hash(s: &[u8]) -> u64 {
        let n = s.len();
        let word = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
        let (mut a, b) = match n {
            0 => (0, 0),
            1..=3 => (
                u64::from(s[0]) | u64::from(s[n / 2]) << 8 | u64::from(s[n - 1]) << 16,
                0,
            ),
            4..=7 => (
                u64::from(u32::from_le_bytes(s[..4].try_into().expect("4 bytes"))),
                u64::from(u32::from_le_bytes(s[n - 4..].try_into().expect("4 bytes"))),
            ),
            _ => (word(0), word(n - 8)),
        };
        let mut i = 8;
        while i + 8 < n {
            a = (a ^ word(i))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(31);
            i += 8;
        }
        let h = (a.wrapping_mul(0x51_7C_C1_B7_27_22_0A_95) ^ b.rotate_left(29) ^ n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 29)
    }

    /// The number of `s`, new or not.
    #[inline]
    pub fn intern(&mut self, s: &'a [u8]) -> u32 {
        if let Some((last, id)) = self.last {
            if same_bytes(last, s) {
                return id;
            }
        }
        let id = self.find_or_add(s);
        self.last = Some((s, id));
        id
    }

    #[inline]
    fn find_or_add(&mut self, s: &'a [u8]) -> u32 {
        let h = Self::hash(s);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            match self.slots[i] {
                0 => break,
                slot => {
                    let id = (slot - 1) as usize;
                    if self.hashes[id] == h && same_bytes(self.entries[id], s) {
                        return id as u32;
                    }
                }
            }
            i = (i + 1) & mask;
        }
        let id = self.entries.len() as u32;
        self.entries.push(s);
        self.hashes.push(h);
        self.slots[i] = id + 1;
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let mut slots = vec![0u32; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut i = h as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = id as u32 + 1;
        }
        self.slots = slots;
    }

    /// Distinct strings so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no string was interned yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The distinct strings, in the order of their numbers.
    pub fn values(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.entries.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_numbers_in_first_seen_order() {
        let words: Vec<String> = (0..5000).map(|i| format!("w{}", i % 777)).collect();
        let mut interner = Interner::new();
        for (i, w) in words.iter().enumerate() {
            let id = interner.intern(w.as_bytes());
            assert_eq!(id as usize, i % 777);
        }
        assert_eq!(interner.len(), 777);
        for s in [
            "",
            "a",
            "ab",
            "abcd",
            "abcdefgh",
            "abcdefghijklmnopqrstuvwxyz",
        ] {
            let before = interner.len() as u32;
            assert_eq!(interner.intern(s.as_bytes()), before);
            assert_eq!(interner.intern(s.as_bytes()), before);
        }
    }
}
