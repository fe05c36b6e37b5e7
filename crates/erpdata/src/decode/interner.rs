//! Numbering the distinct strings of a column (see [`Interner`]).

use super::columns::{Bitmap, Texts};

/// Distinct strings of a column, numbered in first-seen order: an
/// open-addressing table whose slots hold each string's first and last
/// eight bytes, length and number, hashed by a few word loads (the values
/// are the service's own data, hashed only to count and number them).
/// What dictionary-encodes a string column, for Arrow here and for a
/// binding's own columns (a std `HashMap` spends twice the time in
/// SipHash).
#[derive(Debug)]
pub struct Interner<'a> {
    /// The table; a free slot's number is 0 (see [`Slot`]).
    slots: Vec<Slot>,
    /// A hash's slot is its top `64 - shift` bits, the base-2 logarithm
    /// of the number of slots (see [`hash`]).
    shift: u32,
    /// Per number, its string and hash (to move it when the table grows).
    keys: Vec<Key<'a>>,
}

/// A distinct string as the table holds it. The ends and the length are
/// all of a string of at most 16 bytes (see [`ends`]): such a string is
/// found from its slot alone, without reading its bytes again or its
/// [`Key`], which is what an ERP's repeated text (currencies, customer
/// codes and names, statuses) mostly is.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    head: u64,
    tail: u64,
    /// The length, at most `u32::MAX` (see [`Slot::len`]).
    len: u32,
    /// The string's number plus one; 0 for a free slot.
    id: u32,
}

impl Slot {
    /// A length as a slot keeps it: a longer string's bytes are compared
    /// as well, so only a short string needs its length exact.
    #[inline]
    fn len(len: usize) -> u32 {
        len.min(u32::MAX as usize) as u32
    }

    #[inline]
    fn holds(&self, head: u64, tail: u64, len: usize) -> bool {
        self.head == head && self.tail == tail && self.len == Slot::len(len)
    }
}

/// A distinct string and its hash.
#[derive(Debug, Clone, Copy)]
struct Key<'a> {
    hash: u64,
    value: &'a [u8],
}

/// Slots of a new [`Interner`] (a power of two). A handful of distinct
/// values then rarely share a slot: 256 instead of 64 took a quarter off
/// numbering a column of a dozen customer codes, a sixth off their names.
const INITIAL_SLOTS: usize = 256;

/// The 8 bytes of `s` from `i` as a word.
#[inline]
fn word(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"))
}

/// The first and the last few bytes of `s` as two words, which with its
/// length tell apart any two strings of at most 16 bytes: their windows
/// overlap and cover the whole string.
#[inline]
fn ends(s: &[u8]) -> (u64, u64) {
    let n = s.len();
    let half = |i: usize| u64::from(u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes")));
    match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(s[0]) | u64::from(s[n / 2]) << 8 | u64::from(s[n - 1]) << 16,
            0,
        ),
        4..=7 => (half(0), half(n - 4)),
        _ => (word(s, 0), word(s, n - 8)),
    }
}

/// The hash of `s`, whose [`ends`] are `head` and `tail`.
#[inline]
fn hash(s: &[u8], head: u64, tail: u64) -> u64 {
    let n = s.len();
    let mut a = head;
    let mut i = 8;
    while i + 8 < n {
        a = (a ^ word(s, i))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(31);
        i += 8;
    }
    // The slot is taken from the top bits of this product, which every
    // bit of its operand reaches. Its low bits would depend on the
    // operand's low bits alone: keys that differ only in a few digits
    // (INV-2025-00017, SO/2025/000412) fell into long runs of neighbouring
    // slots, 5 to 40 probes a lookup instead of 1.5.
    (a.wrapping_mul(0x51_7C_C1_B7_27_22_0A_95) ^ tail.rotate_left(29) ^ n as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
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
            slots: vec![Slot::default(); INITIAL_SLOTS],
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
            keys: Vec::new(),
        }
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// The number of `s`, new or not.
    ///
    /// A string in its home slot, most of them, is found here; the rest
    /// (a probe past other strings, a new string) out of line, which keeps
    /// this small enough to inline into a caller's loop (a call, its
    /// registers saved and restored, was a third of a lookup's
    /// instructions).
    #[inline]
    pub fn intern(&mut self, s: &'a [u8]) -> u32 {
        let (head, tail) = ends(s);
        let h = hash(s, head, tail);
        let i = self.home(h);
        let slot = self.slots[i];
        if slot.id != 0 && slot.holds(head, tail, s.len()) && self.same(slot.id, s) {
            return slot.id - 1;
        }
        self.intern_probing(s, head, tail, h, i)
    }

    /// Whether the string numbered `id - 1`, whose ends and length are
    /// those of `s`, is `s`: longer strings have bytes between their ends.
    #[inline]
    fn same(&self, id: u32, s: &[u8]) -> bool {
        s.len() <= 16 || self.keys[id as usize - 1].value == s
    }

    /// [`Interner::intern`] past the home slot `i`, or a new string.
    #[inline(never)]
    fn intern_probing(&mut self, s: &'a [u8], head: u64, tail: u64, h: u64, mut i: usize) -> u32 {
        let mask = self.slots.len() - 1;
        loop {
            let slot = self.slots[i];
            if slot.id == 0 {
                break;
            }
            if slot.holds(head, tail, s.len()) && self.same(slot.id, s) {
                return slot.id - 1;
            }
            i = (i + 1) & mask;
        }
        let id = self.keys.len() as u32;
        self.keys.push(Key { hash: h, value: s });
        self.slots[i] = Slot {
            head,
            tail,
            len: Slot::len(s.len()),
            id: id + 1,
        };
        if self.keys.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        self.shift -= 1;
        for slot in self.slots.iter().filter(|slot| slot.id != 0) {
            let mut i = self.home(self.keys[slot.id as usize - 1].hash);
            while slots[i].id != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *slot;
        }
        self.slots = slots;
    }

    /// Distinct strings so far.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no string was interned yet.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distinct strings, in the order of their numbers.
    pub fn values(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.keys.iter().map(|key| key.value)
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
    /// `n` non-null values may have at most, never fewer for a larger `n`
    /// (it is asked only when a value is new: until the next new one, the
    /// distinct values stay as many and the budget does not shrink).
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
        let known = self.distinct.len();
        let id = self.distinct.intern(value) as usize;
        // Fewer distinct values than values, whose offsets are i32.
        self.keys.push(id as i32);
        id < known || self.distinct.len() <= (self.budget)(self.counted)
    }

    /// Numbers each value of a string column (`validity`: which rows have
    /// one), as [`Numbering::push`] one by one; `false` as soon as that
    /// would be.
    ///
    /// Out of line, not inlined into a caller's: inlined into a column's
    /// conversion to Arrow, where registers are short, the loop kept more
    /// of its state on the stack (converting the sandbox's invoices
    /// to Arrow took 290 instructions a row that way, 280 this way).
    #[inline(never)]
    pub fn push_texts(&mut self, values: &'a Texts, validity: Option<&Bitmap>) -> bool {
        self.keys.reserve(values.len());
        values.each_value(validity, |value| self.push(value))
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
    use crate::decode::test_random::Xorshift;

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

    #[test]
    fn strings_that_differ_in_one_byte_anywhere_stay_apart() {
        // Of at most 16 bytes, a string is told apart by its ends and
        // length alone; longer ones by their bytes too.
        let mut keys = Vec::new();
        for n in 0..40 {
            keys.push(vec![b'a'; n]);
            for at in 0..n {
                let mut key = vec![b'a'; n];
                key[at] = b'b';
                keys.push(key);
            }
        }
        let mut interner = Interner::new();
        for (id, key) in keys.iter().enumerate() {
            assert_eq!(interner.intern(key), id as u32, "{key:?}");
        }
        for (id, key) in keys.iter().enumerate().rev() {
            assert_eq!(interner.intern(key), id as u32, "{key:?}");
        }
        assert_eq!(interner.values().collect::<Vec<_>>(), keys);
    }

    /// Average probes to find each value: one for a value in its home
    /// slot, one more for each slot it had to move past.
    fn mean_probes(interner: &Interner<'_>) -> f64 {
        let mask = interner.slots.len() - 1;
        let mut total = 0;
        for (at, slot) in interner.slots.iter().enumerate() {
            if slot.id != 0 {
                let home = interner.home(interner.keys[slot.id as usize - 1].hash);
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

    #[test]
    fn a_column_is_numbered_as_its_values_one_by_one() {
        // Values of a few lengths around the 16 bytes a slot tells apart,
        // some repeated, some null; budgets that hold, and one that stops
        // the numbering partway.
        let mut texts = Texts::new();
        let mut validity = Bitmap::new();
        let mut rng = Xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..5_000 {
            let x = rng.next_u64();
            let value = match x % 5 {
                0 => String::new(),
                1 => format!("C{:04}", x % 300),
                2 => format!("Customer {:09} GmbH", x % 200),
                3 => ["EUR", "USD", "CHF"][(x % 3) as usize].to_owned(),
                _ => format!("{:016}", x % 100),
            };
            texts.push(&value);
            validity.push(!x.is_multiple_of(7));
        }
        let budgets: [fn(usize) -> usize; 3] = [|n| n, |n| n.min(500) / 2, |_| 40];
        for budget in budgets {
            for validity in [None, Some(&validity)] {
                let mut one_by_one = Numbering::new(texts.len(), budget);
                let whole = texts.each_value(validity, |v| one_by_one.push(v));
                let mut column = Numbering::new(texts.len(), budget);
                assert_eq!(column.push_texts(&texts, validity), whole);
                let (a, a_keys) = one_by_one.finish();
                let (b, b_keys) = column.finish();
                assert_eq!(a_keys, b_keys);
                assert_eq!(
                    a.values().collect::<Vec<_>>(),
                    b.values().collect::<Vec<_>>()
                );
            }
        }
    }
}
