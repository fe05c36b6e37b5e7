//! Turning queries into `http::Request`s. Nothing here sends anything.

use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE, USER_AGENT};
use http::Request;
use url::form_urlencoded;

use crate::body::RequestBody;
use crate::config::Config;
use crate::env::{ACCESS_TOKEN_VAR, COMPANY_ID_VAR, PROJECT_VAR, YEAR_ID_VAR};
use crate::error::{Error, Result};
use crate::query::{Method, TableQuery};
use crate::validate;

/// The `User-Agent` every request carries.
pub const USER_AGENT_VALUE: &str = concat!("erpdata/", env!("CARGO_PKG_VERSION"));

/// The form content type of the table fetch's POST body.
pub const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded";

/// A company or year that neither the call nor the client gives: the
/// message says the three ways to give one.
fn missing_default(field: &str, var: &str) -> Error {
    Error::invalid(
        field,
        format!("is required: pass one with the call, give the client a default, or set {var}"),
    )
}

/// The table fetch's request ([`Config::table_request`]).
pub(crate) fn table_request(config: &Config, query: &TableQuery) -> Result<Request<RequestBody>> {
    validate::table(&query.table)?;
    let project = config.project().ok_or_else(|| {
        Error::invalid(
            "project",
            format!("is required for the table fetch: give the client one, or set {PROJECT_VAR}"),
        )
    })?;
    let token = config.access_token().ok_or_else(|| {
        Error::invalid(
            "access_token",
            format!(
                "is required for the table fetch: give the client one, or set {ACCESS_TOKEN_VAR}"
            ),
        )
    })?;
    let company = query
        .company_id
        .as_ref()
        .or(config.company_id())
        .ok_or_else(|| missing_default("company_id", COMPANY_ID_VAR))?;
    validate::setting("company_id", company.as_str())?;
    let year = query
        .year_id
        .as_ref()
        .or(config.year_id())
        .ok_or_else(|| missing_default("year_id", YEAR_ID_VAR))?;
    validate::setting("year_id", year.as_str())?;

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
) -> Result<Request<RequestBody>> {
    let mut builder = Request::builder()
        .method(method)
        .uri(url)
        .header(ACCEPT, HeaderValue::from_static("application/json"))
        .header(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
    if form_body.is_some() {
        builder = builder.header(CONTENT_TYPE, HeaderValue::from_static(FORM_CONTENT_TYPE));
    }
    builder
        .body(RequestBody::from(form_body.unwrap_or_default()))
        // `url` has already percent-encoded everything, so `http` accepts it;
        // if it ever did not, say so rather than panic.
        .map_err(|e| Error::invalid("base_url", format!("cannot form a request URI: {e}")))
}

#[cfg(test)]
mod tests {
    use crate::{Config, TableQuery};

    #[test]
    fn a_missing_setting_says_how_to_give_it() {
        let bare = Config::builder("https://erp.example.com/").build().unwrap();
        let e = bare.table_request(&TableQuery::new("account")).unwrap_err();
        assert_eq!(e.field(), Some("project"));
        assert!(e.to_string().contains("ERPDATA_PROJECT"), "{e}");

        let config = Config::builder("https://erp.example.com/")
            .project("demo")
            .access_token("fake-token-for-tests")
            .build()
            .unwrap();
        let e = config
            .table_request(&TableQuery::new("account"))
            .unwrap_err();
        assert_eq!(e.field(), Some("company_id"));
        let text = e.to_string();
        assert!(
            text.contains("with the call") && text.contains("ERPDATA_COMPANY_ID"),
            "{text}"
        );
    }
}
