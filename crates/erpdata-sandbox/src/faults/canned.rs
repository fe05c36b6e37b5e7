//! Answers a broken PHP stack gives instead of the real one: a gateway's
//! HTML error page, PHP's own error output, the service's error envelope.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::json::error_body;

const HTML: &str = "text/html; charset=UTF-8";

/// What PHP prints for a notice with `display_errors` on, before the
/// script's own output.
pub(crate) const NOTICE: &[u8] = b"<br />\n<b>Notice</b>:  Undefined index: x in \
<b>/var/www/html/apis/dataapi.php</b> on line <b>12</b><br />\n";

/// Status `code` with a gateway's HTML page, and `Retry-After` if given.
pub(crate) fn error_page(code: StatusCode, retry_after: Option<u64>) -> Response {
    let page = format!(
        "<html><head><title>{code}</title></head><body><center><h1>{code}</h1></center>\
         <hr><center>nginx</center></body></html>\n"
    );
    let mut res = (code, [(header::CONTENT_TYPE, HTML)], page).into_response();
    if let Some(secs) = retry_after {
        res.headers_mut().insert(
            header::RETRY_AFTER,
            secs.to_string().parse().expect("digits"),
        );
    }
    res
}

/// Status 200 and a PHP fatal error page: no JSON at all.
pub(crate) fn php_error_page() -> Response {
    (
        [(header::CONTENT_TYPE, HTML)],
        "<br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[HY000] [2002] \
         Connection refused in <b>/var/www/html/apis/dataapi.php</b>:<b>12</b>\n\
         Stack trace:\n#0 {main}\n  thrown in <b>/var/www/html/apis/dataapi.php</b> \
         on line <b>12</b><br />\n",
    )
        .into_response()
}

/// Status 200 and the service's own error envelope.
pub(crate) fn service_error() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        error_body("Database connection failed"),
    )
        .into_response()
}
