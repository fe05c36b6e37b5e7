//! `erpdata._core.Config` and `erpdata._core.Request`.

use std::ffi::OsString;

use erpdata::{Error, TransportKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::convert;
use crate::errors::{exception, Result};
use crate::invocation::Invocation;
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
    /// The core's request, kept so a redirect can be decided against it
    /// (in the tests' `follow_redirect`).
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    inner: http::Request<erpdata::RequestBody>,
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

/// The variable `name` of `environ` (a mapping, as `os.environ`), `None`
/// when unset. A value that is not text as Rust reads it (`os.environ`
/// holds bytes that are not UTF-8 as lone surrogates) reaches the core as
/// such, which refuses it naming the variable, rather than being taken
/// for unset.
fn variable(environ: &Bound<'_, PyAny>, name: &str) -> Option<OsString> {
    let value = environ.call_method1("get", (name,)).ok()?;
    if value.is_none() {
        return None;
    }
    match value.extract::<String>() {
        Ok(text) => Some(OsString::from(text)),
        Err(_) => Some(not_unicode()),
    }
}

#[cfg(unix)]
fn not_unicode() -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(vec![0xff])
}

#[cfg(windows)]
fn not_unicode() -> OsString {
    std::os::windows::ffi::OsStringExt::from_wide(&[0xd800])
}

/// Python's `repr` of an optional string, so reprs read like Python.
fn py_repr(py: Python<'_>, text: Option<&str>) -> PyResult<String> {
    match text {
        Some(t) => Ok(PyString::new(py, t).repr()?.to_string()),
        None => Ok("None".to_owned()),
    }
}

#[pymethods]
impl Config {
    #[new]
    #[pyo3(signature = (
        base_url=None, *, project=None, project_folder=None, access_token=None,
        company_id=None, year_id=None, allow_insecure_http=false, ajax_token=false,
        environ=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        base_url: Option<&Bound<'_, PyAny>>,
        project: Option<&Bound<'_, PyAny>>,
        project_folder: Option<&Bound<'_, PyAny>>,
        access_token: Option<&Bound<'_, PyAny>>,
        company_id: Option<&Bound<'_, PyAny>>,
        year_id: Option<&Bound<'_, PyAny>>,
        allow_insecure_http: bool,
        ajax_token: bool,
        environ: Option<&Bound<'_, PyAny>>,
    ) -> Result<Self> {
        // A setting not given is read from its ERPDATA_* variable in
        // `environ` (os.environ) by the core, which reads no variable of a
        // setting given and names the variable in an error about its
        // value, where the value can be fixed.
        let lookup = |name: &str| variable(environ?, name);
        let build = || -> std::result::Result<erpdata::Config, Error> {
            let mut b = erpdata::ConfigBuilder::new()
                .allow_insecure_http(allow_insecure_http)
                .ajax_token(ajax_token);
            if let Some(url) = convert::opt_text("base_url", base_url)? {
                b = b.base_url(url);
            }
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
            b.or_from_vars(lookup)?.build()
        };
        Ok(Config { inner: build()? })
    }

    /// The base URL, normalised (always ends with `/`).
    #[getter]
    fn base_url(&self) -> &str {
        self.inner.base_url().as_str()
    }

    /// The base URL to show (a `repr`): the token redacted where the
    /// caller put it in the URL.
    #[getter]
    fn display_base_url(&self) -> String {
        self.inner.display_base_url()
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

    /// Whether requests may go through a proxy (not to a loopback base
    /// URL: see the core's `Config::proxy_allowed`).
    #[getter]
    fn proxy_allowed(&self) -> bool {
        self.inner.proxy_allowed()
    }

    /// Base URL and project only: nothing else is needed to recognise a
    /// config, and the token must never be shown.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Config(base_url={}, project={})",
            py_repr(py, Some(&self.inner.display_base_url()))?,
            py_repr(py, self.inner.project())?
        ))
    }

    /// The operation called `operation` (its snake or JavaScript name, as
    /// the catalogue lists it) with `args`, a dict of argument names to
    /// values of plain shapes (`None`: not given). Every argument is
    /// checked by the core, and the request built once, before this
    /// returns; nothing is sent.
    fn invoke(&self, operation: &str, args: &Bound<'_, PyDict>) -> Result<Invocation> {
        let op = erpdata::operation(operation)?;
        let invocation = self.inner.invoke(op, &crate::args::args(args)?)?;
        Ok(Invocation::new(&self.inner, invocation))
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
    ) -> Result<Bound<'py, PyAny>> {
        let data = crate::table::table_data(py, self, status, body, typing)?;
        Ok(convert::table_model(py, data)?)
    }

    /// `text` with the access token replaced by a redaction marker.
    fn redact(&self, text: &str) -> String {
        self.inner.redact(text)
    }

    /// The exception (not raised) for a transport failure; `kind` is
    /// "connect", "timeout", "reset", "tls" or "other", `message` is redacted.
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
}

impl Request {
    /// The Python view of a core request, its display URL redacted by
    /// `config`.
    pub(crate) fn new(
        py: Python<'_>,
        config: &erpdata::Config,
        request: http::Request<erpdata::RequestBody>,
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
    #[cfg(feature = "testing")]
    pub(crate) fn core_request(&self) -> &http::Request<erpdata::RequestBody> {
        &self.inner
    }
}
