//! What a [`Config`] does: every public method of `Config` besides its
//! builder and getters, in one `impl Config` block (and the environment
//! constructors of [`ConfigBuilder`] beside it).
//!
//! `Config` has exactly two `impl` blocks: `config.rs` holds the data (the
//! struct, its builder, the getters and [`Config::redact`]); this module
//! holds all its behaviour. Each method here is a short delegation to a
//! `pub(crate)` function of the module that holds the logic (requests,
//! answers, redirects, the environment, the catalogue's invocations,
//! errors), which takes the configuration (or just its redactor) as its
//! first argument.
//! Those modules import `config`, and this module imports them; none of
//! them imports this one, so there is no import cycle.

use http::Request;

use crate::ajax::{self, AjaxQuery};
use crate::ajax_answer::{self, AjaxAnswer, TypedRows};
use crate::body::RequestBody;
use crate::catalogue::{Args, Invocation, Operation, Query};
use crate::config::{Config, ConfigBuilder};
use crate::decode::DecoderOptions;
use crate::env;
use crate::error::{Error, Result, TransportKind};
use crate::query::{DuesQuery, TableQuery};
use crate::redirect;
use crate::request;
use crate::response::{self, Dues, Table};

impl Config {
    /// Builds the dues query: `GET {base}/apis/ajax.php` with
    /// `sys_projectfolder`, `func=getduesDet`, `acid` and `type`, always all
    /// four, form-encoded as PHP's `$_GET` decodes them (or sent as an
    /// `ajax.php` call sending the token, when asked).
    pub fn dues_request(&self, query: &DuesQuery) -> Result<Request<RequestBody>> {
        self.built(ajax::dues_request(self, query))
    }

    /// Builds the table fetch: by default `POST {base}/apis/dataapi.php` with
    /// a form body of `req=getdata`, `project`, `accesstoken`, `yearid`,
    /// `compid`, `table`; with [`Method::Get`] the same pairs go in the URL.
    ///
    /// [`Method::Get`]: crate::Method::Get
    pub fn table_request(&self, query: &TableQuery) -> Result<Request<RequestBody>> {
        self.built(request::table_request(self, query))
    }

    /// Builds a call to a function of `apis/ajax.php`: without the token,
    /// a `GET` with the parameters in the query string; with it (see
    /// [`AjaxOptions`]), a `POST` with them in a form body, `accesstoken`
    /// last, unless the call asks for `GET`. Every input is checked first;
    /// nothing is built for invalid input.
    ///
    /// [`AjaxOptions`]: crate::AjaxOptions
    pub fn ajax_request(&self, query: &AjaxQuery) -> Result<Request<RequestBody>> {
        self.built(ajax::ajax_request(self, query))
    }

    /// A request this configuration built, carrying its redactor (so that
    /// `Debug` of the `Action::Send` holding it shows its URL redacted,
    /// where the caller put the token in the base URL or a redirect's
    /// `Location` carried it), or the refusal of its input, redacted.
    fn built(&self, request: Result<Request<RequestBody>>) -> Result<Request<RequestBody>> {
        let redactor = self.redactor();
        match request {
            Ok(mut request) => {
                request.extensions_mut().insert(redactor);
                Ok(request)
            }
            Err(error) => Err(error.input_redacted(&redactor)),
        }
    }

    /// Given the request just sent and its answer's status and `Location`,
    /// returns the request to send next: `Ok(None)` when the status is not a
    /// redirect to follow, `Ok(Some(next))` for a redirect within the same
    /// origin, or an `HttpStatus` error naming the (redacted) target for one
    /// to another origin, from https to http, without a `Location`, or past
    /// [`MAX_REDIRECTS`] (`hops_done` counts those already followed).
    ///
    /// 301, 302, 307 and 308 repeat the method and body (RFC 9110 allows
    /// keeping POST on 301/302; dropping the form body would lose every
    /// parameter); 303 switches to a GET without a body.
    ///
    /// [`MAX_REDIRECTS`]: crate::MAX_REDIRECTS
    pub fn follow_redirect(
        &self,
        sent: &Request<RequestBody>,
        status: u16,
        location: Option<&str>,
        hops_done: u32,
    ) -> Result<Option<Request<RequestBody>>> {
        redirect::follow_redirect(self, sent, status, location, hops_done)
    }

    /// Parses the answer to a table fetch, by feeding the whole body to the
    /// same decoder as [`TableDecoder`] and keeping every row (see the
    /// decoder's module for each rule), with the default typing.
    ///
    /// No header is consulted, `Content-Type` included: PHP sends
    /// `text/html` unless a script sets otherwise, so valid JSON under that
    /// type is common, and an HTML page is recognised by its bytes whatever
    /// type it claims.
    ///
    /// [`TableDecoder`]: crate::TableDecoder
    pub fn parse_table(&self, status: u16, body: &[u8]) -> Result<Table> {
        response::parse_table_with(self, status, body, &DecoderOptions::default())
    }

    /// [`Config::parse_table`] with the typing of `options` (declared
    /// types, string inference); each column's type is decided over the
    /// whole table whatever `options.one_schema` says.
    pub fn parse_table_with(
        &self,
        status: u16,
        body: &[u8],
        options: &DecoderOptions,
    ) -> Result<Table> {
        response::parse_table_with(self, status, body, options)
    }

    /// Parses the answer to a dues query.
    ///
    /// The interface does not show this answer's shape, so it accepts the
    /// table fetch's envelope (`status` optional here) or a bare array of
    /// rows, and keeps the raw JSON either way.
    pub fn parse_dues(&self, query: &DuesQuery, status: u16, body: &[u8]) -> Result<Dues> {
        response::parse_dues_with(self, query, status, body, &DecoderOptions::default())
    }

    /// [`Config::parse_dues`] with the typing of `options`: the rows'
    /// values typed by column as a table's are.
    pub fn parse_dues_with(
        &self,
        query: &DuesQuery,
        status: u16,
        body: &[u8],
        options: &DecoderOptions,
    ) -> Result<Dues> {
        response::parse_dues_with(self, query, status, body, options)
    }

    /// Parses the answer to `query` with the default typing.
    pub fn parse_ajax(&self, query: &AjaxQuery, status: u16, body: &[u8]) -> Result<AjaxAnswer> {
        ajax_answer::parse_ajax_with(self, query, status, body, &DecoderOptions::default())
    }

    /// [`Config::parse_ajax`] with the typing of `options` (declared
    /// types apply to the rows' columns and to an object's fields).
    pub fn parse_ajax_with(
        &self,
        query: &AjaxQuery,
        status: u16,
        body: &[u8],
        options: &DecoderOptions,
    ) -> Result<AjaxAnswer> {
        ajax_answer::parse_ajax_with(self, query, status, body, options)
    }

    /// The dues of many accounts as one table: an `acid` column first
    /// (always text, the ids as given), then every column of the dues rows
    /// in first-seen order, typed over all the rows together by the rule
    /// (and `options`). A dues row's own `acid` field, if it has one, gives
    /// way to the account asked about. Where no account owes anything the
    /// table has no rows and the `acid` column alone (the service's other
    /// columns are not known without a row).
    ///
    /// All the dues must be of one kind: receivables and payables in one
    /// table would be summed together by mistake.
    pub fn dues_table(&self, dues: &[Dues], options: &DecoderOptions) -> Result<TypedRows> {
        ajax_answer::dues_table(self, dues, options)
    }

    /// The invocation of a typed query (the operation its entry names),
    /// checked as [`Config::invoke`] checks arguments (by building its
    /// request, whose refusal is redacted).
    pub fn invocation(&self, query: Query) -> Result<Invocation> {
        Invocation::of_query(self, query)
    }

    /// Checks `args` against `operation`'s entry (unknown names, required
    /// arguments, each value's kind, then everything the request needs, as
    /// building it does) and gives the invocation. Nothing is sent, and
    /// nothing invalid passes.
    ///
    /// A refused value is not repeated where it is the configured token.
    pub fn invoke(&self, operation: &'static Operation, args: &Args) -> Result<Invocation> {
        Invocation::of_args(self, operation, args).map_err(|e| e.input_redacted(&self.redactor()))
    }

    /// A transport error with the host stack's message redacted; bindings
    /// build theirs through here so a URL of the GET form never leaks.
    pub fn transport_error(&self, kind: TransportKind, message: &str) -> Error {
        Error::transport(&self.redactor(), kind, message, None)
    }

    /// A transport error made from the host stack's error: the message is
    /// `error`'s own text and the [`std::error::Error::source`] is the
    /// chain below it, every link redacted (see [`TransportSource`]).
    ///
    /// ```
    /// use erpdata::{Config, TransportKind};
    ///
    /// let config = Config::builder("https://erp.example.com/")
    ///     .access_token("fake-token")
    ///     .build()?;
    /// let io = std::io::Error::new(
    ///     std::io::ErrorKind::ConnectionRefused,
    ///     "refused: https://erp.example.com/apis/dataapi.php?accesstoken=fake-token",
    /// );
    /// let err = config.transport_error_from(TransportKind::Connect, &io);
    /// assert!(!err.to_string().contains("fake-token"));
    /// assert!(err.to_string().contains("[REDACTED]"));
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    ///
    /// [`TransportSource`]: crate::TransportSource
    pub fn transport_error_from(
        &self,
        kind: TransportKind,
        error: &(dyn std::error::Error + 'static),
    ) -> Error {
        Error::transport(&self.redactor(), kind, &error.to_string(), error.source())
    }

    /// A transport error with a message of the caller's and the host
    /// stack's error as its source (redacted link by link).
    pub fn transport_error_with_source(
        &self,
        kind: TransportKind,
        message: &str,
        source: &(dyn std::error::Error + 'static),
    ) -> Error {
        Error::transport(&self.redactor(), kind, message, Some(source))
    }

    /// Builds a configuration from the `ERPDATA_*` environment variables:
    /// `ERPDATA_BASE_URL` (required), `ERPDATA_PROJECT`,
    /// `ERPDATA_PROJECT_FOLDER`, `ERPDATA_ACCESS_TOKEN`,
    /// `ERPDATA_COMPANY_ID`, `ERPDATA_YEAR_ID`.
    ///
    /// An unset variable leaves its setting unset; a set one is validated
    /// like the builder's argument (an empty value is an error, not
    /// "unset"). An error names the variable, never its value when that
    /// is the token.
    ///
    /// ```no_run
    /// let config = erpdata::Config::from_env()?;
    /// println!("{}", config.base_url());
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn from_env() -> Result<Config> {
        env::from_vars(|name| std::env::var_os(name))
    }

    /// [`Config::from_env`] over any source of variables, e.g. a map read
    /// from a file (and, in tests, without touching the process
    /// environment).
    ///
    /// ```
    /// use std::collections::HashMap;
    ///
    /// let vars = HashMap::from([
    ///     ("ERPDATA_BASE_URL", "https://erp.example.com/"),
    ///     ("ERPDATA_PROJECT", "demo"),
    ///     ("ERPDATA_COMPANY_ID", "01"),
    /// ]);
    /// let config = erpdata::Config::from_vars(|name| vars.get(name).map(Into::into))?;
    /// assert_eq!(config.project_folder(), Some("demo"));
    /// assert_eq!(config.company_id().map(|c| c.as_str()), Some("01"));
    ///
    /// let err = erpdata::Config::from_vars(|_| None).unwrap_err();
    /// assert!(err.to_string().contains("ERPDATA_BASE_URL"));
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn from_vars<F>(lookup: F) -> Result<Config>
    where
        F: FnMut(&str) -> Option<std::ffi::OsString>,
    {
        env::from_vars(lookup)
    }
}

impl ConfigBuilder {
    /// A builder filled from the `ERPDATA_*` environment variables (see
    /// [`Config::from_env`]), for adding or overriding settings in code
    /// before [`ConfigBuilder::build`].
    ///
    /// ```no_run
    /// let config = erpdata::ConfigBuilder::from_env()?
    ///     .year_id(2024)
    ///     .build()?;
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn from_env() -> Result<ConfigBuilder> {
        env::builder_from_vars(|name| std::env::var_os(name))
    }

    /// [`ConfigBuilder::from_env`] over any source of variables.
    pub fn from_vars<F>(lookup: F) -> Result<ConfigBuilder>
    where
        F: FnMut(&str) -> Option<std::ffi::OsString>,
    {
        env::builder_from_vars(lookup)
    }

    /// This builder with each setting it has not been given (base URL,
    /// project, project folder, access token, company id, year id) read from its
    /// `ERPDATA_*` variable, where `lookup` gives one: settings given in
    /// code win. [`ConfigBuilder::build`]'s error about a value read so
    /// names the variable, where it can be fixed; one about a value given
    /// in code names the setting.
    ///
    /// ```
    /// use std::collections::HashMap;
    ///
    /// let vars = HashMap::from([("ERPDATA_PROJECT", "demo"), ("ERPDATA_YEAR_ID", "")]);
    /// let lookup = |name: &str| vars.get(name).map(Into::into);
    /// let builder = erpdata::Config::builder("https://erp.example.com/").or_from_vars(lookup)?;
    /// let err = builder.build().unwrap_err();
    /// assert_eq!(err.field(), Some("ERPDATA_YEAR_ID"));
    ///
    /// let config = erpdata::Config::builder("https://erp.example.com/")
    ///     .year_id(2025)
    ///     .or_from_vars(lookup)?
    ///     .build()?;
    /// assert_eq!(config.project(), Some("demo"));
    /// # Ok::<(), erpdata::Error>(())
    /// ```
    pub fn or_from_vars<F>(self, lookup: F) -> Result<ConfigBuilder>
    where
        F: FnMut(&str) -> Option<std::ffi::OsString>,
    {
        env::or_from_vars(self, lookup)
    }
}
