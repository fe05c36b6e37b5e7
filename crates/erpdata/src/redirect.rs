//! Whether to follow a redirect, decided here rather than by the host stack:
//! httpx and fetch strip only `Authorization` when a redirect leaves the
//! origin and resend a POST body on 307/308, which would carry the access
//! token (a form field or a query parameter here) to another server.

use http::{Method as HttpMethod, Request};
use url::Url;

use crate::body::RequestBody;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::redact::Redactor;

/// How many redirects one call follows before giving up.
pub const MAX_REDIRECTS: u32 = 5;

/// The request to send after a redirect, if any ([`Config::follow_redirect`]).
pub(crate) fn follow_redirect(
    config: &Config,
    sent: &Request<RequestBody>,
    status: u16,
    location: Option<&str>,
    hops_done: u32,
) -> Result<Option<Request<RequestBody>>> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(None);
    }
    let refuse = |why: String| Error::HttpStatus {
        status,
        excerpt: config.redact(&why),
        call: None,
    };
    let location = location
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .ok_or_else(|| refuse("redirect without a Location header".to_owned()))?;
    let from = Url::parse(&sent.uri().to_string())
        .map_err(|e| refuse(format!("redirect from an unparseable URL: {e}")))?;
    let target = from.join(location).map_err(|e| {
        refuse(format!(
            "redirect to an unparseable Location {location:?}: {e}"
        ))
    })?;
    if from.scheme() == "https" && target.scheme() != "https" {
        return Err(refuse(format!(
            "redirect from https to {target} refused: the request would travel unencrypted"
        )));
    }
    if target.origin() != from.origin() {
        return Err(refuse(format!(
            "redirect to another origin ({target}) refused: requests carrying the access \
             token are only sent to the configured server"
        )));
    }
    if hops_done >= MAX_REDIRECTS {
        return Err(refuse(format!(
            "more than {MAX_REDIRECTS} redirects (last to {target})"
        )));
    }
    let mut next = Request::builder().uri(target.as_str());
    // The redactor the first request carried (see `Config::built`).
    if let Some(redactor) = sent.extensions().get::<Redactor>() {
        next = next.extension(redactor.clone());
    }
    for (name, value) in sent.headers() {
        next = next.header(name, value);
    }
    let (method, body) = if status == 303 {
        (HttpMethod::GET, RequestBody::default())
    } else {
        (sent.method().clone(), sent.body().clone())
    };
    if body.is_empty() {
        if let Some(h) = next.headers_mut() {
            h.remove(http::header::CONTENT_TYPE);
        }
    }
    next.method(method)
        .body(body)
        .map(Some)
        .map_err(|e| refuse(format!("cannot form the redirected request: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TableQuery;

    fn setup() -> (Config, Request<RequestBody>) {
        let c = Config::builder("https://erp.example.com/erp/")
            .project("demo")
            .access_token("fake-token-for-tests")
            .company_id(1)
            .year_id(2025)
            .build()
            .unwrap();
        let r = c.table_request(&TableQuery::new("account")).unwrap();
        (c, r)
    }

    #[test]
    fn same_origin_is_followed_with_the_body() {
        let (c, r) = setup();
        let next = c
            .follow_redirect(&r, 307, Some("/v2/apis/dataapi.php"), 0)
            .unwrap()
            .unwrap();
        assert_eq!(next.uri(), "https://erp.example.com/v2/apis/dataapi.php");
        assert_eq!(next.method(), "POST");
        assert_eq!(next.body(), r.body());
        let next = c
            .follow_redirect(&r, 303, Some("done"), 0)
            .unwrap()
            .unwrap();
        assert_eq!(next.method(), "GET");
        assert!(next.body().is_empty());
        assert!(next.headers().get(http::header::CONTENT_TYPE).is_none());
        assert_eq!(next.uri(), "https://erp.example.com/erp/apis/done");
    }

    #[test]
    fn other_origins_and_downgrades_are_refused() {
        let (c, r) = setup();
        for loc in [
            "https://evil.example/x",
            "http://erp.example.com/x",
            "https://erp.example.com:8443/x",
            "//evil.example/x?accesstoken=fake-token-for-tests",
        ] {
            let err = c.follow_redirect(&r, 302, Some(loc), 0).unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, Error::HttpStatus { status: 302, .. }));
            assert!(text.contains("refused"), "{text}");
            assert!(!text.contains("fake-token-for-tests"), "{text}");
        }
    }

    #[test]
    fn limits() {
        let (c, r) = setup();
        assert!(c.follow_redirect(&r, 200, None, 0).unwrap().is_none());
        assert!(c.follow_redirect(&r, 304, None, 0).unwrap().is_none());
        assert!(c.follow_redirect(&r, 302, None, 0).is_err());
        assert!(c
            .follow_redirect(&r, 302, Some("/x"), MAX_REDIRECTS)
            .is_err());
    }
}
