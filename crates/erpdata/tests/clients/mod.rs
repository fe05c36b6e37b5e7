//! Both ready clients behind one blocking face, so a table-driven test
//! runs the same rows against `AsyncClient` (on its own runtime) and
//! `BlockingClient`.
#![allow(dead_code)] // each test binary uses its own part

use std::error::Error as _;

use erpdata::{
    AsyncClient, BlockingClient, ClientOptions, Config, DuesKind, Error, Id, Result, Table,
    TableQuery,
};
use futures_util::TryStreamExt;

/// The two clients, by the names of their fault-matrix columns.
pub const FLAVOURS: [&str; 2] = ["rust-async", "rust-blocking"];

#[derive(Debug)]
pub enum Client {
    Async(AsyncClient, tokio::runtime::Runtime),
    Blocking(Box<BlockingClient>),
}

/// How a streamed table ended.
#[derive(Debug)]
pub struct Streamed {
    /// Rows in the batches before the end.
    pub rows: usize,
    /// The error it ended with, if any.
    pub error: Option<Error>,
    /// Notices the end reported.
    pub notices: usize,
    /// Debug text of every batch and of the end, for scans.
    pub text: String,
}

impl Client {
    /// `flavour` is one of [`FLAVOURS`].
    pub fn new(flavour: &str, config: Config, options: ClientOptions) -> Result<Client> {
        Ok(match flavour {
            "rust-async" => Client::Async(
                AsyncClient::with_options(config, options)?,
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap(),
            ),
            "rust-blocking" => {
                Client::Blocking(Box::new(BlockingClient::with_options(config, options)?))
            }
            other => panic!("no client {other}"),
        })
    }

    /// The client's `Debug`, its config's and its options'.
    pub fn debug_text(&self) -> String {
        match self {
            Client::Async(c, _) => format!("{c:?} {:?} {:?}", c.config(), c.options()),
            Client::Blocking(c) => format!("{c:?} {:?} {:?}", c.config(), c.options()),
        }
    }

    pub fn table(&self, query: impl Into<TableQuery>) -> Result<Table> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.table(query)),
            Client::Blocking(c) => c.table(query),
        }
    }

    pub fn dues(&self, acid: impl Into<Id>, kind: DuesKind) -> Result<erpdata::Dues> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.dues(acid, kind)),
            Client::Blocking(c) => c.dues(acid, kind),
        }
    }

    pub fn ajax(&self, query: erpdata::AjaxQuery) -> Result<erpdata::AjaxAnswer> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.ajax(query)),
            Client::Blocking(c) => c.ajax(query),
        }
    }

    pub fn dues_query(&self, query: erpdata::DuesQuery) -> Result<erpdata::Dues> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.dues_query(query)),
            Client::Blocking(c) => c.dues_query(query),
        }
    }

    pub fn dues_table(
        &self,
        acids: &[&str],
        kind: DuesKind,
        concurrency: usize,
    ) -> Result<erpdata::TypedRows> {
        match self {
            Client::Async(c, rt) => {
                rt.block_on(c.dues_table(acids.iter().copied(), kind, concurrency))
            }
            Client::Blocking(c) => c.dues_table(acids.iter().copied(), kind, concurrency),
        }
    }

    pub fn aging(&self, plan: &erpdata::AgingPlan) -> Result<erpdata::TypedRows> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.aging(plan)),
            Client::Blocking(c) => c.aging(plan),
        }
    }

    pub fn credit_status(&self, plan: &erpdata::CreditStatusPlan) -> Result<erpdata::TypedRows> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.credit_status(plan)),
            Client::Blocking(c) => c.credit_status(plan),
        }
    }

    pub fn receivables(&self, acid: impl Into<Id>) -> Result<erpdata::Dues> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.receivables(acid)),
            Client::Blocking(c) => c.receivables(acid),
        }
    }

    pub fn payables(&self, acid: impl Into<Id>) -> Result<erpdata::Dues> {
        match self {
            Client::Async(c, rt) => rt.block_on(c.payables(acid)),
            Client::Blocking(c) => c.payables(acid),
        }
    }

    /// Takes a stream's first batch, then drops the stream: the batch's rows.
    pub fn first_batch_then_drop(&self, query: impl Into<TableQuery>) -> usize {
        match self {
            Client::Async(c, rt) => rt.block_on(async {
                let mut stream = c.stream_table(query).await.unwrap();
                stream.try_next().await.unwrap().unwrap().num_rows
            }),
            Client::Blocking(c) => {
                c.stream_table(query)
                    .unwrap()
                    .next()
                    .unwrap()
                    .unwrap()
                    .num_rows
            }
        }
    }

    /// Streams a table to its end. A stream that ends without an error
    /// must know its end; one that ends in an error must not.
    pub fn stream(&self, query: impl Into<TableQuery>) -> Streamed {
        let mut out = Streamed {
            rows: 0,
            error: None,
            notices: 0,
            text: String::new(),
        };
        match self {
            Client::Async(c, rt) => rt.block_on(async {
                let mut stream = match c.stream_table(query).await {
                    Ok(s) => s,
                    Err(e) => {
                        out.error = Some(e);
                        return;
                    }
                };
                out.text = format!("{stream:?}");
                loop {
                    match stream.try_next().await {
                        Ok(Some(batch)) => {
                            out.rows += batch.num_rows;
                            out.text += &format!("{batch:?}");
                        }
                        Ok(None) => {
                            let end = stream.end();
                            assert!(end.is_some(), "ended clean without an end");
                            out.notices = end.map_or(0, |e| e.notices.len());
                            out.text += &format!("{end:?}");
                            return;
                        }
                        Err(e) => {
                            assert!(stream.end().is_none(), "an end after an error");
                            out.error = Some(e);
                            return;
                        }
                    }
                }
            }),
            Client::Blocking(c) => {
                let mut batches = match c.stream_table(query) {
                    Ok(b) => b,
                    Err(e) => {
                        out.error = Some(e);
                        return out;
                    }
                };
                out.text = format!("{batches:?}");
                for batch in batches.by_ref() {
                    match batch {
                        Ok(batch) => {
                            out.rows += batch.num_rows;
                            out.text += &format!("{batch:?}");
                        }
                        Err(e) => {
                            assert!(batches.end().is_none(), "an end after an error");
                            out.error = Some(e);
                            return out;
                        }
                    }
                }
                let end = batches.end();
                assert!(end.is_some(), "ended clean without an end");
                out.notices = end.map_or(0, |e| e.notices.len());
                out.text += &format!("{end:?}");
            }
        }
        out
    }
}

/// An error's Display and Debug, and every source's, for scans.
pub fn error_text(e: &Error) -> String {
    let mut text = format!("{e}\n{e:?}");
    let mut source = e.source();
    while let Some(s) = source {
        text += &format!("\n{s}\n{s:?}");
        source = s.source();
    }
    text
}
