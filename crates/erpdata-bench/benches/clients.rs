//! The Rust clients over loopback HTTP against the HTTP stacks under them:
//! the sandbox's 1M-row `sales_invoice` answer (release build, made once
//! and sent from memory: `--cache-answers`) streamed to Arrow batches, all
//! kept, by `BlockingClient` and `AsyncClient`; the same body read and
//! dropped by ureq and by reqwest (each client's transport floor); and
//! read whole by reqwest and parsed by `serde_json` into a `Value`, what a
//! service without the client would write. Every round runs each once,
//! back to back in a rotating order; medians, least and most are printed.
//!
//! ```text
//! ERPDATA_SANDBOX_BIN=target/release/erpdata-sandbox \
//!   cargo bench -p erpdata-bench --bench clients -- [ROUNDS] [--json FILE]
//! ```

use std::io::Read;
use std::time::Instant;

use erpdata::{AsyncClient, BlockingClient, Dictionary, TableQuery};
use futures_util::TryStreamExt;

// The clients' integration tests start the sandbox the same way.
#[path = "../../erpdata/tests/sandbox/mod.rs"]
mod sandbox;

const ROWS: usize = 1_000_000;

type Contender<'a> = (&'static str, Box<dyn Fn() -> usize + 'a>);

fn contenders<'a>(url: &'a str, rt: &'a tokio::runtime::Runtime) -> Vec<Contender<'a>> {
    let config = sandbox::config(url);
    // The transports alone send the very request the clients send, as
    // the core builds it.
    let request = config
        .table_request(&TableQuery::new("sales_invoice"))
        .expect("a valid query");
    let blocking = BlockingClient::new(config.clone()).expect("a client");
    let async_client = rt.block_on(async { AsyncClient::new(config).expect("a client") });
    let agent = ureq::Agent::new_with_defaults();
    let post = {
        let (http, request) = (reqwest::Client::new(), request.clone());
        move || {
            let request = reqwest::Request::try_from(request.clone()).expect("a request");
            http.execute(request)
        }
    };
    let post_whole = post.clone();
    vec![
        (
            "ureq: the body read and dropped (BlockingClient's floor)",
            Box::new(move || {
                let answer = agent
                    .run(request.clone().map(erpdata::RequestBody::into_vec))
                    .expect("an answer");
                let mut body = answer.into_body().into_reader();
                let mut buffer = vec![0; 64 * 1024];
                let mut bytes = 0;
                loop {
                    match body.read(&mut buffer).expect("the body") {
                        0 => return bytes,
                        n => bytes += n,
                    }
                }
            }),
        ),
        (
            "reqwest: the body read and dropped (AsyncClient's floor)",
            Box::new(move || {
                rt.block_on(async {
                    let mut answer = post().await.expect("an answer");
                    let mut bytes = 0;
                    while let Some(chunk) = answer.chunk().await.expect("the body") {
                        bytes += chunk.len();
                    }
                    bytes
                })
            }),
        ),
        (
            "reqwest + serde_json::Value",
            Box::new(move || {
                rt.block_on(async {
                    let answer = post_whole().await.expect("an answer");
                    let body = answer.bytes().await.expect("the body");
                    let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
                    value["data"].as_array().expect("rows").len()
                })
            }),
        ),
        (
            "BlockingClient::stream_table → Arrow, kept",
            Box::new(move || {
                let mut kept = Vec::new();
                for batch in blocking.stream_table("sales_invoice").expect("a stream") {
                    let batch = batch.expect("a batch");
                    kept.push(
                        batch
                            .into_record_batch_with(Dictionary::Auto)
                            .expect("converts"),
                    );
                }
                kept.iter().map(|b| b.num_rows()).sum()
            }),
        ),
        (
            "AsyncClient::stream_table → Arrow, kept",
            Box::new(move || {
                rt.block_on(async {
                    let mut kept = Vec::new();
                    let mut batches = async_client
                        .stream_table("sales_invoice")
                        .await
                        .expect("a stream");
                    while let Some(batch) = batches.try_next().await.expect("a batch") {
                        kept.push(
                            batch
                                .into_record_batch_with(Dictionary::Auto)
                                .expect("converts"),
                        );
                    }
                    kept.iter().map(|b| b.num_rows()).sum()
                })
            }),
        ),
    ]
}

/// Median, least and most of some times, in seconds.
fn spread(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let (mut rounds, mut json) = (7, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = args.next(),
            n => rounds = n.parse().expect("ROUNDS or --json FILE"),
        }
    }
    // Not the debug build the tests default to: its figures would say
    // nothing of the clients.
    assert!(
        std::env::var_os("ERPDATA_SANDBOX_BIN").is_some(),
        "ERPDATA_SANDBOX_BIN: the release sandbox (make bench-rust sets it)"
    );
    let sandbox = sandbox::Sandbox::start_with(&["--rows", &ROWS.to_string(), "--cache-answers"]);
    // reqwest's own client (the floors) needs a TLS provider, even for
    // plain http; the clients configure their own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let url = format!("{}/", sandbox.url);
    let contenders = contenders(&url, &rt);
    // The first request makes the sandbox make the answer (kept after).
    let body_bytes = (contenders[0].1)();
    for (name, run) in &contenders[2..] {
        assert_eq!(run(), ROWS, "{name} reads every row");
    }
    let mut times = vec![Vec::new(); contenders.len()];
    for round in 0..rounds {
        for k in 0..contenders.len() {
            let i = (round + k) % contenders.len();
            let start = Instant::now();
            std::hint::black_box((contenders[i].1)());
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    let base = spread(times[2].clone()).0;
    println!(
        "{ROWS} rows, {:.0} MiB body, {rounds} rounds over loopback; ×faster = reqwest + serde_json's median / this median",
        body_bytes as f64 / (1 << 20) as f64
    );
    let width = contenders
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    println!(
        "{:<width$} {:>8} {:>15} {:>9}",
        "", "s", "s range", "×faster"
    );
    let mut out = Vec::new();
    for ((name, _), t) in contenders.iter().zip(times) {
        let (median, min, max) = spread(t);
        println!(
            "{name:<width$} {median:>8.3} {min:>7.3}–{max:<7.3} {:>9.2}",
            base / median
        );
        out.push(format!(
            "{{\"name\":{name:?},\"s\":{median:.4},\"s_min\":{min:.4},\"s_max\":{max:.4}}}"
        ));
    }
    if let Some(path) = json {
        let text = format!(
            "{{\"rows\":{ROWS},\"bytes\":{body_bytes},\"rounds\":{rounds},\"contenders\":[{}]}}\n",
            out.join(",")
        );
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}
