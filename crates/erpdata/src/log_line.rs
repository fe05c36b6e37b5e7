//! The lines every client logs about a call, written once: each request
//! (its URL and form redacted) and answer, at DEBUG, and each wait before
//! another attempt, at INFO. The Rust clients log them under the `log`
//! target `erpdata`, the Python package through its `erpdata` logger, the
//! JavaScript package through the client's `logger` option; each binding
//! asks its [`Call`](crate::Call) for a line only when it is to be logged.
//!
//! Each line starts with the call's number (`call 7: …`), so that the lines
//! of calls made at once (a server's requests, the many calls of an aging)
//! can be told apart.

use std::time::Duration;

use crate::body::RequestBody;
use crate::config::Config;

/// `call 7: request 2: POST https://erp.example.com/apis/dataapi.php form: …`:
/// attempt `attempt` of call `call` sending `request`, its URL and form
/// (when it has one) redacted by `config`, so that the token never reaches
/// a log line, not even in the GET form's URL.
pub(crate) fn request_line(
    call: u64,
    config: &Config,
    attempt: u32,
    request: &http::Request<RequestBody>,
) -> String {
    let url = config.redact(&request.uri().to_string());
    let body = request.body();
    let form = if body.is_empty() {
        String::new()
    } else {
        format!(" form: {}", config.redact(&String::from_utf8_lossy(body)))
    };
    format!(
        "call {call}: request {attempt}: {} {url}{form}",
        request.method()
    )
}

/// "call 7: answer 503": the status of an answer's head.
pub(crate) fn answer_line(call: u64, status: u16) -> String {
    format!("call {call}: answer {status}")
}

/// "call 7: waiting 0.52 s before request 2 (as the core's call asks)":
/// the call's [`Action::Sleep`](crate::Action::Sleep) of `delay` before
/// attempt `next_attempt`.
pub(crate) fn waiting_line(call: u64, delay: Duration, next_attempt: u32) -> String {
    format!(
        "call {call}: waiting {:.2} s before request {next_attempt} (as the core's call asks)",
        delay.as_secs_f64()
    )
}

/// "call 7: done after 2 requests": a call that ended with its result.
pub(crate) fn done_line(call: u64, attempts: u32) -> String {
    format!(
        "call {call}: done after {}",
        counted(attempts.into(), "request")
    )
}

/// "call 7: failed after 1 request: HTTP status 404 …": a call that ended
/// with an error, given by its message (the core's, already redacted).
pub(crate) fn failed_line(call: u64, attempts: u32, message: &str) -> String {
    // Said first here: the message's own count of requests goes.
    let sent = crate::error::requests_sent(attempts);
    let message = message.strip_suffix(sent.as_str()).unwrap_or(message);
    format!(
        "call {call}: failed after {}: {message}",
        counted(attempts.into(), "request")
    )
}

/// "call 7: ended by its caller after 40 rows": a call its caller ended
/// before its answer did (a stream closed early, a call cancelled or
/// dropped), with the rows it had handed out.
pub(crate) fn ended_line(call: u64, rows: u64) -> String {
    format!(
        "call {call}: ended by its caller after {}",
        counted(rows, "row")
    )
}

/// "1 request", "2 requests".
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Method, TableQuery};

    fn config() -> Config {
        Config::builder("https://erp.example.com/")
            .project("demo")
            .access_token("s3cret-token-value")
            .company_id(1)
            .year_id(2)
            .build()
            .unwrap()
    }

    #[test]
    fn the_post_form_is_redacted() {
        let config = config();
        let request = config
            .table_request(&TableQuery::new("sales_invoice"))
            .unwrap();
        let line = request_line(7, &config, 1, &request);
        assert!(
            line.starts_with("call 7: request 1: POST https://erp.example.com/apis/dataapi.php"),
            "{line}"
        );
        assert!(line.contains(" form: "), "{line}");
        assert!(line.contains("accesstoken=[REDACTED]"), "{line}");
        assert!(!line.contains("s3cret"), "{line}");
    }

    #[test]
    fn the_get_form_url_is_redacted() {
        let config = config();
        let query = TableQuery::new("sales_invoice").method(Method::Get);
        let request = config.table_request(&query).unwrap();
        let line = request_line(8, &config, 3, &request);
        assert!(
            line.starts_with("call 8: request 3: GET https://"),
            "{line}"
        );
        assert!(line.contains("accesstoken=[REDACTED]"), "{line}");
        assert!(!line.contains("form:"), "{line}");
        assert!(!line.contains("s3cret"), "{line}");
    }

    #[test]
    fn answers_and_waits() {
        assert_eq!(answer_line(4, 503), "call 4: answer 503");
        assert_eq!(
            waiting_line(4, Duration::from_millis(517), 2),
            "call 4: waiting 0.52 s before request 2 (as the core's call asks)"
        );
    }

    #[test]
    fn a_call_ends_in_requests_counted_in_words() {
        assert_eq!(ended_line(9, 1), "call 9: ended by its caller after 1 row");
        assert_eq!(
            ended_line(9, 40),
            "call 9: ended by its caller after 40 rows"
        );
        assert_eq!(done_line(5, 1), "call 5: done after 1 request");
        assert_eq!(done_line(5, 3), "call 5: done after 3 requests");
        assert_eq!(
            failed_line(6, 2, "HTTP status 503: busy"),
            "call 6: failed after 2 requests: HTTP status 503: busy"
        );
        // The error's own count is not said twice.
        assert_eq!(
            failed_line(6, 3, "HTTP status 503: busy (3 requests sent)"),
            "call 6: failed after 3 requests: HTTP status 503: busy"
        );
    }
}
