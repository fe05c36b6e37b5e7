//! The limits of a call and their defaults, in one place: every binding
//! reads them from here, so docs and error messages quote the same numbers
//! in every language.

use std::time::Duration;

use crate::error::{Error, Result};
use crate::retry::RetryPolicy;

/// The default limit of a whole call: every attempt, the waits between
/// them and the whole answer. A stream counts only the time spent waiting
/// for the service, not the time its consumer takes between batches.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(300);
/// The default time allowed to open a connection (TCP and TLS).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time allowed without a byte from the service: for the
/// answer's head after sending, and between two parts of its body.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest limit accepted (a day): longer is a mistake, not a wish.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// Retries after the first attempt, by default.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The most retries a call may be allowed.
pub const MAX_RETRIES: u32 = 10;
/// The longest wait a service's `Retry-After` may ask for that a call
/// waits out before retrying, by default; a longer one ends the call at
/// once, saying so, rather than keep the caller waiting.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Rows per batch of a decoded table, by default.
pub const DEFAULT_BATCH_ROWS: usize = 65_536;
/// Rows per batch of a stream handed out as row objects (JavaScript's
/// `streamTable`), by default. A row object weighs about ten times its
/// values in typed columns: 65,536 of them held 100 MB of a JS heap, and
/// a stream of millions of rows peaked at 290 MB in Node; at 4,096 it
/// peaks near Node's floor for reading the body (~150 MB, of which
/// ~120 MB is the runtime and the fetched chunks awaiting collection),
/// fits an edge runtime's 128 MB isolate, and runs faster (a young
/// generation's worth of rows, not a promoted one).
pub const DEFAULT_ROW_BATCH_ROWS: usize = 4_096;
/// The fewest rows per batch.
pub const MIN_BATCH_ROWS: usize = 1;
/// The most rows per batch.
pub const MAX_BATCH_ROWS: usize = 1_048_576;
/// The most requests one call keeps in flight (`concurrency`): more than
/// a PHP service has workers only queue there.
pub const MAX_CONCURRENCY: usize = 256;

/// The time limits of one call; every limit is finite.
///
/// `total` bounds the whole call (for a stream: the time spent waiting for
/// the service); `connect` bounds opening each connection, `read` each wait
/// for the next bytes of an answer. Each wait is also capped by what is
/// left of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// The whole call (default 300 s).
    pub total: Duration,
    /// Opening one connection (default 10 s).
    pub connect: Duration,
    /// One wait for bytes of an answer (default 30 s).
    pub read: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            total: DEFAULT_TOTAL_TIMEOUT,
            connect: DEFAULT_CONNECT_TIMEOUT,
            read: DEFAULT_READ_TIMEOUT,
        }
    }
}

impl Timeouts {
    /// A whole-call limit of `total`, the other limits at their defaults
    /// but never above `total`.
    pub fn total(total: Duration) -> Self {
        Timeouts {
            total,
            connect: DEFAULT_CONNECT_TIMEOUT.min(total),
            read: DEFAULT_READ_TIMEOUT.min(total),
        }
    }

    /// Checks every limit is above zero and at most [`MAX_TIMEOUT`]; the
    /// error names field `timeout` and the limit.
    pub fn validate(&self) -> Result<()> {
        for (name, value) in [
            ("total", self.total),
            ("connect", self.connect),
            ("read", self.read),
        ] {
            check_seconds(name, value.as_secs_f64())?;
        }
        Ok(())
    }

    /// Timeouts from seconds as a binding receives them, each checked as
    /// [`Timeouts::validate`] does (NaN, infinities and negatives too).
    pub fn from_secs_f64(total: f64, connect: f64, read: f64) -> Result<Self> {
        check_seconds("total", total)?;
        check_seconds("connect", connect)?;
        check_seconds("read", read)?;
        // A limit above zero stays above zero: one under a nanosecond,
        // Duration's step, is a nanosecond, not the zero that
        // `validate` (run again by every call) refuses.
        let limit = |secs: f64| Duration::from_secs_f64(secs).max(Duration::from_nanos(1));
        Ok(Timeouts {
            total: limit(total),
            connect: limit(connect),
            read: limit(read),
        })
    }

    /// [`Timeouts::from_secs_f64`] for limits given in milliseconds (the
    /// JavaScript package's options): the same range, and an error that
    /// quotes it and the value in milliseconds, as the caller gave them.
    pub fn from_millis_f64(total: f64, connect: f64, read: f64) -> Result<Self> {
        check_millis("total", total)?;
        check_millis("connect", connect)?;
        check_millis("read", read)?;
        Self::from_secs_f64(total / 1000.0, connect / 1000.0, read / 1000.0)
    }
}

fn check_seconds(name: &str, secs: f64) -> Result<()> {
    check_limit(name, secs, secs, "seconds", MAX_TIMEOUT.as_secs())
}

/// Checked as seconds (a fraction of a millisecond too small for a double
/// in seconds is 0), quoted as given.
fn check_millis(name: &str, millis: f64) -> Result<()> {
    let max = MAX_TIMEOUT.as_millis() as u64;
    check_limit(name, millis / 1000.0, millis, "milliseconds", max)
}

fn check_limit(name: &str, secs: f64, given: f64, unit: &str, max: u64) -> Result<()> {
    if secs.is_finite() && secs > 0.0 && secs <= MAX_TIMEOUT.as_secs_f64() {
        return Ok(());
    }
    let shown = shown(given);
    Err(Error::invalid(
        "timeout",
        format!("{name} must be a number of {unit} above 0 and at most {max}, got {shown}"),
    ))
}

/// A number as an error quotes it, as the caller would write it.
fn shown(given: f64) -> String {
    if given.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{given}")
    }
}

/// Checks the longest wait a service's `Retry-After` may ask for that a
/// call still waits out before retrying ([`RetryPolicy`]'s
/// `max_retry_after`), in seconds as a binding receives it: 0 (a 429 or
/// 503 asking for any wait at all ends the call, saying so) to
/// [`MAX_TIMEOUT`]. The error names field `max_retry_after`.
pub fn check_max_retry_after(secs: f64) -> Result<Duration> {
    check_wait(secs, secs, "seconds", MAX_TIMEOUT.as_secs())
}

/// [`check_max_retry_after`] for a wait given in milliseconds (the
/// JavaScript package's `maxRetryAfterMs`, as its time limits are): the
/// same range, quoted in milliseconds, as the caller gave it.
pub fn check_max_retry_after_millis(millis: f64) -> Result<Duration> {
    let max = MAX_TIMEOUT.as_millis() as u64;
    check_wait(millis / 1000.0, millis, "milliseconds", max)
}

fn check_wait(secs: f64, given: f64, unit: &str, max: u64) -> Result<Duration> {
    if secs.is_finite() && secs >= 0.0 && secs <= MAX_TIMEOUT.as_secs_f64() {
        // -0.0 passes the test above and is no wait at all.
        return Ok(Duration::from_secs_f64(secs.abs()));
    }
    Err(Error::invalid(
        "max_retry_after",
        format!(
            "must be a number of {unit} from 0 to {max}, got {}",
            shown(given)
        ),
    ))
}

/// Checks a retry count a caller gave; the error names field `max_retries`.
pub fn check_max_retries(n: i64) -> Result<u32> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n <= MAX_RETRIES)
        .ok_or_else(|| {
            Error::invalid(
                "max_retries",
                format!("must be a whole number from 0 to {MAX_RETRIES}, got {n}"),
            )
        })
}

/// Checks how many requests a caller lets run at once (1 to
/// [`MAX_CONCURRENCY`]); the error names field `concurrency`.
pub fn check_concurrency(n: i64) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_CONCURRENCY).contains(n))
        .ok_or_else(|| {
            Error::invalid(
                "concurrency",
                format!("must be a whole number from 1 to {MAX_CONCURRENCY}, got {n}"),
            )
        })
}

/// Checks a batch size a caller gave (a binding's `i64`, or a Rust
/// caller's `usize`); the error names field `batch_rows` and the number
/// given.
pub fn check_batch_rows<N>(n: N) -> Result<usize>
where
    N: TryInto<usize> + std::fmt::Display + Copy,
{
    n.try_into()
        .ok()
        .filter(|n| (MIN_BATCH_ROWS..=MAX_BATCH_ROWS).contains(n))
        .ok_or_else(|| {
            Error::invalid(
                "batch_rows",
                format!(
                    "must be a whole number from {MIN_BATCH_ROWS} to {MAX_BATCH_ROWS}, got {n}"
                ),
            )
        })
}

/// What governs one call besides its request: time limits and retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallOptions {
    /// The time limits.
    pub timeouts: Timeouts,
    /// When to retry.
    pub retry: RetryPolicy,
}

impl CallOptions {
    /// Checks every limit is in the core's range ([`Timeouts::validate`],
    /// [`check_max_retries`], [`check_max_retry_after`]);
    /// [`Call::new`](super::Call::new) does, and a call with options out
    /// of range fails before sending anything.
    pub fn validate(&self) -> Result<()> {
        self.timeouts.validate()?;
        check_max_retries(i64::from(self.retry.max_retries))?;
        check_max_retry_after(self.retry.max_retry_after.as_secs_f64())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_finite_and_valid() {
        Timeouts::default().validate().unwrap();
        assert_eq!(RetryPolicy::default().max_retries, DEFAULT_MAX_RETRIES);
        let t = Timeouts::total(Duration::from_secs(5));
        assert_eq!(t.read, Duration::from_secs(5));
        assert_eq!(t.connect, Duration::from_secs(5));
    }

    #[test]
    fn bad_limits_name_the_field() {
        for (total, connect, read) in [
            (0.0, 1.0, 1.0),
            (f64::NAN, 1.0, 1.0),
            (1.0, f64::INFINITY, 1.0),
            (1.0, 1.0, -1.0),
            (1e9, 1.0, 1.0),
        ] {
            let err = Timeouts::from_secs_f64(total, connect, read).unwrap_err();
            assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "timeout"));
        }
        let err = Timeouts::from_millis_f64(1.0, 1.0, -5.0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid timeout: read must be a number of milliseconds above 0 and at most \
             86400000, got -5"
        );
        assert_eq!(
            Timeouts::from_millis_f64(1500.0, 10.0, 86_400_000.0).unwrap(),
            Timeouts::from_secs_f64(1.5, 0.01, 86_400.0).unwrap()
        );
        assert!(Timeouts::from_millis_f64(86_400_001.0, 1.0, 1.0).is_err());
        // Taken as above zero, they stay so for every later check.
        let tiny = Timeouts::from_secs_f64(2e-122, 1e-10, 5e-324).unwrap();
        tiny.validate().unwrap();
        assert_eq!(tiny.total, Duration::from_nanos(1));
        Timeouts::from_millis_f64(1e-300, 1e-7, 1.0)
            .unwrap()
            .validate()
            .unwrap();
        assert_eq!(check_max_retries(3).unwrap(), 3);
        assert!(check_max_retries(-1).is_err());
        assert!(check_max_retries(11).is_err());
        assert_eq!(check_max_retry_after(0.0).unwrap(), Duration::ZERO);
        assert_eq!(check_max_retry_after(-0.0).unwrap(), Duration::ZERO);
        assert_eq!(
            check_max_retry_after_millis(1500.0).unwrap(),
            Duration::from_millis(1500)
        );
        for bad in [-1.0, f64::NAN, f64::INFINITY, 86_401.0] {
            let err = check_max_retry_after(bad).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidInput { field, .. } if field == "max_retry_after")
            );
        }
        assert_eq!(
            check_max_retry_after_millis(-5.0).unwrap_err().to_string(),
            "invalid max_retry_after: must be a number of milliseconds from 0 to 86400000, \
             got -5"
        );
        assert_eq!(
            check_max_retry_after(f64::NAN).unwrap_err().to_string(),
            "invalid max_retry_after: must be a number of seconds from 0 to 86400, got NaN"
        );
        assert_eq!(check_batch_rows(1).unwrap(), 1);
        assert!(check_batch_rows(0).is_err());
        assert!(check_batch_rows(MAX_BATCH_ROWS as i64 + 1).is_err());
        let text = check_batch_rows(0).unwrap_err().to_string();
        assert!(text.contains("1 to 1048576"), "{text}");
        assert_eq!(check_concurrency(1).unwrap(), 1);
        assert_eq!(check_concurrency(256).unwrap(), MAX_CONCURRENCY);
        for n in [0, -1, 257, i64::MIN, i64::MAX] {
            let err = check_concurrency(n).unwrap_err();
            assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "concurrency"));
        }
    }
}
