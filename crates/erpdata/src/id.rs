use std::collections::HashSet;
use std::fmt;

/// Each account once, in the order first given: the rule for every list of
/// accounts the finance views and plans are asked for (an account given
/// twice gets one row, where it first appears).
pub(crate) fn each_once(acids: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    acids
        .into_iter()
        .filter(|acid| seen.insert(acid.clone()))
        .collect()
}

/// An account, company or year identifier.
///
/// The service takes these as strings or numbers; they are sent exactly as
/// given, so `"007"` keeps its leading zeros and `7` is sent as `7`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Id(String);

impl Id {
    /// The identifier's text as it goes on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id(s.to_owned())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id(s)
    }
}

impl From<&String> for Id {
    fn from(s: &String) -> Self {
        Id(s.clone())
    }
}

macro_rules! id_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Id {
            fn from(n: $t) -> Self {
                Id(n.to_string())
            }
        }
    )*};
}
id_from_int!(i32, i64, u32, u64, usize);
