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
use crate::log_line::{answer_line, done_line, failed_line, waiting_line};

const TARGET: &str = "erpdata";

/// `request 2: POST https://erp.example.com/apis/dataapi.php form: …`
pub(super) fn request<S: Sink>(call: &Call<S>) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", call.request_line());
    }
}

/// "answer 503"
pub(super) fn answer(status: u16) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", answer_line(status));
    }
}

/// "waiting 0.52 s before request 2 (as the core's call asks)"
pub(super) fn waiting(delay: Duration, next_attempt: u32) {
    if log::log_enabled!(target: TARGET, log::Level::Info) {
        log::info!(target: TARGET, "{}", waiting_line(delay, next_attempt));
    }
}

/// "call done after 2 requests"
pub(super) fn done(attempts: u32) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", done_line(attempts));
    }
}

/// "call failed after 1 request: …" (the error's message, redacted)
pub(super) fn failed(attempts: u32, error: &Error) {
    if log::log_enabled!(target: TARGET, log::Level::Debug) {
        log::debug!(target: TARGET, "{}", failed_line(attempts, &error.to_string()));
    }
}
