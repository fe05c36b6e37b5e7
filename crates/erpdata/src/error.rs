use std::fmt;
use std::time::Duration;

use crate::redact::Redactor;
use crate::retry::Outcome;
use crate::source::TransportSource;

/// What went wrong at the transport level; set by the binding that sent the
/// request, because only it sees sockets and clocks.
///
/// Non-exhaustive: a kind may be added (as `Tls` was), so a `match` keeps
/// an arm for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// The connection could not be made (refused, DNS, a TLS handshake
    /// that broke off).
    Connect,
    /// The connect, read or whole-call deadline passed.
    Timeout,
    /// The connection broke after it was made (reset, closed mid-body).
    Reset,
    /// The server's TLS certificate was not accepted (signed by no root
    /// the client trusts, expired, or for another name), or the server
    /// answered in plain HTTP (a base URL of `https://` for a service
    /// without TLS). Not retried: it would fail the same way again.
    Tls,
    /// Anything else the host stack reported.
    Other,
}

impl TransportKind {
    /// The stable lower-case name used in vectors and bindings.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Connect => "connect",
            TransportKind::Timeout => "timeout",
            TransportKind::Reset => "reset",
            TransportKind::Tls => "tls",
            TransportKind::Other => "other",
        }
    }

    /// Parses [`TransportKind::as_str`]'s names; unknown names are `Other`.
    pub fn from_name(name: &str) -> Self {
        match name {
            "connect" => TransportKind::Connect,
            "timeout" => TransportKind::Timeout,
            "reset" => TransportKind::Reset,
            "tls" => TransportKind::Tls,
            _ => TransportKind::Other,
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every failure of a call, in one enum that each language maps one to one.
///
/// No variant ever holds the access token: excerpts and messages pass through
/// the config's redaction before they are stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Rejected before anything was sent.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// The parameter's name as the caller knows it (`acid`, `table`, ...).
        field: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The request did not complete (made by the binding).
    #[error("transport error ({kind}): {message}{}{}", note(call), sent(call))]
    Transport {
        /// What kind of failure.
        kind: TransportKind,
        /// The host stack's message, redacted.
        message: String,
        /// The host stack's error behind it, redacted link by link, when
        /// the binding kept it (see [`Config::transport_error_from`]).
        ///
        /// [`Config::transport_error_from`]: crate::Config::transport_error_from
        #[source]
        source: Option<TransportSource>,
        /// Where the call stood (see [`Error::call`]).
        call: Option<Box<CallInfo>>,
    },
    /// The service answered with a status outside 2xx.
    #[error(
        "HTTP status {status}{}: {excerpt}{}{}{}",
        from(call),
        not_found_hint(*status),
        note(call),
        sent(call)
    )]
    HttpStatus {
        /// The HTTP status code.
        status: u16,
        /// A short, redacted excerpt of the body.
        excerpt: String,
        /// Where the call stood (see [`Error::call`]).
        call: Option<Box<CallInfo>>,
    },
    /// The service answered JSON whose `status` is not `success`.
    #[error(
        "service error (status {status:?}){}: {message}{}{}",
        from(call),
        table_hint(message),
        note(call)
    )]
    Service {
        /// The `status` value the service sent.
        status: String,
        /// The service's message, or a description of what it sent instead.
        message: String,
        /// Where the call stood (see [`Error::call`]).
        call: Option<Box<CallInfo>>,
    },
    /// The answer was not of the documented shape.
    #[error(
        "could not decode the answer: {reason}; {}: {excerpt}{}",
        excerpt_where(excerpt_at),
        note(call)
    )]
    Decode {
        /// What was wrong.
        reason: String,
        /// A short, redacted excerpt of the body: around the byte where it
        /// stopped being the documented JSON (`excerpt_at`), or its start.
        excerpt: String,
        /// The byte the excerpt is taken around (where the body broke off,
        /// past its first bytes), or `None` when it is the body's start.
        excerpt_at: Option<u64>,
        /// Where the call stood (see [`Error::call`]).
        call: Option<Box<CallInfo>>,
    },
}

/// Where a call stood when it failed, the same in every language: set on
/// every error a [`Call`](crate::Call) ends with (not on input rejected
/// before sending, nor on errors of the parsers used alone).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallInfo {
    /// Requests sent: the first, each retry and each redirect followed.
    pub attempts: u32,
    /// The last request's URL, with the access token redacted.
    pub url: String,
    /// For a request sent as a form (POST, as a table is fetched): its
    /// fields but the access token, `name=value` joined by `, ` (the URL
    /// holds none of them, and `Invalid company or year` said nothing of
    /// the company and year sent).
    pub form: Option<String>,
    /// For a table: complete rows of the failed answer decoded before it
    /// failed (`None` for other calls, or when no body was read).
    pub rows_received: Option<u64>,
    /// For a stream: rows already handed to the caller in batches.
    pub rows_delivered: Option<u64>,
    /// The policy would have retried, but the client's retry budget was
    /// spent by recent failures (see [`RetryBudget`](crate::RetryBudget)).
    pub retry_withheld: bool,
    /// For an [`Error::HttpStatus`] of a status that may pass later (429,
    /// 502, 503, 504): the wait its answer asked for with `Retry-After`
    /// (see [`Error::retry_after`]).
    pub retry_after: Option<Duration>,
    /// The policy's `max_retry_after`, when the call stopped retrying
    /// because `retry_after` was longer (the message then says so).
    pub retry_after_limit: Option<Duration>,
    /// The delay before a retry the policy allowed (its backoff, or the
    /// wait `Retry-After` asked for), when what was left of the call's
    /// timeout had no room for it, so the call ended instead (the message
    /// then says so).
    pub retry_past_timeout: Option<Duration>,
}

/// Which part of the body a `Decode` error's excerpt shows.
fn excerpt_where(at: &Option<u64>) -> String {
    match at {
        Some(at) => format!("around byte {at}"),
        None => "body starts".to_owned(),
    }
}

/// " from URL" (the last request's, redacted) where the call is known:
/// a 404 or a service error names what was asked for.
fn from(call: &Option<Box<CallInfo>>) -> String {
    match call.as_deref() {
        Some(CallInfo {
            url,
            form: Some(form),
            ..
        }) if !url.is_empty() => format!(" from {url} (sent {form})"),
        Some(CallInfo { url, .. }) if !url.is_empty() => format!(" from {url}"),
        _ => String::new(),
    }
}

/// After a 404: the client asks for the interface's scripts under the
/// base URL, so a base URL missing the folder the service is installed
/// in (or with one too many) is the likely cause.
fn not_found_hint(status: u16) -> &'static str {
    if status == 404 {
        " (no such page: is the base URL the folder the service is installed in?)"
    } else {
        ""
    }
}

/// " (3 requests sent)" when the call sent more than one (its retries
/// and redirects): a silent service's timeout said one read timeout of
/// 30 s, while the call had waited it three times.
fn sent(call: &Option<Box<CallInfo>>) -> String {
    match call.as_deref() {
        Some(CallInfo { attempts, .. }) if *attempts > 1 => requests_sent(*attempts),
        _ => String::new(),
    }
}

/// The words [`sent`] ends a message with (a log line that says the count
/// first takes them off).
pub(crate) fn requests_sent(attempts: u32) -> String {
    format!(" ({attempts} requests sent)")
}

/// A hint after a service message saying a table does not exist
/// (`Unknown table: …`, MySQL's `Table '…' doesn't exist`): the interface
/// has no call that lists tables, so the caller can only check the name.
fn table_hint(message: &str) -> &'static str {
    let m = message.to_ascii_lowercase();
    let missing = ["unknown", "doesn't exist", "does not exist", "not found"];
    if m.contains("table") && missing.iter().any(|w| m.contains(w)) {
        " (the interface has no call that lists the tables: check the name \
         against the ERP's own table names, e.g. sales_invoice or account)"
    } else {
        ""
    }
}

/// The message's tail saying how far a table answer got.
fn note(call: &Option<Box<CallInfo>>) -> String {
    let withheld = match call.as_deref() {
        Some(CallInfo {
            retry_withheld: true,
            ..
        }) => {
            " (not retried: recent requests of this client to the service failed too; \
             it retries again once calls succeed)"
        }
        _ => "",
    };
    let waits = match call.as_deref() {
        Some(CallInfo {
            retry_after: Some(asked),
            retry_after_limit: Some(limit),
            ..
        }) => format!(
            // The limit is a setting in every language, spelled and
            // counted differently (Rust's `max_retry_after`, Python's in
            // seconds, JS's `maxRetryAfterMs`): the words name none of
            // them, and the advice is one every caller can follow.
            " (not retried: the service asked to wait {}, longer than the longest wait a \
             client retries after ({}): try again once it has passed)",
            crate::call::seconds(*asked),
            crate::call::seconds(*limit)
        ),
        _ => String::new(),
    };
    let rows = match call.as_deref() {
        Some(CallInfo {
            rows_received: Some(received),
            rows_delivered,
            ..
        }) if *received > 0 || rows_delivered.is_some_and(|d| d > 0) => {
            let rows = if *received == 1 { "row" } else { "rows" };
            // Only a stream hands rows out before its end: a whole-table
            // call (rows_delivered None) delivered none, in no batches.
            match rows_delivered {
                Some(delivered) => format!(
                    " ({received} {rows} had arrived, {delivered} of them delivered in complete batches)"
                ),
                None => format!(" ({received} {rows} had arrived)"),
            }
        }
        _ => String::new(),
    };
    let late = match call.as_deref() {
        Some(CallInfo {
            retry_past_timeout: Some(delay),
            ..
        }) => format!(
            " (not retried: the next attempt was due in {}, past the call's timeout; \
             a longer timeout lets it retry)",
            rounded_seconds(*delay)
        ),
        _ => String::new(),
    };
    rows + withheld + &waits + &late
}

/// `0.74 s`, `3 s`: a jittered delay to the hundredth, as a person reads it.
fn rounded_seconds(d: Duration) -> String {
    let hundredths = (d.as_secs_f64() * 100.0).round() / 100.0;
    format!("{hundredths} s")
}

impl Error {
    /// The stable kind name used in vectors and by the bindings.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidInput { .. } => "invalid_input",
            Error::Transport { .. } => "transport",
            Error::HttpStatus { .. } => "http_status",
            Error::Service { .. } => "service",
            Error::Decode { .. } => "decode",
        }
    }

    /// Where the call stood when it failed, if a call made this error.
    pub fn call(&self) -> Option<&CallInfo> {
        match self {
            Error::Transport { call, .. }
            | Error::HttpStatus { call, .. }
            | Error::Service { call, .. }
            | Error::Decode { call, .. } => call.as_deref(),
            _ => None,
        }
    }

    /// Sets where the call stood (input errors have no call and stay as
    /// they are).
    pub fn with_call(mut self, info: CallInfo) -> Self {
        match &mut self {
            Error::Transport { call, .. }
            | Error::HttpStatus { call, .. }
            | Error::Service { call, .. }
            | Error::Decode { call, .. } => *call = Some(Box::new(info)),
            _ => {}
        }
        self
    }

    /// Whether the same call may pass if tried later: a connection
    /// refused, reset or timed out, or the statuses that mean "try later"
    /// (429, 502, 503, 504). The rule the call's own retries follow
    /// ([`Outcome::may_pass_later`]), so an error a call ended with is
    /// retryable when the call stopped retrying for another reason (its
    /// retries spent, its time up, a `Retry-After` too long). Never
    /// invalid input, a service or decode error, another status (a refused
    /// redirect included) or a TLS certificate refused: those would fail
    /// the same way again.
    ///
    /// A job queue retries later the errors that are retryable; a web
    /// service answers them with 503, the others with 500 or 502.
    pub fn is_retryable(&self) -> bool {
        let outcome = match self {
            Error::Transport { kind, .. } => Outcome::Transport(*kind),
            Error::HttpStatus { status, .. } => Outcome::Status {
                status: *status,
                retry_after: None,
            },
            _ => return false,
        };
        outcome.may_pass_later()
    }

    /// The wait the service asked for with `Retry-After` (in seconds, or
    /// as an HTTP date counted from the binding's clock) on the answer an
    /// [`Error::HttpStatus`] of 429, 502, 503 or 504 was made from; `None`
    /// when it sent none (or one not understood), for other errors, and
    /// for status errors of the parsers used alone, which see no headers.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::HttpStatus { call, .. } => call.as_deref()?.retry_after,
            _ => None,
        }
    }

    /// The input field an [`Error::InvalidInput`] names.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::InvalidInput { field, .. } => Some(field),
            _ => None,
        }
    }

    /// The HTTP status of the answer behind this error, if any.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            Error::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The transport failure's kind, for a transport error.
    pub fn transport_kind(&self) -> Option<TransportKind> {
        match self {
            Error::Transport { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    pub(crate) fn invalid(field: &str, reason: impl Into<String>) -> Self {
        Error::InvalidInput {
            field: field.to_owned(),
            reason: reason.into(),
        }
    }

    /// This error with the reason of a refused input redacted: a value
    /// may be the token itself, put in the wrong setting or argument
    /// while the token is configured too (`ERPDATA_PROJECT` holding it
    /// with a space after it was repeated whole by "has whitespace at its
    /// start or end"). A token too short to tell from the reason's own
    /// words is not looked for (see [`Redactor::stands_out`]). The field
    /// too: a declared schema's names its column (`schema["..."]`).
    pub(crate) fn input_redacted(self, redactor: &Redactor) -> Self {
        match self {
            Error::InvalidInput { field, reason } => Error::InvalidInput {
                field: redactor.redact_setting(&field),
                reason: redactor.redact_setting(&reason),
            },
            other => other,
        }
    }

    /// A transport error whose message and source chain are redacted by
    /// `redactor` (the `Config::transport_error*` methods).
    pub(crate) fn transport(
        redactor: &Redactor,
        kind: TransportKind,
        message: &str,
        source: Option<&(dyn std::error::Error + 'static)>,
    ) -> Self {
        Error::Transport {
            kind,
            message: redactor.redact(message),
            source: source.map(|s| TransportSource::redacted(redactor, s)),
            call: None,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn call(url: &str) -> Option<Box<CallInfo>> {
        Some(Box::new(CallInfo {
            attempts: 1,
            url: url.to_owned(),
            ..CallInfo::default()
        }))
    }

    #[test]
    fn http_status_and_service_errors_name_the_url() {
        let url = "https://erp.example.com/apis/apis/dataapi.php";
        let e = Error::HttpStatus {
            status: 404,
            excerpt: "<!DOCTYPE HTML".into(),
            call: call(url),
        };
        assert_eq!(
            e.to_string(),
            format!(
                "HTTP status 404 from {url}: <!DOCTYPE HTML (no such page: is the base URL the \
                 folder the service is installed in?)"
            )
        );
        let e = Error::Service {
            status: "error".into(),
            message: "Invalid access token".into(),
            call: call(url),
        };
        assert_eq!(
            e.to_string(),
            format!("service error (status \"error\") from {url}: Invalid access token")
        );
        // A parser used alone knows no URL.
        let e = Error::HttpStatus {
            status: 500,
            excerpt: "x".into(),
            call: None,
        };
        assert_eq!(e.to_string(), "HTTP status 500: x");
    }

    #[test]
    fn a_call_that_sent_more_than_one_request_says_how_many() {
        // A silent service: the message named one read timeout, while the
        // call had waited it once per request.
        let sent = |attempts| {
            Some(Box::new(CallInfo {
                attempts,
                ..CallInfo::default()
            }))
        };
        let timeout = |attempts| Error::Transport {
            kind: TransportKind::Timeout,
            message: "no answer from https://h within the connect timeout of 10 s and read \
                      timeout of 30 s"
                .into(),
            source: None,
            call: sent(attempts),
        };
        assert!(timeout(3)
            .to_string()
            .ends_with("read timeout of 30 s (3 requests sent)"));
        assert!(timeout(1).to_string().ends_with("read timeout of 30 s"));
        let busy = Error::HttpStatus {
            status: 503,
            excerpt: "busy".into(),
            call: sent(2),
        };
        assert_eq!(busy.to_string(), "HTTP status 503: busy (2 requests sent)");
    }

    #[test]
    fn a_cut_answer_says_how_far_it_got() {
        let cut = |rows_received, rows_delivered| Error::Transport {
            kind: TransportKind::Reset,
            message: "the connection broke".into(),
            source: None,
            call: Some(Box::new(CallInfo {
                attempts: 1,
                rows_received,
                rows_delivered,
                ..CallInfo::default()
            })),
        };
        // A stream: what it handed out in batches.
        let stream = cut(Some(700), Some(512)).to_string();
        assert!(
            stream.ends_with("(700 rows had arrived, 512 of them delivered in complete batches)"),
            "{stream}"
        );
        // A whole table (or dues) hands out nothing before its end: no batches to name.
        let table = cut(Some(16), None).to_string();
        assert!(table.ends_with("(16 rows had arrived)"), "{table}");
        assert!(!table.contains("delivered"), "{table}");
        assert!(cut(Some(1), None)
            .to_string()
            .ends_with("(1 row had arrived)"));
        assert!(!cut(Some(0), None).to_string().contains("arrived"));
    }

    #[test]
    fn retryable_is_the_retry_rule() {
        let status = |status| Error::HttpStatus {
            status,
            excerpt: String::new(),
            call: None,
        };
        for s in [429, 502, 503, 504] {
            assert!(status(s).is_retryable(), "{s}");
        }
        // 307: a redirect the core refused.
        for s in [307, 400, 401, 404, 500, 501] {
            assert!(!status(s).is_retryable(), "{s}");
        }
        let service = Error::Service {
            status: "error".into(),
            message: "Database connection failed".into(),
            call: call("https://erp.example.com/"),
        };
        let decode = Error::Decode {
            reason: "truncated".into(),
            excerpt: String::new(),
            excerpt_at: None,
            call: None,
        };
        for e in [Error::invalid("acid", "empty"), service, decode] {
            assert!(!e.is_retryable(), "{e}");
            assert_eq!(e.retry_after(), None);
        }
        // A parser used alone sees no Retry-After.
        assert_eq!(status(503).retry_after(), None);
    }

    #[test]
    fn a_wait_too_long_says_so_and_how_to_change_it() {
        let e = Error::HttpStatus {
            status: 503,
            excerpt: "busy".into(),
            call: Some(Box::new(CallInfo {
                attempts: 1,
                retry_after: Some(Duration::from_secs(120)),
                retry_after_limit: Some(Duration::from_secs(30)),
                ..CallInfo::default()
            })),
        };
        assert_eq!(e.retry_after(), Some(Duration::from_secs(120)));
        assert_eq!(
            e.to_string(),
            "HTTP status 503: busy (not retried: the service asked to wait 120 s, longer than \
             the longest wait a client retries after (30 s): try again once it has passed)"
        );
    }

    #[test]
    fn a_missing_table_gets_a_hint() {
        for message in [
            "Unknown table: sales_invoices",
            "Table 'erp.sales_invoices' doesn't exist",
            "Table not found: x",
        ] {
            let e = Error::Service {
                status: "error".into(),
                message: message.into(),
                call: None,
            };
            assert!(
                e.to_string().contains("no call that lists the tables"),
                "{e}"
            );
        }
        let e = Error::Service {
            status: "error".into(),
            message: "Invalid access token".into(),
            call: None,
        };
        assert!(!e.to_string().contains("lists the tables"));
    }
}
