//! Whole-process faults set on the command line (`--latency`,
//! `--fail-rate`), met by every request but the journal's reads, plus the
//! count of all requests.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use super::{canned, roll};
use crate::routes::App;

/// Middleware: counts the request, then delays or fails it as the
/// switches say.
pub(crate) async fn process_faults(
    State(app): State<Arc<App>>,
    req: Request,
    next: Next,
) -> Response {
    let n = app.journal.tick();
    if let Some(delay) = app.config.latency {
        tokio::time::sleep(delay).await;
    }
    if let Some(percent) = app.config.fail_rate {
        if roll(app.config.seed, "--fail-rate", n) < u64::from(percent) {
            return canned::error_page(StatusCode::SERVICE_UNAVAILABLE, Some(0));
        }
    }
    next.run(req).await
}
