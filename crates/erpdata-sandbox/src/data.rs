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
    pub city: &'static str,
    pub credit_limit: i64,
}

const fn account(
    acid: &'static str,
    name: &'static str,
    kind: Kind,
    city: &'static str,
    credit_limit: i64,
) -> Account {
    Account {
        acid,
        name,
        kind,
        city,
        credit_limit,
    }
}

use Kind::{Customer as C, Supplier as S};

/// Customers first, then suppliers: `DocKind::rules` relies on the order.
/// Names include `&`, `'`, `.` and non-ASCII so clients meet escaping.
pub static ACCOUNTS: [Account; 20] = [
    account("C001", "Acme Traders", C, "Springfield", 50_000_000),
    account("C002", "Smith & Sons", C, "Leeds", 25_000_000),
    account("C003", "Müller GmbH", C, "München", 75_000_000),
    account("C004", "Bluebird Retail", C, "Portland", 10_000_000),
    account("C005", "Northwind Supplies", C, "Seattle", 30_000_000),
    account("C006", "Crescent Foods", C, "Pune", 15_000_000),
    account("C007", "Orion Textiles", C, "Surat", 20_000_000),
    account("C008", "O'Brien Hardware", C, "Dublin", 8_000_000),
    account("C009", "Pioneer Pharma", C, "Hyderabad", 40_000_000),
    account("C010", "Summit Electronics", C, "Austin", 35_000_000),
    account("C011", "Lotus Interiors", C, "Bengaluru", 12_000_000),
    account("C012", "Greenfield Agro", C, "Nashik", 9_000_000),
    account("S001", "Delta Steel Works", S, "Jamshedpur", 100_000_000),
    account("S002", "Prime Packaging Co.", S, "Chennai", 20_000_000),
    account("S003", "Sunrise Chemicals", S, "Vadodara", 30_000_000),
    account("S004", "Zenith Logistics", S, "Rotterdam", 15_000_000),
    account("S005", "Evergreen Paper Mills", S, "Kraków", 10_000_000),
    account("S006", "Atlas Machinery", S, "Stuttgart", 60_000_000),
    account("S007", "Coastal Plastics Ltd.", S, "Mombasa", 12_000_000),
    account("S008", "Kaveri Cotton Mills", S, "Coimbatore", 25_000_000),
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
        };
        ledger.receipts = ledger.settle(DocKind::Invoice);
        ledger.payments = ledger.settle(DocKind::Bill);
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
        Doc {
            number: index + 1,
            day: date::year_start(self.year) + day_of_year,
            party,
            amount,
            tax: (amount * self.tax_basis_points() + 5_000) / 10_000,
            status,
        }
    }

    fn settle(&self, kind: DocKind) -> Vec<Settlement> {
        let r = kind.rules();
        let year_end = date::year_end(self.year);
        let mut out = Vec::new();
        for index in 0..self.settled(kind) {
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
        }
        out.sort_by_key(|s| (s.day, s.doc_number));
        for (i, s) in out.iter_mut().enumerate() {
            s.number = i as u64 + 1;
        }
        out
    }
}

/// Everything the sandbox serves.
#[derive(Debug)]
pub struct Dataset {
    pub ledgers: Vec<Ledger>,
    /// Account names already JSON-escaped and quoted, because a streamed
    /// table writes them millions of times.
    pub quoted_names: Vec<Vec<u8>>,
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
        let quoted_names = ACCOUNTS
            .iter()
            .map(|a| {
                let mut buf = Vec::new();
                json::string(&mut buf, a.name);
                buf
            })
            .collect();
        Dataset {
            ledgers,
            quoted_names,
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
}
