//! How much a client may retry while the service keeps failing: one budget
//! shared by every call of a client (its [`Config`](crate::Config)'s
//! clones) and every flow it runs.
//!
//! A call's own policy ([`RetryPolicy`](crate::RetryPolicy)) allows two
//! retries; a thousand calls to a service that is down would then send
//! three thousand requests, each a little later than the last, adding load
//! where there is already too much. The budget is gRPC's retry throttling
//! (gRFC A6): a count of tokens, full at the start; each failure that could
//! be retried (429, 502, 503, 504, a connection refused, reset or timed
//! out) takes one, each successful answer gives a tenth of one back, and a
//! call retries only while more than half the tokens are left. A healthy
//! service (an occasional failure between many successes) never empties it,
//! so a single call's retries are unchanged; a service failing everything
//! stops being retried after a few requests, and is retried again once
//! enough calls succeed.
//!
//! Counts only, no clock: the budget refills by successes, not by time, so
//! the core stays free of I/O and every client behaves the same.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Tokens when full, in thousandths (ten tokens).
pub const RETRY_BUDGET_TOKENS: u32 = 10_000;
/// What one failure that could be retried takes (one token).
pub const RETRY_BUDGET_FAILURE_COST: u32 = 1_000;
/// What one successful answer gives back (a tenth of a token).
pub const RETRY_BUDGET_SUCCESS_CREDIT: u32 = 100;
/// Retries are made only while more than this is left (half).
pub const RETRY_BUDGET_THRESHOLD: u32 = RETRY_BUDGET_TOKENS / 2;

/// The shared budget; clones share the same tokens.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    tokens: Arc<AtomicU32>,
}

impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget {
            tokens: Arc::new(AtomicU32::new(RETRY_BUDGET_TOKENS)),
        }
    }
}

impl RetryBudget {
    /// A full budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tokens left, in thousandths.
    pub fn tokens(&self) -> u32 {
        self.tokens.load(Ordering::Relaxed)
    }

    /// Records a failure that the policy could retry; whether a retry is
    /// still allowed after it.
    pub fn failed(&self) -> bool {
        let before = self.update(|t| t.saturating_sub(RETRY_BUDGET_FAILURE_COST));
        before.saturating_sub(RETRY_BUDGET_FAILURE_COST) > RETRY_BUDGET_THRESHOLD
    }

    /// Records a successful answer.
    pub fn succeeded(&self) {
        self.update(|t| (t + RETRY_BUDGET_SUCCESS_CREDIT).min(RETRY_BUDGET_TOKENS));
    }

    /// Applies `f` atomically; the value before.
    fn update(&self, f: impl Fn(u32) -> u32) -> u32 {
        match self
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(f(t)))
        {
            Ok(before) | Err(before) => before,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_service_is_retried_a_few_times_then_not() {
        let budget = RetryBudget::new();
        // Four failures leave more than half: each may be retried.
        let allowed: Vec<bool> = (0..8).map(|_| budget.failed()).collect();
        assert_eq!(
            allowed,
            [true, true, true, true, false, false, false, false]
        );
        assert_eq!(budget.tokens(), 2_000);
        for _ in 0..20 {
            budget.failed();
        }
        assert_eq!(budget.tokens(), 0);
    }

    #[test]
    fn successes_refill_it_up_to_full() {
        let budget = RetryBudget::new();
        for _ in 0..10 {
            budget.failed();
        }
        // Fifty-one successes bring it back above half.
        (0..50).for_each(|_| budget.succeeded());
        assert_eq!(budget.tokens(), 5_000);
        assert!(!budget.failed());
        (0..100).for_each(|_| budget.succeeded());
        assert_eq!(budget.tokens(), RETRY_BUDGET_TOKENS);
    }

    #[test]
    fn an_occasional_failure_among_successes_never_empties_it() {
        let budget = RetryBudget::new();
        for i in 0..10_000 {
            if i % 20 == 0 {
                assert!(budget.failed(), "failure {i} was not retried");
            } else {
                budget.succeeded();
            }
        }
    }

    #[test]
    fn clones_share_it() {
        let a = RetryBudget::new();
        let b = a.clone();
        b.failed();
        assert_eq!(a.tokens(), RETRY_BUDGET_TOKENS - RETRY_BUDGET_FAILURE_COST);
    }
}
