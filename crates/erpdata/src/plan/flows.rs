//! The flows a [`Plan`](super::Plan) runs: their inputs, checked before any
//! call, and their stages (the account table, then every account's dues and
//! average payment days, then the computation).

use std::str::FromStr;

use super::Purpose;
use crate::aging::{aging, AgingOptions, DEFAULT_BUCKETS, DUE_DATE_COLUMNS};
use crate::ajax::{ajax_ready, AjaxOptions};
use crate::ajax_answer::TypedRows;
use crate::catalogue::{operation, Arg, Args, Invocation, Output, TableBatches};
use crate::cell::Cell;
use crate::config::Config;
use crate::credit::{account_columns, account_ids, credit_status, credit_status_of, pay_days};
use crate::decode::{ColumnType, DeclaredType, DecoderOptions};
use crate::error::{Error, Result};
use crate::id::Id;
use crate::query::DuesKind;
use crate::response::Dues;

/// The builder methods the two plans over the account table share: which
/// table, company and year it is read from, and how many calls at a time.
macro_rules! account_table_methods {
    () => {
        /// The account table's name (default `account`).
        pub fn accounts_table(mut self, table: impl Into<String>) -> Self {
            self.accounts_table = Some(Arg::Text(table.into()));
            self
        }

        /// The account table's company (default: the configuration's).
        pub fn company_id(mut self, id: impl Into<Id>) -> Self {
            self.company_id = Some(Arg::from(&id.into()));
            self
        }

        /// The account table's year (default: the configuration's).
        pub fn year_id(mut self, id: impl Into<Id>) -> Self {
            self.year_id = Some(Arg::from(&id.into()));
            self
        }

        /// The most calls at a time, 1 to [`MAX_CONCURRENCY`](crate::MAX_CONCURRENCY)
        /// (checked when the plan runs); default 8.
        pub fn concurrency(mut self, calls: usize) -> Self {
            self.concurrency = i64::try_from(calls).unwrap_or(i64::MAX);
            self
        }
    };
}

/// The inputs of an aging plan, as the caller gave them (each checked by
/// [`Plan::aging`](super::Plan::aging), naming it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgingPlan {
    /// `receipt` (receivables, the default) or `payment`.
    pub kind: Arg,
    /// A list of account ids, or `None` for every customer (receivables)
    /// or supplier (payables) of the account table. Each gets its row, in
    /// this order (the table's), zeros where it owes nothing.
    pub accounts: Option<Arg>,
    /// The day ages are counted to, `YYYY-MM-DD`. The Python and
    /// JavaScript clients give today's date (local time) when their caller
    /// gives none; the core reads no clock, so in Rust it is always given.
    pub as_of: Arg,
    /// Bucket bounds in days (a list of integers), or `None` for 30, 60, 90.
    pub buckets: Option<Arg>,
    /// The account table's name (default `account`).
    pub accounts_table: Option<Arg>,
    /// The account table's company (default: the configuration's).
    pub company_id: Option<Arg>,
    /// The account table's year (default: the configuration's).
    pub year_id: Option<Arg>,
    /// The most calls at a time (1 to 256).
    pub concurrency: i64,
}

impl AgingPlan {
    /// The aging of `kind` as of `as_of` of every account of that kind,
    /// with the defaults (8 calls at a time).
    pub fn new(kind: DuesKind, as_of: impl Into<String>) -> Self {
        AgingPlan {
            kind: Arg::Text(kind.as_str().to_owned()),
            accounts: None,
            as_of: Arg::Text(as_of.into()),
            buckets: None,
            accounts_table: None,
            company_id: None,
            year_id: None,
            concurrency: 8,
        }
    }

    /// These accounts only, each once, in the order given, instead of
    /// every customer or supplier of the account table (sets
    /// [`AgingPlan::accounts`](#structfield.accounts)).
    ///
    /// ```
    /// use erpdata::{AgingPlan, DuesKind};
    ///
    /// let plan = AgingPlan::new(DuesKind::Receipt, "2025-12-31")
    ///     .accounts(["C001", "C002"])
    ///     .buckets([15, 45]) // current, 1-15, 16-45, 46+
    ///     .concurrency(4);
    /// # let _ = plan;
    /// ```
    pub fn accounts<A: Into<Id>>(mut self, acids: impl IntoIterator<Item = A>) -> Self {
        self.accounts = Some(id_list(acids));
        self
    }

    /// Bucket bounds in days past due, strictly increasing (checked when
    /// the plan runs); default 30, 60, 90.
    pub fn buckets(mut self, days: impl IntoIterator<Item = u32>) -> Self {
        let days = days.into_iter().map(|d| Arg::Int(i64::from(d))).collect();
        self.buckets = Some(Arg::List(days));
        self
    }

    account_table_methods!();

    /// Bucket bounds given as an argument (a list of whole numbers of
    /// days, 1 to `u32::MAX`), checked as [`Plan::aging`](super::Plan::aging)
    /// checks them, naming `buckets`: for a binding's aging of a table it
    /// already has. Their order is checked by [`crate::aging`].
    pub fn bucket_days(buckets: &Arg) -> Result<Vec<u32>> {
        bucket_list(buckets)
    }
}

/// Account ids as the list argument a plan takes.
fn id_list<A: Into<Id>>(acids: impl IntoIterator<Item = A>) -> Arg {
    Arg::List(acids.into_iter().map(|a| Arg::from(&a.into())).collect())
}

/// The inputs of a credit-status plan (each checked by
/// [`Plan::credit_status`](super::Plan::credit_status), naming it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditStatusPlan {
    /// A list of account ids, or `None` for every customer of the account
    /// table. Each gets its row, in this order (the table's), zeros where
    /// it owes nothing; one that is not a customer there is an error.
    pub accounts: Option<Arg>,
    /// The day overdue is counted to, `YYYY-MM-DD` (always given in Rust,
    /// as [`AgingPlan::as_of`](AgingPlan#structfield.as_of) is).
    pub as_of: Arg,
    /// Ask the service for each account's average payment days.
    pub pay_days: Arg,
    /// The account table's name (default `account`).
    pub accounts_table: Option<Arg>,
    /// The account table's company (default: the configuration's).
    pub company_id: Option<Arg>,
    /// The account table's year (default: the configuration's).
    pub year_id: Option<Arg>,
    /// The most calls at a time (1 to 256).
    pub concurrency: i64,
}

impl CreditStatusPlan {
    /// The credit status of every customer as of `as_of`, with the
    /// defaults (average payment days asked, 8 calls at a time).
    pub fn new(as_of: impl Into<String>) -> Self {
        CreditStatusPlan {
            accounts: None,
            as_of: Arg::Text(as_of.into()),
            pay_days: Arg::Flag(true),
            accounts_table: None,
            company_id: None,
            year_id: None,
            concurrency: 8,
        }
    }

    /// These customers only, each once, in the order given, instead of
    /// every customer of the account table; one that is not a customer
    /// there is an error (sets [`CreditStatusPlan::accounts`](#structfield.accounts)).
    ///
    /// ```
    /// use erpdata::CreditStatusPlan;
    ///
    /// let plan = CreditStatusPlan::new("2025-12-31")
    ///     .accounts(["C001", "C002"])
    ///     .pay_days(false); // the service has no avgPayDays
    /// # let _ = plan;
    /// ```
    pub fn accounts<A: Into<Id>>(mut self, acids: impl IntoIterator<Item = A>) -> Self {
        self.accounts = Some(id_list(acids));
        self
    }

    /// Whether each customer's average payment days are asked for
    /// (`avgPayDays`; default on).
    pub fn pay_days(mut self, ask: bool) -> Self {
        self.pay_days = Arg::Flag(ask);
        self
    }

    account_table_methods!();

    /// Account ids given as an argument (a list of text or integer ids),
    /// checked as [`Plan::credit_status`](super::Plan::credit_status)
    /// checks its accounts but naming `field`: for a binding's credit
    /// status of tables it already has. One id on its own is refused, not
    /// read as the list of its characters.
    pub fn account_ids(field: &str, acids: &Arg) -> Result<Vec<String>> {
        let Arg::List(items) = acids else {
            return Err(not_a_list(field, acids));
        };
        account_list(field, items)
    }
}

/// What a flow computes at its end.
#[derive(Debug)]
enum Goal {
    DuesTable,
    /// Each account's dues on their own, not joined.
    DuesEach,
    Aging(AgingOptions),
    Credit {
        as_of: String,
        wanted: Option<Vec<String>>,
        pay_days: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Start,
    Accounts,
    Dues,
}

/// A flow's state between its stages.
#[derive(Debug)]
pub(crate) struct Flow {
    goal: Goal,
    kind: DuesKind,
    stage: Stage,
    accounts_call: Option<Invocation>,
    accounts: Option<TableBatches>,
    acids: Vec<String>,
    dues: Vec<Option<Dues>>,
    pay_days: Vec<Option<Cell>>,
    /// The notices of each average-payment-days answer, by account (the
    /// answer itself is kept as its number only).
    pay_day_notices: Vec<Vec<String>>,
    /// A `DuesEach` flow's answers, once it is done.
    answered: Vec<Dues>,
}

/// What a flow's next stage is.
pub(crate) enum Advance {
    Calls(Vec<(Purpose, Invocation)>),
    Done(TypedRows),
}

impl Flow {
    fn new(goal: Goal, kind: DuesKind) -> Self {
        Flow {
            goal,
            kind,
            stage: Stage::Start,
            accounts_call: None,
            accounts: None,
            acids: Vec::new(),
            dues: Vec::new(),
            pay_days: Vec::new(),
            pay_day_notices: Vec::new(),
            answered: Vec::new(),
        }
    }

    /// Whether the flow answers each account's dues on their own.
    pub(crate) fn answers_each(&self) -> bool {
        matches!(self.goal, Goal::DuesEach)
    }

    /// The dues a `DuesEach` flow answered, in the order asked (once).
    pub(crate) fn take_answered(&mut self) -> Vec<Dues> {
        std::mem::take(&mut self.answered)
    }

    pub(crate) fn dues_table(config: &Config, acids: &Arg, kind: &Arg) -> Result<Flow> {
        Flow::dues_of(config, acids, kind, Goal::DuesTable)
    }

    pub(crate) fn dues_each(config: &Config, acids: &Arg, kind: &Arg) -> Result<Flow> {
        Flow::dues_of(config, acids, kind, Goal::DuesEach)
    }

    fn dues_of(config: &Config, acids: &Arg, kind: &Arg, goal: Goal) -> Result<Flow> {
        let Arg::List(items) = acids else {
            return Err(not_a_list("acids", acids));
        };
        let kind = dues_kind(kind)?;
        let mut flow = Flow::new(goal, kind);
        flow.acids = account_list("acids", items)?;
        for acid in &flow.acids {
            dues_call(config, acid, kind)?;
        }
        Ok(flow)
    }

    pub(crate) fn aging(config: &Config, plan: &AgingPlan) -> Result<Flow> {
        let kind = dues_kind(&plan.kind)?;
        let mut options = AgingOptions::new(date("as_of", &plan.as_of)?);
        if let Some(buckets) = &plan.buckets {
            options.buckets = bucket_list(buckets)?;
        } else {
            options.buckets = DEFAULT_BUCKETS.to_vec();
        }
        options.check()?;
        let mut flow = Flow::new(Goal::Aging(options), kind);
        flow.start(
            config,
            plan.accounts.as_ref(),
            "accounts",
            false,
            &plan.accounts_table,
            &plan.company_id,
            &plan.year_id,
        )?;
        Ok(flow)
    }

    pub(crate) fn credit_status(config: &Config, plan: &CreditStatusPlan) -> Result<Flow> {
        let as_of = date("as_of", &plan.as_of)?;
        AgingOptions::new(as_of.clone()).check()?;
        let pay_days = match &plan.pay_days {
            Arg::Flag(b) => *b,
            other => {
                return Err(Error::invalid(
                    "pay_days",
                    format!("must be true or false, got {}", other.shape()),
                ))
            }
        };
        let goal = Goal::Credit {
            as_of,
            wanted: None,
            pay_days,
        };
        let mut flow = Flow::new(goal, DuesKind::Receipt);
        flow.start(
            config,
            plan.accounts.as_ref(),
            "accounts",
            true,
            &plan.accounts_table,
            &plan.company_id,
            &plan.year_id,
        )?;
        if let Goal::Credit { wanted, .. } = &mut flow.goal {
            *wanted = plan.accounts.as_ref().map(|_| flow.acids.clone());
        }
        if pay_days {
            ajax_ready(config, "avgPayDays", AjaxOptions::default())?;
        }
        Ok(flow)
    }

    /// Checks the accounts asked for and the account table's call (made
    /// when no accounts are given, or always), and what every dues call
    /// will need, before anything is sent.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        config: &Config,
        accounts: Option<&Arg>,
        field: &str,
        always_table: bool,
        table: &Option<Arg>,
        company_id: &Option<Arg>,
        year_id: &Option<Arg>,
    ) -> Result<()> {
        if let Some(accounts) = accounts {
            let Arg::List(items) = accounts else {
                return Err(not_a_list(field, accounts));
            };
            self.acids = account_list(field, items)?;
        }
        ajax_ready(config, "getduesDet", AjaxOptions::default())?;
        if accounts.is_none() || always_table {
            let mut args = Args::new().with(
                "name",
                table
                    .clone()
                    .unwrap_or_else(|| Arg::Text("account".to_owned())),
            );
            if let Some(c) = company_id {
                args.set("company_id", c.clone());
            }
            if let Some(y) = year_id {
                args.set("year_id", y.clone());
            }
            // The table's name is the caller's accounts_table: an error
            // about it names that argument, not the table call's own.
            let call = config
                .invoke(operation("table")?, &args)
                .map_err(accounts_table("table"))?;
            self.accounts_call = Some(call.columns_only());
        }
        Ok(())
    }

    /// The next stage's calls, or the answer.
    pub(crate) fn advance(&mut self, config: &Config, options: &DecoderOptions) -> Result<Advance> {
        match self.stage {
            Stage::Start => {
                if let Some(call) = self.accounts_call.take() {
                    self.stage = Stage::Accounts;
                    return Ok(Advance::Calls(vec![(Purpose::Accounts, call)]));
                }
                self.dues_calls(config)
            }
            Stage::Accounts => {
                let accounts = self
                    .accounts
                    .as_ref()
                    .map(|t| t.batches.as_slice())
                    .unwrap_or_default();
                // The table is the caller's accounts_table here: an error
                // about it names that argument (the functions name their
                // own, `accounts`), and the columns a credit status reads
                // are there before any dues call is sent.
                if let Goal::Credit { .. } = self.goal {
                    let schema = crate::response::unify(accounts.to_vec()).0;
                    account_columns(&schema, "accounts_table")?;
                }
                let listed =
                    account_ids(accounts, self.kind).map_err(accounts_table("accounts"))?;
                self.acids = match &self.goal {
                    Goal::Credit {
                        wanted: Some(wanted),
                        ..
                    } => wanted
                        .iter()
                        .filter(|a| listed.contains(a))
                        .cloned()
                        .collect(),
                    _ if self.acids.is_empty() => listed,
                    _ => std::mem::take(&mut self.acids),
                };
                self.dues_calls(config)
            }
            Stage::Dues => self.finish(config, options).map(Advance::Done),
        }
    }

    fn dues_calls(&mut self, config: &Config) -> Result<Advance> {
        self.stage = Stage::Dues;
        self.dues = vec![None; self.acids.len()];
        let mut calls = Vec::with_capacity(self.acids.len() * 2);
        for (i, acid) in self.acids.iter().enumerate() {
            calls.push((Purpose::Dues(i), dues_call(config, acid, self.kind)?));
        }
        if let Goal::Credit { pay_days: true, .. } = self.goal {
            self.pay_days = vec![None; self.acids.len()];
            self.pay_day_notices = vec![Vec::new(); self.acids.len()];
            for (i, acid) in self.acids.iter().enumerate() {
                let args = Args::new().with("acid", acid.as_str());
                calls.push((
                    Purpose::PayDays(i),
                    config.invoke(operation("avg_pay_days")?, &args)?,
                ));
            }
        }
        Ok(Advance::Calls(calls))
    }

    /// Takes one call's output.
    pub(crate) fn take(&mut self, purpose: Purpose, output: Output) -> Result<()> {
        match (purpose, output) {
            (Purpose::Accounts, Output::Batches(table)) => self.accounts = Some(table),
            (Purpose::Dues(i), Output::Dues(dues)) => self.dues[i] = Some(dues),
            (Purpose::PayDays(i), Output::Function(answer)) => {
                self.pay_days[i] = Some(pay_days(&self.acids[i], &answer)?);
                self.pay_day_notices[i] = answer.notices;
            }
            (purpose, output) => {
                return Err(Error::invalid(
                    "plan",
                    format!("a call for {purpose:?} answered {}", output.kind()),
                ))
            }
        }
        Ok(())
    }

    fn finish(&mut self, config: &Config, options: &DecoderOptions) -> Result<TypedRows> {
        let notices = self.notices();
        let mut rows = self.finish_rows(config, options)?;
        rows.notices = notices;
        Ok(rows)
    }

    /// What PHP printed before the answers of the calls made, each text
    /// once (a script warns alike on every call), in a fixed order: the
    /// account table's, then each account's dues and payment days.
    fn notices(&self) -> Vec<String> {
        let accounts = self.accounts.iter().map(|t| &t.notices);
        let dues = self.dues.iter().flatten().map(|d| &d.notices);
        let mut notices: Vec<String> = Vec::new();
        for notice in accounts.chain(dues).chain(&self.pay_day_notices).flatten() {
            if !notices.contains(notice) {
                notices.push(notice.clone());
            }
        }
        notices
    }

    fn finish_rows(&mut self, config: &Config, options: &DecoderOptions) -> Result<TypedRows> {
        let dues: Vec<Dues> = self.dues.drain(..).flatten().collect();
        if let Goal::DuesEach = self.goal {
            self.answered = dues;
            return Ok(TypedRows::default());
        }
        let table = config.dues_table(&dues, options)?;
        let table = match &self.goal {
            Goal::Aging(_) | Goal::Credit { .. } => dated(config, &dues, options, table),
            _ => table,
        };
        match &self.goal {
            Goal::DuesTable => Ok(table),
            Goal::DuesEach => unreachable!("answered above"),
            // Every account asked for (or listed) gets its row, in order,
            // whether or not it owes anything.
            Goal::Aging(options) => {
                let options = AgingOptions {
                    accounts: Some(self.acids.clone()),
                    ..options.clone()
                };
                aging(&table.batches, &options)
            }
            Goal::Credit { as_of, wanted, .. } => {
                let accounts = self
                    .accounts
                    .as_ref()
                    .map(|t| t.batches.as_slice())
                    .unwrap_or_default();
                let days: Vec<(String, Cell)> = self
                    .acids
                    .iter()
                    .zip(&self.pay_days)
                    .filter_map(|(a, d)| d.clone().map(|d| (a.clone(), d)))
                    .collect();
                match wanted {
                    Some(wanted) => {
                        credit_status_of(accounts, &table.batches, &days, as_of, wanted)
                    }
                    None => credit_status(accounts, &table.batches, &days, as_of),
                }
            }
        }
    }
}

/// The dues of an aging or a credit status, whose due dates must be dates:
/// a due-date column typed as text (a service writing `""` where a
/// document has no due date) is read again declared a date, else a
/// timestamp, so that `""` is an undated balance rather than the whole
/// table refused. Text that is neither stays, refused naming the column.
fn dated(config: &Config, dues: &[Dues], options: &DecoderOptions, table: TypedRows) -> TypedRows {
    let due = DUE_DATE_COLUMNS
        .iter()
        .find_map(|c| table.schema.iter().find(|(n, _)| n == c));
    let Some((name, ColumnType::String)) = due else {
        return table;
    };
    for ty in [DeclaredType::Date, DeclaredType::Timestamp] {
        let mut declared = options.clone();
        declared.schema = declared.schema.declare(name.clone(), ty);
        if let Ok(typed) = config.dues_table(dues, &declared) {
            return typed;
        }
    }
    table
}

/// An error about field `from` as one about the caller's `accounts_table`,
/// which gave the account table: the table call's own `table`, or the
/// finance functions' `accounts`.
fn accounts_table(from: &'static str) -> impl Fn(Error) -> Error {
    move |err| match err {
        Error::InvalidInput { field, reason } if field == from => Error::InvalidInput {
            field: "accounts_table".to_owned(),
            reason,
        },
        other => other,
    }
}

fn dues_call(config: &Config, acid: &str, kind: DuesKind) -> Result<Invocation> {
    let args = Args::new().with("acid", acid).with("kind", kind.as_str());
    config.invoke(operation("dues")?, &args)
}

fn not_a_list(field: &str, value: &Arg) -> Error {
    Error::invalid(
        field,
        format!(
            "must be a list of account ids (not a single id), got {}",
            value.shape()
        ),
    )
}

fn dues_kind(kind: &Arg) -> Result<DuesKind> {
    match kind {
        Arg::Text(t) => DuesKind::from_str(t),
        // The options given where the kind goes (`client.aging({ asOf })`
        // in JS, whose kind comes first and may be left out).
        Arg::Pairs(_) => Err(Error::invalid(
            "kind",
            format!(
                "must be RECEIPT or PAYMENT, got {}: the kind comes first and the options \
                 after it",
                kind.shape()
            ),
        )),
        other => Err(Error::invalid(
            "kind",
            format!("must be RECEIPT or PAYMENT, got {}", other.shape()),
        )),
    }
}

fn date(field: &str, value: &Arg) -> Result<String> {
    match value {
        Arg::Text(t) => {
            crate::validate::date(field, t)?;
            Ok(t.clone())
        }
        Arg::DateTime(t) => Err(Error::invalid(
            field,
            format!("must be a date, not a date and time ({t}); pass its date"),
        )),
        other => Err(Error::invalid(
            field,
            format!("must be a date as YYYY-MM-DD, got {}", other.shape()),
        )),
    }
}

/// The distinct accounts of list `field`, in order, each checked as a
/// dues query's `acid` is. An error names the list and the item (`invalid
/// accounts: item 2 must not be empty`): the caller gave the list, and
/// on the command line `--accounts ""` was refused as "invalid acid".
fn account_list(field: &str, items: &[Arg]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let refused = |reason: String| Error::invalid(field, format!("item {} {reason}", i + 1));
        let acid = match item {
            Arg::Text(t) => {
                crate::validate::id(field, t).map_err(|e| match e {
                    Error::InvalidInput { reason, .. } => refused(reason),
                    other => other,
                })?;
                t.clone()
            }
            Arg::Int(n) => n.to_string(),
            other => {
                return Err(refused(format!(
                    "must be text or an integer, got {}",
                    other.shape()
                )))
            }
        };
        out.push(acid);
    }
    one_spelling_each(field, &out)?;
    Ok(crate::id::each_once(out))
}

/// Refuses two items that differ only in case or trailing spaces (`"c001"`,
/// `"C001 "`). A PHP service over MySQL compares ids so (its default
/// collations ignore case, and trailing spaces in `=`), so it answers both
/// with the same account's dues, which a dues table would list twice and
/// an aging or credit status count twice. Which of them the caller meant
/// is theirs to say; the same text twice is one account, kept once.
fn one_spelling_each(field: &str, acids: &[String]) -> Result<()> {
    let mut seen: std::collections::HashMap<String, (usize, &str)> =
        std::collections::HashMap::new();
    for (i, acid) in acids.iter().enumerate() {
        let folded = acid.trim_end_matches(' ').to_lowercase();
        match seen.get(&folded) {
            Some(&(j, first)) if first != acid => {
                return Err(Error::invalid(
                    field,
                    format!(
                        "items {} and {} ({first:?} and {acid:?}) differ only in case or \
                         trailing spaces, which the service's database does not tell apart: \
                         it would answer both with one account's dues, counted twice; give \
                         the account once",
                        j + 1,
                        i + 1
                    ),
                ))
            }
            Some(_) => {}
            None => {
                seen.insert(folded, (i, acid));
            }
        }
    }
    Ok(())
}

fn bucket_list(value: &Arg) -> Result<Vec<u32>> {
    let Arg::List(items) = value else {
        return Err(Error::invalid(
            "buckets",
            format!("must be a list of day counts, got {}", value.shape()),
        ));
    };
    items
        .iter()
        .map(|item| match item {
            Arg::Int(n) => u32::try_from(*n).ok().filter(|d| *d >= 1).ok_or_else(|| {
                Error::invalid(
                    "buckets",
                    format!("must hold day counts from 1 to {}, got {n}", u32::MAX),
                )
            }),
            other => Err(Error::invalid(
                "buckets",
                format!("must hold whole numbers of days, got {}", other.shape()),
            )),
        })
        .collect()
}
