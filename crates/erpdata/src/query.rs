use std::fmt;
use std::str::FromStr;

use crate::ajax::AjaxOptions;
use crate::error::Error;
use crate::id::Id;

/// Which side of the ledger a dues query asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DuesKind {
    /// Outstanding receivables (`type=RECEIPT`): what a customer owes.
    Receipt,
    /// Outstanding payables (`type=PAYMENT`): what is owed to a supplier.
    Payment,
}

impl DuesKind {
    /// The wire value of `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            DuesKind::Receipt => "RECEIPT",
            DuesKind::Payment => "PAYMENT",
        }
    }
}

impl fmt::Display for DuesKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DuesKind {
    type Err = Error;

    /// Accepts `RECEIPT` and `PAYMENT` in any case; nothing else, because a
    /// guessed synonym could silently ask for the wrong side of the ledger.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s.eq_ignore_ascii_case("RECEIPT") {
            Ok(DuesKind::Receipt)
        } else if s.eq_ignore_ascii_case("PAYMENT") {
            Ok(DuesKind::Payment)
        } else {
            Err(Error::invalid(
                "kind",
                format!(
                    "must be RECEIPT or PAYMENT, got {:?}",
                    s.chars().take(40).collect::<String>()
                ),
            ))
        }
    }
}

/// One dues query: an account and the kind of dues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuesQuery {
    /// The account id (`acid`), sent as given.
    pub acid: Id,
    /// Receivables or payables.
    pub kind: DuesKind,
    /// Token and method: by default no token, `GET`.
    pub options: AjaxOptions,
}

impl DuesQuery {
    /// A query for `acid`'s dues of `kind`.
    pub fn new(acid: impl Into<Id>, kind: DuesKind) -> Self {
        DuesQuery {
            acid: acid.into(),
            kind,
            options: AjaxOptions::default(),
        }
    }
}

/// How the table fetch is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Parameters in a form body: the documented form, and the default,
    /// because it keeps the token out of URLs (and so out of access logs).
    #[default]
    Post,
    /// Parameters, token included, in the query string. Only on request.
    Get,
}

impl Method {
    /// `POST` or `GET`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Post => "POST",
            Method::Get => "GET",
        }
    }
}

impl FromStr for Method {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        if s.eq_ignore_ascii_case("POST") {
            Ok(Method::Post)
        } else if s.eq_ignore_ascii_case("GET") {
            Ok(Method::Get)
        } else {
            Err(Error::invalid(
                "method",
                format!(
                    "must be POST or GET, got {:?}",
                    s.chars().take(40).collect::<String>()
                ),
            ))
        }
    }
}

/// One table fetch. Company and year fall back to the config's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableQuery {
    /// The ERP table's name.
    pub table: String,
    /// The company id (`compid`), or `None` for the config's default.
    pub company_id: Option<Id>,
    /// The financial year id (`yearid`), or `None` for the config's default.
    pub year_id: Option<Id>,
    /// POST (default) or GET.
    pub method: Method,
}

impl TableQuery {
    /// A POST fetch of `table` with the config's company and year.
    pub fn new(table: impl Into<String>) -> Self {
        TableQuery {
            table: table.into(),
            company_id: None,
            year_id: None,
            method: Method::Post,
        }
    }

    /// Sets the company id.
    pub fn company_id(mut self, id: impl Into<Id>) -> Self {
        self.company_id = Some(id.into());
        self
    }

    /// Sets the year id.
    pub fn year_id(mut self, id: impl Into<Id>) -> Self {
        self.year_id = Some(id.into());
        self
    }

    /// Sets the method.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }
}
