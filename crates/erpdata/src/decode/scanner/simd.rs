//! The scanner's SIMD kernels: the bytes that end a plain run of a string
//! found 16 bytes at a time, and a 64-byte block classified into bitmasks
//! (one bit per byte) of quotes, backslashes and structural characters for
//! the row-boundary scan ([`super::super::row_bounds`]).
//!
//! Which instructions, chosen at compile time unless said otherwise:
//! - x86_64: SSE2, which every x86_64 CPU has; the block classifier uses
//!   AVX2 when the CPU has it (checked at run time by the caller, once per
//!   scan: an AVX2 function cannot be inlined into the hot loops here).
//! - aarch64: NEON, which every aarch64 CPU has (`make test-aarch64` runs
//!   the tests, these kernels' among them, under qemu-user).
//! - wasm32: `simd128` when the build enables it (`-C target-feature=+simd128`,
//!   as the npm package's module and `make test-wasm32` are built);
//!   WebAssembly has no run-time feature test, so a build without it gets the
//!   scalar code, and a runtime without `simd128` must be given that build
//!   (it refuses to instantiate a module that uses the instructions).
//! - anything else: the scalar code.
//!
//! The scalar code is the reference: the SWAR [`super::find_special_scalar`]
//! and [`classify_scalar`]. In tests, and in builds for the fuzzer
//! (`--cfg fuzzing`), a per-thread switch makes every dispatch here take
//! the scalar path, so that whole decodings can be compared; in other builds
//! the switch is a constant and costs nothing.

// `fuzzing` is set by `fuzz/run.sh` (as `cargo fuzz` does), not by Cargo.
#![allow(unexpected_cfgs)]

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "aarch64")]
mod neon;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm;

#[cfg(test)]
mod differential;

/// One bit per byte of a 64-byte block, bit `i` for byte `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// `{` or `[`.
    pub open: u64,
    /// `}` or `]`.
    pub close: u64,
    pub comma: u64,
}

/// The index of the first byte at or after `i` that is `"`, `\`, a control
/// character or not ASCII, or `buf.len()`: what
/// [`super::find_special_scalar`] returns, 16 bytes at a time.
#[inline(always)]
pub(crate) fn find_special(buf: &[u8], i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    return x86::find_special(buf, i);
    #[cfg(target_arch = "aarch64")]
    return neon::find_special(buf, i);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::find_special(buf, i);
    #[allow(unreachable_code)]
    super::find_special_scalar(buf, i)
}

/// Whether byte `b` ends a plain run of a string (the scalar definition the
/// vector compares implement).
#[cfg(test)]
fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b)
}

/// The first special byte in `buf[i..]` given the special bits of the last
/// 16 bytes of `buf` (bit `k` for `buf[len - 16 + k]`), for a run that got
/// closer than 16 bytes to the end: one overlapping compare instead of a
/// byte loop. `buf` has at least 16 bytes and `i > len - 16`.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
#[inline(always)]
fn in_last_16(len: usize, i: usize, last: u32) -> usize {
    let skip = i - (len - 16);
    let rest = last >> skip;
    if rest == 0 {
        len
    } else {
        i + rest.trailing_zeros() as usize
    }
}

/// Classifies a 64-byte block with the best instructions known to be there
/// at compile time (see the module documentation).
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    return x86::classify_sse2(block);
    #[cfg(target_arch = "aarch64")]
    return neon::classify(block);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::classify(block);
    #[allow(unreachable_code)]
    classify_scalar(block)
}

/// [`classify`] with 32-byte compares, and the quotes' running parity by a
/// carry-less multiply; the caller checks for AVX2 and PCLMULQDQ.
#[cfg(all(target_arch = "x86_64", feature = "parallel"))]
pub(crate) use x86::{classify_avx2, prefix_xor_clmul};

/// The reference classifier, byte by byte.
#[inline(always)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            b',' => m.comma |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(any(test, fuzzing))]
thread_local! {
    static SCALAR_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread takes only the scalar paths (tests and fuzzing).
#[cfg(any(test, fuzzing))]
#[inline(always)]
pub(crate) fn scalar_only() -> bool {
    SCALAR_ONLY.with(|s| s.get())
}

/// Whether this thread takes only the scalar paths: never, outside tests
/// and fuzzing.
#[cfg(not(any(test, fuzzing)))]
#[inline(always)]
pub(crate) const fn scalar_only() -> bool {
    false
}

/// Makes this thread's decoding take the scalar paths (`true`) or the SIMD
/// ones (`false`), for comparing the two.
#[cfg(any(test, fuzzing))]
pub(crate) fn set_scalar_only(on: bool) {
    SCALAR_ONLY.with(|s| s.set(on));
}

/// The fuzz targets' switch between the scalar and the SIMD paths. Fuzz
/// targets link against the crate's public API, which has no place for a
/// test hook: this unmangled symbol exists only in `--cfg fuzzing` builds
/// and is declared by the target itself.
#[cfg(fuzzing)]
#[no_mangle]
pub extern "C" fn erpdata_fuzz_scalar_only(on: bool) {
    set_scalar_only(on);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that exercise every compare: the specials, their neighbours,
    /// and the bytes that signed and unsigned compares disagree on.
    const BYTES: [u8; 16] = [
        b'a', b'"', b'\\', 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xBF, 0xFF, b'{', b'[', b'}', b']', b',',
        b'!',
    ];

    fn lcg(x: &mut u64) -> u64 {
        *x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *x >> 33
    }

    #[test]
    fn find_special_agrees_with_the_scalar_one() {
        let mut x = 7u64;
        for len in 0..80 {
            for _ in 0..60 {
                // Mostly plain bytes, so that runs are long.
                let buf: Vec<u8> = (0..len)
                    .map(|_| match lcg(&mut x) % 24 {
                        k @ 0..=15 => BYTES[k as usize],
                        _ => b'x',
                    })
                    .collect();
                for i in 0..=len {
                    assert_eq!(
                        find_special(&buf, i),
                        super::super::find_special_scalar(&buf, i),
                        "{buf:?} from {i}"
                    );
                }
            }
            // One special byte at every place after a plain run.
            for &special in &BYTES {
                for at in 0..len {
                    let mut buf = vec![b'x'; len];
                    buf[at] = special;
                    let want = if is_special(special) { at } else { len };
                    assert_eq!(find_special(&buf, 0), want, "{special:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn every_classifier_agrees_with_the_scalar_one() {
        let mut x = 11u64;
        for _ in 0..5000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = match lcg(&mut x) % 20 {
                    k @ 0..=15 => BYTES[k as usize],
                    k => k as u8 * 13,
                };
            }
            let want = classify_scalar(&block);
            assert_eq!(classify(&block), want, "{block:?}");
            #[cfg(all(target_arch = "x86_64", feature = "parallel"))]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                assert_eq!(unsafe { classify_avx2(&block) }, want, "{block:?}");
            }
        }
    }

    #[test]
    #[cfg_attr(target_os = "wasi", ignore = "wasm32-wasip1 has no threads")]
    fn the_switch_is_per_thread() {
        set_scalar_only(true);
        assert!(scalar_only());
        assert!(!std::thread::spawn(scalar_only).join().unwrap());
        set_scalar_only(false);
        assert!(!scalar_only());
    }
}
