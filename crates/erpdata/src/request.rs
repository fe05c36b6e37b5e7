//! Turning queries into `http::Request`s. Nothing here sends anything.

use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE, USER_AGENT};
use http::Request;
use url::form_urlencoded;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::query::{Method, TableQuery};
use crate::validate;

/// The `User-Agent` every request carries.
pub const USER_AGENT_VALUE: &str = concat!("erpdata/", env!("CARGO_PKG_VERSION"));

/// The form content type of the table fetch's POST body.
pub const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded";

/// The table fetch's request ([`Config::table_request`]).
pub(crate) fn table_request(config: &Config, query: &TableQuery) -> Result<Request<Vec<u8>>> {
    validate::table(&query.table)?;
    let project = config
        .project()
        .ok_or_else(|| Error::invalid("project", "is required for the table fetch"))?;
    let token = config
        .access_token()
        .ok_or_else(|| Error::invalid("access_token", "is required for the table fetch"))?;
    let company = query
        .company_id
        .as_ref()
        .or(config.company_id())
        .ok_or_else(|| {
            Error::invalid("company_id", "is required: pass one or configure a default")
        })?;
    validate::text("company_id", company.as_str())?;
    let year =
        query.year_id.as_ref().or(config.year_id()).ok_or_else(|| {
            Error::invalid("year_id", "is required: pass one or configure a default")
        })?;
    validate::text("year_id", year.as_str())?;

    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("req", "getdata")
        .append_pair("project", project)
        .append_pair("accesstoken", token.expose_secret())
        .append_pair("yearid", year.as_str())
        .append_pair("compid", company.as_str())
        .append_pair("table", &query.table);
    let pairs = form.finish();

    let mut url = config.endpoint("dataapi.php");
    match query.method {
        Method::Post => build("POST", url.as_str(), Some(pairs.into_bytes())),
        Method::Get => {
            url.set_query(Some(&pairs));
            build("GET", url.as_str(), None)
        }
    }
}

pub(crate) fn build(
    method: &str,
    url: &str,
    form_body: Option<Vec<u8>>,
) -> Result<Request<Vec<u8>>> {
    let mut builder = Request::builder()
        .method(method)
        .uri(url)
        .header(ACCEPT, HeaderValue::from_static("application/json"))
        .header(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
    if form_body.is_some() {
        builder = builder.header(CONTENT_TYPE, HeaderValue::from_static(FORM_CONTENT_TYPE));
    }
    builder
        .body(form_body.unwrap_or_default())
        // `url` has already percent-encoded everything, so `http` accepts it;
        // if it ever did not, say so rather than panic.
        .map_err(|e| Error::invalid("base_url", format!("cannot form a request URI: {e}")))
}
