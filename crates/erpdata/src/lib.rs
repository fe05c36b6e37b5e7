//! # erpdata
//!
//! The Rust client of the cloud ERP data interface: the **dues query**
//! (`GET {base}/apis/ajax.php?func=getduesDet`) and the **table data fetch**
//! (`POST {base}/apis/dataapi.php`, `req=getdata`).
//!
//! At its heart is a sans-IO core: it builds each request and parses each
//! answer, and never opens a socket, reads a clock or draws a random
//! number. Optional features add ready clients that do the I/O with it.
//!
//! ## The flow of one call
//!
//! ```text
//!  your code ── DuesQuery / TableQuery ──┐
//!                                        ▼
//!  Config::dues_request / table_request      validate (Error::InvalidInput,
//!                                        │    nothing sent), build an
//!                                        │    http::Request<RequestBody>
//!                                        ▼
//!  Call::new(config, request, options,       the call's state machine: it
//!            sink, now, seed)                 answers what to do next
//!                                        │
//!        ┌──────── Call::next(now) ──────┤   Send / Read / Sleep / Emit /
//!        │                               │   Done / Failed
//!        ▼                               │
//!  a transport does it                   │   AsyncClient (reqwest),
//!  (send, read, sleep)                   │   BlockingClient (ureq), or yours
//!        │                               │
//!        └─ Call::head / chunk / end / ──┘   redirects, retries, time limits,
//!           failed(now, …)                    cut bodies, decoding: decided
//!                                             in the call
//! ```
//!
//! The transport only moves bytes, sleeps and reads its clock; every rule
//! of the wire format, of validation, of retrying, of redirects and of the
//! time budget is decided here, once, for Rust, Python and JavaScript
//! alike. [`Call`]'s documentation draws its states.
//!
//! ## Ready clients
//!
//! | feature | adds |
//! | --- | --- |
//! | `reqwest` | `AsyncClient` (reqwest on tokio, rustls) with a `Stream` of batches |
//! | `blocking` | `BlockingClient` (ureq, rustls) with an `Iterator` of batches |
//! | `arrow` | `Batch::to_record_batch` |
//! | `parallel` | `TableDecoder::decode_parallel`: large bodies decoded on several threads (rayon; not for wasm) |
//! | `serde` | `serde::Serialize` for [`Cell`], [`Row`], [`Table`], [`Dues`], [`TypedRows`], [`AjaxAnswer`]: a table as a web service's JSON (decimals as exact strings) |
//!
//! Both clients have `dues`, `receivables`, `payables`, `table` and
//! `stream_table`, the core's finite time limits ([`Timeouts`]) and retry
//! policy, per-call variants (`with_timeouts`, `with_max_retries`), and
//! are loops over a [`Call`]: their HTTP stacks never follow a redirect or
//! retry on their own, so the token and the form body are never sent to
//! another origin.
//!
#![cfg_attr(
    feature = "blocking",
    doc = r#"
```no_run
// Feature `blocking`; the configuration from ERPDATA_BASE_URL,
// ERPDATA_PROJECT, ERPDATA_ACCESS_TOKEN, ERPDATA_COMPANY_ID, ...
let client = erpdata::BlockingClient::from_env()?;
let dues = client.receivables("C001")?;
for batch in client.stream_table("sales_invoice")? {
    println!("{} rows", batch?.num_rows);
}
# Ok::<(), erpdata::Error>(())
```
"#
)]
//!
//! ## The core with your own HTTP stack
//!
//! [`Config::dues_request`] / [`Config::table_request`] validate the input
//! and describe the request as an [`http::Request<RequestBody>`]; a [`Call`]
//! made from it tells your transport what to do (the `sans_io` example is
//! a complete one); or, for one exchange without retries, you send it and
//! [`Config::parse_dues`] / [`Config::parse_table`] turn the status and body
//! into [`Dues`] / [`Table`] or a typed [`Error`]. A table can also be
//! decoded as it arrives: [`TableDecoder`] takes the body in chunks split
//! anywhere and gives [`Batch`]es of typed columns, in memory bounded by the
//! batch size. `parse_table` runs the same decoder, so both apply the same
//! rules. The `sans_io` example is a complete program with a hand-written
//! HTTP/1.1 transport.
//!
//! ```
//! use erpdata::{Config, DuesKind, DuesQuery};
//!
//! let config = Config::builder("https://erp.example.com/")
//!     .project("demo")
//!     .build()?;
//! let request = config.dues_request(&DuesQuery::new("C001", DuesKind::Receipt))?;
//! assert_eq!(
//!     request.uri().to_string(),
//!     "https://erp.example.com/apis/ajax.php?sys_projectfolder=demo&func=getduesDet&acid=C001&type=RECEIPT"
//! );
//! // ... send it, then:
//! let body = br#"{"status":"success","data":[{"doc_no":"INV-1","balance":1034.50}]}"#;
//! let dues = config.parse_dues(&DuesQuery::new("C001", DuesKind::Receipt), 200, body)?;
//! assert_eq!(dues.rows[0].get("balance"), Some(&erpdata::Cell::Number("1034.50".into())));
//! # Ok::<(), erpdata::Error>(())
//! ```
//!
//! ## Configuration and errors
//!
//! [`Config::builder`] sets the base URL, project, project folder, access
//! token and default company and year; [`Config::from_env`] reads the same
//! `ERPDATA_*` variables as the Python and JavaScript packages. The token is
//! an [`AccessToken`] that never prints. Every failure is one [`Error`]
//! variant; a [`Error::Transport`] keeps the host stack's error as its
//! [`std::error::Error::source`], each message redacted.
#![deny(missing_docs)]
// docs.rs (`--cfg docsrs`, on nightly) marks each item a feature gates
// with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The core's lower modules in import order: each imports only modules
// listed before it, so none is in an import cycle and each can be read and
// changed knowing just those:
//   token, redact, source, error, spelling, date, validate, config,
//   cell, excerpt, php_notice, decode.
// Redaction is its own module so that excerpts, error chains and the
// decoder need not know `Config`; decode meets it only in its public
// constructors. Queries, requests, responses, the call and the clients
// build on all of these. `config_api` holds the behaviour of `Config` (its
// requests, parsing, redirects, environment constructors, invocations and
// transport errors) as delegations to those modules; none of them imports
// it, so `Config`'s methods are in one place without a cycle.
mod aging;
mod ajax;
mod ajax_answer;
mod body;
mod call;
pub mod catalogue;
mod cell;
#[cfg(any(feature = "reqwest", feature = "blocking"))]
mod client;
mod config;
mod config_api;
mod credit;
mod date;
mod decode;
mod env;
mod error;
mod excerpt;
mod id;
mod json;
mod log_line;
mod php_array;
mod php_notice;
mod plan;
mod query;
mod redact;
mod redirect;
mod request;
mod response;
mod retry;
mod retry_budget;
mod source;
mod spelling;
mod token;
pub mod validate;

pub use aging::{aging, AgingOptions, BALANCE_COLUMNS, DEFAULT_BUCKETS, DUE_DATE_COLUMNS};
pub use ajax::{AjaxFunction, AjaxOptions, AjaxQuery, RESERVED_PARAMS};
pub use ajax_answer::{AjaxAnswer, AjaxValue, TypedRows};
pub use body::RequestBody;
pub use call::{
    Action, Answer, Call, CallOptions, Head, OwnedChunk, Parsed, Sink, StreamEnd, TableStream,
    Timeouts, WholeBody, DEFAULT_BATCH_ROWS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_AFTER, DEFAULT_READ_TIMEOUT, DEFAULT_ROW_BATCH_ROWS, DEFAULT_TOTAL_TIMEOUT,
    MAX_BATCH_ROWS, MAX_CONCURRENCY, MAX_RETRIES, MAX_TIMEOUT, MIN_BATCH_ROWS,
};
pub use catalogue::{
    operation, Arg, Args, Invocation, Operation, OperationSink, Output, TableBatches, WholeTable,
    OPERATIONS,
};
pub use cell::{Cell, Row};
#[cfg(any(feature = "reqwest", feature = "blocking"))]
pub use client::ClientOptions;
#[cfg(feature = "reqwest")]
pub use client::{AsyncClient, BatchStream};
#[cfg(feature = "blocking")]
pub use client::{BatchIter, BlockingClient};
pub use config::{Config, ConfigBuilder};
pub use credit::{
    account_ids, credit_status, credit_status_of, pay_days, pay_days_of_text, PAY_DAYS_FIELDS,
};
pub use decode::{
    civil_from_days, parse_decimal, parse_plain_decimal, timestamp_parts, unify_schemas,
    write_timestamp, Batch, Bitmap, Column, ColumnData, ColumnType, DeclaredSchema, DeclaredType,
    DecoderOptions, Digits, Finished, Interner, Numbering, RowsFrom, Schema, Sent, TableDecoder,
    Texts, ZERO_DATE_MARK, ZERO_TIMESTAMP_MARK,
};
#[cfg(feature = "parallel")]
pub use decode::{Decoded, ParallelOptions};
#[cfg(feature = "arrow")]
pub use decode::{
    Dictionary, DICTIONARY_MIN_VALUES, DICTIONARY_SAMPLE, JSON_TYPE, TYPE_METADATA_KEY,
};
pub use env::{
    ACCESS_TOKEN_VAR, BASE_URL_VAR, COMPANY_ID_VAR, PROJECT_FOLDER_VAR, PROJECT_VAR, YEAR_ID_VAR,
};
pub use error::{CallInfo, Error, Result, TransportKind};
pub use id::Id;
pub use plan::{AgingPlan, CreditStatusPlan, Plan, PlanStep, PlannedCall};
pub use query::{DuesKind, DuesQuery, Method, TableQuery};
pub use redirect::MAX_REDIRECTS;
pub use request::{FORM_CONTENT_TYPE, USER_AGENT_VALUE};
pub use response::{Dues, Table};
pub use retry::{Decision, Outcome, RetryPolicy};
pub use retry_budget::{
    RetryBudget, RETRY_BUDGET_FAILURE_COST, RETRY_BUDGET_SUCCESS_CREDIT, RETRY_BUDGET_THRESHOLD,
    RETRY_BUDGET_TOKENS,
};
pub use source::TransportSource;
pub use token::{AccessToken, REDACTED};
/// What the Python and JavaScript bindings share with the core and a Rust
/// program has no use for: checks of the loosely typed numbers a binding is
/// given (a Rust caller's types and `ClientOptions`' setters already
/// bound them) and the JavaScript spelling of the core's names. Not part
/// of the documented API; it may change in any release.
#[doc(hidden)]
pub mod binding {
    pub use crate::call::{
        check_batch_rows, check_concurrency, check_max_retries, check_max_retry_after,
        check_max_retry_after_millis,
    };
    pub use crate::spelling::{closest, js_name};
}
/// The Arrow crates this crate's Arrow output is built with (feature
/// `arrow`), so that callers use the same versions.
#[cfg(feature = "arrow")]
pub use {arrow_array, arrow_buffer, arrow_schema};

/// The crate's README, compiled and run as doctests.
#[cfg(all(doctest, feature = "reqwest", feature = "blocking", feature = "serde"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
