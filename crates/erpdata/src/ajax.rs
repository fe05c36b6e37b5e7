//! The functions of `apis/ajax.php` besides the dues query, and how any
//! call to that endpoint (the dues query included) is sent.
//!
//! Every call carries `sys_projectfolder` and `func`, then the function's
//! own parameters. Whether the access token goes with it is the caller's
//! choice ([`AjaxQuery::send_token`], or [`ConfigBuilder::ajax_token`] for
//! every call of a client); by default it does not, because the interface
//! defines no credential for this endpoint. How the call is sent follows:
//!
//! | token sent | method (default) | where the parameters go |
//! | --- | --- | --- |
//! | no | `GET` | the query string |
//! | yes | `POST` | a form body, `accesstoken` last; nothing in the URL |
//! | yes, `GET` chosen | `GET` | the query string, `accesstoken` last |
//!
//! A PHP script reads either through `$_REQUEST`; the token reaches a URL
//! (and so access logs) only when the caller asked for `GET`.
//!
//! [`ConfigBuilder::ajax_token`]: crate::ConfigBuilder::ajax_token

use http::Request;
use url::form_urlencoded;

use crate::body::RequestBody;
pub use crate::catalogue::AjaxFunction;
use crate::catalogue::{self, Operation};
use crate::config::Config;
use crate::env::{PROJECT_FOLDER_VAR, PROJECT_VAR};
use crate::error::{Error, Result};
use crate::query::{DuesQuery, Method};
use crate::request::build;
use crate::validate;

/// Parameter names the client sets itself: a call's own parameters may not
/// use them.
pub const RESERVED_PARAMS: [&str; 3] = ["sys_projectfolder", "func", "accesstoken"];

/// How one `ajax.php` call is sent: with or without the access token, and
/// by which method. `None` leaves each to the configuration's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AjaxOptions {
    /// Send the configured access token (`accesstoken`) with this call;
    /// `None` follows [`Config::ajax_token`].
    pub send_token: Option<bool>,
    /// `GET` or `POST`; `None` is `GET` without the token, `POST` with it.
    pub method: Option<Method>,
}

/// One call to a function of `apis/ajax.php`.
///
/// ```
/// use erpdata::{AjaxQuery, Config};
///
/// let config = Config::builder("https://erp.example.com/").project("demo").build()?;
/// let q = AjaxQuery::net_profit("2025-04-01", "2026-03-31");
/// assert_eq!(
///     config.ajax_request(&q)?.uri().to_string(),
///     "https://erp.example.com/apis/ajax.php?sys_projectfolder=demo&func=netProfit&sdate=2025-04-01&edate=2026-03-31"
/// );
/// // Not a calendar date: refused before anything is sent, naming the argument.
/// let err = config.ajax_request(&AjaxQuery::net_profit("2025-02-30", "2025-03-31")).unwrap_err();
/// assert_eq!(err.field(), Some("start"));
/// # Ok::<(), erpdata::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AjaxQuery {
    /// The function and its parameters.
    pub function: AjaxFunction,
    /// Token and method.
    pub options: AjaxOptions,
}

impl AjaxQuery {
    pub(crate) fn of(function: AjaxFunction) -> Self {
        AjaxQuery {
            function,
            options: AjaxOptions::default(),
        }
    }

    /// Any function, by name, with its parameters in order.
    pub fn new<K, V>(func: impl Into<String>, params: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        Self::of(AjaxFunction::Other {
            func: func.into(),
            params: params
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        })
    }

    /// Sends the access token with this call (or not), whatever the
    /// configuration says.
    pub fn send_token(mut self, send: bool) -> Self {
        self.options.send_token = Some(send);
        self
    }

    /// Sends this call by `method`.
    pub fn method(mut self, method: Method) -> Self {
        self.options.method = Some(method);
        self
    }

    /// The catalogue's entry of this call (`ajax` for any other function).
    pub fn operation(&self) -> &'static Operation {
        self.function.entry().0
    }

    /// The wire name of the function (`func`).
    pub fn func(&self) -> &str {
        match &self.function {
            AjaxFunction::Other { func, .. } => func,
            named => named.entry().0.func.unwrap_or_default(),
        }
    }

    /// The function's parameters as sent, each checked first as its
    /// catalogue entry says (errors name the argument: `acid`,
    /// `schedule`, `start`, `end`, or a parameter's own name).
    fn params(&self) -> Result<Vec<(&str, &str)>> {
        let AjaxFunction::Other { func, params } = &self.function else {
            let (op, values) = self.function.entry();
            return catalogue::wire_pairs(op, values);
        };
        validate::identifier("func", func)?;
        let mut out = Vec::with_capacity(params.len());
        for (name, value) in params {
            validate::param_name(name)?;
            if RESERVED_PARAMS.contains(&name.as_str()) {
                return Err(Error::invalid(
                    "params",
                    format!(
                        "must not set {name:?}: the client sends it (the token only \
                         when asked to, with send_token)"
                    ),
                ));
            }
            if out.iter().any(|(n, _)| n == name) {
                return Err(Error::invalid(
                    "params",
                    format!("give {name:?} once: PHP would keep only the last value"),
                ));
            }
            validate::text(name, value)?;
            out.push((name.as_str(), value.as_str()));
        }
        Ok(out)
    }
}

/// A call to a function of `apis/ajax.php` ([`Config::ajax_request`]).
pub(crate) fn ajax_request(config: &Config, query: &AjaxQuery) -> Result<Request<RequestBody>> {
    let params = query.params()?;
    ajax(config, query.func(), &params, query.options)
}

/// The dues query's request ([`Config::dues_request`]).
pub(crate) fn dues_request(config: &Config, query: &DuesQuery) -> Result<Request<RequestBody>> {
    validate::id("acid", query.acid.as_str())?;
    let params = [("acid", query.acid.as_str()), ("type", query.kind.as_str())];
    ajax(config, "getduesDet", &params, query.options)
}

/// What every `ajax.php` call of `func` needs of the configuration:
/// the project folder, and the token when it is to be sent. A plan
/// checks this before its first call, for the calls it will make later.
pub(crate) fn ajax_ready<'c>(
    config: &'c Config,
    func: &str,
    options: AjaxOptions,
) -> Result<(&'c str, Option<&'c crate::token::AccessToken>)> {
    let folder = config.project_folder().ok_or_else(|| {
        Error::invalid(
            "project",
            format!(
                "is required for ajax.php calls ({func}): give the client a project or a \
                 project_folder, or set {PROJECT_VAR} or {PROJECT_FOLDER_VAR}"
            ),
        )
    })?;
    let token = if options.send_token.unwrap_or(config.ajax_token()) {
        Some(config.access_token().ok_or_else(|| {
            Error::invalid(
                "access_token",
                "is required to send the token with ajax.php calls (send_token / ajax_token)",
            )
        })?)
    } else {
        None
    };
    Ok((folder, token))
}

/// A call of `func` with `params`, sent as the module's table says.
fn ajax(
    config: &Config,
    func: &str,
    params: &[(&str, &str)],
    options: AjaxOptions,
) -> Result<Request<RequestBody>> {
    let (folder, token) = ajax_ready(config, func, options)?;
    let method = options.method.unwrap_or(if token.is_some() {
        Method::Post
    } else {
        Method::Get
    });
    let mut pairs = form_urlencoded::Serializer::new(String::new());
    pairs
        .append_pair("sys_projectfolder", folder)
        .append_pair("func", func);
    for (name, value) in params {
        pairs.append_pair(name, value);
    }
    if let Some(token) = token {
        pairs.append_pair("accesstoken", token.expose_secret());
    }
    let pairs = pairs.finish();
    let mut url = config.endpoint("ajax.php");
    match method {
        Method::Get => {
            url.set_query(Some(&pairs));
            build("GET", url.as_str(), None)
        }
        Method::Post => build("POST", url.as_str(), Some(pairs.into_bytes())),
    }
}

impl DuesQuery {
    /// Sends the access token with this dues query (or not), whatever the
    /// configuration says.
    pub fn send_token(mut self, send: bool) -> Self {
        self.options.send_token = Some(send);
        self
    }

    /// Sends this dues query by `method`.
    pub fn method(mut self, method: Method) -> Self {
        self.options.method = Some(method);
        self
    }
}
