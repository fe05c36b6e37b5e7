//! What arrived: every request under a fault key, in order, as JSON, so
//! tests can assert how many attempts a client made and what each one
//! carried (the token in the body, not the URL; nothing at a second
//! origin); and a count of all requests, so a test can assert that bad
//! input sent nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use axum::http::request::Parts;

use crate::json::string;

#[derive(Default)]
pub(crate) struct Journal {
    /// Per key, one JSON object per request.
    keys: Mutex<HashMap<String, Vec<String>>>,
    total: AtomicU64,
}

impl Journal {
    /// Counts a request on any path (the journal's own reads excepted);
    /// returns the new total.
    pub(crate) fn tick(&self) -> u64 {
        self.total.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub(crate) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Records a request under `key`; returns how many `key` has seen,
    /// this one included.
    pub(crate) fn record(&self, key: &str, head: &Parts, body: &[u8]) -> u64 {
        let entry = render(head, body);
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        let list = keys.entry(key.to_owned()).or_default();
        list.push(entry);
        list.len() as u64
    }

    pub(crate) fn count(&self, key: &str) -> u64 {
        let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        keys.get(key).map_or(0, |l| l.len() as u64)
    }

    /// The JSON array of the requests under `key`.
    pub(crate) fn log(&self, key: &str) -> String {
        let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        let list = keys.get(key).map(Vec::as_slice).unwrap_or_default();
        format!("[{}]", list.join(","))
    }
}

/// `{"method":..,"path":..,"query":..,"headers":{..},"body":..}`; a header
/// sent twice is joined with `, `.
fn render(head: &Parts, body: &[u8]) -> String {
    let mut headers: Vec<(&str, String)> = Vec::new();
    for (name, value) in &head.headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        match headers.iter_mut().find(|(n, _)| *n == name.as_str()) {
            Some((_, v)) => {
                v.push_str(", ");
                v.push_str(&value);
            }
            None => headers.push((name.as_str(), value.into_owned())),
        }
    }
    let mut out = b"{\"method\":".to_vec();
    string(&mut out, head.method.as_str());
    out.extend_from_slice(b",\"path\":");
    string(&mut out, head.uri.path());
    out.extend_from_slice(b",\"query\":");
    string(&mut out, head.uri.query().unwrap_or(""));
    out.extend_from_slice(b",\"headers\":{");
    for (i, (name, value)) in headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(&mut out, name);
        out.push(b':');
        string(&mut out, value);
    }
    out.extend_from_slice(b"},\"body\":");
    string(&mut out, &String::from_utf8_lossy(body));
    out.push(b'}');
    String::from_utf8(out).expect("JSON text is UTF-8")
}
