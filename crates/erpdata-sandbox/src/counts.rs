//! Requests counted per key, for the fault routes: tests choose the keys
//! (unique per test) and read the counts back to assert how many attempts
//! a client made.

use std::collections::HashMap;
use std::sync::Mutex;

/// One family of counters (each fault route has its own).
pub(crate) struct Counts(Mutex<Option<HashMap<String, u64>>>);

impl Counts {
    pub(crate) const fn new() -> Self {
        Counts(Mutex::new(None))
    }

    /// Counts one more request under `key`; returns the new count.
    pub(crate) fn bump(&self, key: &str) -> u64 {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts
            .get_or_insert_with(HashMap::new)
            .entry(key.to_owned())
            .or_insert(0);
        *n += 1;
        *n
    }

    /// Requests counted under `key` so far.
    pub(crate) fn get(&self, key: &str) -> u64 {
        let counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        counts
            .as_ref()
            .and_then(|c| c.get(key))
            .copied()
            .unwrap_or(0)
    }
}
