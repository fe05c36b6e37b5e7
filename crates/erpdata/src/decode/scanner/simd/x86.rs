//! x86_64: SSE2 (always there) and AVX2 (checked for by the caller).

use std::arch::x86_64::*;

use super::{in_last_16, Masks};

/// One bit per byte of `v` that is `"`, `\`, below 0x20 or above 0x7F.
#[inline(always)]
fn special_bits(v: __m128i) -> u32 {
    // SAFETY: SSE2 is part of x86_64; these are register operations.
    unsafe {
        // A signed compare: bytes 0x80–0xFF are negative, so one compare
        // finds the control characters and every non-ASCII byte.
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(quote, slash))) as u32
    }
}

/// See [`super::find_special`].
#[inline(always)]
pub(super) fn find_special(buf: &[u8], mut i: usize) -> usize {
    let len = buf.len();
    while i + 16 <= len {
        // SAFETY: `buf[i..i + 16]` is in bounds (checked above); the load
        // is an unaligned one.
        let v = unsafe { _mm_loadu_si128(buf.as_ptr().add(i).cast()) };
        let bits = special_bits(v);
        if bits != 0 {
            return i + bits.trailing_zeros() as usize;
        }
        i += 16;
    }
    if i >= len {
        return i;
    }
    if len >= 16 {
        // SAFETY: `buf[len - 16..]` is in bounds: `len >= 16`.
        let v = unsafe { _mm_loadu_si128(buf.as_ptr().add(len - 16).cast()) };
        return in_last_16(len, i, special_bits(v));
    }
    super::super::find_special_scalar(buf, i)
}

/// [`super::classify`] with 16-byte compares.
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) fn classify_sse2(block: &[u8; 64]) -> Masks {
    // SAFETY: SSE2 is part of x86_64; the loads are unaligned ones of
    // 16 bytes within the 64-byte block.
    unsafe {
        let mask = |v: __m128i, c: u8| -> u64 {
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))) as u16 as u64
        };
        let mut m = Masks::default();
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
            // `[` and `]` are `{` and `}` less 0x20.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let shift = 16 * k;
            m.quote |= mask(v, b'"') << shift;
            m.backslash |= mask(v, b'\\') << shift;
            m.open |= mask(folded, b'{') << shift;
            m.close |= mask(folded, b'}') << shift;
            m.comma |= mask(v, b',') << shift;
        }
        m
    }
}

/// [`super::classify`] with 32-byte compares.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) unsafe fn classify_avx2(block: &[u8; 64]) -> Masks {
    let mask = |v: __m256i, c: u8| -> u64 {
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))) as u32 as u64
    };
    let mut m = Masks::default();
    for k in 0..2 {
        // SAFETY: an unaligned load of 32 bytes within the 64-byte block.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast()) };
        // `[` and `]` are `{` and `}` less 0x20.
        let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let shift = 32 * k;
        m.quote |= mask(v, b'"') << shift;
        m.backslash |= mask(v, b'\\') << shift;
        m.open |= mask(folded, b'{') << shift;
        m.close |= mask(folded, b'}') << shift;
        m.comma |= mask(v, b',') << shift;
    }
    m
}

/// Bit `i` set when an odd number of bits `0..=i` of `x` are: one
/// carry-less multiply by all ones, instead of six shifts and xors.
///
/// # Safety
/// The CPU must have PCLMULQDQ.
#[target_feature(enable = "pclmulqdq")]
#[inline]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) unsafe fn prefix_xor_clmul(x: u64) -> u64 {
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}
