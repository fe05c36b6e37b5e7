//! Aging: how old what is owed is. One computation for every language, over
//! typed columns, in exact decimals.
//!
//! Each row's balance goes into one bucket by its days past due on the
//! `as_of` date: `current` (not yet due, or due that day), then one bucket
//! per bound (`1-30`, `31-60`, `61-90` by default), then the rest (`91+`);
//! a row without a due date (null, or MySQL's zero date) goes into
//! `undated`. Rows are grouped by `acid` when the table has that column
//! (the dues of many accounts), else they make one group. Every sum is
//! exact at the balance column's scale, and each group's `total` is the sum
//! of its buckets and of its balances; a row without a balance counts
//! nowhere, though its account still gets its row (of zeros when none of
//! its rows has a balance). Given the accounts to report on
//! ([`AgingOptions::accounts`], as a plan gives those asked for), each
//! gets its row, in that order, zeros where it owes nothing.

use std::collections::HashMap;

use crate::ajax_answer::TypedRows;
use crate::cell::{Cell, Row};
use crate::config::Config;
use crate::decode::{Batch, ColumnData, ColumnType, DeclaredType, DecoderOptions};
use crate::error::{Error, Result};
use crate::response::type_rows;

/// Where a due date is looked for, in this order, when none is named.
pub const DUE_DATE_COLUMNS: [&str; 4] = ["due_date", "duedate", "date", "doc_date"];
/// Where a balance is looked for, in this order, when none is named.
pub const BALANCE_COLUMNS: [&str; 3] = ["balance", "outstanding", "amount"];
/// The default bucket bounds, in days past due.
pub const DEFAULT_BUCKETS: [u32; 3] = [30, 60, 90];

/// What an aging report is computed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgingOptions {
    /// The day the ages are counted to, `YYYY-MM-DD`.
    pub as_of: String,
    /// Upper bounds of the past-due buckets, in days, strictly increasing
    /// and positive (default 30, 60, 90).
    pub buckets: Vec<u32>,
    /// The due-date column, or `None` to find one ([`DUE_DATE_COLUMNS`]).
    pub due_date_column: Option<String>,
    /// The balance column, or `None` to find one ([`BALANCE_COLUMNS`]).
    pub balance_column: Option<String>,
    /// The accounts to report on, or `None` for every account of the
    /// table. Given, each gets its row, in this order (each once), zeros
    /// where the table holds nothing of it, and rows of other accounts are
    /// left out: what a plan gives for the accounts asked for, whether or
    /// not they owe anything.
    pub accounts: Option<Vec<String>>,
}

impl AgingOptions {
    /// Aging as of `as_of` with the default buckets and columns found by
    /// name.
    pub fn new(as_of: impl Into<String>) -> Self {
        AgingOptions {
            as_of: as_of.into(),
            buckets: DEFAULT_BUCKETS.to_vec(),
            due_date_column: None,
            balance_column: None,
            accounts: None,
        }
    }

    /// Checks `as_of` and `buckets` as [`aging`] does, so a client can
    /// refuse them before fetching the dues.
    pub fn check(&self) -> Result<()> {
        as_of_day(&self.as_of)?;
        check_buckets(&self.buckets)
    }

    /// The bucket columns' names, in order: `current`, one per bound, the
    /// rest, e.g. `current`, `1-30`, `31-60`, `61-90`, `91+`.
    pub fn bucket_names(&self) -> Vec<String> {
        let mut names = vec!["current".to_owned()];
        // u64: the last bound may be u32::MAX, and the rest start past it.
        let mut low = 1_u64;
        for &high in &self.buckets {
            names.push(format!("{low}-{high}"));
            low = u64::from(high) + 1;
        }
        names.push(format!("{low}+"));
        names
    }
}

/// The aging of `batches` (a dues table's, or one account's dues): one row
/// per account (`acid` first when the table has it), in first-seen order,
/// or one per account of [`AgingOptions::accounts`] in that order; then
/// each bucket, `undated` and `total`, as exact decimals at the balance's
/// scale. An account that owes nothing gets its row of zeros.
pub fn aging(batches: &[Batch], options: &AgingOptions) -> Result<TypedRows> {
    let acids = options.accounts.as_deref();
    let as_of = as_of_day(&options.as_of)?;
    check_buckets(&options.buckets)?;
    let schema = crate::response::unify(batches.to_vec()).0;
    let present: Vec<&str> = schema.iter().map(|(n, _)| n.as_str()).collect();
    let by_account = acids.is_some() || present.contains(&"acid");
    // One account's dues (a `Dues`: no acid column) asked for as that one
    // account: every row is its own, so its row can be named.
    let only = match acids {
        Some([one]) if !present.contains(&"acid") => Some(one.clone()),
        _ => None,
    };
    let buckets = options.buckets.len() + 2;
    // Per account, in first-seen order: the buckets, then undated.
    let mut order: Vec<Option<String>> = Vec::new();
    let mut sums: HashMap<Option<String>, Vec<i128>> = HashMap::new();
    let balance = find_column(
        "balance_column",
        options.balance_column.as_deref(),
        &BALANCE_COLUMNS,
        &present,
    );
    let scale = if batches.iter().all(|b| b.num_rows == 0) {
        // Nobody owes anything: no column is needed, and the figures take
        // the balance's scale when the table has one.
        match balance
            .ok()
            .and_then(|b| schema.iter().find(|(n, _)| n == b))
        {
            Some((_, ColumnType::Decimal { scale, .. })) => *scale,
            _ => 0,
        }
    } else {
        let due = find_column(
            "due_date_column",
            options.due_date_column.as_deref(),
            &DUE_DATE_COLUMNS,
            &present,
        )?;
        let balance = balance?;
        let type_of = |name: &str| schema.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
        if !matches!(
            type_of(due),
            Some(ColumnType::Date | ColumnType::Timestamp | ColumnType::Null)
        ) {
            return Err(untyped("due_date_column", due, type_of(due), "a date"));
        }
        let scale = match type_of(balance) {
            Some(ColumnType::Decimal { scale, .. }) => scale,
            Some(ColumnType::Int | ColumnType::Null) => 0,
            other => return Err(untyped("balance_column", balance, other, "a decimal")),
        };
        if acids.is_some() && only.is_none() && !present.contains(&"acid") {
            return Err(Error::invalid(
                "dues",
                format!(
                    "needs an \"acid\" column to age several accounts (one account's dues \
                     age as that one account); it has {}",
                    present.join(", ")
                ),
            ));
        }
        for batch in batches {
            let dues = batch.column(due).map(|c| &c.data);
            let amounts = batch.column(balance).map(|c| &c.data);
            let accounts = batch.column("acid").map(|c| &c.data);
            for i in 0..batch.num_rows {
                let key = if only.is_some() {
                    only.clone()
                } else if by_account {
                    accounts.and_then(|a| match a.cell(i) {
                        Cell::Null => None,
                        Cell::String(s) | Cell::Number(s) | Cell::Json(s) => Some(s),
                        Cell::Int(n) => Some(n.to_string()),
                        Cell::Bool(b) => Some(b.to_string()),
                    })
                } else {
                    None
                };
                // The account gets its row even when this row has no
                // balance (it then counts nowhere).
                let row = sums.entry(key.clone()).or_insert_with(|| {
                    order.push(key);
                    vec![0; buckets + 1]
                });
                let Some(amount) = amounts.and_then(|a| scaled(a, i, scale)) else {
                    continue;
                };
                let slot = match dues.and_then(|d| day_of(d, i)) {
                    None => buckets,
                    // i64: a date from an Arrow column may be any i32.
                    Some(day) => bucket(i64::from(as_of) - i64::from(day), &options.buckets),
                };
                row[slot] = row[slot].checked_add(amount).ok_or_else(overflow)?;
            }
        }
        scale
    };
    if let Some(acids) = acids {
        order = crate::id::each_once(acids.iter().cloned())
            .into_iter()
            .map(Some)
            .collect();
    }

    let mut names = options.bucket_names();
    names.push("undated".to_owned());
    let nothing = vec![0; buckets + 1];
    let mut rows = Vec::with_capacity(order.len());
    for key in order {
        let values = sums.get(&key).unwrap_or(&nothing);
        let mut fields = Vec::with_capacity(names.len() + 2);
        if by_account {
            fields.push(("acid".to_owned(), key.map_or(Cell::Null, Cell::String)));
        }
        let mut total: i128 = 0;
        for (name, value) in names.iter().zip(values) {
            total = total.checked_add(*value).ok_or_else(overflow)?;
            fields.push((name.clone(), decimal(*value, scale)));
        }
        fields.push(("total".to_owned(), decimal(total, scale)));
        rows.push(Row { fields });
    }
    report(rows, by_account, options, scale)
}

/// The report's rows typed: `acid` text, every figure decimal(38, scale).
fn report(
    rows: Vec<Row>,
    by_account: bool,
    options: &AgingOptions,
    scale: u8,
) -> Result<TypedRows> {
    let mut names = options.bucket_names();
    names.push("undated".to_owned());
    let mut declared = crate::decode::DeclaredSchema::new();
    if by_account {
        declared = declared.declare("acid", DeclaredType::String);
    }
    for name in names.iter().chain(std::iter::once(&"total".to_owned())) {
        declared = declared.declare(name.as_str(), DeclaredType::Decimal(Some((38, scale))));
    }
    let typing = DecoderOptions {
        schema: declared,
        ..DecoderOptions::default()
    };
    // The rows hold only figures made here, so the configuration that
    // types them needs no token and redacts nothing.
    let config = Config::builder("http://127.0.0.1/")
        .build()
        .expect("a loopback base URL is valid");
    if rows.is_empty() {
        // No rows to type: the report's columns as declared.
        let figure = ColumnType::Decimal {
            precision: 38,
            scale,
        };
        let schema = by_account
            .then(|| ("acid".to_owned(), ColumnType::String))
            .into_iter()
            .chain(names.iter().map(|n| (n.clone(), figure)))
            .chain(std::iter::once(("total".to_owned(), figure)))
            .collect();
        return Ok(TypedRows {
            schema,
            ..TypedRows::default()
        });
    }
    type_rows(&config, rows, &typing, b"")
}

pub(crate) fn as_of_day(as_of: &str) -> Result<i32> {
    crate::decode::parse_date(as_of.as_bytes()).ok_or_else(|| {
        Error::invalid(
            "as_of",
            format!(
                "must be a calendar date as YYYY-MM-DD, got {:?}",
                as_of.chars().take(40).collect::<String>()
            ),
        )
    })
}

fn check_buckets(bounds: &[u32]) -> Result<()> {
    if bounds.is_empty() {
        return Err(Error::invalid(
            "buckets",
            "must give at least one bound in days (e.g. 30, 60, 90)",
        ));
    }
    if bounds[0] == 0 || bounds.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid(
            "buckets",
            format!("must be positive and strictly increasing, got {bounds:?}"),
        ));
    }
    Ok(())
}

/// The column named `given`, or the first of `candidates` present.
pub(crate) fn find_column<'a>(
    field: &str,
    given: Option<&'a str>,
    candidates: &[&'a str],
    present: &[&'a str],
) -> Result<&'a str> {
    let found = match given {
        Some(name) => present.iter().find(|p| **p == name).copied(),
        None => candidates.iter().find(|c| present.contains(c)).copied(),
    };
    found.ok_or_else(|| {
        let wanted = match given {
            Some(name) => format!("{name:?}"),
            None => format!("one of {}", candidates.join(", ")),
        };
        Error::invalid(
            field,
            format!(
                "needs a column {wanted}; the table has {}",
                if present.is_empty() {
                    "no columns".to_owned()
                } else {
                    present.join(", ")
                }
            ),
        )
    })
}

fn untyped(field: &str, column: &str, found: Option<ColumnType>, wanted: &str) -> Error {
    Error::invalid(
        field,
        format!(
            "column {column:?} is {}, not {wanted}: declare its type when reading the \
             table, or name another column",
            found.map_or("missing".to_owned(), ColumnType::name)
        ),
    )
}

fn overflow() -> Error {
    Error::invalid("balance_column", "the sums exceed 38 digits")
}

/// Row `i`'s value at `scale`, or `None` when it has none.
pub(crate) fn scaled(data: &ColumnData, i: usize, scale: u8) -> Option<i128> {
    if !data.is_valid(i) {
        return None;
    }
    match data {
        ColumnData::Int { values, .. } => {
            Some(i128::from(values[i]) * 10i128.pow(u32::from(scale)))
        }
        ColumnData::Decimal {
            values, scale: s, ..
        } => Some(values[i] * 10i128.pow(u32::from(scale - s))),
        _ => None,
    }
}

/// Row `i`'s day (days since 1970-01-01), or `None` without a date.
pub(crate) fn day_of(data: &ColumnData, i: usize) -> Option<i32> {
    if !data.is_valid(i) {
        return None;
    }
    match data {
        ColumnData::Date { values, .. } => Some(values[i]),
        ColumnData::Timestamp { values, .. } => Some(crate::decode::timestamp_parts(values[i]).0),
        _ => None,
    }
}

/// The bucket of `days` past due: 0 for current, then one per bound, then
/// the last.
fn bucket(days: i64, bounds: &[u32]) -> usize {
    if days <= 0 {
        return 0;
    }
    bounds
        .iter()
        .position(|&b| days <= i64::from(b))
        .map_or(bounds.len() + 1, |i| i + 1)
}

fn decimal(value: i128, scale: u8) -> Cell {
    let mut text = String::new();
    crate::decode::format_decimal(value, scale, &mut text);
    Cell::Number(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batches(data: &str) -> Vec<Batch> {
        let config = Config::builder("https://erp.example.com/").build().unwrap();
        let body = format!(r#"{{"status":"success","data":{data}}}"#);
        let mut decoder = crate::TableDecoder::new(&config, 200, DecoderOptions::default());
        let mut out = decoder.feed(body.as_bytes()).unwrap();
        out.extend(decoder.finish().unwrap().batches);
        out
    }

    fn totals(report: &TypedRows) -> Vec<(Cell, Cell)> {
        report
            .rows
            .iter()
            .map(|r| (r.fields[0].1.clone(), r.fields.last().unwrap().1.clone()))
            .collect()
    }

    #[test]
    fn the_accounts_asked_for_each_get_a_row_in_order() {
        let dues = batches(
            r#"[{"acid":"C001","due_date":"2025-06-01","balance":"10.50"},
                {"acid":"C002","due_date":"2025-06-01","balance":"1.00"}]"#,
        );
        let mut options = AgingOptions::new("2025-06-30");
        options.accounts = Some(["C008", "C001", "C008"].map(String::from).to_vec());
        let report = aging(&dues, &options).unwrap();
        let text = |s: &str| Cell::String(s.to_owned());
        let number = |s: &str| Cell::Number(s.to_owned());
        // Once each, in the order asked; C002 was not asked for.
        assert_eq!(
            totals(&report),
            [
                (text("C008"), number("0.00")),
                (text("C001"), number("10.50"))
            ]
        );
        assert_eq!(
            report.schema[1],
            (
                "current".to_owned(),
                ColumnType::Decimal {
                    precision: 38,
                    scale: 2
                }
            )
        );

        // Nothing owed at all: a row of zeros each, with the acid column.
        let report = aging(&batches("[]"), &options).unwrap();
        assert_eq!(report.schema[0], ("acid".to_owned(), ColumnType::String));
        assert_eq!(
            totals(&report),
            [(text("C008"), number("0")), (text("C001"), number("0"))]
        );

        // No accounts asked for: no rows, but the acid column.
        options.accounts = Some(Vec::new());
        let report = aging(&batches("[]"), &options).unwrap();
        assert!(report.rows.is_empty());
        assert_eq!(report.schema[0].0, "acid");

        // One account's dues (no acid column) asked for as that account:
        // its row is named.
        let one = batches(r#"[{"due_date":"2025-06-01","balance":"1.00"}]"#);
        options.accounts = Some(vec!["C001".to_owned()]);
        let report = aging(&one, &options).unwrap();
        assert_eq!(report.rows.len(), 1);
        assert_eq!(report.rows[0].fields[0], ("acid".to_owned(), text("C001")));
        assert_eq!(totals(&report), [(text("C001"), number("1.00"))]);

        // Without an acid column, two accounts cannot say whose rows are whose.
        options.accounts = Some(vec!["C001".to_owned(), "C002".to_owned()]);
        let err = aging(&one, &options).unwrap_err();
        assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "dues"));
    }

    #[test]
    fn buckets() {
        let b = [30, 60, 90];
        assert_eq!(bucket(-5, &b), 0);
        assert_eq!(bucket(0, &b), 0);
        assert_eq!(bucket(1, &b), 1);
        assert_eq!(bucket(30, &b), 1);
        assert_eq!(bucket(31, &b), 2);
        assert_eq!(bucket(90, &b), 3);
        assert_eq!(bucket(91, &b), 4);
        assert_eq!(
            AgingOptions::new("2025-01-01").bucket_names(),
            ["current", "1-30", "31-60", "61-90", "91+"]
        );
        assert!(check_buckets(&[]).is_err());
        assert!(check_buckets(&[0, 10]).is_err());
        assert!(check_buckets(&[30, 30]).is_err());
        assert!(check_buckets(&[7]).is_ok());
        assert!(AgingOptions::new("2025-12-31").check().is_ok());
        let err = AgingOptions::new("2025-02-30").check().unwrap_err();
        assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "as_of"));
        let mut options = AgingOptions::new("2025-12-31");
        options.buckets = vec![60, 30];
        let err = options.check().unwrap_err();
        assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "buckets"));
        assert!(AgingOptions::new("31/12/2025").check().is_err());
        let mut widest = AgingOptions::new("2025-12-31");
        widest.buckets = vec![u32::MAX];
        assert_eq!(
            widest.bucket_names(),
            ["current", "1-4294967295", "4294967296+"]
        );
    }
}
