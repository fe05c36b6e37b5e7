//! Outstanding documents of one account, derived from the same books the
//! table fetch serves, so a client can check one against the other.

use crate::data::{DocKind, Ledger, ACCOUNTS};
use crate::json;
use crate::style::Style;

/// `RECEIPT` (what a customer owes us) or `PAYMENT` (what we owe a supplier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuesType {
    Receipt,
    Payment,
}

impl DuesType {
    /// Case-insensitive, as PHP code that upper-cases the parameter would be.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_uppercase().as_str() {
            "RECEIPT" => Some(DuesType::Receipt),
            "PAYMENT" => Some(DuesType::Payment),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DuesType::Receipt => "RECEIPT",
            DuesType::Payment => "PAYMENT",
        }
    }

    fn doc_kind(self) -> DocKind {
        match self {
            DuesType::Receipt => DocKind::Invoice,
            DuesType::Payment => DocKind::Bill,
        }
    }
}

/// The whole dues answer for an account (an index into `ACCOUNTS`).
/// A customer asked for PAYMENT dues, or a supplier for RECEIPT dues, gets
/// no rows: it has no such documents. Amounts are DECIMAL columns, typed
/// as `style` types them.
pub fn dues_body(ledger: &Ledger, party: usize, ty: DuesType, style: Style) -> Vec<u8> {
    let quoted = style.quotes_money();
    let kind = ty.doc_kind();
    let mut paid = vec![0i64; ledger.settled(kind) as usize];
    for s in ledger.settlements(kind) {
        paid[(s.doc_number - 1) as usize] += s.amount;
    }
    let mut buf = b"{\"status\":\"success\",\"acid\":".to_vec();
    json::string(&mut buf, ACCOUNTS[party].acid);
    buf.extend_from_slice(b",\"type\":\"");
    buf.extend_from_slice(ty.as_str().as_bytes());
    buf.extend_from_slice(b"\",\"data\":[");
    let mut first = true;
    if ACCOUNTS[party].kind == kind.party_kind() {
        for (index, paid) in (0u64..).zip(paid) {
            let doc = ledger.doc(kind, index);
            let balance = doc.total() - paid;
            if doc.party != party || balance <= 0 {
                continue;
            }
            if !first {
                buf.push(b',');
            }
            first = false;
            buf.extend_from_slice(b"{\"doc_no\":");
            json::doc_no(&mut buf, kind.prefix(), ledger.year, doc.number);
            buf.extend_from_slice(b",\"date\":");
            json::date(&mut buf, doc.day);
            buf.extend_from_slice(b",\"due_date\":");
            json::date(&mut buf, doc.due_day());
            buf.extend_from_slice(b",\"amount\":");
            json::money_q(&mut buf, quoted, doc.total());
            buf.extend_from_slice(b",\"paid\":");
            json::money_q(&mut buf, quoted, paid);
            buf.extend_from_slice(b",\"balance\":");
            json::money_q(&mut buf, quoted, balance);
            buf.push(b'}');
        }
    }
    buf.extend_from_slice(b"]}");
    buf
}
