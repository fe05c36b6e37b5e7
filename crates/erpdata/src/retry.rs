//! When to try a failed call again, decided without clocks or randomness:
//! the binding supplies the random number and, for `Retry-After` dates, the
//! current time, then sleeps for the delay this returns.

use std::time::{Duration, SystemTime};

use crate::error::TransportKind;

/// What happened on one attempt, as far as retrying is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// The request did not complete.
    Transport(TransportKind),
    /// The service answered with this status and `Retry-After` header.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The raw `Retry-After` header, if sent.
        retry_after: Option<&'a str>,
    },
}

impl Outcome<'_> {
    /// Whether the outcome may pass if tried later (a connection refused,
    /// reset or timed out; 429, 502, 503, 504), whatever the count. A
    /// certificate refused would be refused again.
    pub fn may_pass_later(&self) -> bool {
        match *self {
            Outcome::Transport(kind) => matches!(
                kind,
                TransportKind::Connect | TransportKind::Timeout | TransportKind::Reset
            ),
            Outcome::Status { status, .. } => RetryPolicy::is_retryable_status(status),
        }
    }

    /// The wait a status that may pass later asked for with `Retry-After`
    /// (seconds, or an HTTP date counted from `now`, the wall clock;
    /// without it a date is not understood). `None` for anything else,
    /// and for a header not understood (the backoff applies then).
    pub fn asked_wait(&self, now: Option<SystemTime>) -> Option<Duration> {
        match *self {
            Outcome::Status {
                retry_after: Some(header),
                ..
            } if self.may_pass_later() => parse_retry_after(header, now),
            _ => None,
        }
    }
}

/// The policy's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Send the same request again after this delay.
    RetryAfter(Duration),
    /// Give up: report the outcome.
    Stop,
}

/// [`RetryPolicy::decide`]'s answer with the reason for stopping that a
/// call's error names: the wait the service asked for was too long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Send the same request again after this delay.
    Retry(Duration),
    /// Give up: the outcome would fail again, or the retries are spent.
    Stop,
    /// Give up: `Retry-After` asked for this wait, longer than the
    /// policy's `max_retry_after`.
    WaitTooLong(Duration),
}

/// Exponential backoff with jitter, honouring `Retry-After`.
///
/// Retries connection failures, resets and timeouts, and the statuses that
/// mean "try later" (429, 502, 503, 504). Never retries anything else: a 500
/// or a 4xx would fail the same way again. Both operations are reads, so a
/// repeated request cannot change anything on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 2).
    pub max_retries: u32,
    /// The first backoff step (default 0.5 s).
    pub base_delay: Duration,
    /// The longest backoff step (default 8 s).
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured; a longer one stops retrying
    /// rather than keep the caller waiting (default 30 s,
    /// [`DEFAULT_MAX_RETRY_AFTER`](crate::DEFAULT_MAX_RETRY_AFTER); at
    /// most [`MAX_TIMEOUT`](crate::MAX_TIMEOUT), checked when a call
    /// starts). Zero retries only after a `Retry-After` of 0.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: crate::call::DEFAULT_MAX_RETRY_AFTER,
        }
    }
}

impl RetryPolicy {
    /// A default policy with `max_retries` retries.
    pub fn with_max_retries(max_retries: u32) -> Self {
        RetryPolicy {
            max_retries,
            ..RetryPolicy::default()
        }
    }

    /// Whether a status is worth retrying at all (before counting attempts).
    pub fn is_retryable_status(status: u16) -> bool {
        matches!(status, 429 | 502 | 503 | 504)
    }

    /// Decides after a failed attempt. `retries_done` counts the retries
    /// already made (0 after the first attempt); `random` is uniform in
    /// `[0, 1)`; `now` is needed only for a `Retry-After` HTTP date.
    pub fn decide(
        &self,
        retries_done: u32,
        outcome: Outcome<'_>,
        random: f64,
        now: Option<SystemTime>,
    ) -> Decision {
        match self.verdict(retries_done, outcome, random, now) {
            Verdict::Retry(delay) => Decision::RetryAfter(delay),
            Verdict::Stop | Verdict::WaitTooLong(_) => Decision::Stop,
        }
    }

    /// [`RetryPolicy::decide`], saying when it stops because the wait
    /// asked for is longer than `max_retry_after`.
    pub(crate) fn verdict(
        &self,
        retries_done: u32,
        outcome: Outcome<'_>,
        random: f64,
        now: Option<SystemTime>,
    ) -> Verdict {
        if retries_done >= self.max_retries {
            return Verdict::Stop;
        }
        if !outcome.may_pass_later() {
            return Verdict::Stop;
        }
        if let Some(wait) = outcome.asked_wait(now) {
            return if wait > self.max_retry_after {
                Verdict::WaitTooLong(wait)
            } else {
                Verdict::Retry(wait)
            };
        }
        Verdict::Retry(self.backoff(retries_done, random))
    }

    /// "Equal jitter": half the step fixed, half random, so retries of many
    /// clients spread out but none retries immediately.
    fn backoff(&self, retries_done: u32, random: f64) -> Duration {
        let factor = 2u32.saturating_pow(retries_done.min(16));
        let step = self.base_delay.saturating_mul(factor).min(self.max_delay);
        let random = if random.is_finite() {
            random.clamp(0.0, 1.0)
        } else {
            0.5
        };
        step / 2 + step.mul_f64(random) / 2
    }
}

/// `Retry-After` is delay-seconds or an HTTP date (RFC 9110 §10.2.3). An
/// unparseable value is ignored (backoff applies), as browsers do. A header
/// sent twice is read by its first value: httpx and fetch join the two
/// (`60, 60`), where Node's http, reqwest and ureq keep the first, and the
/// joined text, unparseable, had one client wait 60 s and another retry
/// after the short backoff.
fn parse_retry_after(header: &str, now: Option<SystemTime>) -> Option<Duration> {
    let header = header.trim();
    parse_one_retry_after(header, now)
        .or_else(|| parse_one_retry_after(first_of_joined(header)?, now))
}

/// The first value of header values joined by `, `: up to the first comma
/// for delay-seconds, the second for an HTTP date (`Sun, 06 Nov …, Sun,`).
fn first_of_joined(header: &str) -> Option<&str> {
    let (first, _) = header.split_once(',')?;
    if first.trim().bytes().all(|b| b.is_ascii_digit()) {
        return Some(first.trim());
    }
    let second = header.match_indices(',').nth(1)?.0;
    Some(header[..second].trim())
}

fn parse_one_retry_after(header: &str, now: Option<SystemTime>) -> Option<Duration> {
    if let Ok(secs) = header.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // Delay-seconds past u64 is still a wait asked for, and longer than any
    // limit: ignored, it would be retried after the short backoff instead.
    if !header.is_empty() && header.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::from_secs(u64::MAX));
    }
    let when = httpdate::parse_http_date(header).ok()?;
    let now = now?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: RetryPolicy = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(500),
        max_delay: Duration::from_secs(8),
        max_retry_after: Duration::from_secs(30),
    };

    fn status(status: u16, retry_after: Option<&str>) -> Outcome<'_> {
        Outcome::Status {
            status,
            retry_after,
        }
    }

    #[test]
    fn retries_what_may_pass_later() {
        for s in [429, 502, 503, 504] {
            assert!(matches!(
                P.decide(0, status(s, None), 0.0, None),
                Decision::RetryAfter(_)
            ));
        }
        for k in [
            TransportKind::Connect,
            TransportKind::Timeout,
            TransportKind::Reset,
        ] {
            assert!(matches!(
                P.decide(0, Outcome::Transport(k), 0.0, None),
                Decision::RetryAfter(_)
            ));
        }
    }

    #[test]
    fn stops_on_what_would_fail_again() {
        for s in [200, 301, 400, 401, 403, 404, 500, 501] {
            assert_eq!(
                P.decide(0, status(s, None), 0.0, None),
                Decision::Stop,
                "{s}"
            );
        }
        for k in [TransportKind::Tls, TransportKind::Other] {
            assert_eq!(
                P.decide(0, Outcome::Transport(k), 0.0, None),
                Decision::Stop,
                "{k:?}"
            );
        }
    }

    #[test]
    fn stops_after_max_retries() {
        assert!(matches!(
            P.decide(1, status(503, None), 0.0, None),
            Decision::RetryAfter(_)
        ));
        assert_eq!(P.decide(2, status(503, None), 0.0, None), Decision::Stop);
        assert_eq!(
            RetryPolicy::with_max_retries(0).decide(0, status(503, None), 0.0, None),
            Decision::Stop
        );
    }

    #[test]
    fn backoff_doubles_with_equal_jitter_and_caps() {
        let ms =
            |n, r| match RetryPolicy::with_max_retries(20).decide(n, status(503, None), r, None) {
                Decision::RetryAfter(d) => d.as_millis(),
                Decision::Stop => panic!(),
            };
        assert_eq!((ms(0, 0.0), ms(0, 1.0)), (250, 500));
        assert_eq!((ms(1, 0.0), ms(1, 1.0)), (500, 1000));
        assert_eq!(ms(2, 0.5), 1500);
        assert_eq!((ms(10, 0.0), ms(10, 1.0)), (4000, 8000));
        assert_eq!(ms(0, f64::NAN), 375);
    }

    #[test]
    fn a_wait_asked_for_is_read_only_where_it_may_pass_later() {
        assert_eq!(
            status(503, Some(" 120 ")).asked_wait(None),
            Some(Duration::from_secs(120))
        );
        assert_eq!(status(500, Some("5")).asked_wait(None), None);
        assert_eq!(status(429, Some("soon")).asked_wait(None), None);
        assert_eq!(
            Outcome::Transport(TransportKind::Reset).asked_wait(None),
            None
        );
        // Too long: a stop that says why, unless the retries were spent.
        assert_eq!(
            P.verdict(0, status(503, Some("31")), 0.0, None),
            Verdict::WaitTooLong(Duration::from_secs(31))
        );
        assert_eq!(
            P.verdict(2, status(503, Some("31")), 0.0, None),
            Verdict::Stop
        );
    }

    #[test]
    fn honours_retry_after() {
        assert_eq!(
            P.decide(0, status(429, Some("3")), 0.9, None),
            Decision::RetryAfter(Duration::from_secs(3))
        );
        assert_eq!(
            P.decide(0, status(429, Some("0")), 0.9, None),
            Decision::RetryAfter(Duration::ZERO)
        );
        assert_eq!(
            P.decide(0, status(503, Some("31")), 0.0, None),
            Decision::Stop
        );
        let now = httpdate::parse_http_date("Sun, 22 Nov 2026 10:00:00 GMT").unwrap();
        assert_eq!(
            P.decide(
                0,
                status(503, Some("Sun, 22 Nov 2026 10:00:05 GMT")),
                0.0,
                Some(now)
            ),
            Decision::RetryAfter(Duration::from_secs(5))
        );
        assert_eq!(
            P.decide(
                0,
                status(503, Some("Sun, 22 Nov 2026 09:00:00 GMT")),
                0.0,
                Some(now)
            ),
            Decision::RetryAfter(Duration::ZERO)
        );
        // More digits than a u64 holds: a wait longer than any limit.
        assert_eq!(
            P.decide(0, status(503, Some("99999999999999999999")), 0.0, None),
            Decision::Stop
        );
        // Unparseable, or a date with no clock given: plain backoff.
        assert_eq!(
            P.decide(0, status(503, Some("soon")), 0.0, None),
            Decision::RetryAfter(Duration::from_millis(250))
        );
        assert_eq!(
            P.decide(
                0,
                status(503, Some("Sun, 22 Nov 2026 10:00:05 GMT")),
                0.0,
                None
            ),
            Decision::RetryAfter(Duration::from_millis(250))
        );
    }
}
