//! Whole decodings on the SIMD path against the scalar one: the same
//! batches, notices, row count or error, however the body is cut.

use super::set_scalar_only;
use crate::decode::test_random::Xorshift;
use crate::{Batch, Config, DecoderOptions, Error, TableDecoder};

type Decoded = Result<(Vec<Batch>, Vec<String>, u64), Error>;

fn config() -> Config {
    Config::builder("https://erp.example.com/")
        .access_token("fake-token-for-tests")
        .build()
        .unwrap()
}

fn decode(config: &Config, chunks: &[&[u8]]) -> Decoded {
    let mut d = TableDecoder::new(config, 200, DecoderOptions::with_batch_rows(2));
    let mut batches = Vec::new();
    for c in chunks {
        batches.extend(d.feed(c)?);
    }
    let f = d.finish()?;
    batches.extend(f.batches);
    Ok((batches, f.notices, f.total_rows))
}

/// Decodes `body` whole on both paths, then cut in two at every offset
/// (`every_cut`) on the SIMD path; all must agree. Returns the result.
fn same_both_ways(config: &Config, body: &[u8], every_cut: bool) -> Decoded {
    set_scalar_only(true);
    let scalar = decode(config, &[body]);
    set_scalar_only(false);
    let simd = decode(config, &[body]);
    assert_eq!(simd, scalar, "{}", String::from_utf8_lossy(body));
    if every_cut {
        for at in 0..=body.len() {
            let (a, b) = body.split_at(at);
            assert_eq!(
                decode(config, &[a, b]),
                scalar,
                "cut at {at}: {}",
                String::from_utf8_lossy(body)
            );
        }
    }
    simd
}

/// What strings hold that ends or breaks a plain run: escapes, runs of
/// backslashes, multi-byte characters, and bytes that are not allowed.
const TRICKY: [&[u8]; 16] = [
    b"",
    br#"\""#,
    br"\\",
    br#"\\\""#,
    br"\\\\",
    br#"\\\\\""#,
    br"\u00e9",
    br"\ud83d\ude00",
    br"\ud800",
    "é".as_bytes(),
    "€😀".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\x01",
    b"\x7f",
];

#[test]
fn tricky_strings_at_every_place_in_a_block() {
    let config = config();
    for tricky in TRICKY {
        // Padding moves the tricky bytes across 16-, 32- and 64-byte
        // boundaries; the longest strings take more than one compare.
        for pad in 0..40 {
            let mut value = vec![b'x'; pad];
            value.extend_from_slice(tricky);
            value.extend_from_slice(&vec![b'y'; 40 - pad]);
            let mut body = br#"{"status":"success","data":[{"a":""#.to_vec();
            body.extend_from_slice(&value);
            body.extend_from_slice(br#"","b":1},{"a":""#);
            body.extend_from_slice(&value[..pad]);
            body.extend_from_slice(br#""}]}"#);
            // Cutting at every offset is slow in debug builds: every
            // fourth padding is enough to cut inside every token kind.
            let whole = same_both_ways(&config, &body, pad % 4 == 0);
            if tricky.is_empty() || tricky.starts_with(b"\\\"") {
                assert!(whole.is_ok(), "{whole:?}");
            }
            // The same bytes running to the end of the body (no closing
            // quote): truncation, found by the tail compares.
            let cut = body.len() - 4 - pad;
            assert!(same_both_ways(&config, &body[..cut], false).is_err());
        }
    }
}

#[test]
fn runs_of_backslashes_before_a_quote() {
    let config = config();
    for run in 0..9 {
        for pad in 0..34 {
            let body = format!(
                r#"{{"status":"success","data":[{{"a":"{}{}"x","b":"z"}}]}}"#,
                "w".repeat(pad),
                "\\".repeat(run)
            );
            let result = same_both_ways(&config, body.as_bytes(), pad % 8 == 0);
            // Even runs close the string before `x`: invalid JSON.
            assert_eq!(result.is_ok(), run % 2 == 1, "{body}");
        }
    }
}

#[test]
fn random_bodies_agree() {
    let config = config();
    let rows = r#"{"id":1,"name":"Müller & Söhne \"GmbH\"","amount":"12.50","at":"2025-01-31 10:00:00","note":null,"path":"C:\\tmp\\x","ok":true,"nested":[1,{"q":"\u00e9"}]}"#;
    let base = format!(r#"{{"status":"success","data":[{rows},{rows},{rows}]}}"#);
    let specials = [
        b'"', b'\\', b'{', b'}', b'[', b']', b',', 0x00, 0x1F, 0x80, 0xC3, 0xFF,
    ];
    let mut random = Xorshift(0x2545_F491_4F6C_DD1D);
    let mut next = || random.next_u64();
    let mut decoded = 0;
    for _ in 0..600 {
        let mut body = base.as_bytes().to_vec();
        for _ in 0..1 + next() % 3 {
            let at = (next() as usize) % body.len();
            body[at] = specials[(next() as usize) % specials.len()];
        }
        let result = same_both_ways(&config, &body, false);
        decoded += usize::from(result.is_ok());
        let (a, b) = (next() as usize % body.len(), next() as usize % body.len());
        let (a, b) = (a.min(b), a.max(b));
        set_scalar_only(true);
        let scalar = decode(&config, &[&body[..a], &body[a..b], &body[b..]]);
        set_scalar_only(false);
        assert_eq!(
            decode(&config, &[&body[..a], &body[a..b], &body[b..]]),
            scalar
        );
        assert_eq!(scalar, result, "cut at {a} and {b}");
    }
    // Some mutations leave a valid body: both outcomes were compared.
    assert!(decoded > 0);
}
