//! aarch64: NEON, which every aarch64 CPU has.

use std::arch::aarch64::*;

use super::Masks;

/// Four bits per byte of `v` (bits `4k..4k + 4` for byte `k`), all set for
/// a byte that is `"`, `\`, below 0x20 or above 0x7F. NEON has no
/// `movemask`: narrowing each 16-bit lane by a shift of four keeps half of
/// each of its two bytes, which is as good for finding the first one.
#[inline(always)]
fn special_nibbles(v: uint8x16_t) -> u64 {
    // SAFETY: NEON is part of aarch64; these are register operations.
    unsafe {
        let low = vcltq_u8(v, vdupq_n_u8(0x20));
        let high = vcgeq_u8(v, vdupq_n_u8(0x80));
        let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
        let slash = vceqq_u8(v, vdupq_n_u8(b'\\'));
        let any = vorrq_u8(vorrq_u8(low, high), vorrq_u8(quote, slash));
        let nibbles = vshrn_n_u16(vreinterpretq_u16_u8(any), 4);
        vget_lane_u64(vreinterpret_u64_u8(nibbles), 0)
    }
}

/// See [`super::find_special`].
#[inline(always)]
pub(super) fn find_special(buf: &[u8], mut i: usize) -> usize {
    let len = buf.len();
    while i + 16 <= len {
        // SAFETY: `buf[i..i + 16]` is in bounds (checked above).
        let v = unsafe { vld1q_u8(buf.as_ptr().add(i)) };
        let bits = special_nibbles(v);
        if bits != 0 {
            return i + (bits.trailing_zeros() / 4) as usize;
        }
        i += 16;
    }
    if i >= len {
        return i;
    }
    if len >= 16 {
        // The last 16 bytes, overlapping what was already looked at.
        // SAFETY: `buf[len - 16..]` is in bounds: `len >= 16`.
        let v = unsafe { vld1q_u8(buf.as_ptr().add(len - 16)) };
        let skip = i - (len - 16);
        let rest = special_nibbles(v) >> (4 * skip);
        return if rest == 0 {
            len
        } else {
            i + (rest.trailing_zeros() / 4) as usize
        };
    }
    super::super::find_special_scalar(buf, i)
}

/// One bit per byte of four compare results (all ones or all zeros per
/// byte), as simdjson does it: each byte keeps the bit of its place in its
/// group of eight, and pairwise additions gather them.
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
fn bits64(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t, d: uint8x16_t) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is part of aarch64; the load reads the 16-byte array.
    unsafe {
        let w = vld1q_u8(WEIGHTS.as_ptr());
        let ab = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
        let cd = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
        let abcd = vpaddq_u8(ab, cd);
        let abcd = vpaddq_u8(abcd, abcd);
        vgetq_lane_u64(vreinterpretq_u64_u8(abcd), 0)
    }
}

/// [`super::classify`] with NEON compares.
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    // SAFETY: NEON is part of aarch64; the loads are of 16 bytes within
    // the 64-byte block.
    unsafe {
        let v: [uint8x16_t; 4] = std::array::from_fn(|k| vld1q_u8(block.as_ptr().add(16 * k)));
        let eq = |c: u8| {
            let c = vdupq_n_u8(c);
            bits64(
                vceqq_u8(v[0], c),
                vceqq_u8(v[1], c),
                vceqq_u8(v[2], c),
                vceqq_u8(v[3], c),
            )
        };
        // `[` and `]` are `{` and `}` less 0x20.
        let fold = vdupq_n_u8(0x20);
        let f: [uint8x16_t; 4] = std::array::from_fn(|k| vorrq_u8(v[k], fold));
        let folded_eq = |c: u8| {
            let c = vdupq_n_u8(c);
            bits64(
                vceqq_u8(f[0], c),
                vceqq_u8(f[1], c),
                vceqq_u8(f[2], c),
                vceqq_u8(f[3], c),
            )
        };
        Masks {
            quote: eq(b'"'),
            backslash: eq(b'\\'),
            open: folded_eq(b'{'),
            close: folded_eq(b'}'),
            comma: eq(b','),
        }
    }
}
