//! Faults on demand, chosen by a path prefix: a client whose base URL is
//! `http://HOST:PORT/_faults/FAULT/KEY/` sends its requests to
//! `/_faults/FAULT/KEY/apis/ajax.php?...` and meets FAULT with no switch of
//! its own. `/_body/FAULT/KEY/` is the same family under an older name.
//! KEY is chosen by the test, so concurrent tests stay apart: every request
//! under it is counted and recorded (`GET /_faults/count/KEY`,
//! `GET /_faults/log/KEY`). `--fault FAULT` applies one to every request on
//! the plain paths, under the key `-`.
//!
//! - `pass`: the real answer.
//! - `latency-MS`: the real answer after MS ms.
//! - `trickle-BYTESxMS`: the real answer, BYTES bytes every MS ms.
//! - `status-CODExN[-raSECS]`: the first N requests under KEY get CODE with
//!   `Retry-After: SECS` (default 0) and an HTML page; later ones the real
//!   answer. `backoff-CODExN`: the same without `Retry-After`.
//! - `flaky-PERCENT`: that share of requests (seeded) get 503 with
//!   `Retry-After: 0`; the rest the real answer.
//! - `notice`: a PHP notice, then the real JSON. `html200`: a PHP error
//!   page with status 200. `service-error`: `{"status":"error",...}`.
//! - `truncate-BYTES`: the real answer cut after BYTES bytes, with a
//!   matching Content-Length. `short-BYTES`: the full Content-Length, BYTES
//!   bytes, then the connection closes. `reset-BYTES`: streamed, the
//!   connection broken after BYTES bytes.
//! - `stall-MS`: 16 bytes, a pause of MS ms, the rest. `hang`: 16 bytes,
//!   then nothing. `endless`: a table answer that never ends.
//! - `redirect-CODE-self` (same path without the prefix),
//!   `redirect-CODE-PORT` (`http://127.0.0.1:PORT/_faults/pass/KEY/...`,
//!   another origin), `redirect-CODE-loop` (the same URL again).
//!
//! A style prefix goes first: `/_style/STYLE/_faults/FAULT/KEY/...` is the
//! fault with the answer in that style, and the redirects keep the prefix.

mod body;
mod canned;
mod journal;
mod process;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

pub(crate) use journal::Journal;
pub(crate) use process::process_faults;

use crate::rng::SplitMix64;
use crate::routes::{answer, not_found, style_prefix, App};
use crate::style::Style;

/// Requests larger than this are recorded and passed on empty (the real
/// service would refuse them long before).
const MAX_RECORDED: usize = 16 << 20;

/// The key of requests that meet `--fault` on the plain paths.
pub(crate) const PROCESS_KEY: &str = "-";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    Pass,
    Latency(Duration),
    Trickle {
        bytes: usize,
        every: Duration,
    },
    Status {
        code: StatusCode,
        times: u64,
        /// `None` for `backoff-`: the client's own backoff applies.
        retry_after: Option<u64>,
    },
    Flaky(u8),
    Notice,
    Html200,
    ServiceError,
    Truncate(usize),
    Short(usize),
    Reset(usize),
    Stall(Duration),
    Hang,
    Endless,
    Redirect {
        code: StatusCode,
        to: Target,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    SameOrigin,
    Port(u16),
    Loop,
}

pub(crate) const KNOWN: &str = "pass, latency-MS, trickle-BYTESxMS, status-CODExN, \
status-CODExN-raSECS, backoff-CODExN, flaky-PERCENT, notice, html200, service-error, \
truncate-BYTES, short-BYTES, reset-BYTES, stall-MS, hang, endless, redirect-CODE-self, \
redirect-CODE-PORT, redirect-CODE-loop";

impl Fault {
    pub(crate) fn parse(text: &str) -> Option<Fault> {
        let (name, arg) = text.split_once('-').unwrap_or((text, ""));
        let ms = |a: &str| a.parse().ok().map(Duration::from_millis);
        Some(match (name, arg) {
            ("pass", "") => Fault::Pass,
            ("notice", "") => Fault::Notice,
            ("html200", "") => Fault::Html200,
            ("service", "error") => Fault::ServiceError,
            ("hang", "") => Fault::Hang,
            ("endless", "") => Fault::Endless,
            ("latency", a) => Fault::Latency(ms(a)?),
            ("stall", a) => Fault::Stall(ms(a)?),
            ("truncate", a) => Fault::Truncate(a.parse().ok()?),
            ("short", a) => Fault::Short(a.parse().ok()?),
            ("reset", a) => Fault::Reset(a.parse().ok()?),
            ("trickle", a) => {
                let (bytes, every) = a.split_once('x')?;
                Fault::Trickle {
                    bytes: bytes.parse().ok().filter(|&b| b > 0)?,
                    every: ms(every)?,
                }
            }
            ("flaky", a) => Fault::Flaky(a.parse().ok().filter(|&p| p <= 100)?),
            ("status" | "backoff", a) => {
                let (spec, ra) = match a.split_once("-ra") {
                    Some((spec, secs)) if name == "status" => (spec, secs.parse().ok()?),
                    Some(_) => return None,
                    None => (a, 0),
                };
                let (code, times) = spec.split_once('x')?;
                Fault::Status {
                    code: status(code)?,
                    times: times.parse().ok()?,
                    retry_after: (name == "status").then_some(ra),
                }
            }
            ("redirect", a) => {
                let (code, to) = a.split_once('-')?;
                let code = status(code).filter(StatusCode::is_redirection)?;
                let to = match to {
                    "self" => Target::SameOrigin,
                    "loop" => Target::Loop,
                    port => Target::Port(port.parse().ok()?),
                };
                Fault::Redirect { code, to }
            }
            _ => return None,
        })
    }
}

fn status(code: &str) -> Option<StatusCode> {
    StatusCode::from_u16(code.parse().ok()?).ok()
}

/// `ANY /_faults/{fault}/{key}/{*path}` (and `/_body/...`).
pub(crate) async fn inject(
    State(app): State<Arc<App>>,
    Path((fault, key, path)): Path<(String, String, String)>,
    req: Request,
) -> Response {
    injected(app, None, &fault, &key, &path, req).await
}

/// `ANY /_style/{style}/_faults/{fault}/{key}/{*path}` (and `/_body/...`).
/// An unknown style is an unknown path, not counted under the key.
pub(crate) async fn inject_styled(
    State(app): State<Arc<App>>,
    Path((style, fault, key, path)): Path<(String, String, String, String)>,
    req: Request,
) -> Response {
    match Style::parse(&style) {
        Some(style) => injected(app, Some(style), &fault, &key, &path, req).await,
        None => not_found().await,
    }
}

async fn injected(
    app: Arc<App>,
    style: Option<Style>,
    fault: &str,
    key: &str,
    path: &str,
    req: Request,
) -> Response {
    let (seen, req) = record(&app, key, req).await;
    match Fault::parse(fault) {
        Some(fault) => apply(app, &fault, style, key, seen, &format!("/{path}"), req).await,
        None => (
            StatusCode::BAD_REQUEST,
            format!("unknown fault {fault:?}: expected one of {KNOWN}\n"),
        )
            .into_response(),
    }
}

/// Records the request under `key`; returns its number under the key and
/// the request with its body intact.
async fn record(app: &App, key: &str, req: Request) -> (u64, Request) {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, MAX_RECORDED)
        .await
        .unwrap_or_default();
    let seen = app.journal.record(key, &parts, &body);
    (seen, Request::from_parts(parts, Body::from(body)))
}

/// A plain-path request under `--fault`: `path` is the request's path
/// without its style prefix, if it had one.
pub(crate) async fn plain(
    app: Arc<App>,
    fault: &Fault,
    style: Option<Style>,
    path: &str,
    req: Request,
) -> Response {
    let (seen, req) = record(&app, PROCESS_KEY, req).await;
    apply(app, fault, style, PROCESS_KEY, seen, path, req).await
}

/// The answer to the `seen`-th request under `key` for `path` (the path
/// without the style and fault prefixes), spoiled by `fault`. `style` is
/// the style prefix's, if there was one.
async fn apply(
    app: Arc<App>,
    fault: &Fault,
    style: Option<Style>,
    key: &str,
    seen: u64,
    path: &str,
    req: Request,
) -> Response {
    let prefix = style_prefix(style);
    let style = style.unwrap_or(app.config.style);
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    match *fault {
        Fault::Status {
            code,
            times,
            retry_after,
        } if seen <= times => return canned::error_page(code, retry_after),
        Fault::Flaky(percent) if roll(app.config.seed, key, seen) < u64::from(percent) => {
            return canned::error_page(StatusCode::SERVICE_UNAVAILABLE, Some(0))
        }
        Fault::Html200 => return canned::php_error_page(),
        Fault::ServiceError => return canned::service_error(),
        Fault::Endless => return body::endless(style),
        Fault::Redirect { code, to } => {
            let location = match to {
                Target::SameOrigin => format!("{prefix}{path}{query}"),
                Target::Port(port) => {
                    format!("http://127.0.0.1:{port}{prefix}/_faults/pass/{key}{path}{query}")
                }
                Target::Loop => req.uri().to_string(),
            };
            return (code, [(header::LOCATION, location)]).into_response();
        }
        Fault::Latency(delay) => tokio::time::sleep(delay).await,
        _ => {}
    }
    let real = answer(app, style, path, req).await;
    match *fault {
        Fault::Trickle { bytes, every } => body::trickle(real, bytes, every),
        Fault::Notice => body::prepend(real, canned::NOTICE),
        Fault::Truncate(bytes) => body::truncate(real, bytes).await,
        Fault::Short(bytes) => body::short(real, bytes).await,
        Fault::Reset(bytes) => body::reset(real, bytes),
        Fault::Stall(pause) => body::stall(real, Some(pause)),
        Fault::Hang => body::stall(real, None),
        _ => real,
    }
}

/// A number in `0..100`, fixed by the seed, the key and the request's
/// number under it, so a flaky run can be repeated exactly.
fn roll(seed: u64, key: &str, n: u64) -> u64 {
    // FNV-1a of the key.
    let key = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    SplitMix64::keyed(&[seed, key, n]).below(100)
}

/// `GET /_faults/count/{key}`: requests seen under `key`.
pub(crate) async fn count(State(app): State<Arc<App>>, Path(key): Path<String>) -> String {
    app.journal.count(&key).to_string()
}

/// `GET /_faults/log/{key}`: what each request under `key` carried.
pub(crate) async fn log(State(app): State<Arc<App>>, Path(key): Path<String>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        app.journal.log(&key),
    )
        .into_response()
}

/// `GET /_faults/total`: every request this process has answered, but
/// these reads.
pub(crate) async fn total(State(app): State<Arc<App>>) -> String {
    app.journal.total().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_fault() {
        let s = |c| StatusCode::from_u16(c).unwrap();
        let ms = Duration::from_millis;
        for (text, fault) in [
            ("pass", Fault::Pass),
            ("latency-250", Fault::Latency(ms(250))),
            (
                "trickle-64x5",
                Fault::Trickle {
                    bytes: 64,
                    every: ms(5),
                },
            ),
            (
                "status-503x2",
                Fault::Status {
                    code: s(503),
                    times: 2,
                    retry_after: Some(0),
                },
            ),
            (
                "status-429x1-ra2",
                Fault::Status {
                    code: s(429),
                    times: 1,
                    retry_after: Some(2),
                },
            ),
            (
                "backoff-502x3",
                Fault::Status {
                    code: s(502),
                    times: 3,
                    retry_after: None,
                },
            ),
            ("flaky-10", Fault::Flaky(10)),
            ("notice", Fault::Notice),
            ("html200", Fault::Html200),
            ("service-error", Fault::ServiceError),
            ("truncate-700", Fault::Truncate(700)),
            ("short-700", Fault::Short(700)),
            ("reset-600", Fault::Reset(600)),
            ("stall-3000", Fault::Stall(ms(3000))),
            ("hang", Fault::Hang),
            ("endless", Fault::Endless),
            (
                "redirect-307-self",
                Fault::Redirect {
                    code: s(307),
                    to: Target::SameOrigin,
                },
            ),
            (
                "redirect-302-8080",
                Fault::Redirect {
                    code: s(302),
                    to: Target::Port(8080),
                },
            ),
            (
                "redirect-301-loop",
                Fault::Redirect {
                    code: s(301),
                    to: Target::Loop,
                },
            ),
        ] {
            assert_eq!(Fault::parse(text), Some(fault), "{text}");
        }
    }

    #[test]
    fn refuses_nonsense() {
        for text in [
            "",
            "pass-1",
            "status-503",
            "status-1000x1",
            "backoff-503x1-ra2",
            "flaky-101",
            "trickle-0x5",
            "redirect-200-self",
            "redirect-307-x",
            "latency-",
            "bogus",
        ] {
            assert_eq!(Fault::parse(text), None, "{text}");
        }
    }

    #[test]
    fn rolls_are_seeded_and_spread() {
        assert_eq!(roll(42, "k", 7), roll(42, "k", 7));
        let hits = (0..10_000).filter(|&n| roll(42, "k", n) < 10).count();
        assert!((800..1200).contains(&hits), "{hits}");
    }
}
