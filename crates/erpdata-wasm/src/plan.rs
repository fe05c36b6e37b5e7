//! The core's plans for JS: `core.duesTable`, `core.aging` and
//! `core.creditStatus` make an `erpdata::Plan` of JS values (converted by
//! shape; every check is the plan's), and the JS client only runs the
//! calls it names, at most its concurrency at a time.
//!
//! `next()` gives `{call: {id, request}}` (start it: `call(id, ...)` makes
//! its `Call`, whose `done` value is an `Outcome`), `{wait: true}` (hand
//! back a finished call with `done(id, outcome)`), or `{done: table}`;
//! the plan's first error is thrown. `answer(id, status, body)` hands back
//! a whole answer instead of a call (the shared vectors, no I/O).

use std::collections::HashMap;

use erpdata::{AgingPlan, Arg, Config, CreditStatusPlan, DecoderOptions, PlanStep, PlannedCall};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::args::arg;
use crate::call::{self, request_js, Call, Outcome};
use crate::convert::{invalid, set};
use crate::errors::JsResult;
use crate::invocation::reading;
use crate::output::typed_js;
use crate::rows::Numbers;
use crate::Core;

/// A flow over many calls; see the module documentation.
#[wasm_bindgen]
pub struct Plan {
    plan: erpdata::Plan,
    config: Config,
    numbers: Numbers,
    /// The options of each call (`timeoutMs`, ..., as `checkCallOptions`).
    options: JsValue,
    /// The calls started and not yet handed back.
    planned: HashMap<usize, PlannedCall>,
}

/// Member `snake` (or its JS spelling `js`) of a plan's arguments.
fn member(args: &JsValue, snake: &str, js: &str) -> JsValue {
    if !args.is_object() {
        return JsValue::UNDEFINED;
    }
    [snake, js]
        .iter()
        .map(|k| Reflect::get(args, &(*k).into()).unwrap_or(JsValue::UNDEFINED))
        .find(|v| !v.is_undefined())
        .unwrap_or(JsValue::UNDEFINED)
}

/// The most calls at a time: 8 when not given; else a whole number, whose
/// range the plan checks.
fn concurrency(args: &JsValue) -> Result<i64, erpdata::Error> {
    let value = member(args, "concurrency", "concurrency");
    if value.is_undefined() {
        return Ok(8);
    }
    let max = erpdata::MAX_CONCURRENCY as f64;
    match value.as_f64() {
        Some(n) => call::whole("concurrency", n, max, 1.0),
        None => Err(invalid(
            "concurrency",
            format!(
                "must be a whole number from 1 to {max}, got {}",
                crate::convert::describe(&value)
            ),
        )),
    }
}

fn opt(args: &JsValue, snake: &str, js: &str) -> Option<Arg> {
    arg(&member(args, snake, js))
}

/// A required argument; not given, it is refused by the plan's own check
/// of the value (as an empty shape names it).
fn required(args: &JsValue, snake: &str, js: &str) -> Arg {
    opt(args, snake, js).unwrap_or_else(|| Arg::Unsupported("undefined".to_owned()))
}

/// The account table a finance plan reads: its name, company and year.
fn account_table(args: &JsValue) -> [Option<Arg>; 3] {
    [
        // `null` is a name the plan refuses (`undefined`: the default).
        strict(args, "accounts_table", "accountsTable"),
        opt(args, "company_id", "companyId"),
        opt(args, "year_id", "yearId"),
    ]
}

/// An argument not given only when `undefined` (as a JS default parameter
/// has it): `null` is a value, refused by the plan.
fn strict(args: &JsValue, snake: &str, js: &str) -> Option<Arg> {
    let value = member(args, snake, js);
    (!value.is_undefined())
        .then(|| arg(&value).unwrap_or_else(|| Arg::Unsupported("null".to_owned())))
}

/// `strict`, with a default.
fn defaulted(args: &JsValue, snake: &str, js: &str, default: Arg) -> Arg {
    strict(args, snake, js).unwrap_or(default)
}

#[wasm_bindgen]
impl Core {
    /// The dues of many accounts as one table: `args` `{acids, kind,
    /// concurrency}`; `options` how answers are read (`{numbers, schema,
    /// inferStrings}`) and each call's options (`timeoutMs`, ...).
    #[wasm_bindgen(js_name = duesTable)]
    pub fn dues_table(&self, args: &JsValue, options: &JsValue) -> JsResult<Plan> {
        let acids = required(args, "acids", "acids");
        let kind = required(args, "kind", "kind");
        let concurrency = concurrency(args)?;
        self.plan(options, |config, decoder| {
            erpdata::Plan::dues_table(config, &acids, &kind, concurrency, decoder)
        })
    }

    /// The aging of receivables or payables: `args` `{kind, accounts,
    /// asOf, buckets, accountsTable, companyId, yearId, concurrency}`
    /// (snake names too); `options` as for `duesTable`.
    pub fn aging(&self, args: &JsValue, options: &JsValue) -> JsResult<Plan> {
        let [accounts_table, company_id, year_id] = account_table(args);
        let plan = AgingPlan {
            // Receivables when not given; a `null` kind is refused.
            kind: defaulted(args, "kind", "kind", Arg::Text("receipt".to_owned())),
            accounts: opt(args, "accounts", "accounts"),
            as_of: required(args, "as_of", "asOf"),
            buckets: opt(args, "buckets", "buckets"),
            accounts_table,
            company_id,
            year_id,
            concurrency: concurrency(args)?,
        };
        self.plan(options, |config, decoder| {
            erpdata::Plan::aging(config, &plan, decoder)
        })
    }

    /// The credit status of customers: `args` `{accounts, asOf, payDays,
    /// accountsTable, companyId, yearId, concurrency}` (snake names too);
    /// `options` as for `duesTable`.
    #[wasm_bindgen(js_name = creditStatus)]
    pub fn credit_status(&self, args: &JsValue, options: &JsValue) -> JsResult<Plan> {
        let [accounts_table, company_id, year_id] = account_table(args);
        let plan = CreditStatusPlan {
            accounts: opt(args, "accounts", "accounts"),
            as_of: required(args, "as_of", "asOf"),
            pay_days: defaulted(args, "pay_days", "payDays", Arg::Flag(true)),
            accounts_table,
            company_id,
            year_id,
            concurrency: concurrency(args)?,
        };
        self.plan(options, |config, decoder| {
            erpdata::Plan::credit_status(config, &plan, decoder)
        })
    }
}

impl Core {
    fn plan(
        &self,
        options: &JsValue,
        make: impl FnOnce(&Config, DecoderOptions) -> erpdata::Result<erpdata::Plan>,
    ) -> JsResult<Plan> {
        // Redacted: a type name or column of `schema` may be the token.
        let (numbers, decoder) = reading(options).map_err(|e| self.config.redact_error(e))?;
        // Each call's options, checked now: nothing is sent for bad input.
        call::check_call_options(options)?;
        let plan = make(&self.config, decoder)?;
        Ok(Plan {
            plan,
            config: self.config.clone(),
            numbers,
            options: options.clone(),
            planned: HashMap::new(),
        })
    }
}

#[wasm_bindgen]
impl Plan {
    /// What to do next (see the module documentation).
    // The JS method the client loops on, not an iterator's.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> JsResult<JsValue> {
        let out = Object::new();
        match self.plan.next() {
            PlanStep::Call(planned) => {
                let request = planned.invocation.request(&self.config)?;
                let call = Object::new();
                set(&call, "id", &(planned.id as f64).into());
                set(&call, "request", &request_js(&self.config, &request, true));
                set(&out, "call", &call);
                self.planned.insert(planned.id, planned);
            }
            PlanStep::Wait => set(&out, "wait", &true.into()),
            PlanStep::Done(rows) => set(&out, "done", &typed_js(&rows, self.numbers)),
            PlanStep::Failed(err) => return Err(err.into()),
        }
        Ok(out.into())
    }

    /// The call of step `id`, to run now; `nowMs` and `seed` as for
    /// `Invocation.call`. Its `done` value is the `Outcome` for `done`.
    pub fn call(&self, id: f64, now_ms: f64, seed: f64) -> JsResult<Call> {
        let planned = self.started(id)?;
        Ok(Call::start(
            &self.config,
            &planned.invocation,
            planned.options().clone(),
            &self.options,
            (now_ms, seed),
            self.numbers,
            true,
        )?)
    }

    /// Call `id` ended with `outcome` (taken).
    pub fn done(&mut self, id: f64, mut outcome: Outcome) -> JsResult<()> {
        let planned = self.take(id)?;
        let output = outcome
            .0
            .take()
            .ok_or_else(|| invalid("outcome", "was handed back already"))?;
        self.plan.done(planned.id, Ok(output));
        Ok(())
    }

    /// Call `id` answered `status` and `body`: read as its operation says
    /// and handed back (sans I/O, for the shared vectors).
    pub fn answer(&mut self, id: f64, status: u16, body: &[u8]) -> JsResult<()> {
        let planned = self.take(id)?;
        let result = planned
            .invocation
            .parse(&self.config, status, body, planned.options());
        self.plan.done(planned.id, result);
        Ok(())
    }

    /// The most calls it runs at a time.
    #[wasm_bindgen(getter)]
    pub fn concurrency(&self) -> f64 {
        self.plan.concurrency() as f64
    }

    /// Calls started and not yet handed back.
    #[wasm_bindgen(getter)]
    pub fn running(&self) -> f64 {
        self.plan.running() as f64
    }
}

impl Plan {
    fn started(&self, id: f64) -> Result<&PlannedCall, erpdata::Error> {
        self.planned
            .get(&(id as usize))
            .ok_or_else(|| invalid("id", format!("no call {id} is running in this plan")))
    }

    fn take(&mut self, id: f64) -> Result<PlannedCall, erpdata::Error> {
        self.started(id)?;
        Ok(self.planned.remove(&(id as usize)).expect("checked above"))
    }
}
