//! Choosing the type a column must become to hold a value too, and
//! converting the values so far to it.

use super::column::{empty_texts, zeros};
use super::{Build, Builder, Class};
use crate::decode::columns::{Bitmap, ColumnData, ColumnType, Digits, Sent, Texts};
use crate::decode::date;
use crate::decode::decimal;
use crate::decode::sink::{int_value, CellRef};
use crate::decode::text::{self, NumberText};
use crate::decode::timestamp;

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

impl Builder {
    /// The type the column must become to hold `value` too, by the
    /// documented rule (see [`crate::decode`]).
    pub(super) fn target(&self, value: CellRef<'_>, strings: bool) -> Class {
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
                // `max_abs` is the largest value's, so if it fits, all do.
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
    pub(super) fn widen(&mut self, target: Class, capacity: usize) {
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
}
