//! `erpdata._core.Plan`: the core's flows over many calls (`dues_table`,
//! `aging`, `credit_status`) for the Python clients, which only start the
//! calls it names and hand their results back.

use std::collections::HashMap;

use erpdata::{
    AgingPlan, Arg, CreditStatusPlan, DecoderOptions, Error, PlanStep, DEFAULT_BATCH_ROWS,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

use crate::args::{arg, given};
use crate::call::{whole, Call, Limits, Taking};
use crate::config::Config;
use crate::convert::table_model;
use crate::errors::Result;
use crate::invocation::Invocation;
use crate::table::TableData;
use crate::typing::Typing;

/// A flow over many calls; see the core's `erpdata::Plan`. Ask `next()`
/// what to do: a `PlannedCall` (start it), `None` (wait for a call
/// started earlier to end, then `done(id, call)`), or the answer, an
/// `erpdata.Table`; the plan's first error is raised. At most
/// `concurrency` calls are asked for at a time; results may come back in
/// any order.
#[pyclass(module = "erpdata._core")]
pub(crate) struct Plan {
    inner: erpdata::Plan,
    config: erpdata::Config,
    /// The invocations of the calls started and not yet done, for
    /// `answer`.
    started: HashMap<usize, (erpdata::Invocation, DecoderOptions)>,
}

/// A call a plan asks for: `id` to hand back with its result, the
/// `invocation`, and `start(...)`, its `Call` ready to drive.
#[pyclass(frozen, module = "erpdata._core")]
pub(crate) struct PlannedCall {
    #[pyo3(get)]
    id: usize,
    #[pyo3(get)]
    invocation: Py<Invocation>,
}

#[pymethods]
impl PlannedCall {
    /// The call, with the plan's typing, started at `now`; it keeps its
    /// result for `Plan.done`.
    #[pyo3(signature = (
        *, total, connect, read, max_retries,
        max_retry_after=erpdata::DEFAULT_MAX_RETRY_AFTER.as_secs_f64(), now
    ))]
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        py: Python<'_>,
        total: f64,
        connect: f64,
        read: f64,
        max_retries: i64,
        max_retry_after: f64,
        now: f64,
    ) -> Result<Call> {
        let limits = Limits::new(total, connect, read, max_retries, max_retry_after, now)?;
        let invocation = self.invocation.bind(py).get();
        let options = invocation.decoder_options(None, DEFAULT_BATCH_ROWS);
        Call::of(invocation, options, Taking::Whole, limits, true)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let invocation = self.invocation.bind(py).get();
        format!(
            "<PlannedCall {}: {}>",
            self.id,
            invocation.inner.operation().name
        )
    }
}

/// A plan argument that is a list (`acids`, `accounts`, `buckets`): any
/// iterable but text (a mapping gives its keys, as iterating it does);
/// text or anything else as its shape, for the core to refuse.
pub(crate) fn list(value: &Bound<'_, PyAny>) -> Result<Option<Arg>> {
    let text = value.is_instance_of::<PyString>()
        || value.is_instance_of::<PyBytes>()
        || value.is_instance_of::<PyByteArray>();
    if !text && !value.is_none() {
        if let Ok(items) = value.try_iter() {
            let mut out = Vec::new();
            for item in items {
                out.push(given(&item?)?);
            }
            return Ok(Some(Arg::List(out)));
        }
    }
    arg(value)
}

/// Python's `None` where a value must be given: a value of type
/// `NoneType`, for the core to refuse.
pub(crate) fn none() -> Arg {
    Arg::Unsupported("NoneType".to_owned())
}

fn opt(value: Option<&Bound<'_, PyAny>>) -> Result<Option<Arg>> {
    Ok(match value {
        Some(v) => arg(v)?,
        None => None,
    })
}

fn options(typing: Option<&Typing>) -> DecoderOptions {
    Typing::decoder_options(typing, DEFAULT_BATCH_ROWS)
}

type DuesPlan =
    fn(&erpdata::Config, &Arg, &Arg, i64, DecoderOptions) -> erpdata::Result<erpdata::Plan>;

impl Plan {
    /// A plan over the dues of `acids` (`dues_table` or `dues_each`), its
    /// inputs converted as every plan's are.
    fn of_dues(
        config: &Config,
        acids: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        concurrency: &Bound<'_, PyAny>,
        typing: Option<&Typing>,
        make: DuesPlan,
    ) -> Result<Self> {
        let concurrency = whole(concurrency, erpdata::binding::check_concurrency)?;
        let plan = make(
            config.core_config(),
            &list(acids)?.unwrap_or_else(none),
            &given(kind)?,
            concurrency as i64,
            options(typing),
        )?;
        Ok(Plan::new(config, plan))
    }

    fn new(config: &Config, inner: erpdata::Plan) -> Self {
        Plan {
            inner,
            config: config.core_config().clone(),
            started: HashMap::new(),
        }
    }
}

#[pymethods]
impl Plan {
    /// The dues of `acids` (an iterable of account ids) of `kind` as one
    /// table with an `acid` column first, at most `concurrency` calls at a
    /// time.
    #[staticmethod]
    #[pyo3(signature = (config, acids, kind, concurrency, typing=None))]
    fn dues_table(
        config: &Config,
        acids: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        concurrency: &Bound<'_, PyAny>,
        typing: Option<&Typing>,
    ) -> Result<Self> {
        Plan::of_dues(
            config,
            acids,
            kind,
            concurrency,
            typing,
            erpdata::Plan::dues_table,
        )
    }

    /// The dues of `acids` of `kind`, each account's on their own: the
    /// answer is a dict of `erpdata.Dues` keyed by account id as sent
    /// (text), one per distinct account in the order first given.
    #[staticmethod]
    #[pyo3(signature = (config, acids, kind, concurrency, typing=None))]
    fn dues_many(
        config: &Config,
        acids: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        concurrency: &Bound<'_, PyAny>,
        typing: Option<&Typing>,
    ) -> Result<Self> {
        Plan::of_dues(
            config,
            acids,
            kind,
            concurrency,
            typing,
            erpdata::Plan::dues_each,
        )
    }

    /// The aging of receivables (`kind` receipt) or payables as of `as_of`
    /// (`YYYY-MM-DD` or a date; the caller gives today's), of `accounts`
    /// or every account of that kind in `accounts_table`.
    #[staticmethod]
    #[pyo3(signature = (
        config, *, kind, accounts, as_of, buckets, accounts_table, company_id, year_id,
        concurrency
    ))]
    #[allow(clippy::too_many_arguments)]
    fn aging(
        config: &Config,
        kind: &Bound<'_, PyAny>,
        accounts: &Bound<'_, PyAny>,
        as_of: &Bound<'_, PyAny>,
        buckets: &Bound<'_, PyAny>,
        accounts_table: &Bound<'_, PyAny>,
        company_id: Option<&Bound<'_, PyAny>>,
        year_id: Option<&Bound<'_, PyAny>>,
        concurrency: &Bound<'_, PyAny>,
    ) -> Result<Self> {
        let concurrency = whole(concurrency, erpdata::binding::check_concurrency)?;
        let plan = AgingPlan {
            kind: given(kind)?,
            accounts: list(accounts)?,
            as_of: given(as_of)?,
            // Both have defaults in the client's signature: `None` given
            // is a value of the wrong type, not "the default".
            buckets: Some(list(buckets)?.unwrap_or_else(none)),
            accounts_table: Some(given(accounts_table)?),
            company_id: opt(company_id)?,
            year_id: opt(year_id)?,
            concurrency: concurrency as i64,
        };
        let plan = erpdata::Plan::aging(config.core_config(), &plan, options(None))?;
        Ok(Plan::new(config, plan))
    }

    /// The credit status of `accounts` (or every customer of
    /// `accounts_table`) as of `as_of`, with each one's average payment
    /// days unless `pay_days` is false.
    #[staticmethod]
    #[pyo3(signature = (
        config, *, accounts, as_of, pay_days, accounts_table, company_id, year_id, concurrency
    ))]
    #[allow(clippy::too_many_arguments)]
    fn credit_status(
        config: &Config,
        accounts: &Bound<'_, PyAny>,
        as_of: &Bound<'_, PyAny>,
        pay_days: &Bound<'_, PyAny>,
        accounts_table: &Bound<'_, PyAny>,
        company_id: Option<&Bound<'_, PyAny>>,
        year_id: Option<&Bound<'_, PyAny>>,
        concurrency: &Bound<'_, PyAny>,
    ) -> Result<Self> {
        let concurrency = whole(concurrency, erpdata::binding::check_concurrency)?;
        let plan = CreditStatusPlan {
            accounts: list(accounts)?,
            as_of: given(as_of)?,
            pay_days: given(pay_days)?,
            accounts_table: Some(given(accounts_table)?),
            company_id: opt(company_id)?,
            year_id: opt(year_id)?,
            concurrency: concurrency as i64,
        };
        let plan = erpdata::Plan::credit_status(config.core_config(), &plan, options(None))?;
        Ok(Plan::new(config, plan))
    }

    /// What to do next: a `PlannedCall` to start, `None` to wait for one
    /// started earlier, or the answer (an `erpdata.Table`). Raises the
    /// plan's first error; calls still running are then the caller's to
    /// abandon.
    fn next(&mut self, py: Python<'_>) -> Result<Py<PyAny>> {
        // The computation at the end (aging, credit status) runs here.
        let inner = &mut self.inner;
        let step = crate::exiting::detach(py, || match inner.next() {
            PlanStep::Done(rows) => TableData::typed(rows).map(|t| (PlanStep::Wait, Some(t))),
            other => Ok((other, None)),
        })?;
        Ok(match step {
            (_, Some(_)) if self.inner.answers_each() => {
                let answered = PyDict::new(py);
                for dues in self.inner.take_dues() {
                    answered.set_item(dues.acid.as_str(), crate::convert::dues(py, &dues)?)?;
                }
                answered.into_any().unbind()
            }
            (_, Some(table)) => table_model(py, table)?.unbind(),
            (PlanStep::Call(planned), _) => {
                let options = planned.options().clone();
                self.started
                    .insert(planned.id, (planned.invocation.clone(), options.clone()));
                let mut invocation = Invocation::new(&self.config, planned.invocation);
                invocation.options = Some(options);
                let invocation = Py::new(py, invocation)?;
                Py::new(
                    py,
                    PlannedCall {
                        id: planned.id,
                        invocation,
                    },
                )?
                .into_any()
            }
            (PlanStep::Failed(error), _) => return Err(error.into()),
            _ => py.None(),
        })
    }

    /// Call `id` ended: `call` (from `PlannedCall.start`) carries its
    /// result. A call that never ended (abandoned) fails the plan.
    fn done(&mut self, id: usize, mut call: PyRefMut<'_, Call>) {
        self.started.remove(&id);
        let outcome = call.outcome.take().unwrap_or_else(|| {
            Err(Error::InvalidInput {
                field: "call".to_owned(),
                reason: format!("call {id} was handed back before it ended"),
            })
        });
        self.inner.done(id, outcome);
    }

    /// Call `id` answered `status` with `body` (a whole answer, for a host
    /// that does its own I/O, as the plan vectors do): parsed as its
    /// operation says and handed to the plan.
    fn answer(&mut self, py: Python<'_>, id: usize, status: u16, body: &[u8]) {
        let Some((invocation, options)) = self.started.remove(&id) else {
            return;
        };
        let (inner, config) = (&mut self.inner, &self.config);
        crate::exiting::detach(py, || {
            let result = invocation.parse(config, status, body, &options);
            inner.done(id, result);
        });
    }

    /// Calls started and not yet handed back.
    #[getter]
    fn running(&self) -> usize {
        self.inner.running()
    }

    /// The most calls it runs at a time.
    #[getter]
    fn concurrency(&self) -> usize {
        self.inner.concurrency()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Plan: {} running, at most {}>",
            self.inner.running(),
            self.inner.concurrency()
        )
    }
}
