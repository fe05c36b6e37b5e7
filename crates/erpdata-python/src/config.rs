//! `erpdata._core.Config` and `erpdata._core.Request`.

use std::str::FromStr;

use erpdata::{AjaxQuery, DuesKind, DuesQuery, Error, Method, TableQuery, TransportKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

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

fn method_of(method: Option<&Bound<'_, PyAny>>) -> Result<Option<Method>, Error> {
    convert::opt_text("method", method)?
        .map(|m| Method::from_str(&m))
        .transpose()
}

/// A function of ajax.php by the name of its method (`dues_summary`,
/// `avg_pay_days`, `net_profit`, `gross_profit`, `schedule_accounts`, or
/// `ajax` for any function by `func` with `params`, a list of
/// `(name, value)` pairs), its arguments in `args` (dates as ISO text).
pub(crate) fn ajax_query(
    function: &str,
    args: &Bound<'_, PyDict>,
    send_token: Option<bool>,
    method: Option<&Bound<'_, PyAny>>,
) -> Result<AjaxQuery, Error> {
    let arg = |name: &str| -> Result<String, Error> {
        let value = args
            .get_item(name)
            .ok()
            .flatten()
            .ok_or_else(|| Error::InvalidInput {
                field: name.to_owned(),
                reason: "is required".to_owned(),
            })?;
        convert::text(name, &value)
    };
    let mut query = match function {
        "dues_summary" => AjaxQuery::dues_summary(),
        "avg_pay_days" => {
            let acid = args
                .get_item("acid")
                .ok()
                .flatten()
                .ok_or_else(|| Error::InvalidInput {
                    field: "acid".to_owned(),
                    reason: "is required".to_owned(),
                })?;
            AjaxQuery::avg_pay_days(convert::id("acid", &acid)?)
        }
        "net_profit" => AjaxQuery::net_profit(arg("start")?, arg("end")?),
        "gross_profit" => AjaxQuery::gross_profit(arg("start")?, arg("end")?),
        "schedule_accounts" => {
            AjaxQuery::schedule_accounts(arg("schedule")?, arg("start")?, arg("end")?)
        }
        "ajax" => {
            let params: Vec<(String, String)> = match args.get_item("params").ok().flatten() {
                None => Vec::new(),
                Some(list) => list.extract().map_err(|_| Error::InvalidInput {
                    field: "params".to_owned(),
                    reason: "must map parameter names (str) to values (str or int)".to_owned(),
                })?,
            };
            AjaxQuery::new(arg("func")?, params)
        }
        other => {
            return Err(Error::InvalidInput {
                field: "function".to_owned(),
                reason: format!("unknown function {other:?}"),
            })
        }
    };
    if let Some(send) = send_token {
        query = query.send_token(send);
    }
    if let Some(m) = method_of(method)? {
        query = query.method(m);
    }
    Ok(query)
}

#[pymethods]
impl Config {
    #[new]
    #[pyo3(signature = (
        base_url, *, project=None, project_folder=None, access_token=None,
        company_id=None, year_id=None, allow_insecure_http=false, ajax_token=false
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
        ajax_token: bool,
    ) -> PyResult<Self> {
        let build = || -> Result<erpdata::Config, Error> {
            let mut b = erpdata::Config::builder(convert::text("base_url", base_url)?)
                .allow_insecure_http(allow_insecure_http)
                .ajax_token(ajax_token);
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

    /// Whether ajax.php calls send the access token unless told otherwise.
    #[getter]
    fn ajax_token(&self) -> bool {
        self.inner.ajax_token()
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

    /// The dues query for `acid`'s dues of `kind` ("RECEIPT"/"PAYMENT");
    /// `send_token` and `method` as for `ajax_request`.
    #[pyo3(signature = (acid, kind, send_token=None, method=None))]
    fn dues_request(
        &self,
        py: Python<'_>,
        acid: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        send_token: Option<bool>,
        method: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Request> {
        let query = || -> Result<DuesQuery, Error> {
            let mut q = dues_query(acid, kind)?;
            if let Some(send) = send_token {
                q = q.send_token(send);
            }
            if let Some(m) = method_of(method)? {
                q = q.method(m);
            }
            Ok(q)
        };
        let request = query().and_then(|q| self.inner.dues_request(&q));
        self.request(py, core(py, request)?)
    }

    /// A call to a function of ajax.php (see `ajax_query` for `function`
    /// and `args`); `send_token` (default: the config's `ajax_token`) sends
    /// the access token, by POST unless `method` is "GET".
    #[pyo3(signature = (function, args, send_token=None, method=None))]
    fn ajax_request(
        &self,
        py: Python<'_>,
        function: &str,
        args: &Bound<'_, PyDict>,
        send_token: Option<bool>,
        method: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Request> {
        let request = ajax_query(function, args, send_token, method)
            .and_then(|q| self.inner.ajax_request(&q));
        self.request(py, core(py, request)?)
    }

    /// Parses the answer of a function of ajax.php into an
    /// `erpdata.AjaxAnswer`, typed as `typing` says.
    #[pyo3(signature = (function, args, status, body, typing=None))]
    fn parse_ajax<'py>(
        &self,
        py: Python<'py>,
        function: &str,
        args: &Bound<'py, PyDict>,
        status: u16,
        body: &[u8],
        typing: Option<&Typing>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let query = core(py, ajax_query(function, args, None, None))?;
        let inner = &self.inner;
        let options =
            Typing::decoder_options(typing, erpdata::DecoderOptions::default().batch_rows);
        let parsed = py.detach(|| inner.parse_ajax_with(&query, status, body, &options));
        convert::ajax_answer(py, core(py, parsed)?)
    }

    /// The dues of many accounts as one `erpdata.Table` with an `acid`
    /// column first; `dues` are `erpdata.Dues` this package made.
    #[pyo3(signature = (dues, typing=None))]
    fn dues_table<'py>(
        &self,
        py: Python<'py>,
        dues: Vec<PyRef<'py, crate::convert::DuesData>>,
        typing: Option<&Typing>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let all: Vec<erpdata::Dues> = dues.iter().map(|d| d.inner.clone()).collect();
        let inner = &self.inner;
        let options =
            Typing::decoder_options(typing, erpdata::DecoderOptions::default().batch_rows);
        let table = core(py, py.detach(|| inner.dues_table(&all, &options)))?;
        let data = core(py, crate::table::TableData::typed(table))?;
        convert::table_model(py, data)
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
