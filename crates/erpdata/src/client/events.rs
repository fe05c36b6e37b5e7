//! What the ready clients log, under the target `erpdata` of the `log`
//! crate (a `tracing` subscriber takes these too, as it takes reqwest's
//! and ureq's): each request and answer at DEBUG, each wait before
//! another attempt at INFO, the core's lines (`log_line`) that the Python
//! package's `erpdata` logger and the JavaScript client's `logger` take
//! too. The URL and the form are redacted first: the token never reaches
//! a log line, not even in the GET form the caller chose.

use std::time::Duration;

use crate::call::{Call, Sink};
use crate::error::Error;

const TARGET: &str = "erpdata";

/// `call 7: request 2: POST https://erp.example.com/apis/dataapi.php form: …`
pub(super) fn request<S: Sink>(call: &Call<S>) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", call.request_line());
    }
}

/// "call 7: answer 503"
pub(super) fn answer<S: Sink>(call: &Call<S>, status: u16) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", call.answer_line(status));
    }
}

/// "call 7: waiting 0.52 s before request 2 (as the core's call asks)"
pub(super) fn waiting<S: Sink>(call: &Call<S>, delay: Duration) {
    if log::log_enabled!(target: TARGET, log::Level::Info) {
        log::info!(target: TARGET, "{}", call.waiting_line(delay));
    }
}

/// "call 7: done after 2 requests"
pub(super) fn done<S: Sink>(call: &Call<S>) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", call.done_line());
    }
}

/// "call 7: failed after 1 request: …" (the error's message, redacted)
pub(super) fn failed<S: Sink>(call: &Call<S>, error: &Error) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", call.failed_line(&error.to_string()));
    }
}

/// "call 7: ended by its caller after 40 rows": a call dropped before it
/// ended (a stream dropped early, a future cancelled), if it sent anything.
pub(super) fn ended<S: Sink>(call: &Call<S>) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        if let Some(line) = call.ended_line() {
            log::debug!(target: TARGET, "{line}");
        }
    }
}
