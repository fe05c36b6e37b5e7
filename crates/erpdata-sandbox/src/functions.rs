//! The other functions of `ajax.php`, over the current books (company 1,
//! year 2025) and consistent with what `dataapi.php` and `getduesDet`
//! serve from them:
//!
//! | `func` | parameters | answer |
//! | --- | --- | --- |
//! | `getduesSumm` | — | `{"status":"success","data":[{acid, name, documents, amount, paid, balance, oldest_due_date}]}`: a row per customer that owes something, ordered by acid; the sums of exactly the rows `getduesDet` RECEIPT gives it |
//! | `avgPayDays` | `acid` | `{"status":"success","data":{acid, payments, avg_pay_days}}`: the mean of (settlement day − document day) over the account's receipts or payments, to 2 places rounded half away from zero; `null` and 0 when it has none |
//! | `grossProfit` | `sdate`, `edate` | `{"status":"success","data":{sdate, edate, sales, cost_of_sales, gross_profit}}`: invoice and bill `amount` (net of tax) dated in the range, inclusive |
//! | `netProfit` | `sdate`, `edate` | `{"status":"success","data":{sdate, edate, income, expenses, net_profit}}`: invoice and bill `total` (with tax) dated in the range |
//! | `scheduleDet` | `schedule`, `sdate`, `edate` | `{"status":"success","schedule":…,"data":[{acid, name, debit, credit, balance}]}`: every account under `Sundry Debtors` (customers: invoices debit, receipts credit) or `Sundry Creditors` (suppliers: payments debit, bills credit), ordered by acid |
//!
//! Money is typed as the answer style types DECIMAL, counts as it types INT.

use crate::data::{DocKind, Kind, Ledger, ACCOUNTS};
use crate::date;
use crate::json::{self, error_body};
use crate::style::Style;

/// The sandbox's answer to function `func`, or `None` for a function it
/// does not know. `param` gives a parameter (blank counts as missing).
pub fn answer<'a>(
    func: &str,
    ledger: &Ledger,
    style: Style,
    param: impl Fn(&str) -> Option<&'a str>,
) -> Option<Vec<u8>> {
    let require =
        |name: &str| param(name).ok_or_else(|| error_body(&format!("Missing parameter: {name}")));
    let result = match func {
        "getduesSumm" => Ok(dues_summary(ledger, style)),
        "avgPayDays" => require("acid").and_then(|acid| avg_pay_days(ledger, style, acid)),
        "grossProfit" => range(&require).map(|r| profit(ledger, style, r, Profit::Gross)),
        "netProfit" => range(&require).map(|r| profit(ledger, style, r, Profit::Net)),
        // The schedule is checked before the range, as the service does.
        "scheduleDet" => require("schedule")
            .and_then(|s| Ok((s, schedule_kind(s)?, range(&require)?)))
            .map(|(s, kind, r)| schedule(ledger, style, s, kind, r)),
        _ => return None,
    };
    Some(result.unwrap_or_else(|error| error))
}

/// What is still owed on each settled document of `kind`, by index.
fn balances(ledger: &Ledger, kind: DocKind) -> Vec<(u64, i64, i64)> {
    let mut paid = vec![0i64; ledger.settled(kind) as usize];
    for s in ledger.settlements(kind) {
        paid[(s.doc_number - 1) as usize] += s.amount;
    }
    (0u64..)
        .zip(paid)
        .map(|(index, paid)| (index, ledger.doc(kind, index).total(), paid))
        .collect()
}

fn dues_summary(ledger: &Ledger, style: Style) -> Vec<u8> {
    let money = style.quotes_money();
    let ints = style.quotes_ints();
    // Per customer: documents, amount, paid, balance, oldest due day.
    let mut sums = vec![(0i64, 0i64, 0i64, 0i64, i32::MAX); ACCOUNTS.len()];
    for (index, total, paid) in balances(ledger, DocKind::Invoice) {
        let doc = ledger.doc(DocKind::Invoice, index);
        let balance = total - paid;
        if balance <= 0 || ACCOUNTS[doc.party].kind != Kind::Customer {
            continue;
        }
        let s = &mut sums[doc.party];
        s.0 += 1;
        s.1 += total;
        s.2 += paid;
        s.3 += balance;
        s.4 = s.4.min(doc.due_day());
    }
    let mut order: Vec<usize> = (0..ACCOUNTS.len()).filter(|&p| sums[p].0 > 0).collect();
    order.sort_by_key(|&p| ACCOUNTS[p].acid);
    let mut buf = b"{\"status\":\"success\",\"data\":[".to_vec();
    for (i, &p) in order.iter().enumerate() {
        let (documents, amount, paid, balance, oldest) = sums[p];
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"{\"acid\":");
        json::string(&mut buf, ACCOUNTS[p].acid);
        buf.extend_from_slice(b",\"name\":");
        json::string(&mut buf, ACCOUNTS[p].name);
        buf.extend_from_slice(b",\"documents\":");
        json::int_q(&mut buf, ints, documents);
        buf.extend_from_slice(b",\"amount\":");
        json::money_q(&mut buf, money, amount);
        buf.extend_from_slice(b",\"paid\":");
        json::money_q(&mut buf, money, paid);
        buf.extend_from_slice(b",\"balance\":");
        json::money_q(&mut buf, money, balance);
        buf.extend_from_slice(b",\"oldest_due_date\":");
        json::date(&mut buf, oldest);
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}");
    buf
}

fn avg_pay_days(ledger: &Ledger, style: Style, acid: &str) -> Result<Vec<u8>, Vec<u8>> {
    let Some(party) = ACCOUNTS
        .iter()
        .position(|a| a.acid.eq_ignore_ascii_case(acid.trim()))
    else {
        return Err(error_body(&format!("Unknown account: {acid}")));
    };
    let kind = match ACCOUNTS[party].kind {
        Kind::Customer => DocKind::Invoice,
        Kind::Supplier => DocKind::Bill,
    };
    let (mut count, mut days) = (0i64, 0i64);
    for s in ledger.settlements(kind) {
        let doc = ledger.doc(kind, s.doc_number - 1);
        if doc.party == party {
            count += 1;
            days += i64::from(s.day - doc.day);
        }
    }
    let mut buf = b"{\"status\":\"success\",\"data\":{\"acid\":".to_vec();
    json::string(&mut buf, ACCOUNTS[party].acid);
    buf.extend_from_slice(b",\"payments\":");
    json::int_q(&mut buf, style.quotes_ints(), count);
    buf.extend_from_slice(b",\"avg_pay_days\":");
    if count == 0 {
        json::null(&mut buf);
    } else {
        // Hundredths of a day, half away from zero (MySQL's ROUND).
        let hundredths = (days * 200 + count * days.signum()) / (2 * count);
        json::money_q(&mut buf, style.quotes_money(), hundredths);
    }
    buf.extend_from_slice(b"}}");
    Ok(buf)
}

/// `sdate` and `edate` as days, checked as the service checks them.
fn range<'a>(require: &impl Fn(&str) -> Result<&'a str, Vec<u8>>) -> Result<(i32, i32), Vec<u8>> {
    let day = |name: &str| {
        let text = require(name)?;
        parse_date(text).ok_or_else(|| error_body(&format!("Invalid date: {name}={text}")))
    };
    let (start, end) = (day("sdate")?, day("edate")?);
    if start > end {
        return Err(error_body("sdate is after edate"));
    }
    Ok((start, end))
}

/// Days since 1970-01-01 of `YYYY-MM-DD` naming a real day.
fn parse_date(text: &str) -> Option<i32> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| text[r].parse().ok())?
    };
    let (y, m, d) = (num(0..4)? as i32, num(5..7)?, num(8..10)?);
    let days = date::days_from_civil(y, m, d);
    (y > 0 && date::civil_from_days(days) == (y, m, d)).then_some(days)
}

#[derive(Clone, Copy)]
enum Profit {
    /// Amounts net of tax.
    Gross,
    /// Totals with tax.
    Net,
}

/// Σ of `kind`'s documents dated in `range`: (amount, total).
fn sums(ledger: &Ledger, kind: DocKind, (start, end): (i32, i32)) -> (i64, i64) {
    (0..ledger.count(kind))
        .map(|i| ledger.doc(kind, i))
        .filter(|d| (start..=end).contains(&d.day))
        .fold((0, 0), |(a, t), d| (a + d.amount, t + d.total()))
}

fn profit(ledger: &Ledger, style: Style, range: (i32, i32), which: Profit) -> Vec<u8> {
    let (sales_amount, sales_total) = sums(ledger, DocKind::Invoice, range);
    let (bills_amount, bills_total) = sums(ledger, DocKind::Bill, range);
    let (keys, sales, costs) = match which {
        Profit::Gross => (
            ["sales", "cost_of_sales", "gross_profit"],
            sales_amount,
            bills_amount,
        ),
        Profit::Net => (
            ["income", "expenses", "net_profit"],
            sales_total,
            bills_total,
        ),
    };
    let money = style.quotes_money();
    let mut buf = b"{\"status\":\"success\",\"data\":{\"sdate\":".to_vec();
    json::date(&mut buf, range.0);
    buf.extend_from_slice(b",\"edate\":");
    json::date(&mut buf, range.1);
    for (key, cents) in keys.iter().zip([sales, costs, sales - costs]) {
        buf.extend_from_slice(format!(",\"{key}\":").as_bytes());
        json::money_q(&mut buf, money, cents);
    }
    buf.extend_from_slice(b"}}");
    buf
}

/// The kind of account under a schedule, its name matched ignoring case.
fn schedule_kind(name: &str) -> Result<Kind, Vec<u8>> {
    if name.eq_ignore_ascii_case("Sundry Debtors") {
        Ok(Kind::Customer)
    } else if name.eq_ignore_ascii_case("Sundry Creditors") {
        Ok(Kind::Supplier)
    } else {
        Err(error_body(&format!("Unknown schedule: {name}")))
    }
}

/// The schedule's name goes back as given, as the service echoes it.
fn schedule(
    ledger: &Ledger,
    style: Style,
    name: &str,
    kind: Kind,
    (start, end): (i32, i32),
) -> Vec<u8> {
    let docs = match kind {
        Kind::Customer => DocKind::Invoice,
        Kind::Supplier => DocKind::Bill,
    };
    let in_range = |day: i32| (start..=end).contains(&day);
    // Per account: documents (the debtor's debit, the creditor's credit)
    // and settlements (the other side).
    let mut charged = vec![0i64; ACCOUNTS.len()];
    let mut settled = vec![0i64; ACCOUNTS.len()];
    for d in (0..ledger.count(docs)).map(|i| ledger.doc(docs, i)) {
        if in_range(d.day) {
            charged[d.party] += d.total();
        }
    }
    for s in ledger.settlements(docs) {
        if in_range(s.day) {
            settled[s.party] += s.amount;
        }
    }
    let mut order: Vec<usize> = (0..ACCOUNTS.len())
        .filter(|&p| ACCOUNTS[p].kind == kind)
        .collect();
    order.sort_by_key(|&p| ACCOUNTS[p].acid);
    let money = style.quotes_money();
    let mut buf = b"{\"status\":\"success\",\"schedule\":".to_vec();
    json::string(&mut buf, name);
    buf.extend_from_slice(b",\"data\":[");
    for (i, &p) in order.iter().enumerate() {
        let (debit, credit) = match kind {
            Kind::Customer => (charged[p], settled[p]),
            Kind::Supplier => (settled[p], charged[p]),
        };
        let balance = match kind {
            Kind::Customer => debit - credit,
            Kind::Supplier => credit - debit,
        };
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"{\"acid\":");
        json::string(&mut buf, ACCOUNTS[p].acid);
        buf.extend_from_slice(b",\"name\":");
        json::string(&mut buf, ACCOUNTS[p].name);
        for (key, cents) in [("debit", debit), ("credit", credit), ("balance", balance)] {
            buf.extend_from_slice(format!(",\"{key}\":").as_bytes());
            json::money_q(&mut buf, money, cents);
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}");
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        for bad in [
            "2025-02-29",
            "2025-13-01",
            "2025-1-01",
            "0000-00-00",
            "2025-01-0x",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
