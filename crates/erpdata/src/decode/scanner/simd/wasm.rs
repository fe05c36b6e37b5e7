//! wasm32 with `simd128` enabled at build time (see the parent module for
//! what a build without it gets).

use std::arch::wasm32::*;

use super::{in_last_16, Masks};

/// One bit per byte of `v` that is `"`, `\`, below 0x20 or above 0x7F.
#[inline(always)]
fn special_bits(v: v128) -> u32 {
    // A signed compare: bytes 0x80–0xFF are negative, so one compare finds
    // the control characters and every non-ASCII byte.
    let low = i8x16_lt(v, i8x16_splat(0x20));
    let quote = i8x16_eq(v, i8x16_splat(b'"' as i8));
    let slash = i8x16_eq(v, i8x16_splat(b'\\' as i8));
    u32::from(i8x16_bitmask(v128_or(low, v128_or(quote, slash))))
}

/// An unaligned load of `buf[at..at + 16]`.
///
/// # Safety
/// `at + 16 <= buf.len()`.
#[inline(always)]
unsafe fn load(buf: &[u8], at: usize) -> v128 {
    // SAFETY: in bounds by the caller's promise; wasm loads need no
    // alignment.
    unsafe { v128_load(buf.as_ptr().add(at).cast()) }
}

/// See [`super::find_special`].
#[inline(always)]
pub(super) fn find_special(buf: &[u8], mut i: usize) -> usize {
    let len = buf.len();
    while i + 16 <= len {
        // SAFETY: `i + 16 <= len`, checked above.
        let bits = special_bits(unsafe { load(buf, i) });
        if bits != 0 {
            return i + bits.trailing_zeros() as usize;
        }
        i += 16;
    }
    if i >= len {
        return i;
    }
    if len >= 16 {
        // SAFETY: `len >= 16`.
        return in_last_16(len, i, special_bits(unsafe { load(buf, len - 16) }));
    }
    super::super::find_special_scalar(buf, i)
}

/// [`super::classify`] with `simd128` compares.
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let mask = |v: v128, c: u8| -> u64 { u64::from(i8x16_bitmask(i8x16_eq(v, u8x16_splat(c)))) };
    let mut m = Masks::default();
    for k in 0..4 {
        // SAFETY: 16 bytes within the 64-byte block.
        let v = unsafe { load(block, 16 * k) };
        // `[` and `]` are `{` and `}` less 0x20.
        let folded = v128_or(v, u8x16_splat(0x20));
        let shift = 16 * k;
        m.quote |= mask(v, b'"') << shift;
        m.backslash |= mask(v, b'\\') << shift;
        m.open |= mask(folded, b'{') << shift;
        m.close |= mask(folded, b'}') << shift;
        m.comma |= mask(v, b',') << shift;
    }
    m
}
