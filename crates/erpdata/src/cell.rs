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
