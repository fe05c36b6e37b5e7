//! Credit status: for each customer, what it owes against its credit
//! limit, what of that is overdue and since when, and how fast it pays.
//! One computation for every language, over typed columns, in exact
//! decimals.
//!
//! From the account table (`acid`, `credit_limit`, and `name` and `kind`
//! when present: only `customer` accounts are kept when there is a
//! `kind`), a dues table (the receivables of many accounts, with `acid`:
//! `dues_table`'s), and optionally each account's average payment days
//! (`avgPayDays`' answers). A row per customer, in the account table's
//! order (or in the order asked, [`credit_status_of`]), zeros where it
//! owes nothing: `acid`, `name`, `credit_limit`, `outstanding` (the sum of
//! its balances), `available` (limit − outstanding, negative when over),
//! `over_limit`, `overdue` (the balances past due on `as_of`, credit notes
//! past due netted, from 0 to `outstanding`), `oldest_overdue_due_date`,
//! `oldest_overdue_days` (of the oldest positive balance past due, when
//! anything is overdue), `avg_pay_days`.

use std::collections::HashMap;

use crate::aging::{day_of, find_column, scaled, BALANCE_COLUMNS, DUE_DATE_COLUMNS};
use crate::ajax::AjaxQuery;
use crate::ajax_answer::{AjaxAnswer, AjaxValue, TypedRows};
use crate::cell::{Cell, Row};
use crate::config::Config;
use crate::decode::{Batch, ColumnData, ColumnType, DeclaredType, DecoderOptions};
use crate::error::{Error, Result};
use crate::query::DuesKind;
use crate::response::type_rows;

/// Credit status of customers as of a day.
///
/// `pay_days` gives an account's average payment days (a decimal or
/// integer [`Cell`], or null) where known.
pub fn credit_status(
    accounts: &[Batch],
    dues: &[Batch],
    pay_days: &[(String, Cell)],
    as_of: &str,
) -> Result<TypedRows> {
    status(accounts, dues, pay_days, as_of, None)
}

/// [`credit_status`] of the customers `acids` only, one row each in the
/// order given (each once), zeros where one owes nothing; an acid that is
/// not a customer of the account table is an error.
pub fn credit_status_of(
    accounts: &[Batch],
    dues: &[Batch],
    pay_days: &[(String, Cell)],
    as_of: &str,
    acids: &[String],
) -> Result<TypedRows> {
    status(accounts, dues, pay_days, as_of, Some(acids))
}

fn status(
    accounts: &[Batch],
    dues: &[Batch],
    pay_days: &[(String, Cell)],
    as_of: &str,
    only: Option<&[String]>,
) -> Result<TypedRows> {
    let as_of_day = crate::aging::as_of_day(as_of)?;
    check_pay_days(pay_days)?;
    let account_schema = crate::response::unify(accounts.to_vec()).0;
    account_columns(&account_schema, "accounts")?;
    let limit_scale = scale_of(&account_schema, "credit_limit", "accounts")?;

    let dues_schema = crate::response::unify(dues.to_vec()).0;
    let dues_names: Vec<&str> = dues_schema.iter().map(|(n, _)| n.as_str()).collect();
    let dues_rows: usize = dues.iter().map(|b| b.num_rows).sum();
    let (due_col, balance_col, balance_scale) = if dues_rows == 0 {
        (None, None, 0)
    } else {
        if !dues_names.contains(&"acid") {
            return Err(Error::invalid(
                "dues",
                format!(
                    "needs an \"acid\" column (a dues table of many accounts); it has {}",
                    dues_names.join(", ")
                ),
            ));
        }
        let due = find_column("dues", None, &DUE_DATE_COLUMNS, &dues_names)?;
        let balance = find_column("dues", None, &BALANCE_COLUMNS, &dues_names)?;
        // As the aging refuses it: a due date typed as text (a service
        // writing "" for none) was no date at all, every balance undated,
        // and every customer's overdue 0 without a word.
        match dues_schema.iter().find(|(n, _)| n == due).map(|(_, t)| *t) {
            Some(ColumnType::Date | ColumnType::Timestamp | ColumnType::Null) => {}
            other => {
                return Err(Error::invalid(
                    "dues",
                    format!(
                        "column {due:?} is {}, not a date: declare it a date when reading \
                         the dues (an empty text then reads as no date)",
                        other.map_or("missing".to_owned(), ColumnType::name)
                    ),
                ))
            }
        }
        (
            Some(due),
            Some(balance),
            scale_of(&dues_schema, balance, "dues")?,
        )
    };
    let scale = limit_scale.max(balance_scale);

    // Per acid: outstanding, the balances past due (net: a credit note past
    // its date lowers them, as it lowers the aging's past-due buckets),
    // the oldest due day of a balance past due.
    let mut owed: HashMap<String, (i128, i128, Option<i32>)> = HashMap::new();
    for batch in dues {
        let (Some(due), Some(balance)) = (due_col, balance_col) else {
            break;
        };
        let acids = batch.column("acid").map(|c| &c.data);
        let dates = batch.column(due).map(|c| &c.data);
        let amounts = batch.column(balance).map(|c| &c.data);
        for i in 0..batch.num_rows {
            let Some(acid) = acids.and_then(|a| text(a, i)) else {
                continue;
            };
            let Some(amount) = amounts.and_then(|a| scaled(a, i, scale)) else {
                continue;
            };
            let entry = owed.entry(acid).or_insert((0, 0, None));
            entry.0 = entry.0.checked_add(amount).ok_or_else(overflow)?;
            if let Some(day) = dates.and_then(|d| day_of(d, i)) {
                if day < as_of_day {
                    entry.1 = entry.1.checked_add(amount).ok_or_else(overflow)?;
                    if amount > 0 {
                        entry.2 = Some(entry.2.map_or(day, |d: i32| d.min(day)));
                    }
                }
            }
        }
    }
    let pay_days: HashMap<&str, &Cell> = pay_days.iter().map(|(a, c)| (a.as_str(), c)).collect();

    let wanted: std::collections::HashSet<&str> = only
        .unwrap_or_default()
        .iter()
        .map(String::as_str)
        .collect();
    let mut rows = Vec::new();
    for batch in accounts {
        let column = |name: &str| batch.column(name).map(|c| &c.data);
        let (acids, limits, names, kinds) = (
            column("acid"),
            column("credit_limit"),
            column("name"),
            column("kind"),
        );
        for i in 0..batch.num_rows {
            if let Some(kind) = kinds.and_then(|k| text(k, i)) {
                if !kind.eq_ignore_ascii_case("customer") {
                    continue;
                }
            }
            let Some(acid) = acids.and_then(|a| text(a, i)) else {
                continue;
            };
            if only.is_some_and(|_| !wanted.contains(acid.as_str())) {
                continue;
            }
            let limit = limits.and_then(|l| scaled(l, i, scale));
            let (outstanding, past_due, oldest) = owed.get(&acid).copied().unwrap_or((0, 0, None));
            // What of the outstanding is past due: never below 0 (credit
            // notes past due and nothing owed) nor above what is owed (a
            // credit note not yet due offsets balances past due), where
            // counting only the positive balances said 600.00 overdue of
            // 400.00 outstanding.
            let overdue = past_due.clamp(0, outstanding.max(0));
            let oldest = oldest.filter(|_| overdue > 0);
            let available = limit.map(|l| l - outstanding);
            let mut fields = vec![("acid".to_owned(), Cell::String(acid.clone()))];
            fields.push((
                "name".to_owned(),
                names
                    .and_then(|n| text(n, i))
                    .map_or(Cell::Null, Cell::String),
            ));
            fields.push(("credit_limit".to_owned(), decimal(limit, scale)));
            fields.push(("outstanding".to_owned(), decimal(Some(outstanding), scale)));
            fields.push(("available".to_owned(), decimal(available, scale)));
            fields.push((
                "over_limit".to_owned(),
                available.map_or(Cell::Null, |a| Cell::Bool(a < 0)),
            ));
            fields.push(("overdue".to_owned(), decimal(Some(overdue), scale)));
            fields.push((
                "oldest_overdue_due_date".to_owned(),
                oldest.map_or(Cell::Null, |d| Cell::String(iso(d))),
            ));
            fields.push((
                "oldest_overdue_days".to_owned(),
                oldest.map_or(Cell::Null, |d| {
                    Cell::Int(i64::from(as_of_day) - i64::from(d))
                }),
            ));
            fields.push((
                "avg_pay_days".to_owned(),
                pay_days
                    .get(acid.as_str())
                    .map_or(Cell::Null, |c| (*c).clone()),
            ));
            rows.push(Row { fields });
        }
    }
    if let Some(only) = only {
        rows = in_order(rows, only)?;
    }

    let figure = DeclaredType::Decimal(Some((38, scale)));
    let mut declared = crate::decode::DeclaredSchema::new()
        .declare("acid", DeclaredType::String)
        .declare("name", DeclaredType::String)
        .declare("over_limit", DeclaredType::Bool)
        .declare("oldest_overdue_due_date", DeclaredType::Date)
        .declare("oldest_overdue_days", DeclaredType::Int)
        .declare("avg_pay_days", DeclaredType::Decimal(None));
    for name in ["credit_limit", "outstanding", "available", "overdue"] {
        declared = declared.declare(name, figure);
    }
    let typing = DecoderOptions {
        schema: declared,
        ..DecoderOptions::default()
    };
    if rows.is_empty() {
        // No customers (or none asked for): still every column, as an
        // aging of no accounts has; typing no rows would give none.
        let money = ColumnType::Decimal {
            precision: 38,
            scale,
        };
        let days = ColumnType::Decimal {
            precision: 38,
            scale: 0,
        };
        let schema = [
            ("acid", ColumnType::String),
            ("name", ColumnType::String),
            ("credit_limit", money),
            ("outstanding", money),
            ("available", money),
            ("over_limit", ColumnType::Bool),
            ("overdue", money),
            ("oldest_overdue_due_date", ColumnType::Date),
            ("oldest_overdue_days", ColumnType::Int),
            ("avg_pay_days", days),
        ];
        return Ok(TypedRows {
            schema: schema.map(|(n, t)| (n.to_owned(), t)).to_vec(),
            ..TypedRows::default()
        });
    }
    type_rows(&loopback(), rows, &typing, b"")
}

/// Refuses an average that is not a number, naming its account, before
/// anything is computed: a text given for one (`"n/a"`) would otherwise
/// reach the typing of the `avg_pay_days` column and fail there with words
/// about a body that was never sent.
fn check_pay_days(pay_days: &[(String, Cell)]) -> Result<()> {
    for (acid, days) in pay_days {
        let shown = match days {
            Cell::Null | Cell::Int(_) => continue,
            Cell::Number(text) if crate::decode::decimal_of_text(text).is_some() => continue,
            Cell::Number(text) | Cell::String(text) | Cell::Json(text) => {
                format!("{:?}", text.chars().take(40).collect::<String>())
            }
            Cell::Bool(b) => b.to_string(),
        };
        return Err(Error::invalid(
            "pay_days",
            format!(
                "{acid:?}: {shown} is not a number (decimal text of at most 38 digits, \
                 as JSON writes numbers)"
            ),
        ));
    }
    Ok(())
}

/// The rows of the customers `only`, in that order, each acid once (a
/// customer listed twice in the account table keeps both rows, in the
/// table's order); an acid without a row is not a customer there.
fn in_order(rows: Vec<Row>, only: &[String]) -> Result<Vec<Row>> {
    let mut by_acid: HashMap<String, Vec<Row>> = HashMap::new();
    for row in rows {
        let acid = match row.fields.first() {
            Some((_, Cell::String(acid))) => acid.clone(),
            _ => continue,
        };
        by_acid.entry(acid).or_default().push(row);
    }
    let mut out = Vec::with_capacity(only.len());
    for acid in crate::id::each_once(only.iter().cloned()) {
        let rows = by_acid.remove(&acid).ok_or_else(|| {
            Error::invalid(
                "accounts",
                format!("{acid:?} is not a customer of the account table"),
            )
        })?;
        out.extend(rows);
    }
    Ok(out)
}

/// The columns a credit status reads of an account table (`field`, the
/// argument that gave it): `acid` and `credit_limit`.
pub(crate) fn account_columns(schema: &crate::Schema, field: &str) -> Result<()> {
    needs_columns(schema, &["acid", "credit_limit"], field)
}

/// Each of `needed` is a column of the account table `schema` (`field`,
/// the argument that gave it), or an error listing the columns it has.
fn needs_columns(schema: &crate::Schema, needed: &[&str], field: &str) -> Result<()> {
    let names: Vec<&str> = schema.iter().map(|(n, _)| n.as_str()).collect();
    for needed in needed {
        if !names.contains(needed) {
            return Err(Error::invalid(
                field,
                format!(
                    "needs a column {needed:?}; the account table has {}",
                    if names.is_empty() {
                        "no columns".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The accounts whose dues of `kind` are asked for: the `acid`s of an
/// account table's rows whose `kind` is `customer` (receivables) or
/// `supplier` (payables), in the table's order, each once; every row's
/// when the table has no `kind` column.
pub fn account_ids(accounts: &[Batch], kind: DuesKind) -> Result<Vec<String>> {
    let schema = crate::response::unify(accounts.to_vec()).0;
    needs_columns(&schema, &["acid"], "accounts")?;
    let wanted = match kind {
        DuesKind::Receipt => "customer",
        DuesKind::Payment => "supplier",
    };
    let mut out = Vec::new();
    for batch in accounts {
        let acids = batch.column("acid").map(|c| &c.data);
        let kinds = batch.column("kind").map(|c| &c.data);
        for i in 0..batch.num_rows {
            if let Some(kinds) = kinds {
                if !text(kinds, i).is_some_and(|k| k.eq_ignore_ascii_case(wanted)) {
                    continue;
                }
            }
            if let Some(acid) = acids.and_then(|a| text(a, i)) {
                out.push(acid);
            }
        }
    }
    Ok(crate::id::each_once(out))
}

/// Where an `avgPayDays` answer gives the average, in this order.
pub const PAY_DAYS_FIELDS: [&str; 4] = ["avg_pay_days", "avgPayDays", "avg_days", "pay_days"];

/// The average payment days an `avgPayDays` answer gives: the value
/// itself when it is one number (or null), else the first of
/// [`PAY_DAYS_FIELDS`] in its object or first row. An answer that holds
/// none is an error naming what it has.
pub fn pay_days(acid: &str, answer: &AjaxAnswer) -> Result<Cell> {
    let fields = match &answer.value {
        AjaxValue::Value { cell, .. } => match cell {
            Cell::Null | Cell::Int(_) | Cell::Number(_) => return Ok(cell.clone()),
            other => {
                return Err(Error::invalid(
                    "pay_days",
                    format!("the avgPayDays answer for {acid:?} is not a number: {other:?}"),
                ))
            }
        },
        AjaxValue::Object { fields, .. } => Some(fields),
        AjaxValue::Rows(typed) => typed.rows.first(),
    };
    let found = fields.and_then(|row| {
        PAY_DAYS_FIELDS
            .iter()
            .find_map(|name| row.fields.iter().find(|(k, _)| k == name))
    });
    match found {
        Some((_, cell @ (Cell::Null | Cell::Int(_) | Cell::Number(_)))) => Ok(cell.clone()),
        Some((name, other)) => Err(Error::invalid(
            "pay_days",
            format!("the avgPayDays answer for {acid:?} has {name:?} = {other:?}, not a number"),
        )),
        None => Err(Error::invalid(
            "pay_days",
            format!(
                "the avgPayDays answer for {acid:?} has no average (looked for {}); it has {}",
                PAY_DAYS_FIELDS.join(", "),
                fields.map_or("no fields".to_owned(), |row| row
                    .fields
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", "))
            ),
        )),
    }
}

/// [`pay_days`] of an `avgPayDays` answer's JSON text (as sent, or its
/// redacted `raw`).
pub fn pay_days_of_text(acid: &str, text: &[u8]) -> Result<Cell> {
    let answer = loopback().parse_ajax(&AjaxQuery::avg_pay_days(acid), 200, text)?;
    pay_days(acid, &answer)
}

/// A configuration for what is typed here only: it holds no token and
/// redacts nothing.
fn loopback() -> Config {
    Config::builder("http://127.0.0.1/")
        .build()
        .expect("a loopback base URL is valid")
}

fn scale_of(schema: &[(String, ColumnType)], column: &str, field: &str) -> Result<u8> {
    match schema.iter().find(|(n, _)| n == column).map(|(_, t)| *t) {
        Some(ColumnType::Decimal { scale, .. }) => Ok(scale),
        Some(ColumnType::Int | ColumnType::Null) | None => Ok(0),
        Some(other) => Err(Error::invalid(
            field,
            format!(
                "column {column:?} is {}, not a number: declare its type",
                other.name()
            ),
        )),
    }
}

fn text(data: &ColumnData, i: usize) -> Option<String> {
    match data.cell(i) {
        Cell::Null => None,
        Cell::String(s) | Cell::Number(s) | Cell::Json(s) => Some(s),
        Cell::Int(n) => Some(n.to_string()),
        Cell::Bool(b) => Some(b.to_string()),
    }
}

fn decimal(value: Option<i128>, scale: u8) -> Cell {
    match value {
        None => Cell::Null,
        Some(v) => {
            let mut text = String::new();
            crate::decode::format_decimal(v, scale, &mut text);
            Cell::Number(text)
        }
    }
}

fn iso(day: i32) -> String {
    let (y, m, d) = crate::decode::civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

fn overflow() -> Error {
    Error::invalid("dues", "the sums exceed 38 digits")
}
