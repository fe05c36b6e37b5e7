//! Borrowing views of JSON objects that keep each value's raw text.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// An object's entries in the order sent, values unparsed.
pub(crate) struct Entries<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An array's elements, unparsed.
pub(crate) fn elements(raw: &RawValue) -> Result<Vec<&RawValue>, serde_json::Error> {
    serde_json::from_str(raw.get())
}

/// An object's entries, unparsed.
pub(crate) fn entries(raw: &RawValue) -> Result<Vec<(String, &RawValue)>, serde_json::Error> {
    serde_json::from_str::<Entries>(raw.get()).map(|e| e.0)
}

/// The JSON type of a raw value, for error messages.
pub(crate) fn type_name(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't') | Some(b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// Last entry wins for a duplicated key, as PHP's `json_decode` and
/// JavaScript's `JSON.parse` do.
pub(crate) fn last<'a>(entries: &[(String, &'a RawValue)], key: &str) -> Option<&'a RawValue> {
    entries
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| *v)
}
