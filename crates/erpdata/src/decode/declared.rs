//! Column types a caller declares, in place of the ones the values would
//! give: the answer of a PHP service has no schema, so a caller who knows
//! the table's SQL types can say them.

use std::fmt;

use crate::error::Error;

/// A declared column type. Its name, as every binding accepts it
/// ([`DeclaredType::parse`]): `string`, `int` (or `int64`), `decimal` or
/// `decimal(P,S)`, `date`, `timestamp`, `bool`, `json`.
///
/// What each takes, beyond values of its own kind (anything else is a
/// `Decode` error naming the column, the row and the value's kind):
///
/// | declared | also takes |
/// |---|---|
/// | `string` | numbers and booleans as their JSON text; objects and arrays as their JSON text |
/// | `int` | canonical integer strings (`"3"`) |
/// | `decimal` | canonical decimal or integer strings (`"1500.00"`); with `(P,S)` at most `S` digits after the point and `P` in all |
/// | `date` | MySQL's zero date (`"0000-00-00"`), as null |
/// | `timestamp` | `YYYY-MM-DD` dates (as midnight); zero date and zero datetime, as null |
/// | `bool` | `0` and `1`, as numbers or strings, and the strings `"true"` and `"false"` |
/// | `json` | anything, as its JSON text |
///
/// For every type but `string` and `json`, an empty string is null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclaredType {
    /// Text: every value as sent.
    String,
    /// 64-bit integers.
    Int,
    /// Exact decimals: `Some((precision, scale))`, or `None` for the scale
    /// the values need.
    Decimal(Option<(u8, u8)>),
    /// Calendar dates.
    Date,
    /// Timestamps without a time zone, to the microsecond.
    Timestamp,
    /// Booleans.
    Bool,
    /// Every value as its JSON text.
    Json,
}

impl DeclaredType {
    /// The type a name gives (case and surrounding spaces ignored). Also
    /// accepted: `str`, `utf8`, `text`; `int64`, `integer`, `bigint`;
    /// `numeric`; `date32`; `datetime`, `timestamp[us]`; `boolean`.
    pub fn parse(name: &str) -> Result<DeclaredType, String> {
        let lower = name.trim().to_ascii_lowercase();
        let t = match lower.as_str() {
            "string" | "str" | "utf8" | "text" => DeclaredType::String,
            "int" | "int64" | "integer" | "bigint" => DeclaredType::Int,
            "decimal" | "numeric" => DeclaredType::Decimal(None),
            "date" | "date32" => DeclaredType::Date,
            "timestamp" | "datetime" | "timestamp[us]" => DeclaredType::Timestamp,
            "bool" | "boolean" => DeclaredType::Bool,
            "json" => DeclaredType::Json,
            other => return decimal_with_digits(other, name.trim()),
        };
        Ok(t)
    }
}

/// `text` (lower case) as `decimal(P,S)`; an error repeats the name `given`
/// as it was given: lowered, a token pasted there escaped its redaction.
fn decimal_with_digits(text: &str, given: &str) -> Result<DeclaredType, String> {
    let unknown = || {
        format!(
            "unknown type {given:?}: expected string, int, decimal, decimal(P,S), date, \
             timestamp, bool or json"
        )
    };
    let inner = text
        .strip_prefix("decimal")
        .or_else(|| text.strip_prefix("numeric"))
        .map(str::trim_start)
        .and_then(|t| t.strip_prefix('('))
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(unknown)?;
    let mut parts = inner.split(',').map(str::trim);
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u8>().ok());
    let precision = number(parts.next()).ok_or_else(unknown)?;
    let scale = match parts.next() {
        Some(s) => number(Some(s)).ok_or_else(unknown)?,
        None => 0,
    };
    if parts.next().is_some() {
        return Err(unknown());
    }
    if !(1..=38).contains(&precision) || scale > precision {
        return Err(format!(
            "{text:?}: a decimal has a precision of 1 to 38 and a scale of at most its precision"
        ));
    }
    Ok(DeclaredType::Decimal(Some((precision, scale))))
}

impl fmt::Display for DeclaredType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclaredType::String => f.write_str("string"),
            DeclaredType::Int => f.write_str("int"),
            DeclaredType::Decimal(None) => f.write_str("decimal"),
            DeclaredType::Decimal(Some((p, s))) => write!(f, "decimal({p},{s})"),
            DeclaredType::Date => f.write_str("date"),
            DeclaredType::Timestamp => f.write_str("timestamp"),
            DeclaredType::Bool => f.write_str("bool"),
            DeclaredType::Json => f.write_str("json"),
        }
    }
}

/// Declared types by column name, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeclaredSchema {
    columns: Vec<(String, DeclaredType)>,
}

impl DeclaredSchema {
    /// No declarations.
    pub fn new() -> Self {
        DeclaredSchema::default()
    }

    /// Parses `(column, type name)` pairs. `field` is the argument's name
    /// as the caller knows it (`schema_overrides`, `schema`): an error names
    /// `field["column"]`. A blank column name, a control character in one,
    /// a name given twice or an unknown type is an `InvalidInput` error.
    pub fn parse<'a>(
        field: &str,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<DeclaredSchema, Error> {
        let mut schema = DeclaredSchema::new();
        for (name, ty) in pairs {
            let at = || format!("{field}[{name:?}]");
            if name.trim().is_empty() {
                return Err(Error::invalid(field, "a column name is blank"));
            }
            if name.chars().any(char::is_control) {
                return Err(Error::invalid(
                    &at(),
                    "a column name contains a control character",
                ));
            }
            if schema.get(name).is_some() {
                return Err(Error::invalid(&at(), "the column is declared twice"));
            }
            let ty = DeclaredType::parse(ty).map_err(|reason| Error::invalid(&at(), reason))?;
            schema.columns.push((name.to_owned(), ty));
        }
        Ok(schema)
    }

    /// Adds or replaces one declaration.
    pub fn declare(mut self, name: impl Into<String>, ty: DeclaredType) -> Self {
        let name = name.into();
        match self.columns.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = ty,
            None => self.columns.push((name, ty)),
        }
        self
    }

    /// The declared type of `name`.
    pub fn get(&self, name: &str) -> Option<DeclaredType> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| *t)
    }

    /// The declarations, in the order given.
    pub fn columns(&self) -> &[(String, DeclaredType)] {
        &self.columns
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::DeclaredType::*;
    use super::*;

    #[test]
    fn an_unknown_name_is_repeated_as_given() {
        // Lowered, a token pasted there escaped the client's redaction.
        let err = DeclaredType::parse(" Tok-SECRET-1 ").unwrap_err();
        assert!(err.starts_with("unknown type \"Tok-SECRET-1\":"), "{err}");
        let config = crate::Config::builder("https://erp.example.com/")
            .project("demo")
            .access_token("Tok-SECRET-1")
            .build()
            .unwrap();
        let parsed = DeclaredSchema::parse("schema", [("Tok-SECRET-1", "Tok-SECRET-1")]);
        let shown = config.redact_error(parsed.unwrap_err()).to_string();
        assert!(
            !shown.contains("Tok-SECRET-1") && shown.contains("[REDACTED]"),
            "{shown}"
        );
    }

    #[test]
    fn names() {
        assert_eq!(DeclaredType::parse(" String "), Ok(String));
        assert_eq!(DeclaredType::parse("int64"), Ok(Int));
        assert_eq!(DeclaredType::parse("decimal"), Ok(Decimal(None)));
        assert_eq!(
            DeclaredType::parse("decimal(14,2)"),
            Ok(Decimal(Some((14, 2))))
        );
        assert_eq!(
            DeclaredType::parse("DECIMAL( 38 , 0 )"),
            Ok(Decimal(Some((38, 0))))
        );
        assert_eq!(DeclaredType::parse("numeric(5)"), Ok(Decimal(Some((5, 0)))));
        assert_eq!(DeclaredType::parse("datetime"), Ok(Timestamp));
        for bad in [
            "",
            "float",
            "decimal(39,2)",
            "decimal(2,3)",
            "decimal(0,0)",
            "decimal(14,2",
            "decimal(a,b)",
            "decimal(1,1,1)",
        ] {
            assert!(DeclaredType::parse(bad).is_err(), "{bad}");
        }
        for t in [
            String,
            Int,
            Decimal(None),
            Decimal(Some((14, 2))),
            Date,
            Timestamp,
            Bool,
            Json,
        ] {
            assert_eq!(DeclaredType::parse(&t.to_string()), Ok(t));
        }
    }

    #[test]
    fn schemas_name_the_field() {
        let s = DeclaredSchema::parse("schema", [("amount", "decimal(14,2)"), ("acid", "string")])
            .unwrap();
        assert_eq!(s.get("amount"), Some(Decimal(Some((14, 2)))));
        let err = DeclaredSchema::parse("schema_overrides", [("amount", "money")]).unwrap_err();
        let Error::InvalidInput { field, reason } = err else {
            panic!()
        };
        assert_eq!(field, r#"schema_overrides["amount"]"#);
        assert!(reason.contains("unknown type \"money\""), "{reason}");
        assert!(DeclaredSchema::parse("schema", [(" ", "int")]).is_err());
        assert!(DeclaredSchema::parse("schema", [("a\u{0}", "int")]).is_err());
        assert!(DeclaredSchema::parse("schema", [("a", "int"), ("a", "date")]).is_err());
    }
}
