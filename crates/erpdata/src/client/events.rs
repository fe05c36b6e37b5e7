//! What the ready clients log, under the target `erpdata` of the `log`
//! crate (a `tracing` subscriber takes these too, as it takes reqwest's
//! and ureq's): each request and answer at DEBUG, each wait before
//! another attempt at INFO, as the Python package's `erpdata` logger
//! does. The URL and the form are redacted first: the token never reaches
//! a log line, not even in the GET form the caller chose.

use std::time::Duration;

use crate::config::Config;

const TARGET: &str = "erpdata";

/// "request 2: POST https://erp.example.com/apis/dataapi.php form: …"
pub(super) fn request(config: &Config, attempt: u32, request: &http::Request<Vec<u8>>) {
    if !log::log_enabled!(target: TARGET, log::Level::Debug) {
        return;
    }
    let url = config.redact(&request.uri().to_string());
    let body = request.body();
    let form = if body.is_empty() {
        String::new()
    } else {
        format!(" form: {}", config.redact(&String::from_utf8_lossy(body)))
    };
    log::debug!(target: TARGET, "request {attempt}: {} {url}{form}", request.method());
}

/// "answer 503"
pub(super) fn answer(status: u16) {
    log::debug!(target: TARGET, "answer {status}");
}

/// "waiting 0.52 s before request 2 (as the core's call asks)"
pub(super) fn waiting(delay: Duration, next_attempt: u32) {
    log::info!(
        target: TARGET,
        "waiting {:.2} s before request {next_attempt} (as the core's call asks)",
        delay.as_secs_f64()
    );
}
