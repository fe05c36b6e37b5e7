//! Faults on demand, chosen by a path prefix: a client whose base URL is
//! `http://HOST:PORT/_faults/FAULT/KEY/` sends its requests to
//! `/_faults/FAULT/KEY/apis/ajax.php?...` and meets FAULT with no switch of
//! its own. KEY names a counter, so concurrent tests stay apart.
//!
//! - `pass`: answered normally (only counted).
//! - `status-CODExN`: the first N requests under KEY get status CODE with
//!   `Retry-After: 0` and an HTML page; later ones are answered normally.
//! - `redirect-CODE-self`: a redirect to the same path without the prefix,
//!   on this origin (query string kept).
//! - `redirect-CODE-PORT`: a redirect to
//!   `http://127.0.0.1:PORT/_faults/pass/KEY/...`, another origin, where a
//!   request that follows it would be counted under KEY.
//!
//! `GET /_faults/count/KEY` answers how many requests arrived under KEY, so
//! tests can assert the attempts a client made, or that a second origin
//! received nothing.

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use crate::counts::Counts;
use crate::routes::{dues, not_found, table, App};

static COUNTS: Counts = Counts::new();

enum Fault {
    Pass,
    Status { code: StatusCode, times: u64 },
    Redirect { code: StatusCode, port: Option<u16> },
}

impl Fault {
    fn parse(text: &str) -> Option<Fault> {
        if text == "pass" {
            return Some(Fault::Pass);
        }
        if let Some(spec) = text.strip_prefix("status-") {
            let (code, times) = spec.split_once('x')?;
            return Some(Fault::Status {
                code: StatusCode::from_u16(code.parse().ok()?).ok()?,
                times: times.parse().ok()?,
            });
        }
        let (code, to) = text.strip_prefix("redirect-")?.split_once('-')?;
        let code = StatusCode::from_u16(code.parse().ok()?).ok()?;
        if !code.is_redirection() {
            return None;
        }
        let port = match to {
            "self" => None,
            port => Some(port.parse().ok()?),
        };
        Some(Fault::Redirect { code, port })
    }
}

/// `ANY /_faults/{fault}/{key}/{*path}`.
pub(crate) async fn inject(
    state: State<Arc<App>>,
    Path((fault, key, path)): Path<(String, String, String)>,
    mut req: Request,
) -> Response {
    let seen = COUNTS.bump(&key);
    let Some(fault) = Fault::parse(&fault) else {
        return (
            StatusCode::BAD_REQUEST,
            format!(
                "unknown fault {fault:?}: expected pass, status-CODExN, \
                 redirect-CODE-self or redirect-CODE-PORT\n"
            ),
        )
            .into_response();
    };
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    match fault {
        Fault::Status { code, times } if seen <= times => (
            code,
            [
                (header::RETRY_AFTER, "0"),
                (header::CONTENT_TYPE, "text/html; charset=iso-8859-1"),
            ],
            format!(
                "<html><head><title>{code}</title></head><body><h1>{code}</h1></body></html>\n"
            ),
        )
            .into_response(),
        Fault::Redirect { code, port } => {
            let location = match port {
                None => format!("/{path}{query}"),
                Some(port) => format!("http://127.0.0.1:{port}/_faults/pass/{key}/{path}{query}"),
            };
            (code, [(header::LOCATION, location)]).into_response()
        }
        Fault::Pass | Fault::Status { .. } => {
            // The endpoints read the query string from the URI.
            if let Ok(uri) = format!("/{path}{query}").parse::<Uri>() {
                *req.uri_mut() = uri;
            }
            match path.as_str() {
                "apis/ajax.php" => dues(state, req).await,
                "apis/dataapi.php" => table(state, req).await,
                _ => not_found().await,
            }
        }
    }
}

/// `GET /_faults/count/{key}`: requests seen under `key`.
pub(crate) async fn seen(Path(key): Path<String>) -> String {
    COUNTS.get(&key).to_string()
}
