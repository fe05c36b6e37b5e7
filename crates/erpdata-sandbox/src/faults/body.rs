//! Faults in an answer's body and timing: the real answer trickled, cut,
//! broken off, stalled, or a body that never ends. Streamed answers stay
//! streamed; only the cuts hold the bytes before the cut.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use futures_util::{stream, Stream, StreamExt};

use crate::routes::pieces;
use crate::style::Style;

type Chunk = Result<Bytes, axum::Error>;

/// How long bytes sent before a break get to reach the client: hyper
/// drops what it has not written when the connection goes.
const FLUSH: Duration = Duration::from_millis(50);

fn broken() -> axum::Error {
    axum::Error::new(std::io::Error::other("connection broken on purpose"))
}

/// `chunks`, then (after a moment) a broken connection.
fn then_break(chunks: impl Stream<Item = Chunk> + Send + 'static) -> Body {
    Body::from_stream(chunks.chain(stream::once(async {
        tokio::time::sleep(FLUSH).await;
        Err(broken())
    })))
}

/// The same answer, `bytes` bytes every `every`.
pub(crate) fn trickle(res: Response, bytes: usize, every: Duration) -> Response {
    res.map(|body| {
        Body::from_stream(
            body.into_data_stream()
                .flat_map(move |chunk| {
                    let cut: Vec<Chunk> = match chunk {
                        Ok(c) => pieces(c, bytes).map(Ok).collect(),
                        Err(e) => vec![Err(e)],
                    };
                    stream::iter(cut)
                })
                .then(move |piece| async move {
                    tokio::time::sleep(every).await;
                    piece
                }),
        )
    })
}

/// `prefix`, then the answer's own body.
pub(crate) fn prepend(mut res: Response, prefix: &'static [u8]) -> Response {
    res.headers_mut().remove(header::CONTENT_LENGTH);
    res.map(|body| {
        Body::from_stream(
            stream::once(async move { Ok(Bytes::from_static(prefix)) })
                .chain(body.into_data_stream()),
        )
    })
}

/// The first `limit` bytes of `body`, and the length of the whole body if
/// `measure` (otherwise reading stops at `limit`).
async fn first_bytes(body: Body, limit: usize, measure: bool) -> (Bytes, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    let mut chunks = body.into_data_stream();
    while let Some(Ok(chunk)) = chunks.next().await {
        total += chunk.len();
        let take = chunk.len().min(limit - kept.len());
        kept.extend_from_slice(&chunk[..take]);
        if kept.len() == limit && !measure {
            break;
        }
    }
    (Bytes::from(kept), total)
}

/// A complete message whose body is the answer cut after `bytes` bytes.
pub(crate) async fn truncate(res: Response, bytes: usize) -> Response {
    let (mut head, body) = res.into_parts();
    let (kept, _) = first_bytes(body, bytes, false).await;
    head.headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(kept.len()));
    Response::from_parts(head, Body::from(kept))
}

/// The answer's full Content-Length, its first `bytes` bytes, then a
/// closed connection. An answer no longer than `bytes` goes out whole.
pub(crate) async fn short(res: Response, bytes: usize) -> Response {
    let (mut head, body) = res.into_parts();
    let (kept, total) = first_bytes(body, bytes, true).await;
    head.headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(total));
    let body = if kept.len() == total {
        Body::from(kept)
    } else {
        then_break(stream::once(async { Ok(kept) }))
    };
    Response::from_parts(head, body)
}

/// The answer streamed, the connection broken after `bytes` bytes.
pub(crate) fn reset(mut res: Response, bytes: usize) -> Response {
    res.headers_mut().remove(header::CONTENT_LENGTH);
    res.map(|body| {
        let upto = body.into_data_stream().scan(bytes, |left, chunk| {
            let out = match chunk {
                Ok(c) if *left > 0 => {
                    let take = (*left).min(c.len());
                    *left -= take;
                    Some(Ok(c.slice(..take)))
                }
                _ => None,
            };
            async move { out }
        });
        then_break(upto)
    })
}

/// The answer's first 16 bytes, then a pause (forever if `None`), then
/// the rest.
pub(crate) fn stall(res: Response, pause: Option<Duration>) -> Response {
    res.map(|body| {
        let mut chunks = body.into_data_stream();
        Body::from_stream(
            stream::once(async move {
                let mut first = Vec::new();
                while first.len() < 16 {
                    match chunks.next().await {
                        Some(Ok(c)) => first.extend_from_slice(&c),
                        Some(Err(e)) => return stream::iter(vec![Err(e)]).left_stream(),
                        None => break,
                    }
                }
                let rest = Bytes::from(first.split_off(first.len().min(16)));
                let pause = async move {
                    match pause {
                        Some(p) => tokio::time::sleep(p).await,
                        None => std::future::pending().await,
                    }
                    Ok(rest)
                };
                stream::iter(vec![Ok(Bytes::from(first))])
                    .chain(stream::once(pause))
                    .chain(chunks)
                    .right_stream()
            })
            .flatten(),
        )
    })
}

/// Status 200, a table answer's opening, then a row every 10 ms, forever,
/// its `total` typed as `style` types money.
pub(crate) fn endless(style: Style) -> Response {
    let total = if style.quotes_money() {
        "\"1.00\""
    } else {
        "1.00"
    };
    let rows = stream::unfold(0u64, move |n| async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        let sep = if n == 0 { "" } else { "," };
        let row = format!("{sep}{{\"invoice_no\":\"INV-{n:08}\",\"total\":{total}}}");
        Some((Ok::<_, axum::Error>(Bytes::from(row)), n + 1))
    });
    let body =
        stream::once(async { Ok(Bytes::from_static(b"{\"status\":\"success\",\"data\":[")) })
            .chain(rows);
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
        .body(Body::from_stream(body))
        .expect("a valid head")
}
