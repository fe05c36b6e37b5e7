//! A call's arguments as a binding hands them over: values of a few plain
//! shapes, named, checked here against the operation's parameters.

use std::str::FromStr;

use super::{Operation, Param, ParamKind};
use crate::error::{Error, Result};
use crate::id::Id;
use crate::query::{DuesKind, Method};
use crate::validate;

/// One argument's value, converted from the caller's language by shape
/// only; what it may be is the catalogue's to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Text (a date is given as its `YYYY-MM-DD` text).
    Text(String),
    /// An integer.
    Int(i64),
    /// A boolean.
    Flag(bool),
    /// `(name, value)` pairs, in order.
    Pairs(Vec<(String, Arg)>),
    /// A list of values.
    List(Vec<Arg>),
    /// A date with a time, as ISO text: given where a date is wanted, it is
    /// refused rather than cut.
    DateTime(String),
    /// A value of no shape above: its type's name in the caller's
    /// language, for the message.
    Unsupported(String),
}

impl Arg {
    /// What the value is, for a message.
    pub(crate) fn shape(&self) -> String {
        match self {
            Arg::Text(t) => format!("{:?}", t.chars().take(40).collect::<String>()),
            Arg::Int(n) => n.to_string(),
            Arg::Flag(b) => b.to_string(),
            Arg::Pairs(_) => "a mapping".to_owned(),
            Arg::List(_) => "a list".to_owned(),
            Arg::DateTime(t) => format!("the date and time {t}"),
            Arg::Unsupported(t) => format!("a value of type {t}"),
        }
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Text(s.to_owned())
    }
}

impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Text(s)
    }
}

impl From<i64> for Arg {
    fn from(n: i64) -> Self {
        Arg::Int(n)
    }
}

impl From<bool> for Arg {
    fn from(b: bool) -> Self {
        Arg::Flag(b)
    }
}

impl From<&Id> for Arg {
    fn from(id: &Id) -> Self {
        Arg::Text(id.as_str().to_owned())
    }
}

/// A call's named arguments. An absent (or null) argument is simply not
/// given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    values: Vec<(String, Arg)>,
}

impl Args {
    /// No arguments.
    pub fn new() -> Self {
        Args::default()
    }

    /// These arguments and `name` = `value` (replacing an earlier one).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Arg>) -> Self {
        self.set(name, value);
        self
    }

    /// Sets `name` = `value` (replacing an earlier one).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Arg>) {
        let name = name.into();
        let value = value.into();
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
    }

    /// The value of the argument called `name` (in either spelling of
    /// `param`).
    fn get(&self, param: &Param) -> Option<&Arg> {
        self.values
            .iter()
            .find(|(n, _)| n == param.name || n == param.js_name)
            .map(|(_, v)| v)
    }

    /// Refuses an argument `op` does not take, naming the ones it does.
    pub(crate) fn check_names(&self, op: &Operation) -> Result<()> {
        for (name, _) in &self.values {
            if op.param(name).is_none() {
                let takes: Vec<&str> = op.params.iter().map(|p| p.name).collect();
                let takes = if takes.is_empty() {
                    "no arguments".to_owned()
                } else {
                    takes.join(", ")
                };
                return Err(Error::invalid(
                    name,
                    format!("is not an argument of {}; it takes {takes}", op.name),
                ));
            }
        }
        Ok(())
    }

    fn required<'a>(&'a self, op: &Operation, name: &str) -> Result<(&'static Param, &'a Arg)> {
        let param = op.param(name).expect("the entry names its parameters");
        match self.get(param) {
            Some(value) => Ok((param, value)),
            None => Err(Error::invalid(field(param), "is required")),
        }
    }

    fn optional<'a>(&'a self, op: &Operation, name: &str) -> Option<(&'static Param, &'a Arg)> {
        let param = op.param(name).expect("the entry names its parameters");
        self.get(param).map(|value| (param, value))
    }

    /// A text argument (kinds `Text`, `Name`, `Table`, `Date`), checked.
    pub(crate) fn text(&self, op: &Operation, name: &str) -> Result<String> {
        let (param, value) = self.required(op, name)?;
        text_of(param, value)
    }

    /// An id argument (kind `AccountId`), checked.
    pub(crate) fn id(&self, op: &Operation, name: &str) -> Result<Id> {
        let (param, value) = self.required(op, name)?;
        id_of(param, value)
    }

    /// An optional id argument (kind `Id`), checked when given.
    pub(crate) fn opt_id(&self, op: &Operation, name: &str) -> Result<Option<Id>> {
        self.optional(op, name)
            .map(|(param, value)| id_of(param, value))
            .transpose()
    }

    /// The dues kind argument.
    pub(crate) fn dues_kind(&self, op: &Operation, name: &str) -> Result<DuesKind> {
        let (param, value) = self.required(op, name)?;
        match value {
            Arg::Text(t) => DuesKind::from_str(t),
            other => Err(wrong(param, other, "RECEIPT or PAYMENT")),
        }
    }

    /// An optional method argument.
    pub(crate) fn method(&self, op: &Operation, name: &str) -> Result<Option<Method>> {
        self.optional(op, name)
            .map(|(param, value)| match value {
                Arg::Text(t) => Method::from_str(t),
                other => Err(wrong(param, other, "GET or POST")),
            })
            .transpose()
    }

    /// An optional flag argument.
    pub(crate) fn flag(&self, op: &Operation, name: &str) -> Result<Option<bool>> {
        self.optional(op, name)
            .map(|(param, value)| match value {
                Arg::Flag(b) => Ok(*b),
                other => Err(wrong(param, other, "true or false")),
            })
            .transpose()
    }

    /// Optional pairs: names text, values text or integers (sent as their
    /// text). The names themselves are checked where they are sent.
    pub(crate) fn pairs(&self, op: &Operation, name: &str) -> Result<Vec<(String, String)>> {
        let Some((param, value)) = self.optional(op, name) else {
            return Ok(Vec::new());
        };
        let Arg::Pairs(pairs) = value else {
            return Err(wrong(param, value, "a mapping of names to values"));
        };
        pairs
            .iter()
            .map(|(k, v)| match v {
                Arg::Text(t) => Ok((k.clone(), t.clone())),
                Arg::Int(n) => Ok((k.clone(), n.to_string())),
                other => Err(Error::invalid(
                    k,
                    format!("must be text or an integer, got {}", other.shape()),
                )),
            })
            .collect()
    }
}

/// The name an error gives a parameter: its own, but `table` for a
/// table's name, as the table fetch's rules name it.
fn field(param: &Param) -> &'static str {
    match param.kind {
        ParamKind::Table => "table",
        _ => param.name,
    }
}

fn wrong(param: &Param, value: &Arg, wanted: &str) -> Error {
    Error::invalid(
        field(param),
        format!("must be {wanted}, got {}", value.shape()),
    )
}

fn text_of(param: &Param, value: &Arg) -> Result<String> {
    let wanted = match param.kind {
        ParamKind::Date => "a date as YYYY-MM-DD text",
        ParamKind::Name | ParamKind::Table => "a name (text)",
        _ => "text",
    };
    match value {
        Arg::Text(t) => {
            match param.kind {
                ParamKind::Date => validate::date(param.name, t)?,
                ParamKind::Name => validate::identifier(param.name, t)?,
                ParamKind::Table => validate::table(t)?,
                ParamKind::AccountId | ParamKind::Id => validate::id(param.name, t)?,
                _ => validate::text(param.name, t)?,
            }
            Ok(t.clone())
        }
        Arg::DateTime(t) if param.kind == ParamKind::Date => Err(Error::invalid(
            field(param),
            format!("must be a date, not a date and time ({t}); pass its date"),
        )),
        other => Err(wrong(param, other, wanted)),
    }
}

fn id_of(param: &Param, value: &Arg) -> Result<Id> {
    match value {
        Arg::Text(t) => {
            validate::id(param.name, t)?;
            Ok(Id::from(t.as_str()))
        }
        Arg::Int(n) => Ok(Id::from(*n)),
        other => Err(wrong(param, other, "text or an integer")),
    }
}
