//! The demo ERP's books: accounts, sales invoices, purchase bills and the
//! receipts and payments that settle them, for companies 1 and 2 and years
//! 2024 and 2025.
//!
//! Invoices and bills are made one at a time from a PRNG keyed by
//! (seed, table, company, year, row), so a table of millions of rows can be
//! streamed without keeping it, and its first rows equal the demo table.

use crate::date;
use crate::json;
use crate::rng::SplitMix64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Customer,
    Supplier,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Customer => "customer",
            Kind::Supplier => "supplier",
        }
    }
}

#[derive(Debug)]
pub struct Account {
    pub acid: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    /// A NULL in a VARCHAR column for some accounts.
    pub city: Option<&'static str>,
    pub credit_limit: i64,
    /// INT.
    pub credit_days: u32,
    /// TINYINT(1): `1` or `0`.
    pub active: bool,
    /// DATETIME, `YYYY-MM-DD HH:MM:SS`.
    pub created_at: &'static str,
}

const fn account(
    acid: &'static str,
    name: &'static str,
    kind: Kind,
    city: Option<&'static str>,
    credit_limit: i64,
    (credit_days, active, created_at): (u32, bool, &'static str),
) -> Account {
    Account {
        acid,
        name,
        kind,
        city,
        credit_limit,
        credit_days,
        active,
        created_at,
    }
}

use Kind::{Customer as C, Supplier as S};

/// Customers first, then suppliers: `DocKind::rules` relies on the order.
/// Names include `&`, `'`, `.` and non-ASCII so clients meet escaping;
/// `C010` and `S007` have no city (NULL); `C004`, `C011` and `S006` are
/// inactive.
#[rustfmt::skip]
pub static ACCOUNTS: [Account; 20] = [
    account("C001", "Acme Traders", C, Some("Springfield"), 50_000_000, (30, true, "2019-04-01 10:15:00")),
    account("C002", "Smith & Sons", C, Some("Leeds"), 25_000_000, (45, true, "2019-06-12 14:02:31")),
    account("C003", "Müller GmbH", C, Some("München"), 75_000_000, (60, true, "2020-01-20 09:30:12")),
    account("C004", "Bluebird Retail", C, Some("Portland"), 10_000_000, (30, false, "2020-03-05 16:45:09")),
    account("C005", "Northwind Supplies", C, Some("Seattle"), 30_000_000, (45, true, "2020-07-18 11:20:45")),
    account("C006", "Crescent Foods", C, Some("Pune"), 15_000_000, (30, true, "2021-02-01 08:55:00")),
    account("C007", "Orion Textiles", C, Some("Surat"), 20_000_000, (60, true, "2021-05-23 13:10:27")),
    account("C008", "O'Brien Hardware", C, Some("Dublin"), 8_000_000, (30, true, "2021-09-30 17:42:03")),
    account("C009", "Pioneer Pharma", C, Some("Hyderabad"), 40_000_000, (45, true, "2022-01-11 10:00:00")),
    account("C010", "Summit Electronics", C, None, 35_000_000, (60, true, "2022-04-04 12:34:56")),
    account("C011", "Lotus Interiors", C, Some("Bengaluru"), 12_000_000, (30, false, "2022-08-16 15:05:41")),
    account("C012", "Greenfield Agro", C, Some("Nashik"), 9_000_000, (30, true, "2023-02-27 09:48:19")),
    account("S001", "Delta Steel Works", S, Some("Jamshedpur"), 100_000_000, (60, true, "2019-03-14 11:11:11")),
    account("S002", "Prime Packaging Co.", S, Some("Chennai"), 20_000_000, (45, true, "2019-10-02 15:30:00")),
    account("S003", "Sunrise Chemicals", S, Some("Vadodara"), 30_000_000, (30, true, "2020-05-19 10:22:48")),
    account("S004", "Zenith Logistics", S, Some("Rotterdam"), 15_000_000, (45, true, "2020-11-23 14:07:36")),
    account("S005", "Evergreen Paper Mills", S, Some("Kraków"), 10_000_000, (60, true, "2021-06-08 09:03:27")),
    account("S006", "Atlas Machinery", S, Some("Stuttgart"), 60_000_000, (45, false, "2021-12-13 16:18:54")),
    account("S007", "Coastal Plastics Ltd.", S, None, 12_000_000, (30, true, "2022-07-21 08:40:15")),
    account("S008", "Kaveri Cotton Mills", S, Some("Coimbatore"), 25_000_000, (30, true, "2023-01-09 13:29:02")),
];

/// The `remarks` of about one document in ten (the rest are NULL), with
/// `/`, quotes and non-ASCII (one outside the BMP) so that clients meet
/// `json_encode`'s escapes there too.
pub static REMARKS: [&str; 8] = [
    "Net 30 / Müller",
    "Urgent: deliver before Friday",
    "Ref. PO 4411/B",
    "Déjà facturé",
    "Rabatt 2 % – Skonto",
    "Per \"Q3\" deal",
    "Thanks! 👍",
    "Partial shipment",
];

const CUSTOMERS: usize = 12;
const SUPPLIERS: usize = 8;

pub const COMPANIES: [u32; 2] = [1, 2];
pub const YEARS: [i32; 2] = [2024, 2025];

/// The ERP's "current" company and year: the dues query has no such
/// parameters, so it answers from these books.
pub const CURRENT: (u32, i32) = (1, 2025);

/// Demo sizes (sales invoices, purchase bills) per company and year.
pub fn demo_size(company: u32, year: i32) -> (u64, u64) {
    match (company, year) {
        (1, 2025) => (40, 24),
        (1, 2024) => (34, 20),
        (2, 2025) => (28, 16),
        _ => (22, 14),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    Invoice,
    Bill,
}

/// How one kind of document is drawn. The anchor party (C001/S001) gets
/// every `anchor_every`-th document with a fixed unpaid/partly paid/paid
/// cycle, and the last party (C012/S008) always pays in full, so that
/// whatever the seed, the anchor has several dues and one account has none.
struct Rules {
    tag: u64,
    first_party: usize,
    parties: usize,
    anchor_every: u64,
    zero_at: Option<u64>,
    big_at: u64,
    modes: &'static [&'static str],
}

impl DocKind {
    fn rules(self) -> Rules {
        match self {
            DocKind::Invoice => Rules {
                tag: 0x1001,
                first_party: 0,
                parties: CUSTOMERS,
                anchor_every: 5,
                zero_at: Some(7),
                big_at: 5,
                modes: &["bank", "cheque", "cash"],
            },
            DocKind::Bill => Rules {
                tag: 0x2001,
                first_party: CUSTOMERS,
                parties: SUPPLIERS,
                anchor_every: 4,
                zero_at: None,
                big_at: 4,
                modes: &["bank", "cheque"],
            },
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            DocKind::Invoice => "INV",
            DocKind::Bill => "BILL",
        }
    }

    pub fn settlement_prefix(self) -> &'static str {
        match self {
            DocKind::Invoice => "RCP",
            DocKind::Bill => "PAY",
        }
    }

    /// The account kind that owes (invoices) or is owed (bills).
    pub fn party_kind(self) -> Kind {
        match self {
            DocKind::Invoice => Kind::Customer,
            DocKind::Bill => Kind::Supplier,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Paid,
    Partial,
    Unpaid,
}

/// A sales invoice or a purchase bill.
#[derive(Debug, Clone)]
pub struct Doc {
    pub number: u64,
    pub day: i32,
    pub party: usize,
    pub amount: i64,
    pub tax: i64,
    status: Status,
    /// Line count, 1..=20.
    pub items: u32,
    /// `posted_at`'s second of the day on `day` (office hours).
    pub posted_secs: u32,
    /// An index into [`REMARKS`], on about one document in ten.
    pub remark: Option<usize>,
    /// Days from the date to `cleared_on` for a paid document beyond the
    /// ones settlements refer to (see [`Ledger::cleared_on`]).
    clear_lag: i32,
}

impl Doc {
    pub fn total(&self) -> i64 {
        self.amount + self.tax
    }

    pub fn due_day(&self) -> i32 {
        self.day + 30
    }
}

/// A receipt (settles an invoice) or a payment (settles a bill).
#[derive(Debug, Clone)]
pub struct Settlement {
    pub number: u64,
    pub day: i32,
    pub party: usize,
    pub doc_number: u64,
    pub amount: i64,
    pub mode: &'static str,
    /// `posted_at`'s second of the day on `day`.
    pub posted_secs: u32,
}

/// One company's books for one year.
#[derive(Debug)]
pub struct Ledger {
    pub company: u32,
    pub year: i32,
    seed: u64,
    invoices: u64,
    bills: u64,
    settled_invoices: u64,
    receipts: Vec<Settlement>,
    payments: Vec<Settlement>,
    /// Per settled invoice and bill: the day of its last settlement if
    /// that paid it in full.
    invoices_cleared: Vec<Option<i32>>,
    bills_cleared: Vec<Option<i32>>,
}

impl Ledger {
    pub fn new(seed: u64, company: u32, year: i32, invoice_rows: Option<u64>) -> Self {
        let (demo_invoices, bills) = demo_size(company, year);
        let invoices = invoice_rows.unwrap_or(demo_invoices);
        // Only the first demo-size invoices are ever paid: with `--rows` in
        // the millions the receipt table and the dues stay small, and they
        // agree with the big table, whose first rows are the demo rows.
        let settled_invoices = invoices.min(demo_invoices);
        let mut ledger = Ledger {
            company,
            year,
            seed,
            invoices,
            bills,
            settled_invoices,
            receipts: Vec::new(),
            payments: Vec::new(),
            invoices_cleared: Vec::new(),
            bills_cleared: Vec::new(),
        };
        (ledger.receipts, ledger.invoices_cleared) = ledger.settle(DocKind::Invoice);
        (ledger.payments, ledger.bills_cleared) = ledger.settle(DocKind::Bill);
        ledger
    }

    pub fn count(&self, kind: DocKind) -> u64 {
        match kind {
            DocKind::Invoice => self.invoices,
            DocKind::Bill => self.bills,
        }
    }

    /// How many leading documents receipts or payments may refer to.
    pub fn settled(&self, kind: DocKind) -> u64 {
        match kind {
            DocKind::Invoice => self.settled_invoices,
            DocKind::Bill => self.bills,
        }
    }

    pub fn settlements(&self, kind: DocKind) -> &[Settlement] {
        match kind {
            DocKind::Invoice => &self.receipts,
            DocKind::Bill => &self.payments,
        }
    }

    /// The `cleared_on` of a document: the day it was settled in full, or
    /// `None` (MySQL's zero date) while something is owed. A document with
    /// a total of zero cleared on its own date. A paid document beyond the
    /// ones settlements refer to (a `--rows` table) cleared a few days
    /// after its date.
    pub fn cleared_on(&self, kind: DocKind, doc: &Doc) -> Option<i32> {
        let cleared = match kind {
            DocKind::Invoice => &self.invoices_cleared,
            DocKind::Bill => &self.bills_cleared,
        };
        if doc.total() == 0 {
            Some(doc.day)
        } else if let Some(&day) = cleared.get((doc.number - 1) as usize) {
            day
        } else {
            (doc.status == Status::Paid).then_some(doc.day + doc.clear_lag)
        }
    }

    pub fn currency(&self) -> &'static str {
        if self.company == 1 {
            "USD"
        } else {
            "EUR"
        }
    }

    fn tax_basis_points(&self) -> i64 {
        if self.company == 1 {
            1_000
        } else {
            1_900
        }
    }

    /// The document at `index` (0-based; its number is `index + 1`).
    pub fn doc(&self, kind: DocKind, index: u64) -> Doc {
        let r = kind.rules();
        let mut rng = SplitMix64::keyed(&[
            self.seed,
            r.tag,
            u64::from(self.company),
            self.year as u64,
            index,
        ]);
        // Nine days apart plus jitter keeps demo-size tables in date order
        // within the year; big tables wrap around the year again.
        let day_of_year = (index.wrapping_mul(9).wrapping_add(rng.below(5)) % 365) as i32;
        let anchored = index.is_multiple_of(r.anchor_every);
        let party = if anchored {
            r.first_party
        } else {
            r.first_party + 1 + rng.below(r.parties as u64 - 1) as usize
        };
        let amount = if Some(index) == r.zero_at {
            0
        } else if index == r.big_at {
            rng.range(100_000_000, 499_999_999)
        } else {
            let band = rng.below(100);
            let cents = if band < 55 {
                rng.range(10_000, 999_999)
            } else if band < 88 {
                rng.range(1_000_000, 9_999_999)
            } else {
                rng.range(10_000_000, 99_999_999)
            };
            if rng.chance(25) {
                cents / 50 * 50
            } else {
                cents
            }
        };
        let status = if anchored {
            [Status::Unpaid, Status::Partial, Status::Paid][(index / r.anchor_every % 3) as usize]
        } else if party == r.first_party + r.parties - 1 {
            Status::Paid
        } else {
            match rng.below(100) {
                0..=44 => Status::Paid,
                45..=64 => Status::Partial,
                _ => Status::Unpaid,
            }
        };
        // Drawn after everything older, so that those keep their values.
        let items = rng.range(1, 20) as u32;
        let posted_secs = (8 * 3600 + rng.below(12 * 3600)) as u32;
        let pick = rng.below(10 * REMARKS.len() as u64) as usize;
        let clear_lag = rng.range(3, 40) as i32;
        Doc {
            number: index + 1,
            day: date::year_start(self.year) + day_of_year,
            party,
            amount,
            tax: (amount * self.tax_basis_points() + 5_000) / 10_000,
            status,
            items,
            posted_secs,
            // The third document of every table has the first remark, so
            // that `\/` and `\u00fc` show in the demo tables whatever the seed.
            remark: if index == 2 {
                Some(0)
            } else {
                (pick < REMARKS.len()).then_some(pick)
            },
            clear_lag,
        }
    }

    /// The settlements of the first `settled(kind)` documents, in date
    /// order, and per document the day of its last one if it paid in full.
    fn settle(&self, kind: DocKind) -> (Vec<Settlement>, Vec<Option<i32>>) {
        let r = kind.rules();
        let year_end = date::year_end(self.year);
        let mut out = Vec::new();
        let mut cleared = Vec::new();
        for index in 0..self.settled(kind) {
            let before = out.len();
            let doc = self.doc(kind, index);
            let total = doc.total();
            let mut rng = SplitMix64::keyed(&[
                self.seed,
                r.tag + 1,
                u64::from(self.company),
                self.year as u64,
                index,
            ]);
            let mut pay = |rng: &mut SplitMix64, amount: i64, day: i32| {
                out.push(Settlement {
                    number: 0,
                    day: day.min(year_end),
                    party: doc.party,
                    doc_number: doc.number,
                    amount,
                    mode: r.modes[rng.below(r.modes.len() as u64) as usize],
                    posted_secs: 0,
                })
            };
            match doc.status {
                Status::Paid if total >= 2 && rng.chance(30) => {
                    let first = (total * rng.range(30, 70) / 100).clamp(1, total - 1);
                    let day = doc.day + rng.range(3, 25) as i32;
                    pay(&mut rng, first, day);
                    let later = day + rng.range(5, 20) as i32;
                    pay(&mut rng, total - first, later);
                }
                Status::Paid if total > 0 => {
                    let day = doc.day + rng.range(3, 40) as i32;
                    pay(&mut rng, total, day);
                }
                Status::Partial if total >= 2 => {
                    // Round part-payments to whole currency units, as people pay.
                    let part = (total * rng.range(20, 80) / 100 / 100 * 100).clamp(1, total - 1);
                    let day = doc.day + rng.range(3, 40) as i32;
                    pay(&mut rng, part, day);
                }
                _ => {}
            }
            let last = out[before..].iter().map(|s| s.day).max();
            cleared.push(last.filter(|_| doc.status == Status::Paid));
        }
        out.sort_by_key(|s| (s.day, s.doc_number));
        for (i, s) in out.iter_mut().enumerate() {
            s.number = i as u64 + 1;
            // A stream of its own, so that the draws above keep their values.
            let mut rng = SplitMix64::keyed(&[
                self.seed,
                r.tag + 2,
                u64::from(self.company),
                self.year as u64,
                s.number,
            ]);
            s.posted_secs = (8 * 3600 + rng.below(12 * 3600)) as u32;
        }
        (out, cleared)
    }
}

/// Everything the sandbox serves.
#[derive(Debug)]
pub struct Dataset {
    pub ledgers: Vec<Ledger>,
    /// Account names already JSON-escaped and quoted, because a streamed
    /// table writes them millions of times.
    pub quoted_names: Vec<Vec<u8>>,
    /// [`REMARKS`], likewise.
    pub quoted_remarks: Vec<Vec<u8>>,
    /// The dates of the books and a margin after them (due dates,
    /// settlements), as text.
    pub days: date::DayTexts,
}

impl Dataset {
    /// `rows` replaces the size of company 1's 2025 sales invoice table.
    pub fn new(seed: u64, rows: Option<u64>) -> Self {
        let mut ledgers = Vec::new();
        for company in COMPANIES {
            for year in YEARS {
                let rows = rows.filter(|_| (company, year) == CURRENT);
                ledgers.push(Ledger::new(seed, company, year, rows));
            }
        }
        let quoted = |s: &str| {
            let mut buf = Vec::new();
            json::string(&mut buf, s);
            buf
        };
        Dataset {
            ledgers,
            quoted_names: ACCOUNTS.iter().map(|a| quoted(a.name)).collect(),
            quoted_remarks: REMARKS.iter().map(|r| quoted(r)).collect(),
            days: date::DayTexts::new(
                date::year_start(YEARS[0]),
                date::year_end(YEARS[YEARS.len() - 1]) + 120,
            ),
        }
    }

    /// The ledger's index for a company and year given as numbers.
    pub fn find(&self, company: i64, year: i64) -> Option<usize> {
        self.ledgers
            .iter()
            .position(|l| i64::from(l.company) == company && i64::from(l.year) == year)
    }

    pub fn current(&self) -> &Ledger {
        let (company, year) = CURRENT;
        let i = self
            .find(i64::from(company), i64::from(year))
            .expect("current books exist");
        &self.ledgers[i]
    }

    /// Account ids compare ignoring case, as a MySQL column with the usual
    /// case-insensitive collation would.
    pub fn account(&self, acid: &str) -> Option<usize> {
        ACCOUNTS
            .iter()
            .position(|a| a.acid.eq_ignore_ascii_case(acid.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settlements_never_exceed_documents() {
        let data = Dataset::new(42, None);
        for ledger in &data.ledgers {
            for kind in [DocKind::Invoice, DocKind::Bill] {
                let mut paid = vec![0; ledger.settled(kind) as usize];
                for s in ledger.settlements(kind) {
                    assert!(s.amount > 0);
                    let doc = ledger.doc(kind, s.doc_number - 1);
                    assert_eq!(s.party, doc.party);
                    assert!(s.day >= doc.day);
                    paid[(s.doc_number - 1) as usize] += s.amount;
                }
                for (i, p) in paid.iter().enumerate() {
                    assert!(*p <= ledger.doc(kind, i as u64).total());
                }
            }
        }
    }

    #[test]
    fn variety_in_current_books() {
        let data = Dataset::new(42, None);
        let l = data.current();
        let invoices: Vec<_> = (0..l.count(DocKind::Invoice))
            .map(|i| l.doc(DocKind::Invoice, i))
            .collect();
        assert!(invoices.iter().any(|d| d.amount == 0));
        assert!(invoices.iter().any(|d| d.amount > 100_000_000));
        assert!(invoices.windows(2).all(|w| w[0].day < w[1].day));
    }

    #[test]
    fn rows_keep_the_demo_prefix() {
        let small = Dataset::new(7, None);
        let big = Dataset::new(7, Some(1000));
        let (s, b) = (small.current(), big.current());
        assert_eq!(b.count(DocKind::Invoice), 1000);
        for i in 0..s.count(DocKind::Invoice) {
            assert_eq!(
                format!("{:?}", s.doc(DocKind::Invoice, i)),
                format!("{:?}", b.doc(DocKind::Invoice, i))
            );
        }
        assert_eq!(
            format!("{:?}", s.settlements(DocKind::Invoice)),
            format!("{:?}", b.settlements(DocKind::Invoice))
        );
    }

    #[test]
    fn cleared_on_is_the_day_of_full_settlement() {
        let data = Dataset::new(42, None);
        for ledger in &data.ledgers {
            for kind in [DocKind::Invoice, DocKind::Bill] {
                let mut zero = 0;
                for index in 0..ledger.count(kind) {
                    let doc = ledger.doc(kind, index);
                    let mine: Vec<_> = ledger
                        .settlements(kind)
                        .iter()
                        .filter(|s| s.doc_number == doc.number)
                        .collect();
                    let paid: i64 = mine.iter().map(|s| s.amount).sum();
                    let want = if doc.total() == 0 {
                        Some(doc.day)
                    } else if paid == doc.total() {
                        mine.iter().map(|s| s.day).max()
                    } else {
                        None
                    };
                    assert_eq!(ledger.cleared_on(kind, &doc), want, "{doc:?}");
                    zero += usize::from(want.is_none());
                }
                let n = ledger.count(kind) as usize;
                assert!(zero * 5 >= n && zero * 5 <= n * 4, "{zero} of {n}");
            }
        }
    }

    #[test]
    fn new_columns_stay_in_range() {
        let data = Dataset::new(42, Some(20_000));
        let l = data.current();
        let (mut remarks, mut zero) = (0, 0);
        for index in 0..l.count(DocKind::Invoice) {
            let doc = l.doc(DocKind::Invoice, index);
            assert!((1..=20).contains(&doc.items));
            assert!((8 * 3600..20 * 3600).contains(&doc.posted_secs));
            remarks += usize::from(doc.remark.is_some());
            match l.cleared_on(DocKind::Invoice, &doc) {
                Some(day) => assert!(day >= doc.day),
                None => zero += 1,
            }
        }
        assert_eq!(l.doc(DocKind::Invoice, 2).remark, Some(0));
        assert!((1_600..2_400).contains(&remarks), "{remarks}");
        assert!((6_000..14_000).contains(&zero), "{zero}");
        for s in l.settlements(DocKind::Invoice) {
            assert!((8 * 3600..20 * 3600).contains(&s.posted_secs));
        }
        assert!(ACCOUNTS.iter().any(|a| a.city.is_none()));
        assert!(ACCOUNTS.iter().any(|a| !a.active));
        for a in &ACCOUNTS {
            assert!([30, 45, 60].contains(&a.credit_days));
            assert_eq!(a.created_at.len(), 19);
        }
    }
}
