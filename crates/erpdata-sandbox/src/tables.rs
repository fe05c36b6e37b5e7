//! The tables of the data fetch and their JSON rows, written straight into
//! byte buffers in chunks so that a table of millions of rows streams.
//!
//! A PHP service answers the fetch with `SELECT *`, so every row carries
//! the table's own `compid` and `yearid` columns (`account`: `compid`
//! only), where its MySQL schema has them: first (after an `id` the
//! sandbox's tables do not have). Clients that add the ledger's ids to
//! rows they copy meet those columns here as they would there.

use std::sync::Arc;

use bytes::Bytes;

use crate::data::{Dataset, DocKind, Ledger, Settlement, ACCOUNTS};
use crate::json;
use crate::style::{Encoding, MysqlndEnc, NativeEnc, StringsEnc, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Account,
    SalesInvoice,
    PurchaseBill,
    Receipt,
    Payment,
}

impl Table {
    pub const ALL: [Table; 5] = [
        Table::Account,
        Table::SalesInvoice,
        Table::PurchaseBill,
        Table::Receipt,
        Table::Payment,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Account => "account",
            Table::SalesInvoice => "sales_invoice",
            Table::PurchaseBill => "purchase_bill",
            Table::Receipt => "receipt",
            Table::Payment => "payment",
        }
    }

    /// Exact match: table names are case-sensitive on a Linux MySQL.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn len(self, ledger: &Ledger) -> u64 {
        match self {
            Table::Account => ACCOUNTS.len() as u64,
            Table::SalesInvoice => ledger.count(DocKind::Invoice),
            Table::PurchaseBill => ledger.count(DocKind::Bill),
            Table::Receipt => ledger.settlements(DocKind::Invoice).len() as u64,
            Table::Payment => ledger.settlements(DocKind::Bill).len() as u64,
        }
    }
}

/// `{"compid":C` and, with `year`, `,"yearid":Y`: a row's start, the
/// ledger's ids as the table's INT columns, typed as the style `E` types
/// INT.
fn row_ids<E: Encoding>(buf: &mut Vec<u8>, ledger: &Ledger, year: bool) {
    buf.extend_from_slice(b"{\"compid\":");
    json::int_q(buf, E::QUOTE_INTS, i64::from(ledger.company));
    if year {
        buf.extend_from_slice(b",\"yearid\":");
        json::int_q(buf, E::QUOTE_INTS, i64::from(ledger.year));
    }
}

/// Row `i` of `table`, typed as the style `E` types values.
pub(crate) fn write_row<E: Encoding>(
    buf: &mut Vec<u8>,
    data: &Dataset,
    ledger: &Ledger,
    table: Table,
    i: u64,
) {
    match table {
        Table::Account => {
            let a = &ACCOUNTS[i as usize];
            // Accounts belong to a company, in every year: no `yearid`.
            row_ids::<E>(buf, ledger, false);
            buf.extend_from_slice(b",\"acid\":");
            json::string(buf, a.acid);
            buf.extend_from_slice(b",\"name\":");
            buf.extend_from_slice(&data.quoted_names[i as usize]);
            buf.extend_from_slice(b",\"kind\":");
            json::string(buf, a.kind.as_str());
            buf.extend_from_slice(b",\"city\":");
            match a.city {
                Some(city) => json::string(buf, city),
                None => json::null(buf),
            }
            buf.extend_from_slice(b",\"credit_limit\":");
            json::money_q(buf, E::QUOTE_MONEY, a.credit_limit);
            buf.extend_from_slice(b",\"credit_days\":");
            json::int_q(buf, E::QUOTE_INTS, i64::from(a.credit_days));
            buf.extend_from_slice(b",\"active\":");
            json::int_q(buf, E::QUOTE_INTS, i64::from(a.active));
            buf.extend_from_slice(b",\"created_at\":");
            json::string(buf, a.created_at);
            buf.push(b'}');
        }
        Table::SalesInvoice => write_doc::<E>(buf, data, ledger, DocKind::Invoice, i),
        Table::PurchaseBill => write_doc::<E>(buf, data, ledger, DocKind::Bill, i),
        Table::Receipt => write_settlement::<E>(buf, data, ledger, DocKind::Invoice, i),
        Table::Payment => write_settlement::<E>(buf, data, ledger, DocKind::Bill, i),
    }
}

fn write_doc<E: Encoding>(
    buf: &mut Vec<u8>,
    data: &Dataset,
    ledger: &Ledger,
    kind: DocKind,
    i: u64,
) {
    let doc = ledger.doc(kind, i);
    let (no, party, party_name) = match kind {
        DocKind::Invoice => (
            &b",\"invoice_no\":"[..],
            &b",\"customer\":"[..],
            &b",\"customer_name\":"[..],
        ),
        DocKind::Bill => (
            &b",\"bill_no\":"[..],
            &b",\"supplier\":"[..],
            &b",\"supplier_name\":"[..],
        ),
    };
    let day = data.days.get(doc.day);
    row_ids::<E>(buf, ledger, true);
    buf.extend_from_slice(no);
    json::doc_no(buf, kind.prefix(), ledger.year, doc.number);
    buf.extend_from_slice(b",\"date\":");
    json::quoted_iso(buf, &day);
    buf.extend_from_slice(b",\"due_date\":");
    json::quoted_iso(buf, &data.days.get(doc.due_day()));
    buf.extend_from_slice(party);
    json::string(buf, ACCOUNTS[doc.party].acid);
    buf.extend_from_slice(party_name);
    buf.extend_from_slice(&data.quoted_names[doc.party]);
    buf.extend_from_slice(b",\"amount\":");
    json::money_q(buf, E::QUOTE_MONEY, doc.amount);
    buf.extend_from_slice(b",\"tax\":");
    json::money_q(buf, E::QUOTE_MONEY, doc.tax);
    buf.extend_from_slice(b",\"total\":");
    json::money_q(buf, E::QUOTE_MONEY, doc.total());
    buf.extend_from_slice(b",\"currency\":");
    json::string(buf, ledger.currency());
    buf.extend_from_slice(b",\"items\":");
    json::int_q(buf, E::QUOTE_INTS, i64::from(doc.items));
    buf.extend_from_slice(b",\"posted_at\":");
    json::datetime(buf, &day, doc.posted_secs);
    buf.extend_from_slice(b",\"cleared_on\":");
    match ledger.cleared_on(kind, &doc) {
        Some(cleared) => json::quoted_iso(buf, &data.days.get(cleared)),
        None => json::zero_date(buf),
    }
    buf.extend_from_slice(b",\"remarks\":");
    match doc.remark {
        Some(r) => buf.extend_from_slice(&data.quoted_remarks[r]),
        None => json::null(buf),
    }
    buf.push(b'}');
}

fn write_settlement<E: Encoding>(
    buf: &mut Vec<u8>,
    data: &Dataset,
    ledger: &Ledger,
    kind: DocKind,
    i: u64,
) {
    let s: &Settlement = &ledger.settlements(kind)[i as usize];
    let (no, party, doc) = match kind {
        DocKind::Invoice => (
            &b",\"receipt_no\":"[..],
            &b",\"customer\":"[..],
            &b",\"invoice_no\":"[..],
        ),
        DocKind::Bill => (
            &b",\"payment_no\":"[..],
            &b",\"supplier\":"[..],
            &b",\"bill_no\":"[..],
        ),
    };
    let day = data.days.get(s.day);
    row_ids::<E>(buf, ledger, true);
    buf.extend_from_slice(no);
    json::doc_no(buf, kind.settlement_prefix(), ledger.year, s.number);
    buf.extend_from_slice(b",\"date\":");
    json::quoted_iso(buf, &day);
    buf.extend_from_slice(party);
    json::string(buf, ACCOUNTS[s.party].acid);
    buf.extend_from_slice(doc);
    json::doc_no(buf, kind.prefix(), ledger.year, s.doc_number);
    buf.extend_from_slice(b",\"amount\":");
    json::money_q(buf, E::QUOTE_MONEY, s.amount);
    buf.extend_from_slice(b",\"mode\":");
    json::string(buf, s.mode);
    buf.extend_from_slice(b",\"posted_at\":");
    json::datetime(buf, &day, s.posted_secs);
    buf.push(b'}');
}

/// Target size of one body chunk.
pub const CHUNK: usize = 64 * 1024;

/// The answer `{"status":"success","data":[...]}` in chunks of about
/// [`CHUNK`] bytes, made on demand.
pub struct Chunks {
    data: Arc<Dataset>,
    ledger: usize,
    table: Table,
    style: Style,
    next: u64,
    len: u64,
    started: bool,
    finished: bool,
}

impl Chunks {
    pub fn new(data: Arc<Dataset>, ledger: usize, table: Table, style: Style) -> Self {
        let len = table.len(&data.ledgers[ledger]);
        Chunks {
            data,
            ledger,
            table,
            style,
            next: 0,
            len,
            started: false,
            finished: false,
        }
    }
}

impl Chunks {
    /// Rows until the chunk is full or the table ends.
    fn fill<E: Encoding>(&mut self, buf: &mut Vec<u8>) {
        let ledger = &self.data.ledgers[self.ledger];
        while self.next < self.len && buf.len() < CHUNK {
            if self.next > 0 {
                buf.push(b',');
            }
            write_row::<E>(buf, &self.data, ledger, self.table, self.next);
            self.next += 1;
        }
    }
}

impl Iterator for Chunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        if self.finished {
            return None;
        }
        let mut buf = Vec::with_capacity(CHUNK + 1024);
        if !self.started {
            self.started = true;
            buf.extend_from_slice(b"{\"status\":\"success\",\"data\":[");
        }
        // The style is fixed here, once a chunk, rather than per value.
        match self.style {
            Style::Native => self.fill::<NativeEnc>(&mut buf),
            Style::Mysqlnd => self.fill::<MysqlndEnc>(&mut buf),
            Style::Strings => self.fill::<StringsEnc>(&mut buf),
        }
        if self.next == self.len {
            buf.extend_from_slice(b"]}");
            self.finished = true;
        }
        Some(Bytes::from(buf))
    }
}
