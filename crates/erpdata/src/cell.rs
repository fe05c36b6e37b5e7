use serde_json::value::RawValue;

/// One value of a row, keeping exactly what the service sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// JSON `null`.
    Null,
    /// JSON `true` / `false`.
    Bool(bool),
    /// A JSON number written as an integer that fits in `i64`.
    Int(i64),
    /// Any other JSON number, as its exact decimal text (`1234.50`, `1e-7`,
    /// `-0`, `12345678901234567890`), so money is never rounded.
    Number(String),
    /// A JSON string as sent. In a typed table's rows a column's type
    /// decides instead: a decimal column's `"1500.00"` is a
    /// [`Cell::Number`] with that text, a date or timestamp is a string in
    /// its canonical form.
    String(String),
    /// A nested object or array, as its JSON text.
    Json(String),
}

impl Cell {
    /// Classifies one JSON value by its raw text; exact for numbers.
    pub(crate) fn from_raw(raw: &RawValue) -> Result<Cell, serde_json::Error> {
        let text = raw.get();
        Ok(match text.as_bytes().first() {
            Some(b'"') => Cell::String(serde_json::from_str(text)?),
            Some(b'n') => Cell::Null,
            Some(b't') => Cell::Bool(true),
            Some(b'f') => Cell::Bool(false),
            Some(b'{') | Some(b'[') => Cell::Json(text.to_owned()),
            _ => number(text),
        })
    }
}

impl Cell {
    /// The cell as JSON text.
    pub(crate) fn write_json(&self, out: &mut String) {
        match self {
            Cell::Null => out.push_str("null"),
            Cell::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Cell::Int(i) => out.push_str(&i.to_string()),
            Cell::Number(text) | Cell::Json(text) => out.push_str(text),
            Cell::String(s) => json_string(s, out),
        }
    }
}

/// `s` as a JSON string with serde_json's escaping.
pub(crate) fn json_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// Integers that fit stay integers; `-0` stays text because `0` would lose
/// its sign.
fn number(text: &str) -> Cell {
    let integral = !text.contains(['.', 'e', 'E']);
    if integral && text != "-0" {
        if let Ok(n) = text.parse::<i64>() {
            return Cell::Int(n);
        }
    }
    Cell::Number(text.to_owned())
}

/// One table or dues row: its fields in the order the service sent them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    /// `(key, value)` pairs; keys are unique (for a duplicated key the last
    /// value wins, as with PHP's and JavaScript's JSON decoders).
    pub fields: Vec<(String, Cell)>,
}

impl Row {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Cell> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// JSON for a web service's answer (feature `serde`), one value each:
///
/// | cell | serialized as | JSON |
/// | --- | --- | --- |
/// | `Null` | unit | `null` |
/// | `Bool` | bool | `true` |
/// | `Int` | `i64` | `42` |
/// | `Number` | its exact text, a string | `"1034.50"` |
/// | `String` | string | `"C001"`, `"2025-04-01"`, `"2025-04-01 09:30:00"` |
/// | `Json` | the nested value itself, its leaves by these rules | `{"a":"1.5","b":[1,2]}` |
///
/// A decimal is its exact text as a string, never an `f64`: money keeps
/// every digit sent (`"1500.00"` stays two places), as `rust_decimal`
/// serializes by default and as Python's rows hold a `Decimal`. Only
/// integers that fit `i64` are JSON numbers (a larger one, or `-0`, is a
/// `Number`, so a string: JavaScript would round it). A date or timestamp
/// of a typed table is the string of its canonical form (`YYYY-MM-DD`,
/// `YYYY-MM-DD HH:MM:SS[.ffffff]`: ISO 8601 with a space between date and
/// time, as MySQL and the JavaScript package's rows write it, and RFC
/// 3339 allows). A nested object or array is serialized as the value it
/// is, not as its text (Python's and JavaScript's rows parse it too),
/// keys in the order sent, the last of a duplicated key winning.
#[cfg(feature = "serde")]
impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => serializer.serialize_unit(),
            Cell::Bool(b) => serializer.serialize_bool(*b),
            Cell::Int(n) => serializer.serialize_i64(*n),
            Cell::Number(text) | Cell::String(text) => serializer.serialize_str(text),
            Cell::Json(text) => {
                let raw: &RawValue = serde_json::from_str(text).map_err(|e| {
                    serde::ser::Error::custom(format_args!("a Cell::Json is not JSON: {e}"))
                })?;
                Nested(raw).serialize(serializer)
            }
        }
    }
}

/// A value of nested JSON, serialized by the rules of [`Cell`]'s.
#[cfg(feature = "serde")]
struct Nested<'a>(&'a RawValue);

#[cfg(feature = "serde")]
impl serde::Serialize for Nested<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap, SerializeSeq};
        let bad = |e: serde_json::Error| S::Error::custom(format_args!("nested JSON: {e}"));
        match self.0.get().as_bytes().first() {
            Some(b'{') => {
                let entries = crate::json::entries(self.0).map_err(bad)?;
                // Each key once, where it first came, with its last value.
                let mut last = std::collections::HashMap::with_capacity(entries.len());
                for (i, (key, _)) in entries.iter().enumerate() {
                    last.insert(key.as_str(), i);
                }
                let mut map = serializer.serialize_map(Some(last.len()))?;
                for (key, _) in &entries {
                    if let Some(j) = last.remove(key.as_str()) {
                        map.serialize_entry(key, &Nested(entries[j].1))?;
                    }
                }
                map.end()
            }
            Some(b'[') => {
                let items = crate::json::elements(self.0).map_err(bad)?;
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Nested(item))?;
                }
                seq.end()
            }
            _ => Cell::from_raw(self.0).map_err(bad)?.serialize(serializer),
        }
    }
}

/// A JSON object of the row's fields, in the order held (see [`Cell`]'s
/// `Serialize` for each value): `{"doc_no":"INV-1","balance":"1034.50"}`.
#[cfg(feature = "serde")]
impl serde::Serialize for Row {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (key, value) in &self.fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A row as an object of every one of `columns` (their names given by
/// `name`), in their order, null where the row has no such key: how
/// [`Table`](crate::Table), [`Dues`](crate::Dues) and
/// [`TypedRows`](crate::TypedRows) serialize each row (as Python's table
/// rows and JavaScript's streamed rows hold every column).
#[cfg(feature = "serde")]
struct RowOf<'a, C> {
    columns: &'a [C],
    name: fn(&C) -> &str,
    row: &'a Row,
}

#[cfg(feature = "serde")]
impl<C> serde::Serialize for RowOf<'_, C> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let fields = &self.row.fields;
        let name = self.name;
        let mut map = serializer.serialize_map(Some(self.columns.len()))?;
        // Most rows hold every column, in the table's order.
        let same = fields.len() == self.columns.len()
            && fields
                .iter()
                .zip(self.columns)
                .all(|((k, _), c)| k == name(c));
        for (i, column) in self.columns.iter().enumerate() {
            let column = name(column);
            let value = if same {
                &fields[i].1
            } else {
                self.row.get(column).unwrap_or(&Cell::Null)
            };
            map.serialize_entry(column, value)?;
        }
        map.end()
    }
}

/// `rows` as a JSON array of row objects, each with every one of
/// `columns` in their order (see [`RowOf`]).
#[cfg(feature = "serde")]
pub(crate) fn serialize_rows<S: serde::Serializer, C>(
    columns: &[C],
    name: fn(&C) -> &str,
    rows: &[Row],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(rows.iter().map(|row| RowOf { columns, name, row }))
}

#[cfg(all(test, feature = "serde"))]
mod serde_tests {
    use super::*;

    fn json<T: serde::Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn each_cell_serializes_as_its_json_form() {
        assert_eq!(json(&Cell::Null), "null");
        assert_eq!(json(&Cell::Bool(true)), "true");
        assert_eq!(json(&Cell::Int(-42)), "-42");
        assert_eq!(json(&Cell::Int(i64::MAX)), "9223372036854775807");
        // Decimals are their exact text, a string: never an f64.
        assert_eq!(json(&Cell::Number("1500.00".into())), r#""1500.00""#);
        assert_eq!(json(&Cell::Number("0.1".into())), r#""0.1""#);
        assert_eq!(
            json(&Cell::Number("12345678901234567890".into())),
            r#""12345678901234567890""#
        );
        assert_eq!(json(&Cell::Number("-0".into())), r#""-0""#);
        assert_eq!(json(&Cell::String("2025-04-01".into())), r#""2025-04-01""#);
        assert_eq!(json(&Cell::String("a \"q\"\n".into())), r#""a \"q\"\n""#);
    }

    #[test]
    fn nested_json_is_a_value_with_the_cells_rules() {
        let cell = Cell::Json(r#"{"a":1.50,"b":[1,"x",null,true,{"c":2e3}],"a":"last"}"#.into());
        // The key `a` once, where it came first, with its last value;
        // numbers as cells are (1.50 and 2e3 their text).
        assert_eq!(
            json(&cell),
            r#"{"a":"last","b":[1,"x",null,true,{"c":"2e3"}]}"#
        );
        assert_eq!(json(&Cell::Json("[]".into())), "[]");
        assert_eq!(json(&Cell::Json(r#"{"m":1.5}"#.into())), r#"{"m":"1.5"}"#);
        assert!(serde_json::to_string(&Cell::Json("{oops".into())).is_err());
    }

    #[test]
    fn a_row_is_an_object_of_its_fields_in_order() {
        let row = Row {
            fields: vec![
                ("z".into(), Cell::Int(1)),
                ("a".into(), Cell::Number("2.50".into())),
                ("m".into(), Cell::Null),
            ],
        };
        assert_eq!(json(&row), r#"{"z":1,"a":"2.50","m":null}"#);
        assert_eq!(json(&Row::default()), "{}");
    }

    #[test]
    fn rows_of_a_table_hold_every_column_in_column_order() {
        let columns: Vec<String> = ["id", "amount", "note"].map(String::from).to_vec();
        let rows = vec![
            Row {
                fields: vec![
                    ("id".into(), Cell::Int(1)),
                    ("amount".into(), Cell::Number("10.00".into())),
                    ("note".into(), Cell::String("x".into())),
                ],
            },
            // Keys missing, and in another order.
            Row {
                fields: vec![
                    ("note".into(), Cell::String("y".into())),
                    ("id".into(), Cell::Int(2)),
                ],
            },
        ];
        let mut out = Vec::new();
        serialize_rows(
            &columns,
            String::as_str,
            &rows,
            &mut serde_json::Serializer::new(&mut out),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"[{"id":1,"amount":"10.00","note":"x"},{"id":2,"amount":null,"note":"y"}]"#
        );
    }
}
