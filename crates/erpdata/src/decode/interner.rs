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
    /// A hash's slot is its top `64 - shift` bits, the base-2 logarithm
    /// of the number of slots (see [`Interner::hash`]).
    shift: u32,
    hashes: Vec<u64>,
    entries: Vec<&'a [u8]>,
    /// The last string and its number: a column's values come in runs
    /// (one currency, the rows of one customer).
    last: Option<(&'a [u8], u32)>,
}

/// Slots of a new [`Interner`] (a power of two).
const INITIAL_SLOTS: usize = 64;

impl Default for Interner<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Interner<'a> {
    /// An empty interner.
    pub fn new() -> Self {
        Interner {
            slots: vec![0; INITIAL_SLOTS],
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
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
        // The slot is taken from the top bits of this product, which
        // every bit of its operand reaches. Its low bits would depend on the
        // operand's low bits alone: keys that differ only in a few digits
        // (INV-2025-00017, SO/2025/000412) fell into long runs of
        // neighbouring slots, 5 to 40 probes a lookup instead of 1.5.
        (a.wrapping_mul(0x51_7C_C1_B7_27_22_0A_95) ^ b.rotate_left(29) ^ n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize
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
        let mut i = self.home(h);
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
        self.shift -= 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut i = self.home(h);
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

/// A column's values numbered as they come, for a dictionary, while it
/// pays: each value's key (its number among the distinct values in
/// first-seen order; 0 for a null), for as long as the distinct values stay
/// within what `budget` allows the non-null values seen so far. The Arrow
/// dictionaries of the core and a binding's own number values through it,
/// each with its own rule of what pays.
#[derive(Debug)]
pub struct Numbering<'a, B> {
    distinct: Interner<'a>,
    keys: Vec<i32>,
    counted: usize,
    budget: B,
}

impl<'a, B: Fn(usize) -> usize> Numbering<'a, B> {
    /// Room for `capacity` values; `budget(n)`: how many distinct values
    /// `n` non-null values may have at most.
    pub fn new(capacity: usize, budget: B) -> Self {
        Numbering {
            distinct: Interner::new(),
            keys: Vec::with_capacity(capacity),
            counted: 0,
            budget,
        }
    }

    /// Numbers the next value (`None`: a null); `false` once the distinct
    /// values are more than the budget allows, when the numbering is of no
    /// further use.
    #[inline]
    pub fn push(&mut self, value: Option<&'a [u8]>) -> bool {
        let Some(value) = value else {
            self.keys.push(0);
            return true;
        };
        self.counted += 1;
        // Fewer distinct values than values, whose offsets are i32.
        self.keys.push(self.distinct.intern(value) as i32);
        self.distinct.len() <= (self.budget)(self.counted)
    }

    /// The distinct values (in the order of their numbers), and each
    /// value's key.
    pub fn finish(self) -> (Interner<'a>, Vec<i32>) {
        (self.distinct, self.keys)
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

    /// Average probes to find each value: one for a value in its home
    /// slot, one more for each slot it had to move past.
    fn mean_probes(interner: &Interner<'_>) -> f64 {
        let mask = interner.slots.len() - 1;
        let mut total = 0;
        for (at, &slot) in interner.slots.iter().enumerate() {
            if slot != 0 {
                let home = interner.home(interner.hashes[slot as usize - 1]);
                total += (at.wrapping_sub(home) & mask) + 1;
            }
        }
        total as f64 / interner.len() as f64
    }

    #[test]
    fn keys_that_differ_in_a_few_digits_spread_over_the_slots() {
        // Document numbers, customer codes, amounts: what an ERP's text
        // columns repeat. Half the slots are in use at most, where a
        // hash that spreads keys evenly needs 1.5 probes a key.
        type Key = fn(usize) -> String;
        let shapes: [(&str, Key); 6] = [
            ("INV-2025-00001", |i| format!("INV-2025-{i:05}")),
            ("SO/2025/000001", |i| format!("SO/2025/{i:06}")),
            ("C0001", |i| format!("C{i:04}")),
            ("1", |i| i.to_string()),
            ("00.01", |i| format!("{:02}.{:02}", i / 100, i % 100)),
            ("cust-000001@example.com", |i| {
                format!("cust-{i:06}@example.com")
            }),
        ];
        for (shape, key) in shapes {
            let keys: Vec<String> = (0..40_000).map(key).collect();
            let mut interner = Interner::new();
            for k in &keys {
                interner.intern(k.as_bytes());
            }
            assert_eq!(interner.len(), keys.len(), "{shape}");
            for (id, k) in keys.iter().enumerate().rev() {
                assert_eq!(interner.intern(k.as_bytes()), id as u32, "{shape}: {k}");
            }
            let probes = mean_probes(&interner);
            assert!(probes < 2.0, "{shape}: {probes:.2} probes a key");
        }
    }

    #[test]
    fn numbering_keys_each_value_while_the_budget_holds() {
        use crate::decode::columns::{Bitmap, Texts};
        let mut texts = Texts::new();
        let mut validity = Bitmap::new();
        for (value, valid) in [
            ("b", true),
            ("", false),
            ("a", true),
            ("b", true),
            ("c", true),
        ] {
            texts.push(value);
            validity.push(valid);
        }
        // As many distinct values as values: every one fits.
        let mut numbering = Numbering::new(texts.len(), |counted| counted);
        assert!(texts.each_value(Some(&validity), |v| numbering.push(v)));
        let (distinct, keys) = numbering.finish();
        assert_eq!(keys, [0, 0, 1, 0, 2], "a null's key is 0");
        let distinct: Vec<&[u8]> = distinct.values().collect();
        assert_eq!(distinct, [&b"b"[..], b"a", b"c"]);
        // Two distinct values at most: the walk stops at the third.
        let mut numbering = Numbering::new(texts.len(), |_| 2);
        let mut seen = 0;
        let whole = texts.each_value(None, |v| {
            seen += 1;
            numbering.push(v)
        });
        assert!(!whole);
        assert_eq!(seen, 3, "b, the empty string, then a");
    }
}
