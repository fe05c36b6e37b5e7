//! A chunk of the body lent to the decoder thread instead of copied.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A `bytes` object as httpx gave it, kept alive while the decoder thread
/// reads it without the GIL (see [`erpdata::Sink::feed_owned`]). Freed
/// where the caller takes it back, with the GIL; anywhere else, pyo3
/// defers the release to the next time it holds the GIL.
pub(crate) struct LentBytes {
    _owner: Py<PyBytes>,
    ptr: *const u8,
    len: usize,
}

// SAFETY: `ptr` points into the `bytes` object `_owner` keeps alive, whose
// contents never change and which CPython never moves: any thread may
// read them, with or without the GIL.
unsafe impl Send for LentBytes {}

impl LentBytes {
    pub(crate) fn new(bytes: &Bound<'_, PyBytes>) -> Self {
        let data = bytes.as_bytes();
        LentBytes {
            _owner: bytes.clone().unbind(),
            ptr: data.as_ptr(),
            len: data.len(),
        }
    }
}

impl AsRef<[u8]> for LentBytes {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: see `Send`: the bytes live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}
