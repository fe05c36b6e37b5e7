//! The catalogue of operations: every operation of the interface described
//! once, as data.
//!
//! An [`Operation`] names its wire function and endpoint, its parameters
//! and their kinds, what its answer is, when the token goes with it and a
//! doc line. [`Config::invoke`](crate::Config::invoke) checks a call's
//! [`Args`] against the entry (every message is the core's) and gives an
//! [`Invocation`]: its request, and the parser or decoder of its answer.
//! Bindings look operations up here and never match on their names, so
//! adding an operation is adding an entry (see `docs/architecture.md`).

mod args;
mod entries;
mod invocation;
mod whole_table;

pub use args::{Arg, Args};
pub use entries::AjaxFunction;
pub use invocation::{Invocation, OperationSink, Output, Query};
pub use whole_table::{TableBatches, WholeTable};

use crate::error::{Error, Result};

/// Where an operation is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `{base}/apis/ajax.php`, with `sys_projectfolder` and `func`.
    Ajax,
    /// `{base}/apis/dataapi.php`, with `req=getdata`.
    DataApi,
}

impl Endpoint {
    /// The script's file name under `apis/`.
    pub fn file(self) -> &'static str {
        match self {
            Endpoint::Ajax => "ajax.php",
            Endpoint::DataApi => "dataapi.php",
        }
    }
}

/// What a parameter takes, and so how it is checked and converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An account id: text or an integer, sent exactly as given.
    AccountId,
    /// A company or year id: text or an integer, sent as given; when
    /// absent, the configuration's default.
    Id,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// Text: not empty, no control characters.
    Text,
    /// A plain identifier (a function's name).
    Name,
    /// A table's name: a plain identifier of at most 64 characters.
    Table,
    /// `RECEIPT` or `PAYMENT`, in any case.
    DuesKind,
    /// `(name, value)` pairs in order; values text or integers.
    Pairs,
    /// `GET` or `POST`, in any case.
    Method,
    /// `true` or `false`.
    Flag,
}

impl ParamKind {
    /// The kind's name in the catalogue's description (and in generated
    /// facades).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::AccountId => "account_id",
            ParamKind::Id => "id",
            ParamKind::Date => "date",
            ParamKind::Text => "text",
            ParamKind::Name => "name",
            ParamKind::Table => "table",
            ParamKind::DuesKind => "dues_kind",
            ParamKind::Pairs => "pairs",
            ParamKind::Method => "method",
            ParamKind::Flag => "flag",
        }
    }
}

/// One parameter of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Param {
    /// Its name as an argument, in snake case (`start`, `company_id`).
    pub name: &'static str,
    /// Its name in JavaScript (`start`, `companyId`).
    pub js_name: &'static str,
    /// Its name on the wire (`sdate`, `compid`), or `None` for an option
    /// of the call itself (`send_token`, `method`, the generic call's
    /// parameters).
    pub wire: Option<&'static str>,
    /// What it takes.
    pub kind: ParamKind,
    /// Whether a call must give it.
    pub required: bool,
    /// One line for a reader (a model, a `--help`, a docstring), in
    /// markdown: code in backticks.
    pub doc: &'static str,
}

/// What an operation's answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerKind {
    /// The dues rows of one account ([`Dues`](crate::Dues)).
    Dues,
    /// A function's answer: rows, one object or one value
    /// ([`AjaxAnswer`](crate::AjaxAnswer)).
    Function,
    /// A whole table ([`Table`](crate::Table)), decoded as it arrives.
    Table,
}

impl AnswerKind {
    /// The kind's name in the catalogue's description.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerKind::Dues => "dues",
            AnswerKind::Function => "function",
            AnswerKind::Table => "table",
        }
    }
}

/// When the access token goes with an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenRule {
    /// Always (the table fetch): in the POST body, or the URL of the GET
    /// form the caller chose.
    Always,
    /// Only when asked (`send_token`, or the configuration's
    /// `ajax_token`): the interface defines no credential for `ajax.php`.
    OnRequest,
}

impl TokenRule {
    /// The rule's name in the catalogue's description.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenRule::Always => "always",
            TokenRule::OnRequest => "on_request",
        }
    }
}

/// One operation of the interface.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// Its name in snake case: the Python and Rust method (`net_profit`).
    pub name: &'static str,
    /// Its name in JavaScript (`netProfit`).
    pub js_name: &'static str,
    /// The wire function (`func`), or `None` where the call gives it (the
    /// generic `ajax` call) or the endpoint has none (the table fetch).
    pub func: Option<&'static str>,
    /// Where it is sent.
    pub endpoint: Endpoint,
    /// Its parameters, in the order a call lists them.
    pub params: &'static [Param],
    /// What it answers.
    pub answer: AnswerKind,
    /// When the token goes with it.
    pub token: TokenRule,
    /// One line for a reader, in markdown (code in backticks): the first
    /// line of the generated methods' docs, a CLI command's help.
    pub doc: &'static str,
    /// Checks `args` against the entry and makes the query.
    pub(crate) build: fn(&Args) -> Result<Query>,
}

impl Operation {
    /// The command's name in a CLI (`net-profit`).
    pub fn cli_name(&self) -> String {
        self.name.replace('_', "-")
    }

    /// The parameter called `name` (snake or JavaScript spelling).
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params
            .iter()
            .find(|p| p.name == name || p.js_name == name)
    }
}

impl PartialEq for Operation {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Operation {}

/// Every operation of the interface, in the order the docs list them.
// A constant, not a static: rustdoc's sidebar links a module's statics to
// an anchor its page does not have.
pub const OPERATIONS: &[Operation] = entries::ALL;

/// The operation called `name`, in snake case or JavaScript spelling;
/// an unknown name is an `InvalidInput` error on `operation` listing
/// them.
pub fn operation(name: &str) -> Result<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|op| op.name == name || op.js_name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
            Error::invalid(
                "operation",
                format!(
                    "unknown operation {:?}; the operations are {}",
                    name.chars().take(40).collect::<String>(),
                    names.join(", ")
                ),
            )
        })
}

/// The whole catalogue as JSON, for generated facades, a CLI's commands
/// and an assistant's tools: each operation's names, wire function,
/// endpoint, answer, token rule, doc line and parameters.
pub fn catalogue_json() -> String {
    let ops: Vec<serde_json::Value> = OPERATIONS
        .iter()
        .map(|op| {
            let params: Vec<serde_json::Value> = op
                .params
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": p.name,
                        "js_name": p.js_name,
                        "wire": p.wire,
                        "kind": p.kind.as_str(),
                        "required": p.required,
                        "doc": p.doc,
                    })
                })
                .collect();
            serde_json::json!({
                "name": op.name,
                "js_name": op.js_name,
                "cli_name": op.cli_name(),
                "func": op.func,
                "endpoint": op.endpoint.file(),
                "answer": op.answer.as_str(),
                "token": op.token.as_str(),
                "doc": op.doc,
                "params": params,
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "operations": ops }))
        .expect("the catalogue is plain JSON")
}

/// The wire pairs of a named `ajax.php` function, each value checked as
/// its parameter's kind says, and a `start`/`end` range in order.
pub(crate) fn wire_pairs<'a>(
    op: &Operation,
    values: Vec<&'a str>,
) -> Result<Vec<(&'static str, &'a str)>> {
    let mut out = Vec::with_capacity(values.len());
    for (param, value) in op.params.iter().filter(|p| p.wire.is_some()).zip(values) {
        match param.kind {
            ParamKind::Date => crate::validate::date(param.name, value)?,
            ParamKind::Name => crate::validate::identifier(param.name, value)?,
            ParamKind::Table => crate::validate::table(value)?,
            ParamKind::AccountId | ParamKind::Id => crate::validate::id(param.name, value)?,
            _ => crate::validate::text(param.name, value)?,
        }
        if let Some(wire) = param.wire {
            out.push((wire, value));
        }
    }
    let find = |name: &str| {
        op.params
            .iter()
            .filter(|p| p.wire.is_some())
            .zip(&out)
            .find(|(p, _)| p.name == name)
            .map(|(_, (_, v))| *v)
    };
    if let (Some(start), Some(end)) = (find("start"), find("end")) {
        crate::validate::date_range(start, end)?;
    }
    Ok(out)
}
