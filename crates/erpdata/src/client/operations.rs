//! What both ready clients do the same way, written once: each operation of
//! the catalogue and each plan, on top of a client's own `run` (one call)
//! and `run_plan` (many). `operations!()` writes the blocking methods,
//! `operations!(async)` the async ones.

/// `$e`, awaited in an async client.
macro_rules! wait {
    (async $e:expr) => {
        $e.await
    };
    ($e:expr) => {
        $e
    };
}

macro_rules! operations {
    ($($kw:ident)?) => {
        /// Any operation of the catalogue by its entry, with its arguments
        /// checked there (see [`Config::invoke`]).
        pub $($kw)? fn invoke(
            &self,
            operation: &'static crate::catalogue::Operation,
            args: &crate::catalogue::Args,
        ) -> Result<crate::catalogue::Output> {
            let invocation = self.config().invoke(operation, args)?;
            wait!($($kw)? self.run_invocation(invocation))
        }

        $($kw)? fn run_invocation(
            &self,
            invocation: crate::catalogue::Invocation,
        ) -> Result<crate::catalogue::Output> {
            let request = invocation.request(self.config())?;
            let sink = invocation.sink(self.options().decoder.clone());
            wait!($($kw)? self.run(request, sink))
        }

        /// One call of a plan, with the plan's typing.
        $($kw)? fn run_planned(&self, call: crate::plan::PlannedCall) -> Result<crate::catalogue::Output> {
            let request = call.invocation.request(self.config())?;
            wait!($($kw)? self.run(request, call.sink()))
        }

        /// The dues of account `acid` of the given kind.
        pub $($kw)? fn dues(&self, acid: impl Into<Id>, kind: DuesKind) -> Result<Dues> {
            wait!($($kw)? self.dues_query(DuesQuery::new(acid, kind)))
        }

        /// The dues of a [`DuesQuery`] (e.g. one that sends the token).
        pub $($kw)? fn dues_query(&self, query: DuesQuery) -> Result<Dues> {
            let invocation = self.config().invocation(Query::Dues(query))?;
            wait!($($kw)? self.run_invocation(invocation))?.into_dues()
        }

        /// What customer `acid` owes (`RECEIPT` dues).
        pub $($kw)? fn receivables(&self, acid: impl Into<Id>) -> Result<Dues> {
            wait!($($kw)? self.dues(acid, DuesKind::Receipt))
        }

        /// What is owed to supplier `acid` (`PAYMENT` dues).
        pub $($kw)? fn payables(&self, acid: impl Into<Id>) -> Result<Dues> {
            wait!($($kw)? self.dues(acid, DuesKind::Payment))
        }

        /// The dues of many accounts as one table with an `acid` column (see
        /// [`Config::dues_table`]), at most `concurrency` queries at a time
        /// (1 to [`MAX_CONCURRENCY`](crate::MAX_CONCURRENCY)), as the core's
        /// [`Plan::dues_table`] says. Every account id is checked before
        /// anything is sent; the first failure is the result.
        pub $($kw)? fn dues_table<A: Into<Id>>(
            &self,
            acids: impl IntoIterator<Item = A>,
            kind: DuesKind,
            concurrency: usize,
        ) -> Result<TypedRows> {
            let acids = Arg::List(
                acids
                    .into_iter()
                    .map(|a| Arg::Text(a.into().to_string()))
                    .collect(),
            );
            let plan = Plan::dues_table(
                self.config(),
                &acids,
                &Arg::Text(kind.as_str().to_owned()),
                i64::try_from(concurrency).unwrap_or(i64::MAX),
                self.options().decoder.clone(),
            )?;
            wait!($($kw)? self.run_plan(plan))
        }

        /// The aging of receivables or payables (see [`AgingPlan`]): the
        /// account table when no accounts are given, then every account's
        /// dues, then [`aging`](crate::aging), as the core's plan says.
        pub $($kw)? fn aging(&self, plan: &AgingPlan) -> Result<TypedRows> {
            let plan = Plan::aging(self.config(), plan, self.options().decoder.clone())?;
            wait!($($kw)? self.run_plan(plan))
        }

        /// The credit status of customers (see [`CreditStatusPlan`]): the
        /// account table, every customer's dues and average payment days,
        /// then [`credit_status`](crate::credit_status).
        pub $($kw)? fn credit_status(&self, plan: &CreditStatusPlan) -> Result<TypedRows> {
            let plan = Plan::credit_status(self.config(), plan, self.options().decoder.clone())?;
            wait!($($kw)? self.run_plan(plan))
        }

        /// Calls a function of `apis/ajax.php` (see [`AjaxQuery`]).
        pub $($kw)? fn ajax(&self, query: AjaxQuery) -> Result<AjaxAnswer> {
            let invocation = self.config().invocation(Query::Function(query))?;
            wait!($($kw)? self.run_invocation(invocation))?.into_function()
        }

        /// The outstanding receivables summary (`getduesSumm`).
        pub $($kw)? fn dues_summary(&self) -> Result<AjaxAnswer> {
            wait!($($kw)? self.ajax(AjaxQuery::dues_summary()))
        }

        /// The average payment days of account `acid` (`avgPayDays`).
        pub $($kw)? fn avg_pay_days(&self, acid: impl Into<Id>) -> Result<AjaxAnswer> {
            wait!($($kw)? self.ajax(AjaxQuery::avg_pay_days(acid)))
        }

        /// The net profit from `start` to `end`, `YYYY-MM-DD`, inclusive
        /// (`netProfit`).
        pub $($kw)? fn net_profit(&self, start: &str, end: &str) -> Result<AjaxAnswer> {
            wait!($($kw)? self.ajax(AjaxQuery::net_profit(start, end)))
        }

        /// The gross profit from `start` to `end` (`grossProfit`).
        pub $($kw)? fn gross_profit(&self, start: &str, end: &str) -> Result<AjaxAnswer> {
            wait!($($kw)? self.ajax(AjaxQuery::gross_profit(start, end)))
        }

        /// The accounts under `schedule` from `start` to `end` (`scheduleDet`).
        pub $($kw)? fn schedule_accounts(
            &self,
            schedule: &str,
            start: &str,
            end: &str,
        ) -> Result<AjaxAnswer> {
            wait!($($kw)? self.ajax(AjaxQuery::schedule_accounts(schedule, start, end)))
        }

        /// Every row of a table: a name (`"sales_invoice"`) for the config's
        /// company and year, or a [`TableQuery`]. The body is decoded as it
        /// arrives (never held whole); each column's type is decided over
        /// the whole table.
        pub $($kw)? fn table(&self, query: impl Into<TableQuery>) -> Result<Table> {
            let invocation = self.config().invocation(Query::Table(query.into()))?;
            wait!($($kw)? self.run_invocation(invocation))?.into_table()
        }
    };
}
