//! Plans: flows over many calls (`dues_table`, `aging`, `credit_status`),
//! decided here once for every client.
//!
//! A [`Plan`] performs no I/O. It says which call to start next
//! ([`PlanStep::Call`]), at most `concurrency` at a time; the client runs
//! each with its own stack (threads, asyncio, a promise pool, tokio) and
//! hands back its result with [`Plan::done`], in any order. The plan then
//! names the next calls, or gives the answer, or the first error.
//!
//! ```text
//!  Plan::aging(...) ──> next() ── Call(c) ──> the client starts c
//!                        │   └─── Wait ─────> the client waits for one
//!                        │                    call, then done(id, result)
//!                        ├── Done(rows)
//!                        └── Failed(error)    the first error; calls still
//!                                             running are the client's to
//!                                             abandon
//! ```

mod flows;

use std::collections::{HashMap, VecDeque};

pub use flows::{AgingPlan, CreditStatusPlan};

use crate::ajax_answer::TypedRows;
use crate::call::check_concurrency;
use crate::catalogue::{Invocation, OperationSink, Output};
use crate::config::Config;
use crate::decode::DecoderOptions;
use crate::error::{Error, Result};

/// One call a plan asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCall {
    /// The call's number in this plan: give it back with its result.
    pub id: usize,
    /// The operation and its checked arguments.
    pub invocation: Invocation,
    options: DecoderOptions,
}

impl PlannedCall {
    /// Where the call's body goes (with the plan's typing).
    pub fn sink(&self) -> OperationSink {
        self.invocation.sink(self.options.clone())
    }

    /// The typing of the call's answer.
    pub fn options(&self) -> &DecoderOptions {
        &self.options
    }
}

/// What the client does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanStep {
    /// Start this call now (the plan keeps at most its concurrency
    /// running).
    Call(PlannedCall),
    /// Wait for a call started earlier to end, and hand its result to
    /// [`Plan::done`].
    Wait,
    /// The answer.
    Done(TypedRows),
    /// The plan failed: the first error of its calls or of its
    /// computation. No call is asked for after it.
    Failed(Error),
}

/// What a plan's call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// The account table.
    Accounts,
    /// The dues of the n-th account.
    Dues(usize),
    /// The average payment days of the n-th account.
    PayDays(usize),
}

/// A flow over many calls. See the module's documentation.
#[derive(Debug)]
pub struct Plan {
    config: Config,
    concurrency: usize,
    options: DecoderOptions,
    flow: flows::Flow,
    queue: VecDeque<(Purpose, Invocation)>,
    purposes: HashMap<usize, Purpose>,
    next_id: usize,
    failed: Option<Error>,
    answer: Option<TypedRows>,
}

impl Plan {
    /// A plan of `flow`, its concurrency checked first.
    fn made(
        config: &Config,
        concurrency: i64,
        options: DecoderOptions,
        flow: impl FnOnce() -> Result<flows::Flow>,
    ) -> Result<Plan> {
        let concurrency = check_concurrency(concurrency)?;
        let flow = flow().map_err(|err| config.redact_error(err))?;
        Ok(Plan::new(config, concurrency, options, flow))
    }

    fn new(
        config: &Config,
        concurrency: usize,
        options: DecoderOptions,
        flow: flows::Flow,
    ) -> Self {
        Plan {
            config: config.clone(),
            concurrency,
            options,
            flow,
            queue: VecDeque::new(),
            purposes: HashMap::new(),
            next_id: 0,
            failed: None,
            answer: None,
        }
    }

    /// The most calls it runs at a time.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Calls started and not yet handed back.
    pub fn running(&self) -> usize {
        self.purposes.len()
    }

    /// What to do next.
    // Not `Iterator::next`: a plan never runs dry (it ends with `Done` or
    // `Failed`, then repeats it), and its steps depend on `done` between
    // calls.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> PlanStep {
        loop {
            if let Some(err) = &self.failed {
                return PlanStep::Failed(err.clone());
            }
            if let Some(answer) = &self.answer {
                return PlanStep::Done(answer.clone());
            }
            if self.running() < self.concurrency {
                if let Some((purpose, invocation)) = self.queue.pop_front() {
                    let id = self.next_id;
                    self.next_id += 1;
                    self.purposes.insert(id, purpose);
                    return PlanStep::Call(PlannedCall {
                        id,
                        invocation,
                        options: self.options.clone(),
                    });
                }
            }
            if self.running() > 0 {
                return PlanStep::Wait;
            }
            // Nothing queued, nothing running: the flow's next stage.
            match self.flow.advance(&self.config, &self.options) {
                Ok(flows::Advance::Calls(calls)) => self.queue.extend(calls),
                Ok(flows::Advance::Done(rows)) => self.answer = Some(rows),
                Err(err) => self.fail(err),
            }
        }
    }

    /// Fails the plan with `err`. A refusal of an argument repeats what
    /// was given (`got "..."`, `"..." is not a customer`), which may be
    /// the token pasted in the wrong place: the config's redaction, as
    /// every error of a call has it.
    fn fail(&mut self, err: Error) {
        self.queue.clear();
        self.failed = Some(self.config.redact_error(err));
    }

    /// The result of call `id`. The first error fails the plan; results
    /// after it are dropped.
    pub fn done(&mut self, id: usize, result: Result<Output>) {
        let Some(purpose) = self.purposes.remove(&id) else {
            return;
        };
        if self.failed.is_some() {
            return;
        }
        match result.and_then(|output| self.flow.take(purpose, output)) {
            Ok(()) => {}
            Err(err) => self.fail(err),
        }
    }

    /// The dues of many accounts as one table with an `acid` column first
    /// (see [`Config::dues_table`]): one dues call per distinct account,
    /// in order. `acids` is a list ([`Arg::List`](crate::Arg::List)).
    /// Every account and the kind are checked here, before any call is
    /// asked for.
    pub fn dues_table(
        config: &Config,
        acids: &crate::catalogue::Arg,
        kind: &crate::catalogue::Arg,
        concurrency: i64,
        options: DecoderOptions,
    ) -> Result<Plan> {
        Plan::made(config, concurrency, options, || {
            flows::Flow::dues_table(config, acids, kind)
        })
    }

    /// The dues of many accounts, each on its own (not joined): one dues
    /// call per distinct account, in order, checked as for
    /// [`Plan::dues_table`]. Its [`PlanStep::Done`] holds no rows; the dues
    /// are taken with [`Plan::take_dues`].
    pub fn dues_each(
        config: &Config,
        acids: &crate::catalogue::Arg,
        kind: &crate::catalogue::Arg,
        concurrency: i64,
        options: DecoderOptions,
    ) -> Result<Plan> {
        Plan::made(config, concurrency, options, || {
            flows::Flow::dues_each(config, acids, kind)
        })
    }

    /// Whether this is a [`Plan::dues_each`]: its answer is each account's
    /// dues ([`Plan::take_dues`]), not the table its last step gives.
    pub fn answers_each(&self) -> bool {
        self.flow.answers_each()
    }

    /// The dues a [`Plan::dues_each`] answered, one per distinct account in
    /// the order asked, once it is done (taken: a second call gives none).
    pub fn take_dues(&mut self) -> Vec<crate::response::Dues> {
        self.flow.take_answered()
    }

    /// The aging of receivables or payables (see [`AgingPlan`]).
    pub fn aging(config: &Config, plan: &AgingPlan, options: DecoderOptions) -> Result<Plan> {
        Plan::made(config, plan.concurrency, options, || {
            flows::Flow::aging(config, plan)
        })
    }

    /// The credit status of customers (see [`CreditStatusPlan`]).
    pub fn credit_status(
        config: &Config,
        plan: &CreditStatusPlan,
        options: DecoderOptions,
    ) -> Result<Plan> {
        Plan::made(config, plan.concurrency, options, || {
            flows::Flow::credit_status(config, plan)
        })
    }
}
