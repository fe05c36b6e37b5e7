//! Table decoding throughput on the sandbox's 1M-row `sales_invoice`
//! answer (its generator, in memory).
//!
//! Groups (bytes of body per second):
//! - `serde_ignored`: `serde_json::from_slice::<IgnoredAny>`, the floor —
//!   checking the JSON and keeping nothing;
//! - `columns`: [`TableDecoder`] fed 64 KiB chunks, batches of 65,536 rows
//!   of typed columns;
//! - `arrow`: the same, each batch moved into an Arrow `RecordBatch`;
//! - `rows`: [`Config::parse_table`], every cell an owned [`erpdata::Cell`];
//! - `parallel_{1,2}_columns`, `parallel_{1,2}_arrow`:
//!   [`TableDecoder::decode_parallel`] on a pool of 1 or 2 threads, the
//!   body in memory; to Arrow with `decode_parallel_map`, each batch
//!   converted on the pool's threads too.
//!
//! ```text
//! cargo bench -p erpdata-bench --bench decode -- --warm-up-time 1 --measurement-time 5
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use erpdata::Dictionary;
use erpdata_bench::{config, streamed as decode, ROWS};

fn benches(c: &mut Criterion) {
    // Exactly what the sandbox serves for a 1M-row `sales_invoice`.
    let body = erpdata_sandbox::table_body("sales_invoice", ROWS).expect("a sandbox table");
    let config = config();
    assert_eq!(decode(&config, &body, |_| {}), ROWS);
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
    group.bench_function("arrow", |b| {
        b.iter(|| {
            decode(&config, &body, |batch| {
                drop(
                    batch
                        .into_record_batch_with(Dictionary::Auto)
                        .expect("converts"),
                );
            })
        });
    });
    group.bench_function("rows", |b| {
        b.iter(|| config.parse_table(200, &body).expect("parses").rows.len());
    });
    parallel_benches(&mut group, &config, &body);
    group.finish();
}

fn parallel_benches(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    config: &erpdata::Config,
    body: &[u8],
) {
    use erpdata::{DecoderOptions, ParallelOptions, TableDecoder};

    let options = DecoderOptions::default();
    let on = |threads| ParallelOptions {
        threads: Some(threads),
        ..ParallelOptions::default()
    };
    let mut sequential = Vec::new();
    decode(config, body, |b| sequential.push(b));
    let split =
        TableDecoder::decode_parallel(config, 200, body, options.clone(), on(2)).expect("decodes");
    assert!(split.batches == sequential, "the same batches on 2 threads");
    drop((split, sequential));

    for threads in [1, 2] {
        group.bench_function(format!("parallel_{threads}_columns"), |b| {
            b.iter(|| {
                TableDecoder::decode_parallel(config, 200, body, options.clone(), on(threads))
                    .expect("decodes")
                    .total_rows
            });
        });
        group.bench_function(format!("parallel_{threads}_arrow"), |b| {
            b.iter(|| {
                TableDecoder::decode_parallel_map(
                    config,
                    200,
                    body,
                    options.clone(),
                    on(threads),
                    |batch| {
                        batch
                            .into_record_batch_with(Dictionary::Auto)
                            .expect("converts")
                    },
                )
                .expect("decodes")
                .total_rows
            });
        });
    }
}

criterion_group!(decode_benches, benches);
criterion_main!(decode_benches);
