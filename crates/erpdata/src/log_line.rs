//! The lines every client logs about a call, written once: each request
//! (its URL and form redacted) and answer, at DEBUG, and each wait before
//! another attempt, at INFO. The Rust clients log them under the `log`
//! target `erpdata`, the Python package through its `erpdata` logger, the
//! JavaScript package through the client's `logger` option; each binding
//! asks for a line only when it is to be logged.

use std::time::Duration;

use crate::config::Config;

/// `request 2: POST https://erp.example.com/apis/dataapi.php form: …`:
/// attempt `attempt` of a call sending `request`, its URL and form (when
/// it has one) redacted by `config`, so that the token never reaches a
/// log line, not even in the GET form's URL.
pub fn request_line(config: &Config, attempt: u32, request: &http::Request<Vec<u8>>) -> String {
    let url = config.redact(&request.uri().to_string());
    let body = request.body();
    let form = if body.is_empty() {
        String::new()
    } else {
        format!(" form: {}", config.redact(&String::from_utf8_lossy(body)))
    };
    format!("request {attempt}: {} {url}{form}", request.method())
}

/// "answer 503": the status of an answer's head.
pub fn answer_line(status: u16) -> String {
    format!("answer {status}")
}

/// "waiting 0.52 s before request 2 (as the core's call asks)": the
/// call's [`Action::Sleep`](crate::Action::Sleep) of `delay` before
/// attempt `next_attempt`.
pub fn waiting_line(delay: Duration, next_attempt: u32) -> String {
    format!(
        "waiting {:.2} s before request {next_attempt} (as the core's call asks)",
        delay.as_secs_f64()
    )
}

/// "call done after 2 requests": a call that ended with its result.
pub fn done_line(attempts: u32) -> String {
    format!("call done after {}", requests(attempts))
}

/// "call failed after 1 request: HTTP status 404 …": a call that ended
/// with an error, given by its message (the core's, already redacted).
pub fn failed_line(attempts: u32, message: &str) -> String {
    format!("call failed after {}: {message}", requests(attempts))
}

fn requests(n: u32) -> String {
    if n == 1 {
        "1 request".to_owned()
    } else {
        format!("{n} requests")
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
        let line = request_line(&config, 1, &request);
        assert!(
            line.starts_with("request 1: POST https://erp.example.com/apis/dataapi.php"),
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
        let line = request_line(&config, 3, &request);
        assert!(line.starts_with("request 3: GET https://"), "{line}");
        assert!(line.contains("accesstoken=[REDACTED]"), "{line}");
        assert!(!line.contains("form:"), "{line}");
        assert!(!line.contains("s3cret"), "{line}");
    }

    #[test]
    fn answers_and_waits() {
        assert_eq!(answer_line(503), "answer 503");
        assert_eq!(
            waiting_line(Duration::from_millis(517), 2),
            "waiting 0.52 s before request 2 (as the core's call asks)"
        );
    }

    #[test]
    fn a_call_ends_in_requests_counted_in_words() {
        assert_eq!(done_line(1), "call done after 1 request");
        assert_eq!(done_line(3), "call done after 3 requests");
        assert_eq!(
            failed_line(2, "HTTP status 503: busy"),
            "call failed after 2 requests: HTTP status 503: busy"
        );
    }
}
