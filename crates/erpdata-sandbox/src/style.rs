//! How values are typed in the JSON the sandbox sends, after the ways a
//! PHP service over MySQL ends up sending them.
//!
//! | column type | `native` | `mysqlnd` | `strings` |
//! | --- | --- | --- | --- |
//! | DECIMAL (money) | `1500.00` | `"1500.00"` | `"1500.00"` |
//! | INT, TINYINT | `3` | `3` | `"3"` |
//! | VARCHAR | `"x"` | `"x"` | `"x"` |
//! | DATE | `"2025-04-01"` | `"2025-04-01"` | `"2025-04-01"` |
//! | DATETIME | `"2025-04-01 13:45:00"` | the same | the same |
//! | NULL | `null` | `null` | `null` |

use std::fmt;
use std::str::FromStr;

/// The answer style: how DECIMAL and INT columns are typed in the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Style {
    /// A JSON-native service: money a bare number with two decimals
    /// (`1500.00`), integers bare numbers.
    Native,
    /// PHP's mysqlnd with prepared statements, then `json_encode`: DECIMAL
    /// columns as strings (`"1500.00"`), INT and TINYINT as numbers.
    #[default]
    Mysqlnd,
    /// Old `mysqli_query` code, then `json_encode`: every non-null value a
    /// string (`"3"`, `"1"`, `"1500.00"`).
    Strings,
}

impl Style {
    pub const ALL: [Style; 3] = [Style::Native, Style::Mysqlnd, Style::Strings];

    /// The name used by `--style` and the `/_style/STYLE/` prefix.
    pub fn name(self) -> &'static str {
        match self {
            Style::Native => "native",
            Style::Mysqlnd => "mysqlnd",
            Style::Strings => "strings",
        }
    }

    /// Exact, lower-case names only.
    pub fn parse(name: &str) -> Option<Style> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether DECIMAL values go out as JSON strings.
    pub(crate) fn quotes_money(self) -> bool {
        !matches!(self, Style::Native)
    }

    /// Whether INT values go out as JSON strings.
    pub(crate) fn quotes_ints(self) -> bool {
        matches!(self, Style::Strings)
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Style {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Style::parse(s)
            .ok_or_else(|| format!("unknown style {s:?}: expected native, mysqlnd or strings"))
    }
}

/// A style fixed at compile time, so that the row writers of a streamed
/// table of millions of rows branch on it once per chunk, not per value.
pub(crate) trait Encoding {
    const QUOTE_MONEY: bool;
    const QUOTE_INTS: bool;
}

pub(crate) struct NativeEnc;
pub(crate) struct MysqlndEnc;
pub(crate) struct StringsEnc;

impl Encoding for NativeEnc {
    const QUOTE_MONEY: bool = false;
    const QUOTE_INTS: bool = false;
}

impl Encoding for MysqlndEnc {
    const QUOTE_MONEY: bool = true;
    const QUOTE_INTS: bool = false;
}

impl Encoding for StringsEnc {
    const QUOTE_MONEY: bool = true;
    const QUOTE_INTS: bool = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Style::ALL {
            assert_eq!(Style::parse(s.name()), Some(s));
            assert_eq!(s.to_string().parse::<Style>(), Ok(s));
        }
        assert_eq!(Style::default(), Style::Mysqlnd);
        assert_eq!(Style::parse("Native"), None);
        assert!("x".parse::<Style>().unwrap_err().contains("mysqlnd"));
    }

    #[test]
    fn encodings_agree_with_styles() {
        fn of<E: Encoding>() -> (bool, bool) {
            (E::QUOTE_MONEY, E::QUOTE_INTS)
        }
        assert_eq!(of::<NativeEnc>(), (false, false));
        assert_eq!(of::<MysqlndEnc>(), (true, false));
        assert_eq!(of::<StringsEnc>(), (true, true));
        for (s, quotes_money) in Style::ALL.into_iter().zip([false, true, true]) {
            assert_eq!(s.quotes_money(), quotes_money, "{s}");
        }
    }
}
