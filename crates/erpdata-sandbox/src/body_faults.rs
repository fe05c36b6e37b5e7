//! Faults in the answer's timing and body, chosen by a path prefix like
//! those of `faults`: a client whose base URL is
//! `http://HOST:PORT/_body/FAULT/KEY/` gets the real answer to its request,
//! spoiled by FAULT. Requests are counted per KEY
//! (`GET /_body/count/KEY`).
//!
//! - `backoff-CODExN`: the first N requests get status CODE without
//!   `Retry-After` (the client's own backoff applies); later ones the
//!   real answer.
//! - `truncate-BYTES`: the real answer cut after BYTES bytes, ending
//!   cleanly: a short body, not a broken connection.
//! - `reset-BYTES`: the real answer streamed, the connection broken after
//!   BYTES bytes.
//! - `stall-MS`: the answer's first 16 bytes, then a pause of MS
//!   milliseconds before the rest.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use crate::counts::Counts;
use crate::routes::{dues, not_found, table, App};

static COUNTS: Counts = Counts::new();

/// `GET /_body/count/{key}`: requests seen under `key`.
pub(crate) async fn seen(Path(key): Path<String>) -> String {
    COUNTS.get(&key).to_string()
}

enum Fault {
    Backoff { code: StatusCode, times: u64 },
    Truncate(usize),
    Reset(usize),
    Stall(u64),
}

impl Fault {
    fn parse(text: &str) -> Option<Fault> {
        let (name, arg) = text.split_once('-')?;
        Some(match name {
            "backoff" => {
                let (code, times) = arg.split_once('x')?;
                Fault::Backoff {
                    code: StatusCode::from_u16(code.parse().ok()?).ok()?,
                    times: times.parse().ok()?,
                }
            }
            "truncate" => Fault::Truncate(arg.parse().ok()?),
            "reset" => Fault::Reset(arg.parse().ok()?),
            "stall" => Fault::Stall(arg.parse().ok()?),
            _ => return None,
        })
    }
}

fn broken() -> std::io::Error {
    std::io::Error::other("connection broken on purpose")
}

/// `ANY /_body/{fault}/{key}/{*path}`.
pub(crate) async fn inject(
    state: State<Arc<App>>,
    Path((fault, key, path)): Path<(String, String, String)>,
    req: Request,
) -> Response {
    let seen = COUNTS.bump(&key);
    let Some(fault) = Fault::parse(&fault) else {
        return (
            StatusCode::BAD_REQUEST,
            format!(
                "unknown fault {fault:?}: expected backoff-CODExN, truncate-BYTES, \
                 reset-BYTES or stall-MS\n"
            ),
        )
            .into_response();
    };
    if let Fault::Backoff { code, times } = fault {
        if seen <= times {
            return (
                code,
                [(header::CONTENT_TYPE, "text/html; charset=iso-8859-1")],
                format!("<html><body><h1>{code}</h1></body></html>\n"),
            )
                .into_response();
        }
    }
    let (mut head, body) = real(state, &path, req).await.into_parts();
    head.headers.remove(header::CONTENT_LENGTH);
    let body = match fault {
        Fault::Backoff { .. } => body,
        Fault::Truncate(bytes) => {
            let all = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            Body::from(all.slice(..bytes.min(all.len())))
        }
        Fault::Reset(bytes) => {
            // The pause lets the bytes before the cut reach the client
            // before the connection goes (hyper drops unsent data).
            let chunks = futures_util::stream::unfold(
                (body.into_data_stream(), bytes, false),
                |(mut chunks, left, done)| async move {
                    if done {
                        return None;
                    }
                    if left == 0 {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        return Some((Err(broken()), (chunks, 0, true)));
                    }
                    match chunks.next().await {
                        Some(Ok(c)) => {
                            let take = left.min(c.len());
                            Some((Ok(c.slice(..take)), (chunks, left - take, false)))
                        }
                        _ => Some((Err(broken()), (chunks, 0, true))),
                    }
                },
            );
            Body::from_stream(chunks)
        }
        Fault::Stall(ms) => {
            let all = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            let first = all.slice(..all.len().min(16));
            let rest = all.slice(first.len()..);
            let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(first)]).chain(
                futures_util::stream::once(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(rest)
                }),
            );
            Body::from_stream(chunks)
        }
    };
    Response::from_parts(head, body)
}

/// The answer `/{path}` gets.
async fn real(state: State<Arc<App>>, path: &str, mut req: Request) -> Response {
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    if let Ok(uri) = format!("/{path}{query}").parse::<Uri>() {
        *req.uri_mut() = uri;
    }
    match path {
        "apis/ajax.php" => dues(state, req).await,
        "apis/dataapi.php" => table(state, req).await,
        _ => not_found().await,
    }
}
