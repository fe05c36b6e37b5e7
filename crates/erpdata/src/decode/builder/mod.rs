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
//!
//! The column types are defined here so that every part below can reach
//! their fields: a column's life over a batch ([`column`]), storing a value
//! in the type the column has ([`push`]), choosing and converting to a
//! wider type ([`widen`]), reading a value of the column's type straight
//! from the bytes ([`read`]), and the sink that routes each row's values to
//! the columns ([`column_sink`]).

mod column;
mod column_sink;
mod key_text;
mod push;
mod read;
mod widen;

#[cfg(test)]
mod tests;

pub(crate) use column_sink::ColumnSink;
use key_text::KeyText;

use super::columns::{Bitmap, ColumnType, Sent, Texts};
use super::date;
use super::declared::{DeclaredSchema, DeclaredType};

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

/// A column being built.
#[derive(Debug)]
struct Builder {
    name: String,
    /// `"name":`, compared with the bytes where the column's key is
    /// expected.
    key_text: KeyText,
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
    /// A declared `decimal(P,S)`'s `P`: no value of more digits fits.
    /// Otherwise a Decimal column has precision 38, whatever its values.
    precision: Option<u8>,
}

/// `repr(u8)`: the variant is a byte of its own, read in one load. Left
/// to the compiler, it is folded into a spare bit pattern of a field, and
/// each value the fast path reads ([`Builder::read`]) first decodes it
/// (a load, an xor, a conditional move, a subtraction, a compare): about
/// 86 instructions a row of 13 fields (cachegrind, `sales_invoice`).
#[derive(Debug, Default)]
#[repr(u8)]
enum Build {
    /// No value yet: every row so far is null.
    #[default]
    Null,
    Bool(Bitmap),
    Int(Vec<i64>),
    Decimal {
        values: Vec<i128>,
        scale: u8,
        /// The largest absolute value in `values`, exactly (also after
        /// [`Builder::pop`]): the batch's numbers are fitted from it
        /// without reading every value again.
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
