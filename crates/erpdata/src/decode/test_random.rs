//! Reproducible pseudo-random numbers for the tests: xorshift64, the same
//! sequence on every run and no dependency for it.

/// A xorshift64 generator from its (non-zero) state.
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    /// The next number of the sequence (the new state).
    pub(crate) fn next_u64(&mut self) -> u64 {
        let x = &mut self.0;
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }
}
