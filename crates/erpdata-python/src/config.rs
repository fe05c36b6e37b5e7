//! `erpdata._core.Config` and `erpdata._core.Request`.

use std::str::FromStr;

use erpdata::{DuesKind, DuesQuery, Error, Method, TableQuery, TransportKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};

use crate::convert;
use crate::errors::{core, exception};
use crate::typing::Typing;

/// A validated configuration; builds requests and parses answers.
///
/// `weakref`: the Python client keeps a weak set of configs whose tokens
/// it redacts from httpx's log lines.
#[pyclass(frozen, weakref, module = "erpdata._core")]
pub(crate) struct Config {
    inner: erpdata::Config,
}

/// One request to send, as the core described it.
///
/// `url` and `body` may hold the access token (the GET form's URL, the
/// POST form's body): they are for the transport only. `repr` shows
/// `display_url`, which has the token redacted.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct Request {
    #[pyo3(get)]
    method: String,
    #[pyo3(get)]
    url: String,
    #[pyo3(get)]
    headers: Vec<(String, String)>,
    #[pyo3(get)]
    body: Py<PyBytes>,
    #[pyo3(get)]
    display_url: String,
    /// The core's request, kept so a redirect can be decided against it.
    inner: http::Request<Vec<u8>>,
}

#[pymethods]
impl Request {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Request(method={}, url={})",
            py_repr(py, Some(&self.method))?,
            py_repr(py, Some(&self.display_url))?
        ))
    }
}

/// Python's `repr` of an optional string, so reprs read like Python.
fn py_repr(py: Python<'_>, text: Option<&str>) -> PyResult<String> {
    match text {
        Some(t) => Ok(PyString::new(py, t).repr()?.to_string()),
        None => Ok("None".to_owned()),
    }
}

pub(crate) fn dues_query(
    acid: &Bound<'_, PyAny>,
    kind: &Bound<'_, PyAny>,
) -> Result<DuesQuery, Error> {
    let acid = convert::id("acid", acid)?;
    let kind = DuesKind::from_str(&convert::text("kind", kind)?)?;
    Ok(DuesQuery::new(acid, kind))
}

#[pymethods]
impl Config {
    #[new]
    #[pyo3(signature = (
        base_url, *, project=None, project_folder=None, access_token=None,
        company_id=None, year_id=None, allow_insecure_http=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        base_url: &Bound<'_, PyAny>,
        project: Option<&Bound<'_, PyAny>>,
        project_folder: Option<&Bound<'_, PyAny>>,
        access_token: Option<&Bound<'_, PyAny>>,
        company_id: Option<&Bound<'_, PyAny>>,
        year_id: Option<&Bound<'_, PyAny>>,
        allow_insecure_http: bool,
    ) -> PyResult<Self> {
        let build = || -> Result<erpdata::Config, Error> {
            let mut b = erpdata::Config::builder(convert::text("base_url", base_url)?)
                .allow_insecure_http(allow_insecure_http);
            if let Some(p) = convert::opt_text("project", project)? {
                b = b.project(p);
            }
            if let Some(f) = convert::opt_text("project_folder", project_folder)? {
                b = b.project_folder(f);
            }
            if let Some(t) = convert::opt_text("access_token", access_token)? {
                b = b.access_token(t);
            }
            if let Some(c) = convert::opt_id("company_id", company_id)? {
                b = b.company_id(c);
            }
            if let Some(y) = convert::opt_id("year_id", year_id)? {
                b = b.year_id(y);
            }
            b.build()
        };
        Ok(Config {
            inner: core(py, build())?,
        })
    }

    /// The base URL, normalised (always ends with `/`).
    #[getter]
    fn base_url(&self) -> &str {
        self.inner.base_url().as_str()
    }

    #[getter]
    fn project(&self) -> Option<&str> {
        self.inner.project()
    }

    /// The configured folder, or else the project name.
    #[getter]
    fn project_folder(&self) -> Option<&str> {
        self.inner.project_folder()
    }

    #[getter]
    fn has_access_token(&self) -> bool {
        self.inner.has_access_token()
    }

    #[getter]
    fn company_id(&self) -> Option<&str> {
        self.inner.company_id().map(|i| i.as_str())
    }

    #[getter]
    fn year_id(&self) -> Option<&str> {
        self.inner.year_id().map(|i| i.as_str())
    }

    #[getter]
    fn allow_insecure_http(&self) -> bool {
        self.inner.allow_insecure_http()
    }

    /// Base URL and project only: nothing else is needed to recognise a
    /// config, and the token must never be shown.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Config(base_url={}, project={})",
            py_repr(py, Some(self.inner.base_url().as_str()))?,
            py_repr(py, self.inner.project())?
        ))
    }

    /// The dues query for `acid`'s dues of `kind` ("RECEIPT"/"PAYMENT").
    fn dues_request(
        &self,
        py: Python<'_>,
        acid: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
    ) -> PyResult<Request> {
        let request = dues_query(acid, kind).and_then(|q| self.inner.dues_request(&q));
        self.request(py, core(py, request)?)
    }

    /// The table fetch; company and year default to the config's.
    #[pyo3(signature = (table, company_id=None, year_id=None, method=None))]
    #[pyo3(text_signature = "($self, table, company_id=None, year_id=None, method=\"POST\")")]
    fn table_request(
        &self,
        py: Python<'_>,
        table: &Bound<'_, PyAny>,
        company_id: Option<&Bound<'_, PyAny>>,
        year_id: Option<&Bound<'_, PyAny>>,
        method: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Request> {
        let query = || -> Result<TableQuery, Error> {
            let method = match convert::opt_text("method", method)? {
                Some(m) => Method::from_str(&m)?,
                None => Method::default(),
            };
            Ok(TableQuery {
                table: convert::text("table", table)?,
                company_id: convert::opt_id("company_id", company_id)?,
                year_id: convert::opt_id("year_id", year_id)?,
                method,
            })
        };
        let request = query().and_then(|q| self.inner.table_request(&q));
        self.request(py, core(py, request)?)
    }

    /// Parses a dues answer into an `erpdata.Dues`, its rows typed by
    /// column as `typing` says (default: the core's rule).
    #[pyo3(signature = (acid, kind, status, body, typing=None))]
    fn parse_dues<'py>(
        &self,
        py: Python<'py>,
        acid: &Bound<'py, PyAny>,
        kind: &Bound<'py, PyAny>,
        status: u16,
        body: &[u8],
        typing: Option<&Typing>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let query = core(py, dues_query(acid, kind))?;
        let inner = &self.inner;
        let options =
            Typing::decoder_options(typing, erpdata::DecoderOptions::default().batch_rows);
        // The body is immutable `bytes` kept alive by the caller, so other
        // threads may run while the core parses it.
        let parsed = py.detach(|| inner.parse_dues_with(&query, status, body, &options));
        convert::dues(py, &core(py, parsed)?)
    }

    /// Parses a whole table answer into an `erpdata.Table` (typed columns
    /// decided over the whole table, the same decoder the clients feed
    /// chunk by chunk), typed as `typing` says.
    #[pyo3(signature = (status, body, typing=None))]
    fn parse_table<'py>(
        &self,
        py: Python<'py>,
        status: u16,
        body: &[u8],
        typing: Option<&Typing>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let data = crate::table::table_data(py, self, status, body, typing)?;
        convert::table_model(py, data)
    }

    /// Parses a table answer row by row: `(rows, columns, notices)`, rows
    /// holding only the keys they had, each value of its column's type.
    #[pyo3(signature = (status, body, typing=None))]
    fn parse_table_rows<'py>(
        &self,
        py: Python<'py>,
        status: u16,
        body: &[u8],
        typing: Option<&Typing>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let inner = &self.inner;
        let options =
            Typing::decoder_options(typing, erpdata::DecoderOptions::default().batch_rows);
        let parsed = py.detach(|| inner.parse_table_with(status, body, &options));
        convert::table_rows(py, &core(py, parsed)?)
    }

    /// The request to send after a redirect answer: `None` when `status`
    /// is not a redirect to follow; raises `HttpStatusError` for one the
    /// core refuses (another origin, https to http, too many hops).
    #[pyo3(signature = (request, status, location, hops_done))]
    fn follow_redirect(
        &self,
        py: Python<'_>,
        request: &Request,
        status: u16,
        location: Option<&str>,
        hops_done: u32,
    ) -> PyResult<Option<Request>> {
        let next = self
            .inner
            .follow_redirect(&request.inner, status, location, hops_done);
        match core(py, next)? {
            Some(next) => self.request(py, next).map(Some),
            None => Ok(None),
        }
    }

    /// `text` with the access token replaced by a redaction marker.
    fn redact(&self, text: &str) -> String {
        self.inner.redact(text)
    }

    /// The exception (not raised) for a transport failure; `kind` is
    /// "connect", "timeout", "reset" or "other", `message` is redacted.
    fn transport_error<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        message: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let err = self
            .inner
            .transport_error(TransportKind::from_name(kind), message);
        exception(py, &err)
    }
}

impl Config {
    /// The core's configuration, for the table decoder.
    pub(crate) fn core_config(&self) -> &erpdata::Config {
        &self.inner
    }

    fn request(&self, py: Python<'_>, request: http::Request<Vec<u8>>) -> PyResult<Request> {
        Ok(Request::new(py, &self.inner, request))
    }
}

impl Request {
    /// The Python view of a core request, its display URL redacted by
    /// `config`.
    pub(crate) fn new(
        py: Python<'_>,
        config: &erpdata::Config,
        request: http::Request<Vec<u8>>,
    ) -> Request {
        let url = request.uri().to_string();
        Request {
            method: request.method().as_str().to_owned(),
            display_url: config.redact(&url),
            url,
            headers: request
                .headers()
                .iter()
                .map(|(n, v)| {
                    let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                    (n.as_str().to_owned(), value)
                })
                .collect(),
            body: PyBytes::new(py, request.body()).unbind(),
            inner: request,
        }
    }

    /// The core's request.
    pub(crate) fn core_request(&self) -> &http::Request<Vec<u8>> {
        &self.inner
    }
}
