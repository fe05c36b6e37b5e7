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

/// So that a slice or `Vec` of `&str` may be lent (`.accounts(&acids)`),
/// not only moved.
impl From<&&str> for Id {
    fn from(s: &&str) -> Self {
        Id((*s).to_owned())
    }
}

impl From<&Id> for Id {
    fn from(id: &Id) -> Self {
        id.clone()
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

#[cfg(test)]
mod tests {
    use super::Id;

    fn ids<A: Into<Id>>(acids: impl IntoIterator<Item = A>) -> Vec<String> {
        acids.into_iter().map(|a| a.into().to_string()).collect()
    }

    #[test]
    fn a_list_of_accounts_may_be_lent_or_moved() {
        let strs = vec!["C001", "007"];
        let strings = vec!["C001".to_owned(), "007".to_owned()];
        let owned: Vec<Id> = strs.iter().map(|s| Id::from(*s)).collect();
        let want = ["C001", "007"];
        assert_eq!(ids(&strs), want);
        assert_eq!(ids(&strs[..]), want);
        assert_eq!(ids(strs), want);
        assert_eq!(ids(&strings), want);
        assert_eq!(ids(&owned), want);
        assert_eq!(ids(owned), want);
        assert_eq!(ids([7_u32, 8]), ["7", "8"]);
    }
}
