//! Table decoding throughput on a generated 1M-row `sales_invoice` answer.
//!
//! ```text
//! cargo bench -p erpdata --features arrow --bench decode -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! Groups (bytes of body per second):
//! - `serde_ignored`: `serde_json::from_slice::<IgnoredAny>`, the floor —
//!   checking the JSON and keeping nothing;
//! - `columns`: [`TableDecoder`] fed 64 KiB chunks, batches of 65,536 rows
//!   of typed columns;
//! - `arrow`: the same, each batch moved into an Arrow `RecordBatch`
//!   (feature `arrow`; skipped without it);
//! - `rows`: [`Config::parse_table`], every cell an owned [`erpdata::Cell`];
//! - `parallel_{1,2}_columns`, `parallel_{1,2}_arrow` (feature `parallel`):
//!   [`TableDecoder::decode_parallel`] on a pool of 1 or 2 threads, the
//!   body in memory; to Arrow with `decode_parallel_map`, each batch
//!   converted on the pool's threads too.
//!
//! ```text
//! cargo bench -p erpdata --features arrow,parallel --bench decode -- --warm-up-time 1 --measurement-time 5
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use erpdata::{Config, DecoderOptions, TableDecoder};

const ROWS: usize = 1_000_000;
const CHUNK: usize = 64 * 1024;

/// A deterministic answer as a PHP service's `json_encode` writes it
/// (non-ASCII as `\u` escapes, amounts with two decimals).
fn body(rows: usize) -> Vec<u8> {
    const NAMES: [&str; 5] = [
        "M\\u00fcller GmbH",
        "Acme Corp",
        "Soci\\u00e9t\\u00e9 G\\u00e9n\\u00e9rale",
        "Blue Sky Ltd",
        "Tanaka & Sons",
    ];
    const CURRENCIES: [&str; 3] = ["USD", "EUR", "GBP"];
    let mut out = String::with_capacity(rows * 240);
    out.push_str(r#"{"status":"success","data":["#);
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..rows {
        if i > 0 {
            out.push(',');
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let day = (i / 2_800) % 365;
        let (month, dom) = month_day(day);
        let (due_month, due_dom) = month_day((day + 30) % 365);
        let customer = (state % 200) as usize + 1;
        let cents = 1_000 + state % 9_999_000;
        let tax = cents / 10;
        let total = cents + tax;
        out.push_str(&format!(
            r#"{{"invoice_no":"INV-2025-{:07}","date":"2025-{month:02}-{dom:02}","due_date":"2025-{due_month:02}-{due_dom:02}","customer":"C{customer:03}","customer_name":"{}","amount":{}.{:02},"tax":{}.{:02},"total":{}.{:02},"currency":"{}"}}"#,
            i + 1,
            NAMES[customer % NAMES.len()],
            cents / 100,
            cents % 100,
            tax / 100,
            tax % 100,
            total / 100,
            total % 100,
            CURRENCIES[(customer / 7) % CURRENCIES.len()],
        ));
    }
    out.push_str("]}");
    out.into_bytes()
}

fn month_day(day_of_year: usize) -> (usize, usize) {
    const DAYS: [usize; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = day_of_year;
    for (m, len) in DAYS.iter().enumerate() {
        if d < *len {
            return (m + 1, d + 1);
        }
        d -= len;
    }
    (12, 31)
}

fn config() -> Config {
    Config::builder("https://erp.example.com/")
        .project("demo")
        .access_token("bench-token")
        .build()
        .expect("a valid config")
}

/// Feeds `body` in chunks; `each` consumes every batch.
fn decode(config: &Config, body: &[u8], mut each: impl FnMut(erpdata::Batch)) -> u64 {
    let mut d = TableDecoder::new(config, 200, DecoderOptions::default());
    for chunk in body.chunks(CHUNK) {
        for b in d.feed(chunk).expect("decodes") {
            each(b);
        }
    }
    let f = d.finish().expect("decodes");
    for b in f.batches {
        each(b);
    }
    f.total_rows
}

fn benches(c: &mut Criterion) {
    let body = body(ROWS);
    let config = config();
    assert_eq!(decode(&config, &body, |_| {}), ROWS as u64);
    let mut group = c.benchmark_group("decode_sales_invoice_1m");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(body.len() as u64));

    group.bench_function("serde_ignored", |b| {
        b.iter(|| {
            serde_json::from_slice::<serde::de::IgnoredAny>(&body).expect("valid JSON");
        })
    });
    group.bench_function("columns", |b| {
        b.iter(|| decode(&config, &body, drop));
    });
    #[cfg(feature = "arrow")]
    group.bench_function("arrow", |b| {
        b.iter(|| {
            decode(&config, &body, |batch| {
                drop(batch.into_record_batch().expect("converts"));
            })
        });
    });
    group.bench_function("rows", |b| {
        b.iter(|| config.parse_table(200, &body).expect("parses").rows.len());
    });
    #[cfg(feature = "parallel")]
    parallel_benches(&mut group, &config, &body);
    group.finish();
}

#[cfg(feature = "parallel")]
fn parallel_benches(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    config: &Config,
    body: &[u8],
) {
    use erpdata::ParallelOptions;

    let options = DecoderOptions::default();
    let on = |threads| ParallelOptions {
        threads: Some(threads),
        ..ParallelOptions::default()
    };
    let mut sequential = Vec::new();
    decode(config, body, |b| sequential.push(b));
    let split = TableDecoder::decode_parallel(config, 200, body, options, on(2)).expect("decodes");
    assert!(split.batches == sequential, "the same batches on 2 threads");
    drop((split, sequential));

    for threads in [1, 2] {
        group.bench_function(format!("parallel_{threads}_columns"), |b| {
            b.iter(|| {
                TableDecoder::decode_parallel(config, 200, body, options, on(threads))
                    .expect("decodes")
                    .total_rows
            });
        });
        #[cfg(feature = "arrow")]
        group.bench_function(format!("parallel_{threads}_arrow"), |b| {
            b.iter(|| {
                TableDecoder::decode_parallel_map(
                    config,
                    200,
                    body,
                    options,
                    on(threads),
                    |batch| batch.into_record_batch().expect("converts"),
                )
                .expect("decodes")
                .total_rows
            });
        });
    }
}

criterion_group!(decode_benches, benches);
criterion_main!(decode_benches);
