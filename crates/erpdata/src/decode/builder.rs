//! The sink that fills typed columns, one batch at a time.
//!
//! Each column guesses its type from its first value in the batch and
//! stores values typed from the start; a value that does not fit widens the
//! column (rarely, and at most a few times per batch), so most values are
//! stored with no second pass. The result is the same as typing the batch
//! after the fact by the documented rule (see [`super`]).
//!
//! A declared column, and every column of a stream once its first batch
//! is out, never widens: a value that does not fit is an error naming the
//! column, the row and how to declare the type.

use std::collections::HashMap;

use super::batch::Batch;
use super::columns::{
    Bitmap, Column, ColumnData, ColumnType, Digits, Sent, Texts, ZERO_DATE_MARK,
    ZERO_TIMESTAMP_MARK,
};
use super::declared::{DeclaredSchema, DeclaredType};
use super::sink::{int_value, CellRef, RowSink};
use super::text::{self, NumberText};
use super::{date, decimal, timestamp};

/// A batch ends early once its text columns hold this much.
const MAX_BATCH_TEXT: usize = 256 << 20;
/// The longest text value typed columns take. With the batch limit, a
/// column's text stays under 320 MiB, and under 2 GiB (`i32` offsets,
/// Arrow's `Utf8`) even rewritten as JSON with every character escaped.
const MAX_VALUE_TEXT: usize = 64 << 20;

/// Room for at most this many values is set aside when a column starts;
/// beyond it, columns grow as rows come. A caller's very large batch size
/// then costs memory only if rows arrive, and can never fail one huge
/// allocation up front (which aborts a process, and a wasm module for
/// good).
const MAX_RESERVED_ROWS: usize = 1 << 16;

/// How the column types of an answer are decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Typing {
    /// Strings typed from their text (`"1500.00"` a decimal).
    pub infer_strings: bool,
    /// One schema for every batch: the first batch fixes the types.
    pub one_schema: bool,
    /// The caller's types.
    pub declared: DeclaredSchema,
}

/// How one column's type is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// From its values.
    Infer,
    /// The caller's type.
    Declared(DeclaredType),
    /// A stream's type, fixed by its first batch; `lenient` when the caller
    /// declared it (a declared type takes more forms).
    Locked { ty: ColumnType, lenient: bool },
}

/// What a value is, for choosing a column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Bool,
    Int,
    Decimal(u8),
    /// A number of more than 38 digits.
    BigNumber,
    Date,
    Timestamp,
    Text,
    Nested,
}

fn class(value: CellRef<'_>, strings: bool) -> Class {
    match value {
        CellRef::Null => Class::Text,
        CellRef::Bool(_) => Class::Bool,
        CellRef::Number(_, n) if int_value(n).is_some() => Class::Int,
        CellRef::Number(_, n) => match decimal::of(n) {
            Some((_, scale)) => Class::Decimal(scale),
            None => Class::BigNumber,
        },
        CellRef::Json(_) => Class::Nested,
        CellRef::Str(s, _) if strings => string_class(s.as_bytes()),
        CellRef::Str(..) => Class::Text,
    }
}

fn string_class(s: &[u8]) -> Class {
    match text::number(s) {
        Some(NumberText::Int(_)) => return Class::Int,
        Some(NumberText::Decimal(_, scale)) => return Class::Decimal(scale),
        None => {}
    }
    if s == text::ZERO_DATE || date::parse(s).is_some() {
        Class::Date
    } else if text::zero_datetime(s).is_some()
        || timestamp::parse(s, &mut date::Dates::default()).is_some()
    {
        Class::Timestamp
    } else {
        Class::Text
    }
}

/// A column being built.
#[derive(Debug)]
struct Builder {
    name: String,
    /// The name can only be written one way in JSON (no character that
    /// needs escaping), so a key equal to it byte for byte is this column.
    plain: bool,
    /// Dates parsed knowing the last one's month.
    dates: date::Dates,
    /// Values in this batch (rows so far, or one more while its row is open).
    len: usize,
    /// Created at the first row without a value.
    validity: Option<Bitmap>,
    data: Build,
    /// Text bytes in the previous batch, to size this one's buffer.
    hint_bytes: usize,
    rule: Rule,
    /// The rule is a declared type's (it takes more forms, and strings by
    /// their text whatever the options say); kept apart from `rule` so
    /// that the hot path reads one flag.
    lenient: bool,
    /// The precision a Decimal column has whatever its values: declared,
    /// or 38 in a stream (one schema for every batch).
    precision: Option<u8>,
}

#[derive(Debug, Default)]
enum Build {
    /// No value yet: every row so far is null.
    #[default]
    Null,
    Bool(Bitmap),
    Int(Vec<i64>),
    Decimal {
        values: Vec<i128>,
        scale: u8,
        max_abs: u128,
        sent: Sent,
    },
    Date(Vec<i32>),
    Timestamp {
        values: Vec<i64>,
        sent: Sent,
    },
    Str(Texts),
    Json(Texts),
}

impl Build {
    /// An empty column of type `ty` (`Null` as String: a fixed type must
    /// hold what comes).
    fn empty(ty: ColumnType, capacity: usize, hint_bytes: usize) -> Build {
        match ty {
            ColumnType::Bool => Build::Bool(Bitmap::with_capacity(capacity)),
            ColumnType::Int => Build::Int(Vec::with_capacity(capacity)),
            ColumnType::Decimal { scale, .. } => Build::Decimal {
                values: Vec::with_capacity(capacity),
                scale,
                max_abs: 0,
                sent: Sent::default(),
            },
            ColumnType::Date => Build::Date(Vec::with_capacity(capacity)),
            ColumnType::Timestamp => Build::Timestamp {
                values: Vec::with_capacity(capacity),
                sent: Sent::default(),
            },
            ColumnType::Null | ColumnType::String => {
                Build::Str(empty_texts(0, capacity, hint_bytes))
            }
            ColumnType::Json => Build::Json(empty_texts(0, capacity, hint_bytes)),
        }
    }
}

fn declared_type(t: DeclaredType) -> ColumnType {
    match t {
        DeclaredType::String => ColumnType::String,
        DeclaredType::Int => ColumnType::Int,
        DeclaredType::Decimal(ps) => {
            let (precision, scale) = ps.unwrap_or((38, 0));
            ColumnType::Decimal { precision, scale }
        }
        DeclaredType::Date => ColumnType::Date,
        DeclaredType::Timestamp => ColumnType::Timestamp,
        DeclaredType::Bool => ColumnType::Bool,
        DeclaredType::Json => ColumnType::Json,
    }
}

impl Builder {
    fn new(name: &str, rows: usize, typing: &Typing, capacity: usize) -> Self {
        let rule = typing
            .declared
            .get(name)
            .map_or(Rule::Infer, Rule::Declared);
        let precision = match rule {
            Rule::Declared(DeclaredType::Decimal(Some((p, _)))) => Some(p),
            _ if typing.one_schema => Some(decimal::MAX_PRECISION),
            _ => None,
        };
        let mut b = Builder {
            name: name.to_owned(),
            plain: name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\'),
            dates: date::Dates::default(),
            len: 0,
            validity: None,
            data: Build::Null,
            hint_bytes: 0,
            rule,
            lenient: matches!(rule, Rule::Declared(_)),
            precision,
        };
        b.start(capacity);
        // A key first seen in this row: the rows before lack it.
        for _ in 0..rows {
            b.push_null();
        }
        b
    }

    /// Empties the column for the next batch, typed as its rule says.
    fn start(&mut self, capacity: usize) {
        self.data = match self.rule {
            Rule::Infer => Build::Null,
            Rule::Declared(t) => Build::empty(declared_type(t), capacity, self.hint_bytes),
            Rule::Locked { ty, .. } => Build::empty(ty, capacity, self.hint_bytes),
        };
    }

    /// Stores `value`; `false` if the column's type is fixed and cannot
    /// hold it (nothing stored then).
    #[inline(always)]
    fn push(&mut self, value: CellRef<'_>, capacity: usize, strings: bool) -> bool {
        if let CellRef::Null = value {
            self.push_null();
            return true;
        }
        let lenient = self.lenient;
        let strings = strings || lenient;
        let valid = match self.try_push(value, strings, lenient) {
            Some(valid) => valid,
            None => {
                let target = self.target(value, strings);
                let allowed = match self.rule {
                    Rule::Infer => true,
                    // A bare `decimal` takes the scale its values need.
                    Rule::Declared(DeclaredType::Decimal(None)) => {
                        matches!(target, Class::Decimal(_))
                    }
                    _ => false,
                };
                if !allowed {
                    return false;
                }
                self.widen(target, capacity);
                match self.try_push(value, strings, lenient) {
                    Some(valid) => valid,
                    None => {
                        debug_assert!(false, "widened to hold {value:?}");
                        return false;
                    }
                }
            }
        };
        let len = self.len;
        self.len += 1;
        if valid {
            if let Some(v) = &mut self.validity {
                v.push(true);
            }
        } else {
            self.validity
                .get_or_insert_with(|| Bitmap::filled(len, true))
                .push(false);
        }
        true
    }

    /// Stores `value` if the column's current type holds it: `Some(true)`
    /// for a value, `Some(false)` for a null (a zero date, or a declared
    /// column's empty string) whose slot is filled, `None` if it does not
    /// fit. `strings`: strings are typed by their text; `lenient`: the
    /// extra forms a declared type takes. What tables mostly hold is here;
    /// the rest in [`Builder::try_push_rare`].
    #[inline(always)]
    fn try_push(&mut self, value: CellRef<'_>, strings: bool, lenient: bool) -> Option<bool> {
        let row = self.len;
        match (&mut self.data, value) {
            (Build::Str(t), CellRef::Str(s, _)) => t.push(s),
            (
                Build::Decimal {
                    values,
                    scale,
                    max_abs,
                    sent,
                },
                CellRef::Number(text, n),
            ) => {
                let (v, s) = decimal::of(n)?;
                let v = push_decimal(
                    values,
                    *scale,
                    max_abs,
                    &mut sent.digits,
                    self.precision,
                    row,
                    v,
                    s,
                )?;
                // Written another way than the value prints: an exponent
                // (no `.` just before the fraction's digits), or `-0`.
                let fraction = n.fraction_digits as usize;
                let plain = n.integral
                    || (fraction > 0
                        && text.as_bytes().get(text.len().wrapping_sub(fraction + 1))
                            == Some(&b'.'));
                if !plain || (v == 0 && n.negative) {
                    sent.odd.push((u32::try_from(row).ok()?, text.into()));
                }
            }
            (Build::Int(values), CellRef::Number(_, n)) => values.push(int_value(n)?),
            (Build::Date(values), CellRef::Str(s, _)) if strings => {
                match self.dates.parse(s.as_bytes()) {
                    Some(d) => values.push(d),
                    None if s.as_bytes() == text::ZERO_DATE => {
                        values.push(ZERO_DATE_MARK);
                        return Some(false);
                    }
                    None => return self.try_push_rare(value, strings, lenient),
                }
            }
            (Build::Int(_) | Build::Decimal { .. }, CellRef::Str(s, _)) if strings => {
                return self.push_number_text(s, lenient)
            }
            (Build::Timestamp { values, sent }, CellRef::Str(s, _)) if strings => {
                match timestamp::parse(s.as_bytes(), &mut self.dates) {
                    Some((micros, digits)) => {
                        values.push(micros);
                        sent.digits.push(row, digits);
                    }
                    None => return self.try_push_rare(value, strings, lenient),
                }
            }
            _ => return self.try_push_rare(value, strings, lenient),
        }
        Some(true)
    }

    /// [`Builder::try_push`] for the rest: zero dates, timestamps,
    /// booleans, JSON, numbers into string columns, a declared type's
    /// extra forms.
    #[inline(never)]
    fn try_push_rare(&mut self, value: CellRef<'_>, strings: bool, lenient: bool) -> Option<bool> {
        let row = self.len;
        match (&mut self.data, value) {
            (Build::Date(values), CellRef::Str(s, _)) if strings => {
                if lenient && s.is_empty() {
                    values.push(0);
                    return Some(false);
                }
                return None;
            }
            (Build::Bool(bits), CellRef::Bool(b)) => bits.push(b),
            (Build::Json(t), v) => match v {
                CellRef::Str(_, raw) => t.push(raw),
                CellRef::Number(text, _) => t.push(text),
                CellRef::Json(text) => t.push(text),
                CellRef::Bool(b) => t.push(if b { "true" } else { "false" }),
                CellRef::Null => t.push(""),
            },
            (Build::Str(t), CellRef::Number(text, _)) => t.push(text),
            (Build::Str(t), CellRef::Bool(b)) => t.push(if b { "true" } else { "false" }),
            (Build::Str(t), CellRef::Json(text)) if lenient => t.push(text),
            (Build::Timestamp { values, sent }, CellRef::Str(s, _)) if strings => {
                let b = s.as_bytes();
                if let Some((micros, digits)) = timestamp::parse(b, &mut self.dates) {
                    values.push(micros);
                    sent.digits.push(row, digits);
                } else if let Some(digits) = text::zero_datetime(b) {
                    values.push(ZERO_TIMESTAMP_MARK);
                    sent.digits.push(row, digits);
                    return Some(false);
                } else if lenient && (b.is_empty() || b == text::ZERO_DATE) {
                    values.push(0);
                    sent.digits.push(row, 0);
                    return Some(false);
                } else if lenient {
                    let days = self.dates.parse(b)?;
                    values.push(i64::from(days) * 86_400_000_000);
                    sent.digits.push(row, 0);
                } else {
                    return None;
                }
            }
            (Build::Bool(bits), v) if lenient => match v {
                CellRef::Number(_, n) => match int_value(n)? {
                    0 => bits.push(false),
                    1 => bits.push(true),
                    _ => return None,
                },
                CellRef::Str("0" | "false", _) => bits.push(false),
                CellRef::Str("1" | "true", _) => bits.push(true),
                CellRef::Str("", _) => {
                    bits.push(false);
                    return Some(false);
                }
                _ => return None,
            },
            _ => return None,
        }
        Some(true)
    }

    /// A string into an Int or Decimal column, if it is a canonical number
    /// the column holds.
    #[inline]
    fn push_number_text(&mut self, s: &str, lenient: bool) -> Option<bool> {
        let row = self.len;
        if let Build::Decimal {
            values,
            scale,
            max_abs,
            sent,
        } = &mut self.data
        {
            // What DECIMAL columns hold: every value at the column's scale.
            if let (Some(v), None) = (text::decimal_at(s.as_bytes(), *scale), self.precision) {
                let v = i128::from(v);
                values.push(v);
                *max_abs = (*max_abs).max(v.unsigned_abs());
                sent.digits.push(row, *scale);
                return Some(true);
            }
        }
        let parsed = text::number(s.as_bytes());
        match (&mut self.data, parsed) {
            (Build::Int(values), Some(NumberText::Int(i))) => values.push(i),
            (
                Build::Decimal {
                    values,
                    scale,
                    max_abs,
                    sent,
                },
                Some(parsed),
            ) => {
                let (v, s) = match parsed {
                    NumberText::Int(i) => (i128::from(i), 0),
                    NumberText::Decimal(v, s) => (v, s),
                };
                push_decimal(
                    values,
                    *scale,
                    max_abs,
                    &mut sent.digits,
                    self.precision,
                    row,
                    v,
                    s,
                )?;
            }
            (Build::Int(values), None) if lenient && s.is_empty() => {
                values.push(0);
                return Some(false);
            }
            (Build::Decimal { values, sent, .. }, None) if lenient && s.is_empty() => {
                values.push(0);
                sent.digits.push(row, 0);
                return Some(false);
            }
            _ => return None,
        }
        Some(true)
    }

    /// The type the column must become to hold `value` too, by the
    /// documented rule (see [`super`]).
    fn target(&self, value: CellRef<'_>, strings: bool) -> Class {
        let c = class(value, strings);
        match (&self.data, c) {
            (_, Class::Nested) => Class::Nested,
            (Build::Json(_), _) => Class::Nested,
            (Build::Null, c) => match c {
                Class::BigNumber => Class::Text,
                c => c,
            },
            (Build::Int(values), Class::Decimal(s)) => {
                let max = values.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
                if decimal::rescale(max as i128, s).is_some() {
                    Class::Decimal(s)
                } else {
                    Class::Text
                }
            }
            (Build::Decimal { scale, max_abs, .. }, Class::Decimal(s)) if s > *scale => {
                // `max_abs` bounds every value, so if it fits, all do.
                if decimal::rescale(*max_abs as i128, s - *scale).is_some() {
                    Class::Decimal(s)
                } else {
                    Class::Text
                }
            }
            _ => Class::Text,
        }
    }

    /// Converts the values so far to the type `target` names. Values
    /// become text as they were sent ([`ColumnData::write_text`]) or, for
    /// Json, as their JSON text.
    fn widen(&mut self, target: Class, capacity: usize) {
        let len = self.len;
        let cap = capacity.max(len + 1);
        if let Build::Null = self.data {
            // The rows before had no value.
            if len > 0 {
                self.validity = Some(Bitmap::filled(len, false));
            }
            self.data = match target {
                Class::Bool => {
                    let mut b = Bitmap::with_capacity(cap);
                    (0..len).for_each(|_| b.push(false));
                    Build::Bool(b)
                }
                Class::Int => Build::Int(zeros(len, cap)),
                Class::Decimal(scale) => Build::Decimal {
                    values: zeros(len, cap),
                    scale,
                    max_abs: 0,
                    sent: Sent::default(),
                },
                Class::Date => Build::Date(zeros(len, cap)),
                Class::Timestamp => Build::Timestamp {
                    values: zeros(len, cap),
                    sent: Sent::default(),
                },
                Class::Text | Class::BigNumber => {
                    Build::Str(empty_texts(len, cap, self.hint_bytes))
                }
                Class::Nested => Build::Json(empty_texts(len, cap, self.hint_bytes)),
            };
            return;
        }
        let next = match (&mut self.data, target) {
            (Build::Int(values), Class::Decimal(scale)) => {
                let mut out = Vec::with_capacity(values.capacity());
                let mut max_abs = 0u128;
                for &v in values.iter() {
                    let x = decimal::rescale(i128::from(v), scale).unwrap_or_default();
                    max_abs = max_abs.max(x.unsigned_abs());
                    out.push(x);
                }
                Some(Build::Decimal {
                    values: out,
                    scale,
                    max_abs,
                    sent: Sent {
                        digits: if len > 0 {
                            Digits::Same(0)
                        } else {
                            Digits::Column
                        },
                        odd: Vec::new(),
                    },
                })
            }
            (
                Build::Decimal {
                    values,
                    scale,
                    max_abs,
                    sent,
                },
                Class::Decimal(s),
            ) => {
                let by = s - *scale;
                for v in values.iter_mut() {
                    *v = decimal::rescale(*v, by).unwrap_or_default();
                }
                if sent.digits == Digits::Column && len > 0 {
                    sent.digits = Digits::Same(*scale);
                }
                Some(Build::Decimal {
                    values: std::mem::take(values),
                    scale: s,
                    max_abs: *max_abs * decimal::pow10(u32::from(by)),
                    sent: std::mem::take(sent),
                })
            }
            _ => None,
        };
        self.data = match (next, target) {
            (Some(build), _) => build,
            (None, Class::Nested) => self.take_as_json(),
            (None, _) => self.take_as_text(),
        };
    }

    /// The column so far as JSON texts: every value's JSON text (the exact
    /// text sent is kept only for values that arrive after this).
    fn take_as_json(&mut self) -> Build {
        let data = self.finish_data(self.validity.clone());
        Build::Json(data.json_texts())
    }

    /// The column so far as strings: every value's text as sent.
    fn take_as_text(&mut self) -> Build {
        let data = self.finish_data(self.validity.clone());
        match data.cast(ColumnType::String) {
            Some(ColumnData::String { values, validity }) => {
                self.validity = validity;
                Build::Str(values)
            }
            _ => Build::Str(Texts::new()),
        }
    }

    #[inline]
    fn push_null(&mut self) {
        let row = self.len;
        match &mut self.data {
            // Nothing to store: the count is the column.
            Build::Null => {
                self.len += 1;
                return;
            }
            Build::Bool(b) => b.push(false),
            Build::Int(v) => v.push(0),
            Build::Decimal { values, sent, .. } => {
                values.push(0);
                if let Digits::PerRow(_) = sent.digits {
                    sent.digits.push(row, 0);
                }
            }
            Build::Date(v) => v.push(0),
            Build::Timestamp { values, sent } => {
                values.push(0);
                if let Digits::PerRow(_) = sent.digits {
                    sent.digits.push(row, 0);
                }
            }
            Build::Str(t) | Build::Json(t) => t.push(""),
        }
        let len = self.len;
        self.validity
            .get_or_insert_with(|| Bitmap::filled(len, true))
            .push(false);
        self.len += 1;
    }

    /// Takes back this row's value of a key that came twice (the last one
    /// wins). The type the discarded value may have widened to stays.
    fn pop(&mut self) {
        let row = self.len - 1;
        match &mut self.data {
            Build::Null => {}
            Build::Bool(b) => b.pop(),
            Build::Int(v) => {
                v.pop();
            }
            Build::Decimal { values, sent, .. } => {
                values.pop();
                sent.digits.pop(row);
                if sent.odd.last().is_some_and(|(r, _)| *r as usize == row) {
                    sent.odd.pop();
                }
            }
            Build::Date(v) => {
                v.pop();
            }
            Build::Timestamp { values, sent } => {
                values.pop();
                sent.digits.pop(row);
            }
            Build::Str(t) | Build::Json(t) => t.pop(),
        }
        if let Some(v) = &mut self.validity {
            v.pop();
        }
        self.len -= 1;
    }

    fn text_bytes(&self) -> usize {
        match &self.data {
            Build::Str(t) | Build::Json(t) => t.bytes(),
            _ => 0,
        }
    }

    fn finish_data(&mut self, validity: Option<Bitmap>) -> ColumnData {
        let validity = validity.filter(|v| v.count_set() != v.len());
        match std::mem::take(&mut self.data) {
            Build::Null => ColumnData::Null { len: self.len },
            Build::Bool(values) => ColumnData::Bool { values, validity },
            Build::Int(values) => ColumnData::Int { values, validity },
            Build::Decimal {
                values,
                scale,
                max_abs,
                sent,
            } => ColumnData::Decimal {
                values,
                precision: self
                    .precision
                    .unwrap_or_else(|| decimal::precision(max_abs, scale))
                    .max(scale)
                    .max(1),
                scale,
                validity,
                sent,
            },
            Build::Date(values) => ColumnData::Date { values, validity },
            Build::Timestamp { values, sent } => ColumnData::Timestamp {
                values,
                validity,
                sent,
            },
            Build::Str(values) => ColumnData::String { values, validity },
            Build::Json(values) => ColumnData::Json { values, validity },
        }
    }

    /// The batch's column; the builder starts over for the next, untyped
    /// unless its type is declared or fixed.
    fn finish(&mut self, capacity: usize) -> Column {
        self.hint_bytes = self.text_bytes();
        let validity = self.validity.take();
        let data = self.finish_data(validity);
        self.len = 0;
        self.start(capacity);
        Column {
            name: self.name.clone(),
            data,
        }
    }

    /// Fixes the column's type for the rest of a stream: the type of the
    /// batch just finished (a column without a value yet is String).
    fn lock(&mut self, ty: ColumnType, capacity: usize) -> ColumnType {
        let lenient = matches!(self.rule, Rule::Declared(_));
        let ty = match ty {
            ColumnType::Null => match self.rule {
                Rule::Declared(t) => declared_type(t),
                _ => ColumnType::String,
            },
            t => t,
        };
        self.rule = Rule::Locked { ty, lenient };
        self.lenient = lenient;
        self.start(capacity);
        ty
    }

    /// Why `value` does not fit, for the error.
    fn misfit(&self, value: CellRef<'_>, row: u64) -> String {
        let what = describe(value);
        let (ty, how) = match self.rule {
            Rule::Declared(t) => (t.to_string(), "declared"),
            Rule::Locked { ty, lenient: true } => (ty.name(), "declared"),
            Rule::Locked { ty, .. } => (ty.name(), "fixed by the stream's first batch"),
            Rule::Infer => (self.type_now().name(), "inferred"),
        };
        format!(
            "column `{}`, row {row}: {what} does not fit its type {ty} ({how}); declare the \
             column's type (for example \"string\") to read it",
            self.name
        )
    }

    fn type_now(&self) -> ColumnType {
        match &self.data {
            Build::Null => ColumnType::Null,
            Build::Bool(_) => ColumnType::Bool,
            Build::Int(_) => ColumnType::Int,
            Build::Decimal { scale, .. } => ColumnType::Decimal {
                precision: self.precision.unwrap_or(decimal::MAX_PRECISION),
                scale: *scale,
            },
            Build::Date(_) => ColumnType::Date,
            Build::Timestamp { .. } => ColumnType::Timestamp,
            Build::Str(_) => ColumnType::String,
            Build::Json(_) => ColumnType::Json,
        }
    }
}

/// Stores `v`, a value written with `s` digits after the point, in a
/// Decimal column of scale `scale` (and `precision`, if fixed) as row
/// `row`: the stored value, or `None` if it does not fit (nothing stored).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn push_decimal(
    values: &mut Vec<i128>,
    scale: u8,
    max_abs: &mut u128,
    digits: &mut Digits,
    precision: Option<u8>,
    row: usize,
    v: i128,
    s: u8,
) -> Option<i128> {
    if s > scale {
        return None;
    }
    let v = decimal::rescale(v, scale - s)?;
    if precision.is_some_and(|p| v.unsigned_abs() >= decimal::pow10(u32::from(p))) {
        return None;
    }
    values.push(v);
    *max_abs = (*max_abs).max(v.unsigned_abs());
    digits.push(row, s);
    Some(v)
}

/// A value's kind and a short excerpt of it, for an error.
fn describe(value: CellRef<'_>) -> String {
    fn short(s: &str) -> String {
        let mut out: String = s.chars().take(40).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    }
    match value {
        CellRef::Null => "null".into(),
        CellRef::Bool(b) => format!("the boolean {b}"),
        CellRef::Number(text, _) => format!("the number {}", short(text)),
        CellRef::Str(s, _) => format!("the string {:?}", short(s)),
        CellRef::Json(_) => "an object or array".into(),
    }
}

fn zeros<T: Default + Clone>(len: usize, capacity: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(capacity);
    v.resize(len, T::default());
    v
}

fn empty_texts(len: usize, capacity: usize, hint_bytes: usize) -> Texts {
    let mut t = Texts::with_capacity(capacity.max(len + 1), hint_bytes.max(capacity * 8));
    for _ in 0..len {
        t.push("");
    }
    t
}

/// Fills batches of typed columns from the decoder's rows.
#[derive(Debug)]
pub(crate) struct ColumnSink {
    batch_rows: usize,
    typing: Typing,
    /// Whether the first batch of a one-schema answer fixed the types.
    locked: bool,
    /// Rows in the batches completed before this one.
    base_rows: u64,
    cols: Vec<Builder>,
    index: HashMap<String, usize>,
    /// The column of each position of the previous row: rows of one table
    /// repeat their keys in order, so a key is first compared with the one
    /// in the same place last time, and hashed only if that differs.
    keys: Vec<usize>,
    pos: usize,
    /// Distinct columns given a value in the current row.
    set_in_row: usize,
    rows: usize,
    text_bytes: usize,
    done: Vec<Batch>,
    /// `done[..released]` may go to the caller.
    released: usize,
    releasing: bool,
    ever_released: bool,
    fault: Option<String>,
    /// Whether every row so far had the first row's keys, in its order,
    /// each once, and no number was a negative zero: then rows rebuilt
    /// from the columns equal the rows sent.
    regular: bool,
    /// Whether a row has ended since the last reset.
    had_row: bool,
}

impl ColumnSink {
    pub(crate) fn new(batch_rows: usize, typing: Typing) -> Self {
        ColumnSink {
            batch_rows: batch_rows.max(1),
            typing,
            locked: false,
            base_rows: 0,
            cols: Vec::new(),
            index: HashMap::new(),
            keys: Vec::new(),
            pos: 0,
            set_in_row: 0,
            rows: 0,
            text_bytes: 0,
            done: Vec::new(),
            released: 0,
            releasing: false,
            ever_released: false,
            fault: None,
            regular: true,
            had_row: false,
        }
    }

    /// See [`TableDecoder::rows_regular`](super::TableDecoder::rows_regular).
    pub(crate) fn regular(&self) -> bool {
        self.regular
    }

    #[cold]
    fn slow_key(&mut self, key: &str) -> usize {
        // Another key at a known position, or more keys than the previous
        // row: the rows differ in their keys or their order.
        if self.pos < self.keys.len() || self.had_row {
            self.regular = false;
        }
        let c = match self.index.get(key) {
            Some(&c) => c,
            None => {
                if self.locked && self.fault.is_none() {
                    self.fault = Some(format!(
                        "column `{key}` first appears in row {}, after the first batch fixed the \
                         stream's columns; declare its type to have it in every batch",
                        self.row_number()
                    ));
                }
                self.add_column(key)
            }
        };
        if self.pos < self.keys.len() {
            self.keys[self.pos] = c;
        } else {
            self.keys.push(c);
        }
        c
    }

    fn add_column(&mut self, key: &str) -> usize {
        let c = self.cols.len();
        let capacity = self.capacity();
        self.cols
            .push(Builder::new(key, self.rows, &self.typing, capacity));
        self.index.insert(key.to_owned(), c);
        c
    }

    fn capacity(&self) -> usize {
        self.batch_rows.min(MAX_RESERVED_ROWS)
    }

    /// The current row, counted from 1 over the whole answer.
    fn row_number(&self) -> u64 {
        self.base_rows + self.rows as u64 + 1
    }

    /// Closes the current batch. Every column seen so far in the stream is
    /// in it (a column absent from this batch is all null), in first-seen
    /// order, so each batch's columns extend the previous batch's. The
    /// first batch of a one-schema answer also has every declared column,
    /// and fixes every column's type.
    fn complete(&mut self) {
        let lock = self.typing.one_schema && !self.locked;
        if lock {
            let unseen: Vec<String> = self
                .typing
                .declared
                .columns()
                .iter()
                .filter(|(name, _)| !self.index.contains_key(name))
                .map(|(name, _)| name.clone())
                .collect();
            for name in unseen {
                self.add_column(&name);
            }
        }
        let capacity = self.capacity();
        let mut columns: Vec<Column> = self.cols.iter_mut().map(|b| b.finish(capacity)).collect();
        if lock {
            for (b, c) in self.cols.iter_mut().zip(&mut columns) {
                let ty = b.lock(c.column_type(), capacity);
                if c.column_type() != ty {
                    // A column without a value: all null, of the fixed type.
                    if let Some(cast) = c.cast(ty) {
                        *c = cast;
                    }
                }
            }
            self.locked = true;
        }
        self.done.push(Batch {
            num_rows: self.rows,
            columns,
        });
        self.base_rows += self.rows as u64;
        self.rows = 0;
        self.text_bytes = 0;
        if self.releasing {
            self.released = self.done.len();
            self.ever_released = true;
        }
    }

    /// The batches the caller may have now.
    pub(crate) fn take_released(&mut self) -> Vec<Batch> {
        let n = std::mem::take(&mut self.released);
        self.done.drain(..n).collect()
    }

    /// After a successful end: every batch, the last one partial (and,
    /// for a one-schema answer without rows, one empty batch with the
    /// declared columns, so that the schema is known).
    pub(crate) fn into_batches(mut self) -> Vec<Batch> {
        if self.rows > 0
            || (self.typing.one_schema && !self.locked && !self.typing.declared.is_empty())
        {
            self.complete();
        }
        self.done
    }
}

impl ColumnSink {
    #[inline(always)]
    fn push(&mut self, c: usize, value: CellRef<'_>) {
        self.pos += 1;
        // A typed column keeps -0 as 0: a row rebuilt from it would differ.
        if let CellRef::Number(_, n) = value {
            if n.negative && n.mantissa == 0 && !n.overflow {
                self.regular = false;
            }
        }
        if let CellRef::Str(_, text) | CellRef::Json(text) = value {
            self.text_bytes += text.len();
            if text.len() > MAX_VALUE_TEXT {
                if self.fault.is_none() {
                    self.fault = Some(format!(
                        "row {} has a value of more than {} bytes in `{}`, more than typed \
                         columns take",
                        self.row_number(),
                        MAX_VALUE_TEXT,
                        self.cols[c].name
                    ));
                }
                return;
            }
        }
        let rows = self.rows;
        let capacity = self.capacity();
        let strings = self.typing.infer_strings;
        let col = &mut self.cols[c];
        if col.len > rows {
            self.regular = false;
            col.pop();
        } else {
            self.set_in_row += 1;
        }
        if !col.push(value, capacity, strings) {
            // Keep the row's shape; the error ends the answer.
            col.push_null();
            if self.fault.is_none() {
                let row = self.base_rows + rows as u64 + 1;
                self.fault = Some(self.cols[c].misfit(value, row));
            }
        }
    }
}

impl RowSink for ColumnSink {
    #[inline]
    fn begin_row(&mut self) {
        self.pos = 0;
        self.set_in_row = 0;
    }

    #[inline]
    fn field(&mut self, key: &str, value: CellRef<'_>) {
        let c = match self.keys.get(self.pos) {
            Some(&c) if self.cols[c].name == key => c,
            _ => self.slow_key(key),
        };
        self.push(c, value);
    }

    #[inline(always)]
    fn next_key(&self) -> Option<&str> {
        let col = &self.cols[*self.keys.get(self.pos)?];
        col.plain.then_some(col.name.as_str())
    }

    #[inline(always)]
    fn next_field(&mut self, value: CellRef<'_>) {
        let c = self.keys[self.pos];
        self.push(c, value);
    }

    #[inline]
    fn end_row(&mut self) {
        if self.set_in_row < self.cols.len() {
            self.regular = false;
            let rows = self.rows;
            for col in &mut self.cols {
                if col.len <= rows {
                    col.push_null();
                }
            }
        }
        self.had_row = true;
        self.rows += 1;
        if self.rows >= self.batch_rows || self.text_bytes > MAX_BATCH_TEXT {
            self.complete();
        }
    }

    fn reset(&mut self) {
        if self.ever_released {
            self.fault = Some(
                "a second `data` field follows rows of the first that were already \
                 delivered"
                    .into(),
            );
            return;
        }
        let typing = std::mem::take(&mut self.typing);
        *self = ColumnSink {
            releasing: self.releasing,
            ..ColumnSink::new(self.batch_rows, typing)
        };
    }

    fn release(&mut self, success: bool) {
        self.releasing = success;
        if success && self.released < self.done.len() {
            self.released = self.done.len();
            self.ever_released = true;
        }
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }
}

impl Builder {
    #[cfg(test)]
    fn text_len(&self) -> usize {
        self.text_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Cell;
    use crate::decode::columns::ColumnType;
    use crate::decode::scanner::{scan_number, After, Scan};

    fn num(text: &str) -> CellRef<'_> {
        let Scan::Done(n, _) = scan_number(text.as_bytes(), 0, After::Eof) else {
            panic!("{text}")
        };
        CellRef::Number(text, Box::leak(Box::new(n)))
    }

    fn build(values: &[CellRef<'_>]) -> Column {
        let typing = Typing {
            infer_strings: true,
            ..Typing::default()
        };
        let mut b = Builder::new("x", 0, &typing, 4);
        for &v in values {
            assert!(b.push(v, 4, true));
        }
        b.finish(4)
    }

    fn s(text: &str) -> CellRef<'_> {
        CellRef::Str(text, text)
    }

    #[test]
    fn first_value_decides_and_widening_follows_the_rule() {
        let c = build(&[num("1"), num("2")]);
        assert_eq!(c.column_type(), ColumnType::Int);
        let c = build(&[num("1"), num("2.50"), num("1e-3")]);
        assert_eq!(
            c.column_type(),
            ColumnType::Decimal {
                precision: 4,
                scale: 3
            }
        );
        // Cells keep the text sent; the values are at scale 3.
        assert_eq!(c.cell(0), Cell::Number("1".into()));
        assert_eq!(c.cell(1), Cell::Number("2.50".into()));
        assert_eq!(c.cell(2), Cell::Number("1e-3".into()));
        let ColumnData::Decimal { values, .. } = &c.data else {
            panic!()
        };
        assert_eq!(values, &[1000, 2500, 1]);
        let c = build(&[s("2025-01-05"), CellRef::Null, s("2025-02-30")]);
        assert_eq!(c.column_type(), ColumnType::String);
        assert_eq!(c.cell(0), Cell::String("2025-01-05".into()));
        assert_eq!(c.cell(1), Cell::Null);
        assert_eq!(c.cell(2), Cell::String("2025-02-30".into()));
        let c = build(&[CellRef::Null, s("2025-01-05")]);
        assert_eq!(c.column_type(), ColumnType::Date);
        assert_eq!(c.cell(0), Cell::Null);
        let c = build(&[num("1.5"), CellRef::Str("x", "\"x\""), CellRef::Bool(true)]);
        assert_eq!(c.column_type(), ColumnType::String);
        assert_eq!(c.cell(0), Cell::String("1.5".into()));
        assert_eq!(c.cell(1), Cell::String("x".into()));
        assert_eq!(c.cell(2), Cell::String("true".into()));
        let c = build(&[num("1.5"), CellRef::Json("[1]")]);
        assert_eq!(c.column_type(), ColumnType::Json);
        assert_eq!(c.cell(0), Cell::Number("1.5".into()));
        let c = build(&[num(&"9".repeat(38)), num("0.5")]);
        assert_eq!(
            c.column_type(),
            ColumnType::String,
            "38 digits then a scale"
        );
        assert_eq!(c.cell(0), Cell::String("9".repeat(38)));
        assert_eq!(c.cell(1), Cell::String("0.5".into()));
        let c = build(&[num("1e400")]);
        assert_eq!(c.column_type(), ColumnType::String);
        assert_eq!(c.cell(0), Cell::String("1e400".into()));
        let c = build(&[CellRef::Null, CellRef::Null]);
        assert_eq!(c.data, ColumnData::Null { len: 2 });
        let c = build(&[num("-0")]);
        assert_eq!(
            c.column_type(),
            ColumnType::Decimal {
                precision: 1,
                scale: 0
            }
        );
    }

    #[test]
    fn duplicates_keep_the_last_value() {
        let mut sink = ColumnSink::new(10, Typing::default());
        sink.begin_row();
        sink.field("a", num("1"));
        sink.field("b", s("x"));
        sink.field("a", num("3"));
        sink.end_row();
        sink.begin_row();
        sink.field("b", s("y"));
        sink.end_row();
        let batches = sink.into_batches();
        let b = &batches[0];
        assert_eq!(b.num_rows, 2);
        assert_eq!(b.columns[0].cell(0), Cell::Int(3));
        assert_eq!(b.columns[0].cell(1), Cell::Null);
        assert_eq!(b.columns[1].cell(1), Cell::String("y".into()));
        assert_eq!(b.columns[1].data.null_count(), 0);
        let _ = Builder::new("t", 0, &Typing::default(), 4).text_len();
    }
}

#[cfg(test)]
mod reservation {
    use crate::{Config, DecoderOptions, TableDecoder};

    /// Room for a huge batch is not taken up front: reserving it would
    /// overflow or fail, and abort the process.
    #[test]
    fn a_huge_batch_size_reserves_only_what_rows_need() {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let options = DecoderOptions::with_batch_rows(usize::MAX / 2);
        let mut decoder = TableDecoder::new(&config, 200, options);
        let body = br#"{"status":"success","data":[{"a":1.5,"b":"x","c":"2025-01-01","d":true},{"a":2,"b":null}]}"#;
        assert!(decoder.feed(body).unwrap().is_empty());
        let finished = decoder.finish().unwrap();
        assert_eq!(finished.total_rows, 2);
        assert_eq!(finished.batches[0].num_rows, 2);
    }
}
