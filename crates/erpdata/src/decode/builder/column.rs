//! A column being built over one batch: made, emptied for the next batch,
//! given nulls, finished into a [`Column`], and locked to one type.

use super::{Build, Builder, KeyText, Rule, Typing};
use crate::decode::batch::DecimalReach;
#[cfg(doc)]
use crate::decode::batch::NumberReach;
use crate::decode::columns::{Bitmap, Column, ColumnData, ColumnType, Digits, Sent, Texts};
use crate::decode::date;
use crate::decode::decimal;
use crate::decode::declared::DeclaredType;
use crate::decode::sink::CellRef;

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
    pub(super) fn new(name: &str, rows: usize, typing: &Typing, capacity: usize) -> Self {
        let rule = typing
            .declared
            .get(name)
            .map_or(Rule::Infer, Rule::Declared);
        let precision = match rule {
            Rule::Declared(DeclaredType::Decimal(Some((p, _)))) => Some(p),
            _ => None,
        };
        let mut b = Builder {
            name: name.to_owned(),
            key_text: KeyText::new(name),
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

    #[inline]
    pub(super) fn push_null(&mut self) {
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
    pub(super) fn pop(&mut self) {
        let row = self.len - 1;
        match &mut self.data {
            Build::Null => {}
            Build::Bool(b) => b.pop(),
            Build::Int(v) => {
                v.pop();
            }
            Build::Decimal {
                values,
                max_abs,
                sent,
                ..
            } => {
                let popped = values.pop().map_or(0, i128::unsigned_abs);
                if popped != 0 && popped == *max_abs {
                    // Rare (a key sent twice in a row): read the rest again.
                    *max_abs = decimal::max_abs(values).unwrap_or(0);
                }
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

    pub(super) fn finish_data(&mut self, validity: Option<Bitmap>) -> ColumnData {
        let validity = validity.filter(|v| v.count_set() != v.len());
        match std::mem::take(&mut self.data) {
            Build::Null => ColumnData::Null { len: self.len },
            Build::Bool(values) => ColumnData::Bool { values, validity },
            Build::Int(values) => ColumnData::Int { values, validity },
            Build::Decimal {
                values,
                scale,
                sent,
                ..
            } => ColumnData::Decimal {
                values,
                // Whatever the values: the type does not depend on which
                // rows came back.
                precision: self.precision.unwrap_or(decimal::MAX_PRECISION),
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
    pub(super) fn finish(&mut self, capacity: usize) -> Column {
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
    pub(super) fn lock(&mut self, ty: ColumnType, capacity: usize) -> ColumnType {
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

    /// Why `value` does not fit, for the error, and what to declare to
    /// read it (another type when the caller declared this one).
    pub(super) fn misfit(&self, value: CellRef<'_>, row: u64) -> String {
        let what = describe(value);
        let (ty, how, declared) = match self.rule {
            Rule::Declared(t) => (t.to_string(), "declared", true),
            Rule::Locked { ty, lenient: true } => (ty.name(), "declared", true),
            Rule::Locked { ty, .. } => (ty.name(), "fixed by the stream's first batch", false),
            Rule::Infer => (self.type_now().name(), "inferred", false),
        };
        let fix = if declared {
            "declare another type for the column (for example \"string\", which takes every \
             value as sent) to read it"
        } else {
            "declare the column's type (for example \"string\") to read it"
        };
        format!(
            "column `{}`, row {row}: {what} does not fit its type {ty} ({how}); {fix}",
            self.name
        )
    }

    /// A Decimal column's scale and largest absolute value so far, known
    /// without reading the values (see [`NumberReach::fit`]).
    pub(super) fn decimal_reach(&self) -> Option<DecimalReach> {
        match &self.data {
            Build::Decimal { scale, max_abs, .. } => Some(DecimalReach {
                scale: *scale,
                max_abs: *max_abs,
            }),
            _ => None,
        }
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

impl Builder {
    #[cfg(test)]
    pub(super) fn text_len(&self) -> usize {
        self.text_bytes()
    }
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

pub(super) fn zeros<T: Default + Clone>(len: usize, capacity: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(capacity);
    v.resize(len, T::default());
    v
}

pub(super) fn empty_texts(len: usize, capacity: usize, hint_bytes: usize) -> Texts {
    let mut t = Texts::with_capacity(capacity.max(len + 1), hint_bytes.max(capacity * 8));
    for _ in 0..len {
        t.push("");
    }
    t
}
