//! Typed columns: the values of one key over the rows of a [`Batch`].
//!
//! The layouts are Arrow's, so that converting to Arrow moves buffers
//! rather than copying values: values in a `Vec`, a validity bitmap
//! (`None` when every row has a value), strings as `i32` offsets into one
//! UTF-8 buffer.
//!
//! [`Batch`]: super::Batch

use std::fmt::Write;

use super::{date, decimal, timestamp};
use crate::cell::{json_string, Cell};

/// The value under a null row of a Date column that was MySQL's zero date
/// (`0000-00-00`): null as a date, but its text kept for a string column.
pub const ZERO_DATE_MARK: i32 = i32::MIN;
/// The value under a null row of a Timestamp column that was MySQL's zero
/// datetime (`0000-00-00 00:00:00`).
pub const ZERO_TIMESTAMP_MARK: i64 = i64::MIN;

/// How many digits each row of a Decimal or Timestamp column was sent
/// with after the point.
// `repr(u8)`: the variant in a byte of its own, which `push` reads in one
// load for every value (left to the compiler, it is folded into the
// `Vec`'s capacity and decoded first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Digits {
    /// As the column prints it: the Decimal's scale, or a Timestamp's
    /// canonical form (none for whole seconds, else six).
    #[default]
    Column,
    /// Every row the same number.
    Same(u8),
    /// One number per row (0 for a row without a value).
    PerRow(Vec<u8>),
}

impl Digits {
    /// Row `i`'s digits, `None` for [`Digits::Column`].
    pub fn get(&self, i: usize) -> Option<u8> {
        match self {
            Digits::Column => None,
            Digits::Same(d) => Some(*d),
            Digits::PerRow(v) => v.get(i).copied(),
        }
    }

    /// Records row `row`'s digits (`row` rows came before it).
    #[inline(always)]
    pub(crate) fn push(&mut self, row: usize, d: u8) {
        if !matches!(self, Digits::Same(x) if *x == d) {
            self.push_other(row, d);
        }
    }

    #[inline(never)]
    fn push_other(&mut self, row: usize, d: u8) {
        match self {
            Digits::Column => *self = Digits::Same(d),
            Digits::Same(x) => {
                let mut v = vec![*x; row];
                v.push(d);
                *self = Digits::PerRow(v);
            }
            Digits::PerRow(v) => {
                v.resize(row, 0);
                v.push(d);
            }
        }
    }

    pub(crate) fn pop(&mut self, row: usize) {
        if let Digits::PerRow(v) = self {
            v.truncate(row);
        }
    }
}

/// What a typed column keeps so that each value's text as sent can be
/// given back, should the column become a string column (a later value
/// or batch that is not of its type): the digits each decimal or
/// timestamp was written with, and the rows written in a form the value
/// does not give back (`1e3`, `-0`). Zero dates are marked in the values
/// ([`ZERO_DATE_MARK`], [`ZERO_TIMESTAMP_MARK`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sent {
    /// Digits after the point, per row.
    pub digits: Digits,
    /// `(row, text)` of values sent in another form than the value prints.
    pub odd: Vec<(u32, Box<str>)>,
}

impl Sent {
    fn odd_text(&self, i: usize) -> Option<&str> {
        if self.odd.is_empty() {
            return None;
        }
        let i = u32::try_from(i).ok()?;
        self.odd
            .binary_search_by_key(&i, |(r, _)| *r)
            .ok()
            .map(|k| &*self.odd[k].1)
    }
}

/// One bit per row, least significant bit first (Arrow's layout).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
}

impl Bitmap {
    /// An empty bitmap.
    pub fn new() -> Self {
        Bitmap::default()
    }

    /// `len` bits, all `value`.
    pub fn filled(len: usize, value: bool) -> Self {
        let mut bytes = vec![if value { 0xFF } else { 0 }; len.div_ceil(8)];
        if value && !len.is_multiple_of(8) {
            // Bits past the end stay clear, as Arrow expects.
            if let Some(last) = bytes.last_mut() {
                *last = (1u8 << (len % 8)) - 1;
            }
        }
        Bitmap { bytes, len }
    }

    /// Room for `bits` bits without reallocating.
    pub fn with_capacity(bits: usize) -> Self {
        Bitmap {
            bytes: Vec::with_capacity(bits.div_ceil(8)),
            len: 0,
        }
    }

    /// Appends one bit.
    #[inline]
    pub fn push(&mut self, value: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if value {
            self.bytes[self.len / 8] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Removes the last bit.
    pub(crate) fn pop(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        self.bytes[self.len / 8] &= !(1 << (self.len % 8));
        if self.len.is_multiple_of(8) {
            self.bytes.pop();
        }
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} of {}", self.len);
        self.bytes[i / 8] & (1 << (i % 8)) != 0
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many bits are set.
    pub fn count_set(&self) -> usize {
        self.bytes.iter().map(|b| b.count_ones() as usize).sum()
    }

    /// The packed bytes (`len().div_ceil(8)` of them; unused bits clear).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The packed bytes, moved out.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Variable-length UTF-8 values: Arrow's `Utf8` layout, `len() + 1`
/// offsets into one buffer, value `i` being `data[offsets[i]..offsets[i+1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texts {
    offsets: Vec<i32>,
    data: String,
}

impl Default for Texts {
    fn default() -> Self {
        Texts::new()
    }
}

impl Texts {
    /// No values.
    pub fn new() -> Self {
        Texts {
            offsets: vec![0],
            data: String::new(),
        }
    }

    /// Room for `values` values of `bytes` bytes in all.
    pub fn with_capacity(values: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(values + 1);
        offsets.push(0);
        Texts {
            offsets,
            data: String::with_capacity(bytes),
        }
    }

    /// Appends a value.
    ///
    /// # Panics
    /// If the buffer would exceed `i32::MAX` bytes (the decoder ends a batch
    /// long before that).
    #[inline(always)]
    pub fn push(&mut self, value: &str) {
        let bytes = value.as_bytes();
        if bytes.len() <= 16 {
            push_short(&mut self.data, bytes);
        } else {
            self.data.push_str(value);
        }
        let end = i32::try_from(self.data.len()).expect("text buffer under 2 GiB");
        self.offsets.push(end);
    }

    fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.data);
        let end = i32::try_from(self.data.len()).expect("text buffer under 2 GiB");
        self.offsets.push(end);
    }

    pub(crate) fn pop(&mut self) {
        if self.offsets.len() > 1 {
            self.offsets.pop();
            let end = *self.offsets.last().expect("offset 0 stays") as usize;
            self.data.truncate(end);
        }
    }

    /// Value `i`.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit` with each value's bytes in order (`None` where
    /// `validity` says the row has none) while it returns `true`; whether
    /// it went to the end. The bytes between offsets, which are whole
    /// values already: [`Texts::get`] would check each for character
    /// boundaries.
    #[inline]
    pub fn each_value<'a>(
        &'a self,
        validity: Option<&Bitmap>,
        mut visit: impl FnMut(Option<&'a [u8]>) -> bool,
    ) -> bool {
        let data = self.data.as_bytes();
        for (i, ends) in self.offsets.windows(2).enumerate() {
            let valid = validity.is_none_or(|v| v.get(i));
            let value = valid.then(|| &data[ends[0] as usize..ends[1] as usize]);
            if !visit(value) {
                return false;
            }
        }
        true
    }

    /// The `len() + 1` offsets.
    pub fn offsets(&self) -> &[i32] {
        &self.offsets
    }

    /// All values, back to back.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// Offsets and data, moved out.
    pub fn into_parts(self) -> (Vec<i32>, String) {
        (self.offsets, self.data)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.data.len()
    }
}

/// Appends at most 16 bytes of a `str` to `data` with two overlapping word
/// copies instead of a call to `memcpy`: most cells are that short.
#[inline(always)]
fn push_short(data: &mut String, bytes: &[u8]) {
    let n = bytes.len();
    data.reserve(16);
    // SAFETY: `bytes` is a whole `&str` (see `Texts::push`), so the String
    // stays UTF-8. The writes cover exactly `len..len + n`, within the 16
    // bytes reserved, and read only within `bytes`; `set_len` then
    // includes exactly the bytes written.
    unsafe {
        let v = data.as_mut_vec();
        let len = v.len();
        let dst = v.as_mut_ptr().add(len);
        let src = bytes.as_ptr();
        if n >= 8 {
            let a = src.cast::<u64>().read_unaligned();
            let b = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for i in 0..n {
                *dst.add(i) = *src.add(i);
            }
        }
        v.set_len(len + n);
    }
}

/// The values of a column. `validity` is `None` when every row has a value;
/// otherwise bit `i` says whether row `i` has one (a row without the key,
/// or with `null`, has none), and the value stored for a row without one is
/// a placeholder (`0`, `false`, `""`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnData {
    /// Every row is null (or lacks the key).
    Null {
        /// The number of rows.
        len: usize,
    },
    /// `true` / `false`.
    Bool {
        /// One bit per row.
        values: Bitmap,
        /// Which rows have a value.
        validity: Option<Bitmap>,
    },
    /// Integers that fit in `i64`, written without a fraction or exponent.
    Int {
        /// One value per row.
        values: Vec<i64>,
        /// Which rows have a value.
        validity: Option<Bitmap>,
    },
    /// Exact decimals: row `i` is `values[i] × 10^-scale`.
    Decimal {
        /// The unscaled values, at most `precision` digits each.
        values: Vec<i128>,
        /// Total digits (1–38): 38 unless declared (see
        /// [`ColumnType::Decimal`]).
        precision: u8,
        /// Digits after the point (0–38, at most `precision`).
        scale: u8,
        /// Which rows have a value.
        validity: Option<Bitmap>,
        /// The text each value was sent as.
        sent: Sent,
    },
    /// Calendar dates sent as `YYYY-MM-DD`, as days since 1970-01-01. A
    /// null row holding [`ZERO_DATE_MARK`] was MySQL's zero date.
    Date {
        /// One value per row.
        values: Vec<i32>,
        /// Which rows have a value.
        validity: Option<Bitmap>,
    },
    /// Date and time of day sent as `YYYY-MM-DD HH:MM:SS[.ffffff]`, as
    /// microseconds since 1970-01-01 00:00:00, no time zone. A null row
    /// holding [`ZERO_TIMESTAMP_MARK`] was MySQL's zero datetime.
    Timestamp {
        /// One value per row.
        values: Vec<i64>,
        /// Which rows have a value.
        validity: Option<Bitmap>,
        /// The digits of the fraction each value was sent with.
        sent: Sent,
    },
    /// Strings, decoded.
    String {
        /// One value per row.
        values: Texts,
        /// Which rows have a value.
        validity: Option<Bitmap>,
    },
    /// Each value as JSON text: nested objects and arrays, and every value
    /// of a column whose values have different types.
    Json {
        /// One JSON text per row.
        values: Texts,
        /// Which rows have a value.
        validity: Option<Bitmap>,
    },
}

/// The type of a column, without its values.
///
/// Types of the same key can differ between batches (each batch is typed
/// from its own values); [`ColumnType::unify`] gives one type that holds
/// both, and [`Column::cast`] converts a column to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// All null.
    Null,
    /// Booleans.
    Bool,
    /// 64-bit integers.
    Int,
    /// Exact decimals.
    Decimal {
        /// Total digits (1–38): 38 for a decimal its values decide (the
        /// largest scale seen decides the scale), whatever the values; a
        /// declared `decimal(P,S)` keeps `P`.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// Calendar dates.
    Date,
    /// Timestamps (microseconds, no time zone).
    Timestamp,
    /// Strings.
    String,
    /// JSON texts.
    Json,
}

impl ColumnType {
    /// The narrowest type of the documented rule that holds both types'
    /// values:
    ///
    /// | a | b | unified |
    /// |---|---|---|
    /// | T | T | T |
    /// | Null | T | T |
    /// | Int | Decimal(p, s) | Decimal(38, s) |
    /// | Decimal(p₁, s₁) | Decimal(p₂, s₂) | Decimal(38, max(s₁, s₂)) |
    /// | Json | anything | Json |
    /// | any other two | | String |
    ///
    /// A decimal the values decide has precision 38 whatever its values,
    /// so the type of a column does not depend on which rows came back;
    /// only a declared `decimal(P,S)` (or an Arrow type) has another. The
    /// rule is commutative and associative, so batches can be unified in
    /// any order.
    ///
    /// Numbers are unified by type: whether every value fits 38 digits at
    /// the unified scale depends on the values. A decoder's batches always
    /// do (a batch's column whose numbers, with those of the batches
    /// before it, would need more is String, as one batch of all the rows
    /// would be), so [`ColumnData::cast`] of a decoder's batch to their
    /// unified type is always `Some`; batches from elsewhere may not fit.
    pub fn unify(self, other: ColumnType) -> ColumnType {
        use ColumnType::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Null, t) | (t, Null) => t,
            (Json, _) | (_, Json) => Json,
            (Int, Decimal { scale, .. }) | (Decimal { scale, .. }, Int) => Decimal {
                precision: decimal::MAX_PRECISION,
                scale,
            },
            (Decimal { scale: s1, .. }, Decimal { scale: s2, .. }) => Decimal {
                precision: decimal::MAX_PRECISION,
                scale: s1.max(s2),
            },
            _ => String,
        }
    }

    /// The type's name as the bindings and vectors write it: `null`,
    /// `bool`, `int`, `decimal(P,S)`, `date`, `timestamp`, `string`, `json`.
    pub fn name(self) -> std::string::String {
        match self {
            ColumnType::Null => "null".into(),
            ColumnType::Bool => "bool".into(),
            ColumnType::Int => "int".into(),
            ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
            ColumnType::Date => "date".into(),
            ColumnType::Timestamp => "timestamp".into(),
            ColumnType::String => "string".into(),
            ColumnType::Json => "json".into(),
        }
    }
}

/// One column of a [`Batch`](super::Batch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The row key.
    pub name: String,
    /// Its values, one per row.
    pub data: ColumnData,
}

impl ColumnData {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::Null { len } => *len,
            ColumnData::Bool { values, .. } => values.len(),
            ColumnData::Int { values, .. } => values.len(),
            ColumnData::Decimal { values, .. } => values.len(),
            ColumnData::Date { values, .. } => values.len(),
            ColumnData::Timestamp { values, .. } => values.len(),
            ColumnData::String { values, .. } | ColumnData::Json { values, .. } => values.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column's type.
    pub fn column_type(&self) -> ColumnType {
        match self {
            ColumnData::Null { .. } => ColumnType::Null,
            ColumnData::Bool { .. } => ColumnType::Bool,
            ColumnData::Int { .. } => ColumnType::Int,
            ColumnData::Decimal {
                precision, scale, ..
            } => ColumnType::Decimal {
                precision: *precision,
                scale: *scale,
            },
            ColumnData::Date { .. } => ColumnType::Date,
            ColumnData::Timestamp { .. } => ColumnType::Timestamp,
            ColumnData::String { .. } => ColumnType::String,
            ColumnData::Json { .. } => ColumnType::Json,
        }
    }

    /// The validity bitmap (`None`: every row has a value; a Null column
    /// has none, and says so through [`ColumnData::is_valid`]).
    pub fn validity(&self) -> Option<&Bitmap> {
        match self {
            ColumnData::Null { .. } => None,
            ColumnData::Bool { validity, .. }
            | ColumnData::Int { validity, .. }
            | ColumnData::Decimal { validity, .. }
            | ColumnData::Date { validity, .. }
            | ColumnData::Timestamp { validity, .. }
            | ColumnData::String { validity, .. }
            | ColumnData::Json { validity, .. } => validity.as_ref(),
        }
    }

    /// Whether row `i` has a value.
    pub fn is_valid(&self, i: usize) -> bool {
        match self {
            ColumnData::Null { .. } => false,
            _ => self.validity().is_none_or(|v| v.get(i)),
        }
    }

    /// How many rows have no value.
    pub fn null_count(&self) -> usize {
        match self {
            ColumnData::Null { len } => *len,
            _ => self.validity().map_or(0, |v| v.len() - v.count_set()),
        }
    }

    /// Row `i` as a cell: a decimal as the text it was sent as (the same
    /// value as at the column's scale: `1.5` in a column of scale 2, `1e3`
    /// as sent), a date as `YYYY-MM-DD`, a timestamp as `YYYY-MM-DD HH:MM:SS` (with
    /// `.ffffff` unless it is whole seconds), a JSON text as the cell it
    /// denotes (a string, number, boolean, or nested [`Cell::Json`]); a
    /// row without a value (a zero date included) is [`Cell::Null`].
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn cell(&self, i: usize) -> Cell {
        assert!(i < self.len(), "row {i} of {}", self.len());
        if !self.is_valid(i) {
            return Cell::Null;
        }
        match self {
            ColumnData::Null { .. } => Cell::Null,
            ColumnData::Bool { values, .. } => Cell::Bool(values.get(i)),
            ColumnData::Int { values, .. } => Cell::Int(values[i]),
            ColumnData::Decimal { .. } => {
                let mut s = String::new();
                self.write_text(i, &mut s);
                Cell::Number(s)
            }
            ColumnData::Date { values, .. } => {
                let mut s = String::new();
                date::format(values[i], &mut s);
                Cell::String(s)
            }
            ColumnData::Timestamp { values, .. } => {
                let mut s = String::new();
                timestamp::canonical(values[i], &mut s);
                Cell::String(s)
            }
            ColumnData::String { values, .. } => Cell::String(values.get(i).to_owned()),
            ColumnData::Json { values, .. } => cell_of_json(values.get(i)),
        }
    }

    /// Writes row `i` as the text it was sent as (a JSON string's decoded
    /// text, a number's or literal's JSON text) and says whether it has
    /// one: a null row has none, except a zero date, which was sent as
    /// text. A Json column's values are their JSON text.
    pub fn write_text(&self, i: usize, out: &mut String) -> bool {
        let valid = self.is_valid(i);
        match self {
            ColumnData::Null { .. } => return false,
            ColumnData::Date { values, .. } if !valid && values[i] == ZERO_DATE_MARK => {
                out.push_str("0000-00-00");
                return true;
            }
            ColumnData::Timestamp { values, sent, .. }
                if !valid && values[i] == ZERO_TIMESTAMP_MARK =>
            {
                out.push_str("0000-00-00 00:00:00");
                let d = sent.digits.get(i).unwrap_or(0);
                if d > 0 {
                    out.push('.');
                    (0..d).for_each(|_| out.push('0'));
                }
                return true;
            }
            _ if !valid => return false,
            ColumnData::Bool { values, .. } => {
                out.push_str(if values.get(i) { "true" } else { "false" })
            }
            ColumnData::Int { values, .. } => {
                let _ = write!(out, "{}", values[i]);
            }
            ColumnData::Decimal {
                values,
                scale,
                sent,
                ..
            } => match sent.odd_text(i) {
                Some(text) => out.push_str(text),
                None => match sent.digits.get(i).filter(|d| d <= scale) {
                    Some(d) => {
                        let k = decimal::pow10(u32::from(scale - d)) as i128;
                        decimal::format(values[i] / k, d, out)
                    }
                    None => decimal::format(values[i], *scale, out),
                },
            },
            ColumnData::Date { values, .. } => date::format(values[i], out),
            ColumnData::Timestamp { values, sent, .. } => match sent.digits.get(i) {
                Some(d) => timestamp::format(values[i], d, out),
                None => timestamp::canonical(values[i], out),
            },
            ColumnData::String { values, .. } | ColumnData::Json { values, .. } => {
                out.push_str(values.get(i))
            }
        }
        true
    }

    /// Row `i` as JSON text: the text kept for a Json column, else the
    /// value's own: numbers as sent (decimals at the digits they were sent
    /// with), dates and timestamps as the string sent, strings with JSON's
    /// minimal escaping; `null` for a row without a value.
    pub(crate) fn write_json(&self, i: usize, out: &mut String) {
        match self {
            ColumnData::Json { values, .. } if self.is_valid(i) => out.push_str(values.get(i)),
            ColumnData::String { values, .. } if self.is_valid(i) => {
                json_string(values.get(i), out)
            }
            ColumnData::Date { .. } | ColumnData::Timestamp { .. } => {
                let mut text = String::new();
                if self.write_text(i, &mut text) {
                    json_string(&text, out);
                } else {
                    out.push_str("null");
                }
            }
            _ => {
                if !self.write_text(i, out) {
                    out.push_str("null");
                }
            }
        }
    }

    /// This column's values as type `to`, or `None` if `to` cannot hold
    /// all of them: unless `self.column_type().unify(to) == to` and, for
    /// a Decimal `to`, every value fits its precision at its scale.
    /// Casting a decoder's batch to the type [`ColumnType::unify`] gave
    /// for the decoder's batches is always `Some`.
    ///
    /// Conversions: Null → anything (all null); Int → Decimal and Decimal
    /// → a Decimal of a scale as large (exact; `None` if a value needs
    /// more digits than its precision); anything but Json → String (each
    /// value's text as sent, [`ColumnData::write_text`]; a zero date is its
    /// text again); anything → Json (each value's JSON text, numbers as
    /// sent, dates and timestamps as the string sent).
    pub fn cast(&self, to: ColumnType) -> Option<ColumnData> {
        let from = self.column_type();
        if from == to {
            return Some(self.clone());
        }
        if let (
            ColumnData::Int { .. } | ColumnData::Decimal { .. },
            ColumnType::Decimal { precision, scale },
        ) = (self, to)
        {
            if !self.fits(precision, scale) {
                return None;
            }
        } else if from.unify(to) != to {
            return None;
        }
        let len = self.len();
        let validity = || match self {
            ColumnData::Null { len } => Some(Bitmap::filled(*len, false)),
            _ => self.validity().cloned(),
        };
        Some(match to {
            ColumnType::Null => ColumnData::Null { len },
            ColumnType::Bool => ColumnData::Bool {
                values: Bitmap::filled(len, false),
                validity: validity(),
            },
            ColumnType::Int => ColumnData::Int {
                values: vec![0; len],
                validity: validity(),
            },
            ColumnType::Date => ColumnData::Date {
                values: vec![0; len],
                validity: validity(),
            },
            ColumnType::Timestamp => ColumnData::Timestamp {
                values: vec![0; len],
                validity: validity(),
                sent: Sent::default(),
            },
            ColumnType::Decimal { precision, scale } => {
                let (values, sent) = match self {
                    ColumnData::Int { values, .. } => {
                        // `fits` checked that every product fits.
                        let k = decimal::pow10(u32::from(scale)) as i128;
                        let values = values.iter().map(|&v| i128::from(v) * k).collect();
                        (
                            values,
                            Sent {
                                digits: Digits::Same(0),
                                odd: Vec::new(),
                            },
                        )
                    }
                    ColumnData::Decimal {
                        values,
                        scale: s,
                        sent,
                        ..
                    } => {
                        let k = decimal::pow10(u32::from(scale - s)) as i128;
                        let mut sent = sent.clone();
                        if sent.digits == Digits::Column {
                            sent.digits = Digits::Same(*s);
                        }
                        (values.iter().map(|&v| v * k).collect(), sent)
                    }
                    _ => (vec![0; len], Sent::default()),
                };
                ColumnData::Decimal {
                    values,
                    precision,
                    scale,
                    validity: validity(),
                    sent,
                }
            }
            ColumnType::String => {
                let mut texts = Texts::with_capacity(len, len * 10);
                let mut valid = Bitmap::with_capacity(len);
                for i in 0..len {
                    let mut has = false;
                    texts.push_with(|s| has = self.write_text(i, s));
                    valid.push(has);
                }
                ColumnData::String {
                    values: texts,
                    validity: (valid.count_set() != len).then_some(valid),
                }
            }
            ColumnType::Json => ColumnData::Json {
                values: self.json_texts(),
                validity: validity(),
            },
        })
    }

    /// Whether every value of an Int or Decimal column is, at `scale`,
    /// exactly a number of at most `precision` digits (rows without a
    /// value hold 0). False for other columns.
    fn fits(&self, precision: u8, scale: u8) -> bool {
        let (max_abs, by) = match self {
            ColumnData::Int { values, .. } => (
                values.iter().map(|v| u128::from(v.unsigned_abs())).max(),
                scale,
            ),
            ColumnData::Decimal {
                values, scale: s, ..
            } if *s <= scale => (decimal::max_abs(values), scale - s),
            _ => return false,
        };
        let Some(max_abs) = max_abs else {
            return true;
        };
        max_abs
            .checked_mul(decimal::pow10(u32::from(by)))
            .is_some_and(|v| v < decimal::pow10(u32::from(precision.min(decimal::MAX_PRECISION))))
    }

    /// Every row's JSON text ("" for a row without a value).
    pub(crate) fn json_texts(&self) -> Texts {
        let len = self.len();
        let mut texts = Texts::with_capacity(len, len * 12);
        for i in 0..len {
            if self.is_valid(i) {
                texts.push_with(|s| self.write_json(i, s));
            } else {
                texts.push("");
            }
        }
        texts
    }
}

impl Column {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The column's type.
    pub fn column_type(&self) -> ColumnType {
        self.data.column_type()
    }

    /// Row `i` as a cell; see [`ColumnData::cell`].
    pub fn cell(&self, i: usize) -> Cell {
        self.data.cell(i)
    }

    /// The column converted to type `to`; see [`ColumnData::cast`].
    pub fn cast(&self, to: ColumnType) -> Option<Column> {
        Some(Column {
            name: self.name.clone(),
            data: self.data.cast(to)?,
        })
    }
}

/// The cell a JSON text denotes, as the row path would have made it.
fn cell_of_json(text: &str) -> Cell {
    use super::scanner::{scan_number, After, Scan};
    use super::sink::CellRef;
    match text.as_bytes().first() {
        Some(b'"') => {
            serde_json::from_str(text).map_or_else(|_| Cell::Json(text.to_owned()), Cell::String)
        }
        Some(b't') => Cell::Bool(true),
        Some(b'f') => Cell::Bool(false),
        Some(b'n') => Cell::Null,
        Some(b'-' | b'0'..=b'9') => match scan_number(text.as_bytes(), 0, After::Eof) {
            Scan::Done(n, _) => CellRef::Number(text, &n).to_cell(),
            _ => Cell::Number(text.to_owned()),
        },
        _ => Cell::Json(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::ColumnType::*;
    use super::*;

    fn d(precision: u8, scale: u8) -> ColumnType {
        Decimal { precision, scale }
    }

    #[test]
    fn unify_rules() {
        assert_eq!(Null.unify(Int), Int);
        assert_eq!(Date.unify(Null), Date);
        // Decimals have precision 38 whatever their values: only the
        // scale grows.
        assert_eq!(Int.unify(d(38, 2)), d(38, 2));
        assert_eq!(d(38, 2).unify(d(38, 3)), d(38, 3));
        assert_eq!(d(38, 0).unify(d(38, 38)), d(38, 38));
        assert_eq!(Int.unify(d(38, 30)), d(38, 30));
        // A declared precision stays only where both sides have it.
        assert_eq!(d(14, 2).unify(d(14, 2)), d(14, 2));
        assert_eq!(d(14, 2).unify(Null), d(14, 2));
        assert_eq!(d(14, 2).unify(d(38, 2)), d(38, 2));
        assert_eq!(d(6, 2).unify(d(10, 5)), d(38, 5));
        assert_eq!(Int.unify(d(6, 2)), d(38, 2));
        assert_eq!(Date.unify(String), String);
        assert_eq!(Date.unify(Timestamp), String);
        assert_eq!(Bool.unify(Int), String);
        assert_eq!(String.unify(Int), String);
        assert_eq!(Json.unify(Null), Json);
        assert_eq!(Json.unify(Int), Json);
        assert_eq!(String.unify(Json), Json);
    }

    #[test]
    fn unify_is_a_semilattice() {
        let all = [
            Null,
            Bool,
            Int,
            d(1, 0),
            d(6, 2),
            d(10, 5),
            d(19, 0),
            d(21, 2),
            d(38, 0),
            d(38, 2),
            d(38, 5),
            d(38, 38),
            d(20, 19),
            Date,
            Timestamp,
            String,
            Json,
        ];
        for a in all {
            assert_eq!(a.unify(a), a);
            for b in all {
                assert_eq!(a.unify(b), b.unify(a), "{a:?} {b:?}");
                for c in all {
                    assert_eq!(
                        a.unify(b).unify(c),
                        a.unify(b.unify(c)),
                        "{a:?} {b:?} {c:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn casts_to_unified_types_are_exact() {
        let mut valid = Bitmap::new();
        for v in [true, false, true] {
            valid.push(v);
        }
        let ints = ColumnData::Int {
            values: vec![7, 0, -3],
            validity: Some(valid.clone()),
        };
        let as_dec = ints.cast(Int.unify(d(38, 2))).unwrap();
        assert_eq!(as_dec.cell(0), Cell::Number("7".into()));
        assert_eq!(as_dec.cell(1), Cell::Null);
        assert_eq!(as_dec.cell(2), Cell::Number("-3".into()));
        assert!(ints.cast(Date).is_none());
        let text = ints.cast(String).unwrap();
        assert_eq!(text.cell(0), Cell::String("7".into()));
        assert_eq!(text.cell(1), Cell::Null);
        // Numbers to a decimal: exact when every value fits, else none.
        assert!(ints.cast(d(3, 2)).is_some());
        assert!(ints.cast(d(2, 2)).is_none(), "7.00 needs 3 digits");
        let big = ColumnData::Int {
            values: vec![i64::MIN, 1],
            validity: None,
        };
        assert!(big.cast(d(38, 19)).is_some());
        assert!(big.cast(d(38, 20)).is_none(), "19 + 20 digits");
        let dec = ColumnData::Decimal {
            values: vec![12_345, -5],
            precision: 38,
            scale: 2,
            validity: None,
            sent: Sent::default(),
        };
        let ColumnData::Decimal { values, .. } = dec.cast(d(38, 3)).unwrap() else {
            panic!()
        };
        assert_eq!(values, [123_450, -50]);
        assert!(dec.cast(d(5, 2)).is_some());
        assert!(dec.cast(d(4, 2)).is_none(), "123.45 needs 5 digits");
        assert!(dec.cast(d(38, 1)).is_none(), "no digit is dropped");
        let huge = ColumnData::Decimal {
            values: vec![decimal::pow10(37) as i128],
            precision: 38,
            scale: 2,
            validity: None,
            sent: Sent::default(),
        };
        assert!(huge.cast(d(38, 2)).is_some());
        assert!(huge.cast(d(38, 3)).is_none(), "36 + 3 digits");
        let json = ints.cast(Json).unwrap();
        assert_eq!(json.cell(2), Cell::Int(-3));
        let dates = ColumnData::Date {
            values: vec![20_093, 0],
            validity: None,
        };
        let s = dates.cast(String).unwrap();
        assert_eq!(s.cell(0), Cell::String("2025-01-05".into()));
        assert_eq!(s.cell(1), Cell::String("1970-01-01".into()));
        let mut t = Texts::new();
        t.push("say \"hi\"\n");
        let strings = ColumnData::String {
            values: t,
            validity: None,
        };
        let j = strings.cast(Json).unwrap();
        let ColumnData::Json { values, .. } = &j else {
            panic!()
        };
        assert_eq!(values.get(0), r#""say \"hi\"\n""#);
        assert_eq!(j.cell(0), Cell::String("say \"hi\"\n".into()));
        let nulls = ColumnData::Null { len: 2 };
        assert_eq!(nulls.cast(d(6, 2)).unwrap().null_count(), 2);
    }

    #[test]
    fn texts_of_every_short_length() {
        let mut t = Texts::new();
        let words: Vec<std::string::String> = (0..40)
            .map(|n| "é".repeat(n / 2) + &"x".repeat(n % 2))
            .collect();
        for w in &words {
            t.push(w);
        }
        for (i, w) in words.iter().enumerate() {
            assert_eq!(t.get(i), w);
        }
        assert_eq!(t.data().len(), words.iter().map(|w| w.len()).sum::<usize>());
    }

    #[test]
    fn bitmaps() {
        let mut b = Bitmap::new();
        for i in 0..20 {
            b.push(i % 3 == 0);
        }
        assert_eq!(b.count_set(), 7);
        b.pop();
        assert_eq!(b.len(), 19);
        assert!(b.get(18));
        assert_eq!(Bitmap::filled(10, true).as_bytes(), &[0xFF, 0x03]);
        assert_eq!(Bitmap::filled(10, true).count_set(), 10);
    }
}

#[cfg(test)]
mod sent_text {
    use super::*;

    #[test]
    fn typed_values_become_the_text_they_were_sent_as() {
        let mut valid = Bitmap::new();
        for v in [true, false, true, true] {
            valid.push(v);
        }
        let dec = ColumnData::Decimal {
            values: vec![150, 0, 1_000_000, 0],
            precision: 10,
            scale: 3,
            validity: Some(valid.clone()),
            sent: Sent {
                digits: Digits::PerRow(vec![2, 0, 0, 0]),
                odd: vec![(2, "1e3".into()), (3, "-0".into())],
            },
        };
        let s = dec.cast(ColumnType::String).unwrap();
        let texts: Vec<Cell> = (0..4).map(|i| s.cell(i)).collect();
        assert_eq!(
            texts,
            [
                Cell::String("0.15".into()),
                Cell::Null,
                Cell::String("1e3".into()),
                Cell::String("-0".into())
            ]
        );
        let dates = ColumnData::Date {
            values: vec![20_093, ZERO_DATE_MARK, 0],
            validity: Some({
                let mut b = Bitmap::new();
                b.push(true);
                b.push(false);
                b.push(false);
                b
            }),
        };
        assert_eq!(dates.cell(1), Cell::Null);
        let s = dates.cast(ColumnType::String).unwrap();
        assert_eq!(s.cell(1), Cell::String("0000-00-00".into()));
        assert_eq!(s.cell(2), Cell::Null);
        let ts = ColumnData::Timestamp {
            values: vec![1_500_000, ZERO_TIMESTAMP_MARK],
            validity: Some({
                let mut b = Bitmap::new();
                b.push(true);
                b.push(false);
                b
            }),
            sent: Sent {
                digits: Digits::Same(3),
                odd: Vec::new(),
            },
        };
        assert_eq!(
            ts.cell(0),
            Cell::String("1970-01-01 00:00:01.500000".into())
        );
        let s = ts.cast(ColumnType::String).unwrap();
        assert_eq!(s.cell(0), Cell::String("1970-01-01 00:00:01.500".into()));
        assert_eq!(s.cell(1), Cell::String("0000-00-00 00:00:00.000".into()));
    }
}
