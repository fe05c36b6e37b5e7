//! # erpdata
//!
//! The sans-IO core of the client SDK for the cloud ERP data interface: the
//! **dues query** (`GET {base}/apis/ajax.php?func=getduesDet`) and the
//! **table data fetch** (`POST {base}/apis/dataapi.php`, `req=getdata`).
//!
//! The crate never opens a socket. A call goes:
//!
//! 1. [`Config::dues_request`] / [`Config::table_request`] validate the input
//!    and describe the request as an [`http::Request<Vec<u8>>`];
//! 2. you send it with any HTTP stack;
//! 3. [`Config::parse_dues`] / [`Config::parse_table`] turn the status and
//!    body into [`Dues`] / [`Table`] or a typed [`Error`].
//!
//! A table can also be decoded as it arrives: [`TableDecoder`] takes the
//! body in chunks split anywhere and gives [`Batch`]es of typed columns
//! (with feature `arrow`, Arrow record batches), in memory bounded by the
//! batch size. `parse_table` runs the same decoder, so both apply the same
//! rules.
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
#![deny(missing_docs)]

mod cell;
#[cfg(any(feature = "reqwest", feature = "blocking"))]
mod client;
mod config;
mod decode;
mod env;
mod error;
mod excerpt;
mod id;
mod json;
mod prelude;
mod query;
mod redirect;
mod request;
mod response;
mod retry;
mod source;
mod token;
pub mod validate;

pub use cell::{Cell, Row};
#[cfg(feature = "reqwest")]
pub use client::{AsyncClient, BatchStream};
#[cfg(feature = "blocking")]
pub use client::{BatchIter, BlockingClient};
#[cfg(any(feature = "reqwest", feature = "blocking"))]
pub use client::{ClientOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT};
pub use config::{Config, ConfigBuilder};
pub use decode::{
    unify_schemas, Batch, Bitmap, Column, ColumnData, ColumnType, DecoderOptions, Finished, Schema,
    TableDecoder, Texts,
};
#[cfg(feature = "arrow")]
pub use decode::{
    Dictionary, DICTIONARY_MIN_VALUES, DICTIONARY_SAMPLE, JSON_TYPE, TYPE_METADATA_KEY,
};
#[cfg(feature = "parallel")]
pub use decode::ParallelOptions;
pub use env::{
    ACCESS_TOKEN_VAR, BASE_URL_VAR, COMPANY_ID_VAR, PROJECT_FOLDER_VAR, PROJECT_VAR, YEAR_ID_VAR,
};
pub use error::{Error, Result, TransportKind};
pub use id::Id;
pub use query::{DuesKind, DuesQuery, Method, TableQuery};
pub use redirect::MAX_REDIRECTS;
pub use request::{FORM_CONTENT_TYPE, USER_AGENT_VALUE};
pub use response::{Dues, Table};
pub use retry::{Decision, Outcome, RetryPolicy};
pub use source::TransportSource;
pub use token::{AccessToken, REDACTED};
/// The Arrow crates this crate's Arrow output is built with (feature
/// `arrow`), so that callers use the same versions.
#[cfg(feature = "arrow")]
pub use {arrow_array, arrow_buffer, arrow_schema};

impl Config {
    /// A transport error with the host stack's message redacted; bindings
    /// build theirs through here so a URL of the GET form never leaks.
    pub fn transport_error(&self, kind: TransportKind, message: &str) -> Error {
        Error::Transport {
            kind,
            message: self.redact(message),
            source: None,
        }
    }
}
