//! The entries of the catalogue, and the typed form of each function of
//! `ajax.php` ([`AjaxFunction`], its [`AjaxQuery`] constructor). Adding an
//! operation of `ajax.php` is adding it here, then its method of the Rust
//! clients (`crate::client::operations`), the sandbox's fake, vectors and
//! docs; `make generate` writes the Python and JavaScript methods from
//! this list (see `docs/architecture.md`).

use super::invocation::Query;
use super::{AnswerKind, Args, Endpoint, Operation, Param, ParamKind, TokenRule};
use crate::ajax::{AjaxOptions, AjaxQuery};
use crate::error::Result;
use crate::id::Id;
use crate::query::{DuesQuery, TableQuery};

/// Every operation, in the order the docs list them.
pub(crate) const ALL: &[Operation] = &[
    DUES,
    TABLE,
    DUES_SUMMARY,
    AVG_PAY_DAYS,
    NET_PROFIT,
    GROSS_PROFIT,
    SCHEDULE_ACCOUNTS,
    AJAX,
];

/// A function of `apis/ajax.php` and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AjaxFunction {
    /// `getduesSumm`: the outstanding receivables summary.
    DuesSummary,
    /// `avgPayDays`: the average payment days of an account.
    AvgPayDays {
        /// The account (`acid`).
        acid: Id,
    },
    /// `netProfit`: the net profit from `start` to `end` (inclusive).
    NetProfit {
        /// `sdate`, `YYYY-MM-DD`.
        start: String,
        /// `edate`, `YYYY-MM-DD`.
        end: String,
    },
    /// `grossProfit`: the gross profit from `start` to `end` (inclusive).
    GrossProfit {
        /// `sdate`, `YYYY-MM-DD`.
        start: String,
        /// `edate`, `YYYY-MM-DD`.
        end: String,
    },
    /// `scheduleDet`: the accounts under a schedule, over a range.
    ScheduleAccounts {
        /// The schedule's name (`schedule`), e.g. `Sundry Debtors`.
        schedule: String,
        /// `sdate`, `YYYY-MM-DD`.
        start: String,
        /// `edate`, `YYYY-MM-DD`.
        end: String,
    },
    /// Any other function, with its parameters in the order given.
    Other {
        /// The function's name (`func`): a plain identifier.
        func: String,
        /// `(name, value)` pairs.
        params: Vec<(String, String)>,
    },
}

impl AjaxQuery {
    /// `getduesSumm`.
    pub fn dues_summary() -> Self {
        Self::of(AjaxFunction::DuesSummary)
    }

    /// `avgPayDays` for `acid`.
    pub fn avg_pay_days(acid: impl Into<Id>) -> Self {
        Self::of(AjaxFunction::AvgPayDays { acid: acid.into() })
    }

    /// `netProfit` from `start` to `end` (`YYYY-MM-DD`, inclusive).
    pub fn net_profit(start: impl Into<String>, end: impl Into<String>) -> Self {
        Self::of(AjaxFunction::NetProfit {
            start: start.into(),
            end: end.into(),
        })
    }

    /// `grossProfit` from `start` to `end` (`YYYY-MM-DD`, inclusive).
    pub fn gross_profit(start: impl Into<String>, end: impl Into<String>) -> Self {
        Self::of(AjaxFunction::GrossProfit {
            start: start.into(),
            end: end.into(),
        })
    }

    /// `scheduleDet`: the accounts under `schedule` from `start` to `end`.
    pub fn schedule_accounts(
        schedule: impl Into<String>,
        start: impl Into<String>,
        end: impl Into<String>,
    ) -> Self {
        Self::of(AjaxFunction::ScheduleAccounts {
            schedule: schedule.into(),
            start: start.into(),
            end: end.into(),
        })
    }
}

impl AjaxFunction {
    /// The catalogue's entry of a function, and the values of its wire
    /// parameters in the entry's order (none for `Other`, whose pairs are
    /// its own).
    pub(crate) fn entry(&self) -> (&'static Operation, Vec<&str>) {
        match self {
            AjaxFunction::DuesSummary => (&DUES_SUMMARY, vec![]),
            AjaxFunction::AvgPayDays { acid } => (&AVG_PAY_DAYS, vec![acid.as_str()]),
            AjaxFunction::NetProfit { start, end } => (&NET_PROFIT, vec![start, end]),
            AjaxFunction::GrossProfit { start, end } => (&GROSS_PROFIT, vec![start, end]),
            AjaxFunction::ScheduleAccounts {
                schedule,
                start,
                end,
            } => (&SCHEDULE_ACCOUNTS, vec![schedule, start, end]),
            AjaxFunction::Other { .. } => (&AJAX, vec![]),
        }
    }
}

const ACID: Param = Param {
    name: "acid",
    js_name: "acid",
    wire: Some("acid"),
    kind: ParamKind::AccountId,
    required: true,
    doc: "The account id (customer or supplier), sent exactly as given.",
};
const START: Param = Param {
    name: "start",
    js_name: "start",
    wire: Some("sdate"),
    kind: ParamKind::Date,
    required: true,
    doc: "The first day of the range, `YYYY-MM-DD` (inclusive).",
};
const END: Param = Param {
    name: "end",
    js_name: "end",
    wire: Some("edate"),
    kind: ParamKind::Date,
    required: true,
    doc: "The last day of the range, `YYYY-MM-DD` (inclusive; not before `start`).",
};
const SEND_TOKEN: Param = Param {
    name: "send_token",
    js_name: "sendToken",
    wire: None,
    kind: ParamKind::Flag,
    required: false,
    doc: "Send the access token with this call (default: the client's ajax_token).",
};
const AJAX_METHOD: Param = Param {
    name: "method",
    js_name: "method",
    wire: None,
    kind: ParamKind::Method,
    required: false,
    doc: "GET or POST (default: GET without the token, POST with it).",
};

/// `send_token` and `method`, which every `ajax.php` call takes.
fn ajax_options(op: &Operation, args: &Args) -> Result<AjaxOptions> {
    Ok(AjaxOptions {
        send_token: args.flag(op, "send_token")?,
        method: args.method(op, "method")?,
    })
}

/// A function of `ajax.php` with its options.
fn function(op: &Operation, args: &Args, query: AjaxQuery) -> Result<Query> {
    Ok(Query::Function(AjaxQuery {
        options: ajax_options(op, args)?,
        ..query
    }))
}

const DUES: Operation = Operation {
    name: "dues",
    js_name: "dues",
    func: Some("getduesDet"),
    endpoint: Endpoint::Ajax,
    params: &[
        ACID,
        Param {
            name: "kind",
            js_name: "kind",
            wire: Some("type"),
            kind: ParamKind::DuesKind,
            required: true,
            doc: "RECEIPT (what a customer owes) or PAYMENT (what is owed to a supplier).",
        },
        SEND_TOKEN,
        AJAX_METHOD,
    ],
    answer: AnswerKind::Dues,
    token: TokenRule::OnRequest,
    doc: "The outstanding dues (open documents) of one account, receivables or payables.",
    build: |args| {
        let op = &DUES;
        let mut query = DuesQuery::new(args.id(op, "acid")?, args.dues_kind(op, "kind")?);
        query.options = ajax_options(op, args)?;
        Ok(Query::Dues(query))
    },
};

const TABLE: Operation = Operation {
    name: "table",
    js_name: "table",
    func: None,
    endpoint: Endpoint::DataApi,
    params: &[
        Param {
            name: "name",
            js_name: "name",
            wire: Some("table"),
            kind: ParamKind::Table,
            required: true,
            doc: "The ERP table's name, e.g. sales_invoice or account.",
        },
        Param {
            name: "company_id",
            js_name: "companyId",
            wire: Some("compid"),
            kind: ParamKind::Id,
            required: false,
            doc: "The company (compid); default: the client's.",
        },
        Param {
            name: "year_id",
            js_name: "yearId",
            wire: Some("yearid"),
            kind: ParamKind::Id,
            required: false,
            doc: "The financial year (yearid); default: the client's.",
        },
        Param {
            name: "method",
            js_name: "method",
            wire: None,
            kind: ParamKind::Method,
            required: false,
            doc: "POST (default: the token in the body) or GET (the token in the URL).",
        },
    ],
    answer: AnswerKind::Table,
    token: TokenRule::Always,
    doc: "Every row of one ERP table for a company and financial year.",
    build: |args| {
        let op = &TABLE;
        let mut query = TableQuery::new(args.text(op, "name")?);
        query.company_id = args.opt_id(op, "company_id")?;
        query.year_id = args.opt_id(op, "year_id")?;
        if let Some(method) = args.method(op, "method")? {
            query.method = method;
        }
        Ok(Query::Table(query))
    },
};

const DUES_SUMMARY: Operation = Operation {
    name: "dues_summary",
    js_name: "duesSummary",
    func: Some("getduesSumm"),
    endpoint: Endpoint::Ajax,
    params: &[SEND_TOKEN, AJAX_METHOD],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "The outstanding receivables summary (`getduesSumm`).",
    build: |args| function(&DUES_SUMMARY, args, AjaxQuery::dues_summary()),
};

const AVG_PAY_DAYS: Operation = Operation {
    name: "avg_pay_days",
    js_name: "avgPayDays",
    func: Some("avgPayDays"),
    endpoint: Endpoint::Ajax,
    params: &[ACID, SEND_TOKEN, AJAX_METHOD],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "The average payment days of customer or supplier `acid` (`avgPayDays`).",
    build: |args| {
        let op = &AVG_PAY_DAYS;
        function(op, args, AjaxQuery::avg_pay_days(args.id(op, "acid")?))
    },
};

const NET_PROFIT: Operation = Operation {
    name: "net_profit",
    js_name: "netProfit",
    func: Some("netProfit"),
    endpoint: Endpoint::Ajax,
    params: &[START, END, SEND_TOKEN, AJAX_METHOD],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "The net profit from `start` to `end` inclusive (`netProfit`).",
    build: |args| {
        let op = &NET_PROFIT;
        let (start, end) = (args.text(op, "start")?, args.text(op, "end")?);
        function(op, args, AjaxQuery::net_profit(start, end))
    },
};

const GROSS_PROFIT: Operation = Operation {
    name: "gross_profit",
    js_name: "grossProfit",
    func: Some("grossProfit"),
    endpoint: Endpoint::Ajax,
    params: &[START, END, SEND_TOKEN, AJAX_METHOD],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "The gross profit from `start` to `end` inclusive (`grossProfit`).",
    build: |args| {
        let op = &GROSS_PROFIT;
        let (start, end) = (args.text(op, "start")?, args.text(op, "end")?);
        function(op, args, AjaxQuery::gross_profit(start, end))
    },
};

const SCHEDULE_ACCOUNTS: Operation = Operation {
    name: "schedule_accounts",
    js_name: "scheduleAccounts",
    func: Some("scheduleDet"),
    endpoint: Endpoint::Ajax,
    params: &[
        Param {
            name: "schedule",
            js_name: "schedule",
            wire: Some("schedule"),
            kind: ParamKind::Text,
            required: true,
            doc: "The schedule's name, e.g. `Sundry Debtors`.",
        },
        START,
        END,
        SEND_TOKEN,
        AJAX_METHOD,
    ],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "The accounts under `schedule`, with their figures from `start` to `end` (`scheduleDet`).",
    build: |args| {
        let op = &SCHEDULE_ACCOUNTS;
        let schedule = args.text(op, "schedule")?;
        let (start, end) = (args.text(op, "start")?, args.text(op, "end")?);
        function(op, args, AjaxQuery::schedule_accounts(schedule, start, end))
    },
};

const AJAX: Operation = Operation {
    name: "ajax",
    js_name: "ajax",
    func: None,
    endpoint: Endpoint::Ajax,
    params: &[
        Param {
            name: "func",
            js_name: "func",
            wire: Some("func"),
            kind: ParamKind::Name,
            required: true,
            doc: "The function's name (func), e.g. avgPayDays.",
        },
        Param {
            name: "params",
            js_name: "params",
            wire: None,
            kind: ParamKind::Pairs,
            required: false,
            doc: "The function's parameters, names to values, in order.",
        },
        SEND_TOKEN,
        AJAX_METHOD,
    ],
    answer: AnswerKind::Function,
    token: TokenRule::OnRequest,
    doc: "Any other function of ajax.php, by name, with its parameters.",
    build: |args| {
        let op = &AJAX;
        let (func, params) = (args.text(op, "func")?, args.pairs(op, "params")?);
        function(op, args, AjaxQuery::new(func, params))
    },
};
