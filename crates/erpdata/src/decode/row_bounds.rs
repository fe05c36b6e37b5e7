//! Where the elements of the `data` array end: a structural scan that
//! follows only strings, escapes and nesting depth, for cutting the rows
//! into pieces that other threads decode.
//!
//! The scan does not check the JSON: each piece is decoded by a full
//! decoder, which does. A wrong bound can only make a piece fail to decode
//! (and the caller then decodes the body in one piece), never let a body
//! decode differently: pieces that each decode as a sequence of rows,
//! joined by the commas that were between them, are a sequence of rows.

use super::scanner::simd;

/// How a scan of part of the array ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// At the `]` that closes the array, at this offset.
    Closed(usize),
    /// At a comma between elements at or after the scan's limit, at this
    /// offset.
    Comma(usize),
    /// The bytes are not an array's elements as far as the scan can tell
    /// (an unbalanced bracket, or the end came first).
    Broken,
}

/// The commas between the elements in `region[from..]`, scanning from a
/// point between elements (the array's start, or just after a comma
/// between elements), up to the first such comma at or after `limit` or
/// the array's closing `]`.
///
/// Sixty-four bytes at a time, as bit masks (one bit per byte): the
/// escaped characters, then the bytes inside strings (a running parity of
/// the unescaped quotes), then the brackets and commas outside strings,
/// which are the only bytes looked at one by one.
pub(crate) fn scan(region: &[u8], from: usize, limit: usize, commas: &mut Vec<usize>) -> End {
    if simd::scalar_only() {
        return scan_scalar(region, from, limit, commas);
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has AVX2 and PCLMULQDQ.
        return unsafe { scan_avx2(region, from, limit, commas) };
    }
    scan_with(region, from, limit, commas, simd::classify, prefix_xor)
}

/// [`scan`] classifying a byte at a time: the reference the vector
/// classifiers must equal.
fn scan_scalar(region: &[u8], from: usize, limit: usize, commas: &mut Vec<usize>) -> End {
    scan_with(
        region,
        from,
        limit,
        commas,
        simd::classify_scalar,
        prefix_xor,
    )
}

/// [`scan`] with 32-byte compares and a carry-less multiply.
///
/// # Safety
/// The CPU must have AVX2 and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
unsafe fn scan_avx2(region: &[u8], from: usize, limit: usize, commas: &mut Vec<usize>) -> End {
    // SAFETY: the caller checked that the CPU has both.
    let classify = |b: &[u8; 64]| unsafe { simd::classify_avx2(b) };
    // SAFETY: as above.
    let prefix_xor = |x: u64| unsafe { simd::prefix_xor_clmul(x) };
    scan_with(region, from, limit, commas, classify, prefix_xor)
}

/// How far ahead of the block it classifies the scan asks for the body's
/// bytes. A large body is read from memory, not from a cache, and the
/// scan's own loads waited for it: on a 2-core Xeon VM it read 2.6 GB/s
/// of a 256 MiB array (7.4 GB/s of one that fits in the L2 cache) and
/// 5.4 GB/s asking 2 KiB ahead (5.0 at 1 KiB, 2.8 at 512 bytes, 5.2 at
/// 4 KiB). The decoder itself gained nothing from the same: it reads its
/// bytes slower than memory gives them.
const PREFETCH_AHEAD: usize = 2048;

/// Asks for the cache line of `region[at]`, if any, to be loaded.
#[inline(always)]
fn prefetch(region: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = region.get(at) {
        // SAFETY: a prefetch is only a hint: it reads nothing and cannot
        // fault; the address is within `region` anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                std::ptr::from_ref(byte).cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (region, at);
}

#[inline(always)]
fn scan_with(
    region: &[u8],
    from: usize,
    limit: usize,
    commas: &mut Vec<usize>,
    classify: impl Fn(&[u8; 64]) -> simd::Masks,
    prefix_xor: impl Fn(u64) -> u64,
) -> End {
    let mut depth = 0usize;
    // Carried from block to block: the next byte is escaped; the block
    // starts inside a string (all ones) or not.
    let mut escape_next = false;
    let mut in_string = 0u64;
    let mut at = from;
    let mut padded = [b' '; 64];
    while at < region.len() {
        let block: &[u8; 64] = match region.get(at..at + 64) {
            Some(b) => b.try_into().expect("64 bytes"),
            None => {
                let rest = &region[at..];
                padded[..rest.len()].copy_from_slice(rest);
                padded[rest.len()..].fill(b' ');
                &padded
            }
        };
        prefetch(region, at + PREFETCH_AHEAD);
        let m = classify(block);
        let escaped = escaped(m.backslash, &mut escape_next);
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ in_string;
        in_string = 0u64.wrapping_sub(inside >> 63);
        let brackets = (m.open | m.close) & !inside;
        let mut pending = brackets | (m.comma & !inside);
        loop {
            // Inside an element only its brackets matter: the commas
            // between its fields are skipped without a look.
            let next = if depth == 0 {
                pending
            } else {
                pending & brackets
            };
            if next == 0 {
                break;
            }
            let bit = next.trailing_zeros();
            pending &= (!0u64 << bit) << 1;
            let i = at + bit as usize;
            let b = 1u64 << bit;
            if m.open & b != 0 {
                depth += 1;
            } else if m.close & b != 0 {
                if depth == 0 {
                    return if region[i] == b']' {
                        End::Closed(i)
                    } else {
                        End::Broken
                    };
                }
                depth -= 1;
            } else {
                commas.push(i);
                if i >= limit {
                    return End::Comma(i);
                }
            }
        }
        at += 64;
    }
    End::Broken
}

/// The bytes other than backslashes that a backslash escapes: the byte
/// after each run of an odd number of backslashes (which may be in the
/// next block). Branch-free,
/// by carries: adding a run's start bit to the run ends it at the run's
/// end, and the parity of the start and end positions tells the run's.
#[inline(always)]
fn escaped(backslash: u64, escape_next: &mut bool) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // Most blocks have no backslash and follow none: a sixth of the
    // scan's time went to the arithmetic below giving 0 for them.
    if backslash == 0 && !*escape_next {
        return 0;
    }
    let carried = u64::from(*escape_next);
    // A first byte escaped from the previous block starts no run.
    let backslash = backslash & !carried;
    let starts = backslash & !(backslash << 1);
    let even_starts = starts & EVEN;
    let odd_starts = starts & !EVEN;
    let even_ends = backslash.wrapping_add(even_starts) & !backslash;
    let odd_ends = backslash.wrapping_add(odd_starts) & !backslash;
    // Odd length: a run from an even start ends at an odd bit, and the
    // other way round.
    let runs = (even_ends & !EVEN) | (odd_ends & EVEN);
    // A run that reaches bit 63 escapes the next block's first byte if
    // its length is odd.
    let tail = (!backslash).leading_zeros();
    *escape_next = tail % 2 == 1;
    runs | carried
}

/// Bit `i` set when an odd number of bits `0..=i` of `x` are.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// A point near `from` where a scan can start as if between two rows: a
/// comma with `}` before it and `{` after it (whitespace aside), searched
/// for in the next `window` bytes. It may be a comma inside a string or a
/// nested value: the scan of the part before proves or disproves it.
pub(crate) fn guess_comma(region: &[u8], from: usize, window: usize) -> Option<usize> {
    let end = region.len().min(from.saturating_add(window));
    let mut at = from;
    while at < end {
        let c = at + memchr::memchr(b',', &region[at..end])?;
        let before = region[..c].iter().rev().find(|b| !is_ws(**b));
        let after = region[c + 1..].iter().find(|b| !is_ws(**b));
        if before == Some(&b'}') && after == Some(&b'{') {
            return Some(c);
        }
        at = c + 1;
    }
    None
}

/// JSON's whitespace.
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_random::Xorshift;

    /// What `scan` (one of the scans) finds from `from`, up to `limit`.
    fn commas_of(
        scan: fn(&[u8], usize, usize, &mut Vec<usize>) -> End,
        region: &[u8],
        from: usize,
        limit: usize,
    ) -> (Vec<usize>, End) {
        let mut commas = Vec::new();
        let end = scan(region, from, limit, &mut commas);
        (commas, end)
    }

    fn commas(region: &str) -> (Vec<usize>, End) {
        commas_of(scan, region.as_bytes(), 0, usize::MAX)
    }

    #[test]
    fn commas_between_elements_only() {
        let r = r#"{"a":"x,]}\"\\","b":[1,{"c":2}]} , {"d":"\u005d"}] tail"#;
        let (c, end) = commas(r);
        assert_eq!(c, [r.find(" , ").unwrap() + 1]);
        assert_eq!(end, End::Closed(r.find("] tail").unwrap()));
        assert_eq!(commas(" ]"), (vec![], End::Closed(1)));
        assert_eq!(commas(r#"{"a":1}}"#).1, End::Broken);
        assert_eq!(commas(r#"{"a":"1}]"#).1, End::Broken);
        assert_eq!(commas(r#"{"a":1"#).1, End::Broken);
    }

    #[test]
    fn a_scan_stops_at_the_first_comma_past_its_limit() {
        let r = br#"{},{},{"x":[1,2]},{}]"#;
        let mut c = Vec::new();
        assert_eq!(scan(r, 0, 4, &mut c), End::Comma(5));
        assert_eq!(c, [2, 5]);
        let mut c = Vec::new();
        assert_eq!(scan(r, 6, 7, &mut c), End::Comma(17));
    }

    #[test]
    fn escapes_carry_across_blocks() {
        // Runs of backslashes of every length before a quote, cut at every
        // block position: the quote ends the string when the run is even.
        for run in 0..6 {
            for pad in 0..70 {
                let s = format!(
                    r#"{{"a":"{}{}"x"}},{{"b":"]"}}]"#,
                    "y".repeat(pad),
                    "\\".repeat(run)
                );
                let (c, end) = commas(&s);
                let json = format!("[{s}");
                if serde_json::from_str::<serde_json::Value>(&json).is_ok() {
                    assert_eq!(end, End::Closed(s.len() - 1), "{s}");
                    assert_eq!(c.len(), 1, "{s}");
                } else {
                    assert_ne!(c.len(), 1, "{s}");
                }
            }
        }
        assert_eq!(prefix_xor(0b1001), 0b0111);
    }

    /// Backslash by backslash, as a reader of the text would.
    fn escaped_slowly(backslash: u64, escape_next: &mut bool) -> u64 {
        let mut escaped = 0u64;
        let mut escaping = std::mem::take(escape_next);
        for i in 0..64 {
            if escaping {
                escaped |= 1 << i;
                escaping = false;
            } else if backslash & (1 << i) != 0 {
                escaping = true;
            }
        }
        *escape_next = escaping;
        escaped
    }

    #[test]
    fn escaped_bytes_by_carries_as_by_reading() {
        let mut random = Xorshift(0x9E37_79B9_7F4A_7C15);
        for i in 0..20_000u64 {
            let x = random.next_u64();
            // Dense and sparse backslashes, runs at both ends, and none.
            let bits = match i % 5 {
                0 => x,
                1 => x & (x >> 1) & (x >> 2),
                2 => x | 0xF000_0000_0000_000F,
                3 => !0 << (x % 64),
                _ => 0,
            };
            for carry in [false, true] {
                let (mut a, mut b) = (carry, carry);
                // Escaped backslashes escape nothing: only other bytes count.
                assert_eq!(
                    escaped(bits, &mut a) & !bits,
                    escaped_slowly(bits, &mut b) & !bits,
                    "{bits:064b}"
                );
                assert_eq!(a, b, "{bits:064b} {carry}");
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_carry_less_parity_is_the_shifted_one() {
        if !std::is_x86_feature_detected!("pclmulqdq") {
            return;
        }
        let mut random = Xorshift(0x2545_F491_4F6C_DD1D);
        for shift in 0..64 {
            let x = random.next_u64();
            for bits in [x, 1 << shift, !0 << shift, 0, !0] {
                // SAFETY: the CPU has PCLMULQDQ.
                let clmul = unsafe { simd::prefix_xor_clmul(bits) };
                assert_eq!(clmul, prefix_xor(bits), "{bits:064b}");
            }
        }
    }

    #[test]
    fn every_way_of_classifying_agrees() {
        let row = r#"{"s":"x,{[\"]","n":[1,{"m":"}"}],"e":"\\","u":"\u00fc"}"#;
        let region = format!("{}]", vec![row; 40].join(" ,\n"));
        for from in [0, 1, 17, 63, 64, 65] {
            let region = &region.as_bytes()[from..];
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let end = scan_with(
                region,
                0,
                usize::MAX,
                &mut a,
                simd::classify_scalar,
                prefix_xor,
            );
            assert_eq!(scan(region, 0, usize::MAX, &mut b), end);
            assert_eq!(a, b);
        }
    }

    /// Random bytes of the few that matter (quotes, backslashes in runs,
    /// brackets, commas) and filler, scanned from every offset of the
    /// first block and with limits: the vector path (AVX2 and the
    /// carry-less multiply where the CPU has them) ends where the scalar
    /// one does, with the same commas.
    #[test]
    fn the_vector_scan_is_the_scalar_one_on_random_bytes() {
        const BYTES: &[u8] = b"\"\"\\\\\\{}[],,  ax";
        let mut random = Xorshift(0x853C_49E6_748F_EA9B);
        let mut next = || random.next_u64();
        for _ in 0..3_000 {
            let len = (next() % 400) as usize;
            let region: Vec<u8> = (0..len)
                .map(|_| BYTES[(next() % BYTES.len() as u64) as usize])
                .collect();
            for from in [0, 1, 31, 63, 64, 65, 127] {
                let from = from.min(region.len());
                let limit = match next() % 3 {
                    0 => usize::MAX,
                    _ => (next() % (len as u64 + 1)) as usize,
                };
                let scalar = commas_of(scan_scalar, &region, from, limit);
                let vector = commas_of(scan, &region, from, limit);
                let text = String::from_utf8_lossy(&region);
                assert_eq!(vector, scalar, "from {from}, limit {limit}: {text}");
            }
        }
    }

    /// The scan one byte at a time, as the block-wise one reads bytes: a
    /// backslash escapes the next byte, in a string or not, and an escaped
    /// quote neither opens nor closes one.
    fn scan_bytewise(region: &[u8], from: usize, limit: usize) -> (Vec<usize>, End) {
        let (mut depth, mut in_string, mut escape) = (0usize, false, false);
        let mut commas = Vec::new();
        for (i, &b) in region.iter().enumerate().skip(from) {
            let escaped = escape;
            escape = !escaped && b == b'\\';
            if b == b'"' && !escaped {
                in_string = !in_string;
            }
            if in_string {
                continue;
            }
            match b {
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b']' => return (commas, End::Closed(i)),
                b'}' => return (commas, End::Broken),
                b',' if depth == 0 => {
                    commas.push(i);
                    if i >= limit {
                        return (commas, End::Comma(i));
                    }
                }
                _ => {}
            }
        }
        (commas, End::Broken)
    }

    /// Rows as a table sends them, and now and then what a scan must see
    /// through or stop at (a nested value; brackets, commas and quotes in
    /// strings; escapes; the array's end; a stray byte): the block-wise
    /// scan, with either classifier, ends where the byte-wise one does,
    /// with the same commas.
    #[test]
    fn the_block_scan_is_the_byte_wise_one_on_rows() {
        const FIELDS: &[&str] = &[
            r#""n":1"#,
            r#""s":"plain text""#,
            r#""s":"},{\"a\":[1]}""#,
            r#""e":"\\""#,
            r#""e":"a\\\"b,}""#,
            r#""v":null"#,
            r#""nested":[1,{"k":"}"},[2]]"#,
            r#""o":{"k":{}}"#,
            r#""d":"2025-01-31""#,
        ];
        let mut random = Xorshift(0x2545_F491_4F6C_DD1D);
        let mut next = || random.next_u64();
        for _ in 0..2_000 {
            let mut region = Vec::new();
            let rows = next() % 40;
            for r in 0..rows {
                if r > 0 {
                    region.extend_from_slice(if next() % 5 == 0 { b" ,\n " } else { b"," });
                }
                region.push(b'{');
                // Mostly flat rows of plain fields.
                let plain = next() % 4 != 0;
                for f in 0..1 + next() % 6 {
                    if f > 0 {
                        region.push(b',');
                    }
                    let field = if plain {
                        FIELDS[[0, 1, 8][next() as usize % 3]]
                    } else {
                        FIELDS[next() as usize % FIELDS.len()]
                    };
                    region.extend_from_slice(field.as_bytes());
                }
                region.push(b'}');
            }
            match next() % 4 {
                0 => {}
                1 => region.extend_from_slice(b"]}"),
                _ => region.push(b']'),
            }
            // Now and then a byte changed anywhere.
            if next() % 5 == 0 && !region.is_empty() {
                let at = next() as usize % region.len();
                const STRAY: &[u8] = b"{}[],\"\\ x";
                region[at] = STRAY[next() as usize % STRAY.len()];
            }
            let len = region.len() as u64;
            for from in [0, 1, 63, 64, 65] {
                let from = from.min(region.len());
                let limit = match next() % 3 {
                    0 => usize::MAX,
                    _ => (next() % (len + 1)) as usize,
                };
                let expected = scan_bytewise(&region, from, limit);
                let text = String::from_utf8_lossy(&region);
                for (way, got) in [
                    ("vector", commas_of(scan, &region, from, limit)),
                    ("scalar", commas_of(scan_scalar, &region, from, limit)),
                ] {
                    assert_eq!(got, expected, "{way}, from {from}, limit {limit}: {text}");
                }
            }
        }
    }

    #[test]
    fn brackets_in_strings_and_nested_values() {
        let row = r#"{"s":"x,{[\"]","n":[1,{"m":"}"}],"e":"\\"}"#;
        let region = format!("{}]", vec![row; 40].join(" ,\n"));
        let (c, end) = commas(&region);
        assert_eq!(end, End::Closed(region.len() - 1));
        assert_eq!(c.len(), 39);
        for &at in &c {
            assert_eq!(&region[at - 2..at + 1], "} ,");
        }
    }

    #[test]
    fn guessed_commas_look_like_row_boundaries() {
        let r = br#"{"a":"},{"} , {"b":1}]"#;
        assert_eq!(guess_comma(r, 0, 100), Some(7), "inside a string: a guess");
        assert_eq!(guess_comma(r, 8, 100), Some(12));
        assert_eq!(guess_comma(r, 13, 100), None);
        assert_eq!(guess_comma(r, 8, 3), None);
    }
}
