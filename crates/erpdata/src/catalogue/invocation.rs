//! An operation with its arguments checked: the request to send, and what
//! its answer becomes.

use http::Request;

use super::whole_table::{TableBatches, WholeTable};
use super::{AnswerKind, Args, Operation};
use crate::ajax::AjaxQuery;
use crate::ajax_answer::AjaxAnswer;
use crate::body::{debug_answer, RequestBody};
use crate::call::Sink;
use crate::config::Config;
use crate::decode::{DecoderOptions, RowsFrom};
use crate::error::Result;
use crate::query::{DuesQuery, TableQuery};
use crate::response::{Dues, Table};

/// The typed query an entry makes of its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// A dues query.
    Dues(DuesQuery),
    /// A function of `ajax.php`.
    Function(AjaxQuery),
    /// A table fetch.
    Table(TableQuery),
}

/// What an operation answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// A dues query's rows.
    Dues(Dues),
    /// A function's answer.
    Function(AjaxAnswer),
    /// A whole table, rows included (a Rust [`Table`]).
    Table(Table),
    /// A whole table's typed columns only (an invocation made
    /// [`Invocation::columns_only`]: what bindings and plans read).
    Batches(TableBatches),
}

macro_rules! into {
    ($name:ident, $variant:ident, $t:ty) => {
        #[doc = concat!("The output as [`", stringify!($t), "`], or an error saying what it is instead.")]
        pub fn $name(self) -> Result<$t> {
            match self {
                Output::$variant(v) => Ok(v),
                other => Err(crate::error::Error::invalid(
                    "operation",
                    format!("answered {}, not {}", other.kind(), stringify!($t)),
                )),
            }
        }
    };
}

impl Output {
    into!(into_dues, Dues, Dues);
    into!(into_function, Function, AjaxAnswer);
    into!(into_table, Table, Table);
    into!(into_batches, Batches, TableBatches);

    /// What the output is, for a message.
    pub fn kind(&self) -> &'static str {
        match self {
            Output::Dues(_) => "dues",
            Output::Function(_) => "a function's answer",
            Output::Table(_) => "a table",
            Output::Batches(_) => "a table's columns",
        }
    }
}

/// An operation and its checked arguments: everything needed to send it
/// and to read its answer. Made by [`Config::invoke`], which has built its
/// request once, so nothing invalid gets this far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    operation: &'static Operation,
    query: Query,
    columns_only: bool,
}

impl Invocation {
    /// The operation's catalogue entry.
    pub fn operation(&self) -> &'static Operation {
        self.operation
    }

    /// This invocation with a table answer kept as typed columns only
    /// ([`Output::Batches`]), without the rows as sent.
    pub fn columns_only(mut self) -> Self {
        self.columns_only = true;
        self
    }

    /// The typed query.
    pub fn query(&self) -> &Query {
        &self.query
    }

    /// The request to send (the same each time it is asked for).
    pub fn request(&self, config: &Config) -> Result<Request<RequestBody>> {
        match &self.query {
            Query::Dues(q) => config.dues_request(q),
            Query::Function(q) => config.ajax_request(q),
            Query::Table(q) => config.table_request(q),
        }
    }

    /// Parses a whole answer (status and body) as the entry says.
    pub fn parse(
        &self,
        config: &Config,
        status: u16,
        body: &[u8],
        options: &DecoderOptions,
    ) -> Result<Output> {
        Ok(match &self.query {
            Query::Dues(q) => Output::Dues(config.parse_dues_with(q, status, body, options)?),
            Query::Function(q) => {
                Output::Function(config.parse_ajax_with(q, status, body, options)?)
            }
            Query::Table(_) => {
                let mut table = if self.columns_only {
                    WholeTable::new(options.clone())
                } else {
                    WholeTable::with_rows(options.clone())
                };
                table.start(config, status)?;
                table.feed(body)?;
                self.table_output(&mut table)?
            }
        })
    }

    /// Where a [`Call`](crate::Call) of this invocation puts the body: a
    /// table is decoded as it arrives, the other answers (small) are
    /// parsed whole.
    pub fn sink(&self, options: DecoderOptions) -> OperationSink {
        let body = match self.operation.answer {
            AnswerKind::Table if self.columns_only => {
                Body::Table(Box::new(WholeTable::new(options.clone())))
            }
            AnswerKind::Table => Body::Table(Box::new(WholeTable::with_rows(options.clone()))),
            AnswerKind::Dues | AnswerKind::Function => Body::Whole {
                status: 0,
                body: Vec::new(),
            },
        };
        OperationSink {
            invocation: self.clone(),
            options,
            config: None,
            body,
        }
    }
}

impl Invocation {
    fn table_output(&self, table: &mut WholeTable) -> Result<Output> {
        Ok(if self.columns_only {
            Output::Batches(table.finish_batches()?)
        } else {
            Output::Table(table.finish_table()?)
        })
    }
}

impl Invocation {
    /// The invocation of a typed query ([`Config::invocation`]).
    pub(crate) fn of_query(config: &Config, query: Query) -> Result<Invocation> {
        let operation = match &query {
            Query::Dues(_) => super::operation("dues")?,
            Query::Table(_) => super::operation("table")?,
            Query::Function(q) => q.operation(),
        };
        Invocation::checked(config, operation, query)
    }

    /// The invocation of `operation` with `args`, checked ([`Config::invoke`]).
    pub(crate) fn of_args(
        config: &Config,
        operation: &'static Operation,
        args: &Args,
    ) -> Result<Invocation> {
        args.check_names(operation)?;
        Invocation::checked(config, operation, (operation.build)(args)?)
    }

    /// The invocation once its request builds: what building it checks
    /// (the project, the token, ids and names) is checked before anything
    /// is sent.
    fn checked(config: &Config, operation: &'static Operation, query: Query) -> Result<Invocation> {
        let invocation = Invocation {
            operation,
            query,
            columns_only: false,
        };
        invocation.request(config)?;
        Ok(invocation)
    }
}

enum Body {
    Whole { status: u16, body: Vec<u8> },
    Table(Box<WholeTable>),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Whole { status, body } => debug_answer(f, "Whole", *status, body),
            Body::Table(table) => f.debug_tuple("Table").field(table).finish(),
        }
    }
}

/// The sink of an [`Invocation`]'s call: its output is the operation's
/// [`Output`].
#[derive(Debug)]
pub struct OperationSink {
    invocation: Invocation,
    options: DecoderOptions,
    config: Option<Config>,
    body: Body,
}

impl OperationSink {
    /// For a table answer, whether every row so far had the same keys in
    /// the same order (see [`WholeTable::rows_regular`]); other answers
    /// have no rows to rebuild.
    pub fn rows_regular(&self) -> bool {
        match &self.body {
            Body::Table(table) => table.rows_regular(),
            Body::Whole { .. } => true,
        }
    }

    /// For a table answer, the last row begun (see
    /// [`TableDecoder::rows_from`](crate::TableDecoder::rows_from)).
    pub fn rows_from(&self) -> Option<RowsFrom> {
        match &self.body {
            Body::Table(table) => table.rows_from(),
            Body::Whole { .. } => None,
        }
    }
}

impl Sink for OperationSink {
    type Output = Output;

    fn start(&mut self, config: &Config, status: u16) -> Result<()> {
        self.config = Some(config.clone());
        match &mut self.body {
            Body::Whole { status: s, body } => {
                *s = status;
                body.clear();
                Ok(())
            }
            Body::Table(table) => table.start(config, status),
        }
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        match &mut self.body {
            Body::Whole { body, .. } => {
                body.extend_from_slice(chunk);
                Ok(())
            }
            Body::Table(table) => table.feed(chunk),
        }
    }

    fn rows(&self) -> Option<u64> {
        match &self.body {
            Body::Whole { .. } => None,
            Body::Table(table) => table.rows(),
        }
    }

    fn check(&mut self) -> Result<()> {
        match &mut self.body {
            Body::Whole { .. } => Ok(()),
            Body::Table(table) => table.check(),
        }
    }

    fn finish(&mut self) -> Result<Output> {
        let config = self.config.as_ref().expect("finish after start");
        match &mut self.body {
            Body::Whole { status, body } => {
                let body = std::mem::take(body);
                self.invocation.parse(config, *status, &body, &self.options)
            }
            Body::Table(table) => self.invocation.table_output(table),
        }
    }
}
