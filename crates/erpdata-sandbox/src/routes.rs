//! The two PHP endpoints, answered the way a PHP service answers: HTTP 200
//! with `{"status":"error",...}` for every request it understood the path
//! of, and an HTML 404 page for any other path. A `/_style/STYLE/` prefix
//! chooses the answer style per request, before any fault prefix.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;

use crate::answers::Answers;
use crate::config::Config;
use crate::data::Dataset;
use crate::dues::{dues_body, DuesType};
use crate::faults::{self, process_faults, Fault, Journal, KNOWN};
use crate::json::error_body;
use crate::style::Style;
use crate::tables::{Chunks, Table};

const JSON: &str = "application/json; charset=utf-8";
/// Like PHP's `post_max_size`: a larger body is ignored, not refused.
const MAX_FORM: usize = 1 << 20;

pub(crate) struct App {
    pub(crate) config: Config,
    data: Arc<Dataset>,
    /// `--fault`, met on the plain paths.
    fault: Option<Fault>,
    pub(crate) journal: Journal,
    /// `--cache-answers`: the table answers made so far.
    answers: Option<Answers>,
}

/// The sandbox as an axum router (the demo data is made here, once).
///
/// # Panics
/// If `config.fault` is not a fault `/_faults/` knows (`parse_args` checks).
pub fn router(config: Config) -> Router {
    let data = Arc::new(Dataset::new(config.seed, config.rows));
    let log = config.log_requests;
    let fault = config.fault.as_deref().map(|f| {
        Fault::parse(f).unwrap_or_else(|| panic!("unknown fault {f:?}: expected one of {KNOWN}"))
    });
    let answers = config.cache_answers.then(Answers::default);
    let app = Arc::new(App {
        config,
        answers,
        data,
        fault,
        journal: Journal::default(),
    });
    let answers = Router::new()
        .route("/_faults/{fault}/{key}/{*path}", any(faults::inject))
        .route("/_body/{fault}/{key}/{*path}", any(faults::inject))
        .route(
            "/_style/{style}/_faults/{fault}/{key}/{*path}",
            any(faults::inject_styled),
        )
        .route(
            "/_style/{style}/_body/{fault}/{key}/{*path}",
            any(faults::inject_styled),
        )
        .route("/_style/{style}/{*path}", any(styled))
        .fallback(plain)
        .layer(middleware::from_fn_with_state(app.clone(), process_faults));
    // The journal's reads: not counted, delayed or failed themselves.
    let router = Router::new()
        .route("/_faults/count/{key}", get(faults::count))
        .route("/_faults/log/{key}", get(faults::log))
        .route("/_faults/total", get(faults::total))
        .route("/_body/count/{key}", get(faults::count))
        .route("/_body/log/{key}", get(faults::log))
        .merge(answers)
        .with_state(app);
    if log {
        router.layer(middleware::from_fn(log_request))
    } else {
        router
    }
}

/// Any path outside `/_faults/` and `/_style/`: the real answer in the
/// configured style, or `--fault`'s.
async fn plain(State(app): State<Arc<App>>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    match app.fault.clone() {
        Some(fault) => faults::plain(app, &fault, None, &path, req).await,
        None => {
            let style = app.config.style;
            answer(app, style, &path, req).await
        }
    }
}

/// `ANY /_style/{style}/{*path}`: the plain path `/{path}` in that style
/// (meeting `--fault` as a plain path would). An unknown style is an
/// unknown path.
async fn styled(
    State(app): State<Arc<App>>,
    Path((style, path)): Path<(String, String)>,
    req: Request,
) -> Response {
    let Some(style) = Style::parse(&style) else {
        return not_found().await;
    };
    let path = format!("/{path}");
    match app.fault.clone() {
        Some(fault) => faults::plain(app, &fault, Some(style), &path, req).await,
        None => answer(app, style, &path, req).await,
    }
}

/// What a `/_style/STYLE` prefix adds before a path: nothing without one.
pub(crate) fn style_prefix(style: Option<Style>) -> String {
    style.map(|s| format!("/_style/{s}")).unwrap_or_default()
}

/// The real answer to `req` in `style` as if it had been sent to `path` (a
/// request under a style or fault prefix keeps its query string and body).
pub(crate) async fn answer(app: Arc<App>, style: Style, path: &str, mut req: Request) -> Response {
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    // The endpoints read the query string from the URI.
    if let Ok(uri) = format!("{path}{query}").parse::<Uri>() {
        *req.uri_mut() = uri;
    }
    match path {
        "/apis/ajax.php" => ajax(&app, style, req).await,
        "/apis/dataapi.php" => table(&app, style, req).await,
        _ => not_found().await,
    }
}

/// Request parameters with PHP's `$_REQUEST` semantics.
struct Params(Vec<(String, String)>);

impl Params {
    /// Later sources win over earlier ones, as the form body wins over the
    /// query string in PHP. `+` is a space in both.
    fn parse(sources: &[&[u8]]) -> Self {
        Params(
            sources
                .iter()
                .flat_map(|s| form_urlencoded::parse(s).into_owned())
                .collect(),
        )
    }

    /// The last value of a repeated name wins, as in PHP. Blank counts as
    /// missing, as it does for PHP code that checks with `empty()`.
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn require(&self, name: &str) -> Result<&str, Vec<u8>> {
        self.get(name)
            .ok_or_else(|| error_body(&format!("Missing parameter: {name}")))
    }
}

fn fail<T>(message: String) -> Result<T, Vec<u8>> {
    Err(error_body(&message))
}

fn json(body: impl Into<Body>) -> Response {
    ([(header::CONTENT_TYPE, JSON)], body.into()).into_response()
}

/// `apis/ajax.php?sys_projectfolder=..&func=..&...`: the dues query
/// (`getduesDet`) and the other functions (`crate::functions`), by GET or
/// POST: parameters as PHP's `$_REQUEST` has them (a form body over the
/// query string).
async fn ajax(app: &Arc<App>, style: Style, req: Request) -> Response {
    let params = request_params(req).await;
    match ajax_answer(app, style, &params) {
        Ok(body) | Err(body) => json(body),
    }
}

/// The query string, then a form body (PHP fills `$_POST` only from one).
async fn request_params(req: Request) -> Params {
    let (parts, body) = req.into_parts();
    let form = if is_form(&parts.headers) {
        axum::body::to_bytes(body, MAX_FORM)
            .await
            .unwrap_or_default()
    } else {
        Bytes::new()
    };
    Params::parse(&[parts.uri.query().unwrap_or("").as_bytes(), &form])
}

fn ajax_answer(app: &App, style: Style, p: &Params) -> Result<Vec<u8>, Vec<u8>> {
    let folder = p.require("sys_projectfolder")?;
    let func = p.require("func")?;
    if folder != app.config.project_folder() {
        return fail(format!("Unknown project folder: {folder}"));
    }
    if app.config.ajax_token
        && !p
            .get("accesstoken")
            .is_some_and(|t| same_secret(t, &app.config.token))
    {
        return fail("Invalid access token".to_owned());
    }
    if func == "getduesDet" {
        return dues_answer(app, style, p);
    }
    crate::functions::answer(func, app.data.current(), style, |name| p.get(name))
        .ok_or_else(|| error_body(&format!("Unknown function: {func}")))
}

/// `getduesDet`: `acid` and `type`.
fn dues_answer(app: &App, style: Style, p: &Params) -> Result<Vec<u8>, Vec<u8>> {
    let acid = p.require("acid")?;
    let ty = p.require("type")?;
    let Some(ty) = DuesType::parse(ty) else {
        return fail(format!("Invalid type: {ty} (expected RECEIPT or PAYMENT)"));
    };
    let Some(party) = app.data.account(acid) else {
        return fail(format!("Unknown account: {acid}"));
    };
    Ok(dues_body(app.data.current(), party, ty, style))
}

/// `POST` (form) or `GET` `apis/dataapi.php` with `req=getdata`.
async fn table(app: &Arc<App>, style: Style, req: Request) -> Response {
    let params = request_params(req).await;
    match table_lookup(app, &params) {
        Ok((ledger, table)) => {
            let made = || Chunks::new(app.data.clone(), ledger, table, style);
            let mut chunks: Box<dyn Iterator<Item = Bytes> + Send> = match &app.answers {
                Some(answers) => {
                    let kept = answers.get_or_make((ledger, table, style), || made().collect());
                    Box::new((0..kept.len()).map(move |i| kept[i].clone()))
                }
                None => Box::new(made()),
            };
            let first = chunks.next().expect("a first chunk");
            let size = app.config.chunk_bytes;
            match chunks.next() {
                // Small answers get a Content-Length, as PHP's output buffer gives.
                None => json(first),
                Some(second) => json(Body::from_stream(futures_util::stream::iter(
                    [first, second]
                        .into_iter()
                        .chain(chunks)
                        .flat_map(move |chunk| {
                            pieces(chunk, size.map_or(usize::MAX, |n| n.get() as usize))
                        })
                        .map(Ok::<_, Infallible>),
                ))),
            }
        }
        Err(body) => json(body),
    }
}

/// `chunk` in pieces of at most `size` bytes, each an HTTP chunk of its
/// own (views of the one buffer).
pub(crate) fn pieces(chunk: Bytes, size: usize) -> impl Iterator<Item = Bytes> {
    (0..chunk.len())
        .step_by(size)
        .map(move |at| chunk.slice(at..chunk.len().min(at + size)))
}

fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
}

fn table_lookup(app: &App, p: &Params) -> Result<(usize, Table), Vec<u8>> {
    let req = p.require("req")?;
    if req != "getdata" {
        return fail(format!("Unknown request: {req}"));
    }
    let project = p.require("project")?;
    let token = p.require("accesstoken")?;
    let year = p.require("yearid")?;
    let company = p.require("compid")?;
    let table = p.require("table")?;
    if project != app.config.project {
        return fail(format!("Unknown project: {project}"));
    }
    if !same_secret(token, &app.config.token) {
        return fail("Invalid access token".to_owned());
    }
    // Numeric keys, so "01" is company 1, as with an integer column.
    let ledger = match (company.parse::<i64>(), year.parse::<i64>()) {
        (Ok(c), Ok(y)) => app.data.find(c, y),
        _ => None,
    };
    let Some(ledger) = ledger else {
        return fail("Invalid company or year".to_owned());
    };
    let Some(table) = Table::from_name(table) else {
        return fail(format!("Unknown table: {table}"));
    };
    Ok((ledger, table))
}

/// Compares without stopping at the first difference.
fn same_secret(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

pub(crate) async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/html; charset=iso-8859-1")],
        "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n\
         <title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n\
         <p>The requested URL was not found on this server.</p>\n</body></html>\n",
    )
        .into_response()
}

/// One line per request. The path only: the query string and the body may
/// carry the access token. The time is until the head of the answer.
async fn log_request(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let start = Instant::now();
    let res = next.run(req).await;
    eprintln!(
        "{method} {path} {} {:.1}ms",
        res.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    res
}
