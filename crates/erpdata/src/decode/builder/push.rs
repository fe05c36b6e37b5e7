//! Storing a value in a column: in the type it has when the value fits
//! (the hot path), else after widening it.

use super::{Build, Builder, Class, Rule};
use crate::decode::columns::{Bitmap, Digits, ZERO_DATE_MARK, ZERO_TIMESTAMP_MARK};
use crate::decode::declared::DeclaredType;
use crate::decode::sink::{int_value, CellRef};
use crate::decode::text::{self, NumberText};
use crate::decode::{date, decimal, timestamp};

impl Builder {
    /// Stores `value`; `false` if the column's type is fixed and cannot
    /// hold it (nothing stored then).
    #[inline(always)]
    pub(super) fn push(&mut self, value: CellRef<'_>, capacity: usize, strings: bool) -> bool {
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
        self.counted(valid);
        true
    }

    /// Counts the value just stored in row `len`; `valid`: a value, not a
    /// null (whose slot is filled).
    #[inline(always)]
    pub(super) fn counted(&mut self, valid: bool) {
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
                return match push_date(values, &mut self.dates, s.as_bytes()) {
                    Some(valid) => Some(valid),
                    None => self.try_push_rare(value, strings, lenient),
                };
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
}

/// Stores the date text `s` in a Date column: `Some(true)` for a date,
/// `Some(false)` for MySQL's zero date (a null whose slot is filled),
/// `None` for any other text (nothing stored).
#[inline(always)]
pub(super) fn push_date(values: &mut Vec<i32>, dates: &mut date::Dates, s: &[u8]) -> Option<bool> {
    match dates.parse(s) {
        Some(d) => values.push(d),
        None if s == text::ZERO_DATE => {
            values.push(ZERO_DATE_MARK);
            return Some(false);
        }
        None => return None,
    }
    Some(true)
}

/// Stores `v`, a value written with `s` digits after the point, in a
/// Decimal column of scale `scale` (and `precision`, if fixed) as row
/// `row`: the stored value, or `None` if it does not fit (nothing stored).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn push_decimal(
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
