//! The streaming table decoder: the shared vectors fed whole, byte by byte
//! and cut at random points; generated tables; column inference; truncation.

use crate::common;

use common::config;

use erpdata::{
    unify_schemas, Batch, Cell, ColumnData, ColumnType, Config, DecoderOptions, Error, Row,
    TableDecoder,
};
use proptest::prelude::*;
use serde_json::Value;

/// Everything a streamed answer gives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Streamed {
    batches: Vec<Batch>,
    notices: Vec<String>,
    total_rows: u64,
}

fn stream<'a>(
    status: u16,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    batch_rows: usize,
) -> Result<Streamed, Error> {
    stream_as(&config(), status, chunks, batch_rows)
}

/// [`stream`] with a config of its own (a vector's token).
fn stream_as<'a>(
    config: &Config,
    status: u16,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    batch_rows: usize,
) -> Result<Streamed, Error> {
    let mut d = TableDecoder::new(config, status, DecoderOptions::with_batch_rows(batch_rows));
    let mut batches = Vec::new();
    for chunk in chunks {
        batches.extend(d.feed(chunk)?);
    }
    let f = d.finish()?;
    batches.extend(f.batches);
    Ok(Streamed {
        batches,
        notices: f.notices,
        total_rows: f.total_rows,
    })
}

/// `body` cut at the given points (sorted, deduplicated, in range).
fn pieces<'a>(body: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(body.len())).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut from = 0;
    for c in cuts {
        out.push(&body[from..c]);
        from = c;
    }
    out.push(&body[from..]);
    out
}

fn whole(status: u16, body: &[u8], batch_rows: usize) -> Result<Streamed, Error> {
    stream(status, [body], batch_rows)
}

fn bytewise(status: u16, body: &[u8], batch_rows: usize) -> Result<Streamed, Error> {
    stream(status, body.chunks(1), batch_rows)
}

// ---- comparing typed rows with exact ones --------------------------------

/// A number's value as `digits e exponent`, without the text's form.
fn canonical(text: &str) -> String {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => match t[i + 1..].parse::<i64>() {
            Ok(exp) => (&t[..i], exp),
            // An exponent past i64 (a damaged body can make `1234e5678…`
            // of a long number): the text is its own form, as the decoder
            // keeps it.
            Err(_) => return text.to_owned(),
        },
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = format!("{int}{frac}").trim_start_matches('0').to_owned();
    let mut exp = exp - frac.len() as i64;
    if digits.is_empty() {
        return "0".into();
    }
    while digits.ends_with('0') {
        digits.pop();
        exp += 1;
    }
    format!("{}{digits}e{exp}", if neg { "-" } else { "" })
}

/// The same value, whichever type its column got: a batch types its
/// column from its own rows, the whole table from all of them, so a
/// number sent as a string may be a number in one and a string in the
/// other, and a zero date null in one and its text in the other.
fn same_cell(expected: &Cell, got: &Cell) -> bool {
    let num = |c: &Cell| match c {
        Cell::Int(i) => Some(i.to_string()),
        Cell::Number(t) => Some(t.clone()),
        Cell::String(s)
            if s.parse::<f64>().is_ok()
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || b"-+.eE".contains(&b)) =>
        {
            Some(s.clone())
        }
        _ => None,
    };
    let zero = |c: &Cell| {
        matches!(c, Cell::Null) || matches!(c, Cell::String(s) if s.starts_with("0000-00-00"))
    };
    let text = |c: &Cell| match c {
        Cell::Bool(b) => Some(b.to_string()),
        Cell::Int(i) => Some(i.to_string()),
        Cell::Number(t) | Cell::String(t) | Cell::Json(t) => Some(t.clone()),
        Cell::Null => None,
    };
    match (num(expected), num(got)) {
        (Some(a), Some(b)) => canonical(&a) == canonical(&b),
        _ => expected == got || (zero(expected) && zero(got)) || text(expected) == text(got),
    }
}

/// Typed batches read back as rows agree with the exact rows: every
/// expected key is a column with the same value (numbers by value); every
/// other column is null in that row.
fn assert_batches_match(batches: &[Batch], rows: &[Row], context: &str) {
    let got: Vec<Row> = batches.iter().flat_map(Batch::rows).collect();
    assert_eq!(got.len(), rows.len(), "{context}: row count");
    for (i, (g, e)) in got.iter().zip(rows).enumerate() {
        for (k, v) in &e.fields {
            let cell = g
                .get(k)
                .unwrap_or_else(|| panic!("{context}: row {i} lacks column {k}"));
            assert!(
                same_cell(v, cell),
                "{context}: row {i} {k}: expected {v:?}, got {cell:?}"
            );
        }
        for (k, v) in &g.fields {
            if e.get(k).is_none() {
                assert_eq!(*v, Cell::Null, "{context}: row {i} {k} should be null");
            }
        }
    }
}

// ---- the shared vectors ----------------------------------------------------

fn table_vectors() -> Vec<Value> {
    common::cases("responses")
        .into_iter()
        .filter(|c| c["call"] == "table")
        .collect()
}

fn expected_cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Bool(*b),
        Value::String(s) => Cell::String(s.clone()),
        Value::Object(o) if o.contains_key("$number") => {
            let t = o["$number"].as_str().unwrap();
            Cell::Number(t.to_owned())
        }
        Value::Object(o) => Cell::Json(o["$json"].as_str().unwrap().to_owned()),
        other => panic!("unexpected {other}"),
    }
}

fn check_vector(case: &Value, result: &Result<Streamed, Error>) {
    let name = case["name"].as_str().unwrap();
    if let Some(expected) = case.get("expect_error") {
        let err = result
            .as_ref()
            .expect_err(&format!("{name}: expected an error"));
        assert_eq!(err.kind(), expected["kind"], "{name}: {err}");
        common::assert_message_contains(expected, &err.to_string(), name);
        if let Some(s) = expected.get("status") {
            match (err, s) {
                (Error::HttpStatus { status, .. }, Value::Number(n)) => {
                    assert_eq!(u64::from(*status), n.as_u64().unwrap(), "{name}")
                }
                (Error::Service { status, .. }, Value::String(s)) => {
                    assert_eq!(status, s, "{name}")
                }
                _ => panic!("{name}: status {s} does not fit {err:?}"),
            }
        }
        let text = format!("{err} {err:?}");
        common::assert_not_contains(expected, &text, name);
        return;
    }
    let got = result.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
    let expect = &case["expect"];
    let rows: Vec<Row> = expect["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Row {
            fields: r
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), expected_cell(v)))
                .collect(),
        })
        .collect();
    assert_batches_match(&got.batches, &rows, name);
    assert_eq!(got.total_rows, rows.len() as u64, "{name}");
    let columns: Vec<String> = got
        .batches
        .last()
        .map(|b| b.columns.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default();
    assert_eq!(Value::from(columns), expect["columns"], "{name}");
    assert_eq!(
        Value::from(got.notices.clone()),
        expect["notices"],
        "{name}"
    );
}

#[test]
fn vectors_whole_and_byte_by_byte() {
    let cases = table_vectors();
    assert!(cases.len() > 30);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let status = case["response"]["status"].as_u64().unwrap() as u16;
        let body = common::body(case);
        let config = common::case_config(case);
        let stream =
            |chunks: Vec<&[u8]>, batch_rows| stream_as(&config, status, chunks, batch_rows);
        let whole = stream(vec![&body], 65_536);
        check_vector(case, &whole);
        for batch_rows in [1, 2, 65_536] {
            let w = stream(vec![&body], batch_rows);
            let b = stream(body.chunks(1).collect(), batch_rows);
            assert_eq!(w, b, "{name}: byte by byte, batches of {batch_rows}");
            check_vector(case, &b);
        }
        // Every single cut point, too.
        for cut in 0..=body.len() {
            let r = stream(pieces(&body, &[cut]), 65_536);
            assert_eq!(r, whole, "{name}: cut at {cut}");
        }
        // The whole-body parser runs the same decoder.
        match (config.parse_table(status, &body), &whole) {
            (Ok(t), Ok(s)) => {
                assert_eq!(t.notices, s.notices, "{name}");
                assert_eq!(t.rows.len() as u64, s.total_rows, "{name}");
                assert_batches_match(&s.batches, &t.rows, name);
            }
            (Err(a), Err(b)) => assert_eq!(&a, b, "{name}"),
            (a, b) => panic!("{name}: parse_table {a:?} but streaming {b:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn vectors_split_at_random_points(
        index in 0usize..1000,
        cuts in proptest::collection::vec(0usize..400, 0..12),
        batch_rows in 1usize..4,
    ) {
        let cases = table_vectors();
        let case = &cases[index % cases.len()];
        let status = case["response"]["status"].as_u64().unwrap() as u16;
        let body = common::body(case);
        let config = common::case_config(case);
        let w = stream_as(&config, status, [&body[..]], batch_rows);
        let s = stream_as(&config, status, pieces(&body, &cuts), batch_rows);
        prop_assert_eq!(&s, &w);
        check_vector(case, &s);
    }
}

// ---- generated tables ----------------------------------------------------

/// A generated value: how it is written, and the cell the row path makes.
#[derive(Debug, Clone)]
struct Gen {
    json: String,
    cell: Cell,
}

fn string_gen() -> impl Strategy<Value = Gen> {
    let chars = prop::sample::select(vec![
        'a', 'Z', '0', ' ', '-', '"', '\\', '/', '\n', '\t', '\u{1}', '\u{1f}', 'é', 'ü', '€',
        '😀', '\u{2028}', '\u{7f}', '<',
    ]);
    (
        proptest::collection::vec((chars, 0u8..4), 0..12),
        any::<bool>(),
    )
        .prop_map(|(chars, _)| {
            let mut json = String::from("\"");
            let mut text = String::new();
            for (c, style) in chars {
                text.push(c);
                match c {
                    '"' => json.push_str("\\\""),
                    '\\' => json.push_str("\\\\"),
                    '/' if style == 0 => json.push_str("\\/"),
                    '\n' if style < 2 => json.push_str("\\n"),
                    '\t' if style < 2 => json.push_str("\\t"),
                    c if (c as u32) < 0x20 => json.push_str(&format!("\\u{:04x}", c as u32)),
                    // PHP's json_encode writes non-ASCII as \u escapes,
                    // surrogate pairs for the astral planes.
                    c if !c.is_ascii() && style >= 2 => {
                        let mut units = [0u16; 2];
                        for u in c.encode_utf16(&mut units) {
                            json.push_str(&format!("\\u{:04X}", u));
                        }
                    }
                    c => json.push(c),
                }
            }
            json.push('"');
            Gen {
                json,
                cell: Cell::String(text),
            }
        })
}

fn number_cell(text: &str) -> Cell {
    let integral = !text.contains(['.', 'e', 'E']);
    if integral && text != "-0" {
        if let Ok(n) = text.parse::<i64>() {
            return Cell::Int(n);
        }
    }
    Cell::Number(text.to_owned())
}

fn number_gen() -> impl Strategy<Value = Gen> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        (1i64..10_000, 0u32..3).prop_map(|(i, s)| i.to_string() + &"0".repeat(s as usize)),
        (-1_000_000i64..1_000_000, 0u32..100, 1usize..4)
            .prop_map(|(i, f, w)| { format!("{i}.{:0w$}", f % 10u32.pow(w as u32)) }),
        prop::sample::select(vec![
            "1e-7",
            "2.5E+3",
            "-0",
            "-0.00",
            "0.1",
            "12345678901234567890",
            "1E2",
            "-1.5e-3",
            "123456789012345678901234567890123456789",
            "1e400",
            "0",
        ])
        .prop_map(str::to_owned),
    ]
    .prop_map(|t| Gen {
        cell: number_cell(&t),
        json: t,
    })
}

fn date_gen() -> impl Strategy<Value = Gen> {
    prop_oneof![
        (1990u32..2040, 1u32..13, 1u32..29).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
        prop::sample::select(vec!["2025-02-30", "0000-00-00", "2024-02-29", "2025-1-5"])
            .prop_map(str::to_owned),
    ]
    .prop_map(|t| Gen {
        json: format!("\"{t}\""),
        cell: Cell::String(t),
    })
}

fn nested_gen() -> impl Strategy<Value = Gen> {
    prop::sample::select(vec![
        "[1,\"a\"]",
        "{\"x\":1.50,\"y\":null}",
        "{ \"deep\" : [ [ ] , { } , \"}\" ] }",
        "[]",
        "{}",
        "[\"\\u00fc\\\"]\", -0.0e+1, true]",
    ])
    .prop_map(|t| Gen {
        json: t.to_owned(),
        cell: Cell::Json(t.to_owned()),
    })
}

fn value_gen() -> impl Strategy<Value = Gen> {
    prop_oneof![
        4 => string_gen(),
        4 => number_gen(),
        3 => date_gen(),
        1 => any::<bool>().prop_map(|b| Gen { json: b.to_string(), cell: Cell::Bool(b) }),
        1 => Just(Gen { json: "null".into(), cell: Cell::Null }),
        1 => nested_gen(),
    ]
}

/// Per column, one kind of value most of the time (as a real table), with
/// some mixing.
fn column_values(kind: u8) -> BoxedStrategy<Gen> {
    match kind {
        0 => string_gen().boxed(),
        1 => number_gen().boxed(),
        2 => date_gen().boxed(),
        _ => value_gen().boxed(),
    }
}

const KEYS: [&str; 7] = [
    "invoice_no",
    "date",
    "amount",
    "note",
    "M\u{fc}ller",
    "x y",
    "n",
];

#[derive(Debug, Clone)]
struct GenTable {
    body: Vec<u8>,
    rows: Vec<Row>,
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\n", "\r\n\t "])
}

fn table_gen() -> impl Strategy<Value = GenTable> {
    let kinds = proptest::collection::vec(0u8..4, KEYS.len());
    kinds
        .prop_flat_map(|kinds| {
            let cell = (0..KEYS.len(), any::<u8>()).prop_flat_map(move |(k, r)| {
                let kind = if r < 200 { kinds[k] } else { 3 };
                (Just(k), column_values(kind), ws(), any::<bool>())
            });
            let row = proptest::collection::vec(cell, 0..9);
            (
                proptest::collection::vec(row, 0..40),
                0u8..6,
                ws(),
                any::<bool>(),
            )
        })
        .prop_map(|(rows, layout, space, escape_keys)| {
            let mut body = String::new();
            let mut expected = Vec::new();
            let mut data = String::new();
            let keyed = layout == 1;
            data.push(if keyed { '{' } else { '[' });
            for (i, row) in rows.iter().enumerate() {
                if i > 0 {
                    data.push(',');
                    data.push_str(space);
                }
                if keyed {
                    data.push_str(&format!("\"{}\":", i * 2));
                }
                data.push('{');
                let mut fields: Vec<(String, Cell)> = Vec::new();
                for (j, (k, gen, sp, dup_order)) in row.iter().enumerate() {
                    let key = KEYS[*k];
                    if j > 0 {
                        data.push(',');
                    }
                    data.push_str(sp);
                    let key_json = if escape_keys || *dup_order {
                        serde_json::to_string(key).unwrap().replace('\u{fc}', "\\u00fc")
                    } else {
                        serde_json::to_string(key).unwrap()
                    };
                    data.push_str(&key_json);
                    data.push_str(sp);
                    data.push(':');
                    data.push_str(&gen.json);
                    match fields.iter_mut().find(|(f, _)| f == key) {
                        Some(slot) => slot.1 = gen.cell.clone(),
                        None => fields.push((key.to_owned(), gen.cell.clone())),
                    }
                }
                data.push('}');
                expected.push(Row { fields });
            }
            data.push(if keyed { '}' } else { ']' });
            match layout {
                // Keys in another order: rows are held until the status.
                2 => body.push_str(&format!(
                    "{{\"data\":{data},{space}\"count\":{},\"status\":\"Success\"}}",
                    rows.len()
                )),
                3 => body.push_str(&format!(
                    "\u{feff}<br />\n<b>Notice</b>:  Undefined index: x in <b>/a.php</b> on line <b>3</b><br />\n{{\"status\":\"success\",\"data\":{data}}}\n"
                )),
                4 => body.push_str(&format!(
                    "{{ \"status\" : \"success\" , \"meta\" : {{\"a\":[1,{{}}]}} , \"data\" : {data} }}"
                )),
                _ => body.push_str(&format!("{{\"status\":\"success\",{space}\"data\":{data}}}")),
            }
            GenTable {
                body: body.into_bytes(),
                rows: expected,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generated_tables_split_anywhere(
        t in table_gen(),
        cuts in proptest::collection::vec(0usize..4000, 0..20),
        batch_rows in 1usize..8,
    ) {
        let cfg = config();
        let table = cfg.parse_table(200, &t.body).unwrap();
        prop_assert_eq!(table.rows.len(), t.rows.len());
        for (got, sent) in table.rows.iter().zip(&t.rows) {
            let keys = |r: &Row| r.fields.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            prop_assert_eq!(keys(got), keys(sent));
            for ((_, g), (_, e)) in got.fields.iter().zip(&sent.fields) {
                prop_assert!(same_cell(e, g), "{:?} for {:?}", g, e);
            }
        }
        let w = whole(200, &t.body, batch_rows).unwrap();
        prop_assert_eq!(w.total_rows, t.rows.len() as u64);
        assert_batches_match(&w.batches, &t.rows, "generated");
        let s = stream(200, pieces(&t.body, &cuts), batch_rows).unwrap();
        prop_assert_eq!(&s, &w);
        // Every batch's columns start with the previous batch's.
        for pair in w.batches.windows(2) {
            let a: Vec<_> = pair[0].columns.iter().map(|c| &c.name).collect();
            let b: Vec<_> = pair[1].columns.iter().map(|c| &c.name).collect();
            prop_assert_eq!(&a[..], &b[..a.len()]);
        }
        // A schema unified over all batches holds every batch.
        let schema = w.batches.iter().fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
        for b in &w.batches {
            let cast = b.cast(&schema).expect("unified schema holds the batch");
            let rows: Vec<Row> = b.rows().collect();
            assert_batches_match(&[cast], &rows, "cast");
        }
    }

    #[test]
    fn damaged_bodies_fail_alike_however_split(
        t in table_gen(),
        damage in 0u8..4,
        at in 0usize..4000,
        byte in any::<u8>(),
        cuts in proptest::collection::vec(0usize..4000, 0..20),
    ) {
        let mut body = t.body.clone();
        let at = at % (body.len() + 1);
        match damage {
            0 => body.truncate(at),
            1 => body.insert(at, byte),
            2 if at < body.len() => body[at] = byte,
            _ => { body.drain(at..(at + 3).min(body.len())); }
        }
        let w = whole(200, &body, 3);
        let s = stream(200, pieces(&body, &cuts), 3);
        prop_assert_eq!(&s, &w);
        let b = bytewise(200, &body, 3);
        prop_assert_eq!(&b, &w);
        match (config().parse_table(200, &body), &w) {
            (Ok(table), Ok(s)) => {
                prop_assert_eq!(table.rows.len() as u64, s.total_rows);
                assert_batches_match(&s.batches, &table.rows, "damaged");
            }
            (Err(a), Err(b)) => prop_assert_eq!(&a, b),
            (a, b) => prop_assert!(false, "parse_table {:?} but streaming {:?}", a, b),
        }
        if damage == 0 && at < t.body.len() && !t.body[at..].iter().all(u8::is_ascii_whitespace) {
            let err = w.unwrap_err();
            prop_assert_eq!(err.kind(), "decode");
        }
    }
}

/// Found by the `simd` fuzz target: a body that is HTML with control bytes
/// broke off at a place before the bytes the decoder still kept, and
/// showing that place subtracted past zero (a panic, or an index out of
/// range without overflow checks). It fails alike however it is split.
#[test]
fn a_body_breaking_off_before_the_kept_bytes_is_an_error_not_a_panic() {
    let mut body = b"<!DOCTYPE html><htitle></head><body>".to_vec();
    body.extend([0u8; 59]);
    body.extend(b"\x02U\xaa<ht\x00\x00\x00\x00\x00\x00\x00?\x00\x00\x00\x00\x00\x00");
    body.extend([5u8; 16]);
    body.extend(b"\x00\x00\x00\x00oops</body></");
    body.extend([5u8; 7]);
    body.push(b'h');
    body.extend([5u8; 65]);
    body.extend(b"tml\x05");
    let w = whole(200, &body, 1);
    let err = w.as_ref().expect_err("not a table answer");
    assert_eq!(err.kind(), "decode", "{err}");
    assert_eq!(bytewise(200, &body, 1), w);
    for a in 0..=body.len() {
        for b in [a, a + 17, a + 73, body.len()] {
            let b = b.min(body.len());
            assert_eq!(
                stream(200, pieces(&body, &[a, b]), 1),
                w,
                "cut at {a} and {b}"
            );
        }
    }
}

// ---- truncation ------------------------------------------------------------

fn sales_body(rows: usize) -> Vec<u8> {
    let mut body = String::from("{\"status\":\"success\",\"data\":[");
    for i in 0..rows {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&format!(
            "{{\"invoice_no\":\"INV-2025-{i:07}\",\"date\":\"2025-01-{:02}\",\"customer\":\"C{:03}\",\
             \"customer_name\":\"M\\u00fcller GmbH \u{20ac}\",\"amount\":{}.{:02},\"paid\":{},\"note\":null}}",
            i % 28 + 1,
            i % 500,
            1000 + i % 9000,
            i % 100,
            i % 3 == 0
        ));
    }
    body.push_str("]}");
    body.into_bytes()
}

#[test]
fn a_body_cut_anywhere_is_truncated_never_ok() {
    let body = sales_body(2_000);
    assert!(body.len() > 250_000);
    let mut cuts = 0;
    for cut in (997..body.len()).step_by(997) {
        let err = whole(200, &body[..cut], 1_000).expect_err("a cut body is never Ok");
        let Error::Decode { reason, .. } = &err else {
            panic!("cut at {cut}: {err:?}")
        };
        assert!(reason.contains("truncated"), "cut at {cut}: {reason}");
        let Error::Decode { reason: r2, .. } = config().parse_table(200, &body[..cut]).unwrap_err()
        else {
            panic!()
        };
        assert_eq!(&r2, reason);
        cuts += 1;
    }
    assert!(cuts > 250);
    let err = whole(200, &body[..body.len() - 1], 1_000).unwrap_err();
    assert!(
        err.to_string()
            .contains("truncated after 2000 complete rows"),
        "{err}"
    );
    let ok = whole(200, &body, 1_000).unwrap();
    assert_eq!(ok.total_rows, 2_000);
    assert_eq!(ok.batches.len(), 2);
}

#[test]
fn rows_go_out_as_batches_complete() {
    let body = sales_body(100);
    let mut d = TableDecoder::new(&config(), 200, DecoderOptions::with_batch_rows(10));
    let mut seen = 0;
    for chunk in body.chunks(512) {
        let batches = d.feed(chunk).unwrap();
        for b in &batches {
            assert_eq!(b.num_rows, 10);
        }
        seen += batches.len();
        assert!(d.rows() as usize >= seen * 10);
    }
    let f = d.finish().unwrap();
    assert_eq!(seen + f.batches.len(), 10);
    assert_eq!(f.total_rows, 100);
}

#[test]
fn rows_before_the_status_are_held_until_it_is_known() {
    let rows: String = (0..50)
        .map(|i| format!("{{\"n\":{i}}}"))
        .collect::<Vec<_>>()
        .join(",");
    let ok = format!("{{\"data\":[{rows}],\"status\":\"success\"}}");
    let mut d = TableDecoder::new(&config(), 200, DecoderOptions::with_batch_rows(10));
    let half = ok.len() - 25;
    assert!(
        d.feed(&ok.as_bytes()[..half]).unwrap().is_empty(),
        "status unknown"
    );
    let released = d.feed(&ok.as_bytes()[half..]).unwrap();
    assert_eq!(released.len(), 5, "released with the status");
    assert!(d.finish().unwrap().batches.is_empty());

    let failed = format!("{{\"data\":[{rows}],\"status\":\"error\",\"message\":\"no\"}}");
    let mut d = TableDecoder::new(&config(), 200, DecoderOptions::with_batch_rows(10));
    assert!(d.feed(failed.as_bytes()).unwrap().is_empty());
    let err = d.finish().unwrap_err();
    assert!(
        matches!(err, Error::Service { ref message, .. } if message == "no"),
        "{err:?}"
    );

    // A status that changes after rows went out fails the whole answer.
    let flipped = format!("{{\"status\":\"success\",\"data\":[{rows}],\"status\":\"error\"}}");
    let mut d = TableDecoder::new(&config(), 200, DecoderOptions::with_batch_rows(10));
    assert_eq!(d.feed(flipped.as_bytes()).unwrap().len(), 5);
    assert_eq!(d.finish().unwrap_err().kind(), "service");
    assert_eq!(
        config()
            .parse_table(200, flipped.as_bytes())
            .unwrap_err()
            .kind(),
        "service"
    );
}

#[test]
fn a_second_data_field_fails_whatever_the_batches() {
    // Whether rows were handed out before the second `data` or not: the
    // same error from the whole-body parser and from streams of any batch.
    for body in [
        &br#"{"status":"success","data":false,"data":[{"a":1}]}"#[..],
        br#"{"status":"success","data":[{"a":1}],"data":[]}"#,
        br#"{"status":"success","data":[{"a":1},{"a":2}],"data":[{"a":1}]}"#,
    ] {
        let err = config().parse_table(200, body).unwrap_err();
        assert!(err.to_string().contains("two `data` fields"), "{err}");
        for batch in [1, 10] {
            let err = whole(200, body, batch).unwrap_err();
            assert!(err.to_string().contains("two `data` fields"), "{err}");
        }
    }
}

#[test]
fn http_errors_carry_an_excerpt_of_the_first_bytes() {
    let body = format!(
        "Bad request: accesstoken=fake-token-for-tests {}",
        "x".repeat(10_000)
    );
    let a = whole(400, body.as_bytes(), 10).unwrap_err();
    let b = bytewise(400, body.as_bytes(), 10).unwrap_err();
    assert_eq!(a, b);
    let Error::HttpStatus {
        status, excerpt, ..
    } = &a
    else {
        panic!("{a:?}")
    };
    assert_eq!(*status, 400);
    assert!(excerpt.starts_with("Bad request: accesstoken=[REDACTED] xxx"));
    // The error comes as soon as the excerpt's bytes are in.
    let mut d = TableDecoder::new(&config(), 503, DecoderOptions::default());
    assert!(d.feed(&body.as_bytes()[..100]).is_ok());
    assert!(d.feed(&body.as_bytes()[100..]).is_err());
    assert!(d.finish().is_err());
}

#[test]
fn errors_name_the_first_problem() {
    let cases: [(&[u8], &str); 12] = [
        (
            br#"{"status":"success","data":[{"a":"\ud800"}]}"#,
            "row 1, field \"a\": lone surrogate",
        ),
        (
            br#"{"status":"success","data":[{"a":1}] "#,
            "truncated after 1 complete row",
        ),
        (
            b"{\"status\":\"success\",\"data\":[{\"a\":\"\xc3",
            "truncated",
        ),
        (b"{\"status\":\"success\",\"data\":[]}\xc2\xa0\n", ""),
        (
            b"{\"status\":\"success\",\"data\":[]} \xc3\xa9",
            "trailing characters at byte 31",
        ),
        (
            b"{\"status\":\"success\",\"data\":[]}\xff",
            "not valid UTF-8 (at byte 30)",
        ),
        (b"\xc2\xa0 {\"status\":\"success\",\"data\":[]}", ""),
        (
            br#"{"status":"success","data":[{"a":1.}]}"#,
            "invalid number at byte 35",
        ),
        (
            br#"{"status":"success","data":{"1":{},"x":5}}"#,
            "key \"x\" is not a row number",
        ),
        (
            br#"{"status":"success","data":[{}, []]}"#,
            "row 2 is an array",
        ),
        (br#"{"status":true,"data":[]}"#, "`status` is a boolean"),
        (b"[1,", "got an array"),
    ];
    for (body, message) in cases {
        let w = whole(200, body, 10);
        let b = bytewise(200, body, 10);
        assert_eq!(w, b, "{}", String::from_utf8_lossy(body));
        match w {
            Ok(_) => assert_eq!(message, "", "{}", String::from_utf8_lossy(body)),
            Err(e) => assert!(
                e.to_string().contains(message) && !message.is_empty(),
                "{}: {e}",
                String::from_utf8_lossy(body)
            ),
        }
    }
}

// ---- column inference ------------------------------------------------------

fn batches(body: &str, batch_rows: usize) -> Vec<Batch> {
    whole(200, body.as_bytes(), batch_rows).unwrap().batches
}

fn data(rows: &str) -> String {
    format!("{{\"status\":\"success\",\"data\":[{rows}]}}")
}

#[test]
fn column_types_are_inferred_per_batch() {
    let b = &batches(
        &data(
            r#"{"i":1,"d":1234.50,"s":"1234.50","t":"2025-01-05","b":true,"n":null,"j":[1],"m":1},
               {"i":-2,"d":0.125,"s":"x","t":"2025-02-30","b":false,"n":null,"j":{"a":1},"m":"one"}"#,
        ),
        10,
    )[0];
    let types: Vec<ColumnType> = b.columns.iter().map(|c| c.column_type()).collect();
    assert_eq!(
        types,
        [
            ColumnType::Int,
            ColumnType::Decimal {
                precision: 38,
                scale: 3
            },
            ColumnType::String,
            ColumnType::String,
            ColumnType::Bool,
            ColumnType::Null,
            ColumnType::Json,
            ColumnType::String,
        ]
    );
    assert_eq!(b.cell("d", 0), Cell::Number("1234.50".into()));
    assert_eq!(b.cell("t", 1), Cell::String("2025-02-30".into()));
    assert_eq!(b.cell("t", 0), Cell::String("2025-01-05".into()));
    assert_eq!(b.cell("j", 1), Cell::Json("{\"a\":1}".into()));
    assert_eq!(b.cell("m", 0), Cell::String("1".into()));
    assert_eq!(b.cell("m", 1), Cell::String("one".into()));
    let ColumnData::Decimal { values, .. } = &b.column("d").unwrap().data else {
        panic!()
    };
    assert_eq!(values, &[1_234_500, 125]);

    let dates = &batches(&data(r#"{"t":"2025-01-05"},{"t":null},{"x":1}"#), 10)[0];
    let t = dates.column("t").unwrap();
    assert_eq!(t.column_type(), ColumnType::Date);
    let ColumnData::Date { values, validity } = &t.data else {
        panic!()
    };
    assert_eq!(values[0], 20_093);
    let v = validity.as_ref().unwrap();
    assert_eq!((v.get(0), v.get(1), v.get(2)), (true, false, false));
    // A key first seen in the last row: back-filled with nulls.
    let x = dates.column("x").unwrap();
    assert_eq!(x.data.null_count(), 2);
    assert_eq!(x.cell(2), Cell::Int(1));
}

#[test]
fn decimal_scales_and_exponents() {
    let b = &batches(&data(r#"{"a":1e-7},{"a":2.5E+3},{"a":-0.00},{"a":3}"#), 10)[0];
    let a = b.column("a").unwrap();
    assert_eq!(
        a.column_type(),
        ColumnType::Decimal {
            precision: 38,
            scale: 7
        }
    );
    let ColumnData::Decimal { values, .. } = &a.data else {
        panic!()
    };
    assert_eq!(values, &[1, 25_000_000_000, 0, 30_000_000]);
    // Too many digits for 38: the exact texts as strings.
    let b = &batches(
        &data(r#"{"a":1.5},{"a":123456789012345678901234567890123456789}"#),
        10,
    )[0];
    assert_eq!(b.columns[0].column_type(), ColumnType::String);
    assert_eq!(b.cell("a", 0), Cell::String("1.5".into()));
    assert_eq!(
        b.cell("a", 1),
        Cell::String("123456789012345678901234567890123456789".into())
    );
}

#[test]
fn types_unify_across_batches() {
    let bs = batches(
        &data(r#"{"a":1,"t":"2025-01-05"},{"a":2.50,"t":"later"},{"a":null,"t":null,"z":true}"#),
        1,
    );
    assert_eq!(bs.len(), 3);
    assert_eq!(bs[0].columns.len(), 2);
    assert_eq!(bs[2].columns.len(), 3);
    assert_eq!(bs[2].columns[0].column_type(), ColumnType::Null);
    let schema = bs
        .iter()
        .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
    assert_eq!(
        schema,
        [
            (
                "a".to_owned(),
                ColumnType::Decimal {
                    precision: 38,
                    scale: 2
                }
            ),
            ("t".to_owned(), ColumnType::String),
            ("z".to_owned(), ColumnType::Bool),
        ]
    );
    let first = bs[0].cast(&schema).unwrap();
    assert_eq!(first.cell("a", 0), Cell::Number("1".into()));
    let ColumnData::Decimal { values, .. } = &first.column("a").unwrap().data else {
        panic!()
    };
    assert_eq!(values, &[100]);
    assert_eq!(first.cell("t", 0), Cell::String("2025-01-05".into()));
    assert_eq!(first.cell("z", 0), Cell::Null);
    assert!(
        bs[2].cast(&schema[..1]).is_none(),
        "a column the schema lacks"
    );
}
