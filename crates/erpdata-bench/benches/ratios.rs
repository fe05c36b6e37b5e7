//! Same-run throughput ratios of the decoder against serde_json's
//! validate-only pass, on the sandbox's 1M-row `sales_invoice` answer in
//! each of its answer styles: `native` (money as JSON numbers), `mysqlnd`
//! (DECIMAL as strings, the default), `strings` (every value a string) —
//! typing text should cost no more than typing numbers.
//!
//! Criterion (`benches/decode.rs`) measures each function in its own
//! stretch of time, so a neighbour's load that comes and goes skews the
//! ratio between them. Here every round times each contender once, back
//! to back in a rotating order, and the ratio is taken within the round;
//! the median over rounds is what the targets are checked against.
//!
//! ```text
//! cargo bench -p erpdata-bench --bench ratios [-- ROUNDS]
//!     [--json FILE] [--style native|mysqlnd|strings] [--only TEXT]
//! ```
//!
//! `--style` runs one answer style; `--only` keeps the floor and the
//! contenders whose name contains the text (for profiling one of them).
//!
//! With feature `mimalloc`, every contender allocates from mimalloc
//! instead of the system's allocator. A decoder's output is fresh memory
//! each round, and glibc's allocator hands much of what is freed back to
//! the kernel, which then faults each page in again; an allocator that
//! keeps freed memory, as a long-running service may choose, spares that.
//! serde_json keeps nothing, so its time hardly changes.

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The global allocator, as the figures name it.
const ALLOCATOR: &str = if cfg!(feature = "mimalloc") {
    "mimalloc"
} else {
    "system"
};

use std::time::{Duration, Instant};

use erpdata::{Batch, Config, DecoderOptions, Dictionary, TableDecoder};
use erpdata_bench::{config, streamed, ROWS};
use erpdata_sandbox::Style;

type Contender<'a> = (&'static str, Box<dyn Fn() -> u64 + 'a>);

fn contenders<'a>(config: &'a Config, body: &'a [u8], only: Option<&str>) -> Vec<Contender<'a>> {
    let mut all: Vec<Contender<'a>> = vec![
        (
            "serde_json IgnoredAny (floor)",
            Box::new(move || {
                serde_json::from_slice::<serde::de::IgnoredAny>(body).expect("valid JSON");
                ROWS
            }),
        ),
        (
            "decoder → typed columns",
            Box::new(move || streamed(config, body, drop)),
        ),
    ];
    all.push((
        "decoder → Arrow",
        Box::new(move || {
            streamed(config, body, |b| {
                drop(
                    b.into_record_batch_with(Dictionary::Auto)
                        .expect("converts"),
                );
            })
        }),
    ));
    // The whole table kept, as a caller of `decode_parallel_map` does.
    all.push((
        "decoder → Arrow, 2 threads",
        Box::new(move || {
            two_threads(config, body, |b| {
                b.into_record_batch_with(Dictionary::Auto)
                    .expect("converts")
            })
        }),
    ));
    // The same work as the one-thread row (each batch converted, then
    // dropped) on two threads: the decoding's own scaling, apart from
    // what keeping a whole table costs (fresh memory, faulted in page by
    // page, and freed at the end of the round).
    all.push((
        "decoder → Arrow, 2 threads, batches dropped",
        Box::new(move || {
            two_threads(config, body, |b| {
                drop(
                    b.into_record_batch_with(Dictionary::Auto)
                        .expect("converts"),
                );
            })
        }),
    ));
    // The floor's own scaling: what two cores of this machine give
    // serde_json when the rows are already cut in two, against which the
    // two-thread decoder's figure can be read. (Cut only if it runs: the
    // halves copy the body.)
    const HALVES: &str = "serde_json IgnoredAny, 2 threads (halves)";
    if only.is_none_or(|o| HALVES.contains(o)) {
        let [first, second] = halves(body);
        all.push((
            HALVES,
            Box::new(move || {
                let validate = |half: &[u8]| {
                    serde_json::from_slice::<serde::de::IgnoredAny>(half).expect("valid JSON");
                };
                std::thread::scope(|s| {
                    let other = s.spawn(|| validate(&first));
                    validate(&second);
                    other.join().expect("the other half is read");
                });
                ROWS
            }),
        ));
    }
    all.push((
        "a loop for this table alone (ceiling)",
        Box::new(move || erpdata_bench::ceiling::ceiling(body)),
    ));
    // The floor stays: ratios are taken against it.
    let mut k = 0;
    all.retain(|(name, _)| {
        k += 1;
        k == 1 || only.is_none_or(|o| name.contains(o))
    });
    all
}

/// `body` decoded on two threads, each batch mapped by `map` and the
/// results kept until the answer is whole (then dropped): its rows.
fn two_threads<T: Send>(
    config: &Config,
    body: &[u8],
    map: impl Fn(Batch) -> T + Send + Sync,
) -> u64 {
    let threads = erpdata::ParallelOptions {
        threads: Some(2),
        ..erpdata::ParallelOptions::default()
    };
    TableDecoder::decode_parallel_map(config, 200, body, DecoderOptions::default(), threads, map)
        .expect("decodes")
        .total_rows
}

/// Median, least and most of some figures.
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(mut v: Vec<f64>) -> Spread {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Spread {
            median,
            min: v[0],
            max: v[n - 1],
        }
    }
}

/// The body as two JSON documents of about half its rows each, cut at the
/// first row boundary past its middle: the first ends the array there, the
/// second opens one there. The sandbox's rows are flat objects whose text holds
/// no `},{`, so the first `},{` past the middle is between two rows (a
/// cut in a string would leave halves that are not JSON, and the first,
/// untimed run of each contender would fail).
fn halves(body: &[u8]) -> [Vec<u8>; 2] {
    let middle = body.len() / 2;
    let cut = middle
        + body[middle..]
            .windows(3)
            .position(|w| w == b"},{")
            .expect("rows past the middle")
        + 1;
    let mut first = body[..cut].to_vec();
    first.extend_from_slice(b"]}");
    let mut second = b"{\"data\":[".to_vec();
    second.extend_from_slice(&body[cut + 1..]);
    [first, second]
}

/// One style's figures: its body's size, and one JSON object per contender.
struct StyleRun {
    mib: f64,
    json: Vec<String>,
}

fn run_style(config: &Config, body: &[u8], rounds: usize, only: Option<&str>) -> StyleRun {
    let contenders = contenders(config, body, only);
    for (_, run) in &contenders {
        assert_eq!(run(), ROWS, "every contender reads every row");
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    for round in 0..rounds {
        for k in 0..contenders.len() {
            let i = (round + k) % contenders.len();
            let start = Instant::now();
            std::hint::black_box((contenders[i].1)());
            times[i].push(start.elapsed());
        }
    }
    let mib = body.len() as f64 / (1024.0 * 1024.0);
    let width = contenders.iter().map(|(name, _)| name.chars().count());
    let width = width.max().unwrap_or(0);
    println!(
        "{:<width$} {:>10} {:>12} {:>8} {:>15}",
        "", "MiB/s", "MiB/s range", "ratio", "ratio range"
    );
    let mut json = Vec::new();
    for (i, (name, _)) in contenders.iter().enumerate() {
        let speed = Spread::of(times[i].iter().map(|t| mib / t.as_secs_f64()).collect());
        let ratio = Spread::of(
            (0..rounds)
                .map(|r| times[0][r].as_secs_f64() / times[i][r].as_secs_f64())
                .collect(),
        );
        println!(
            "{name:<width$} {:>10.0} {:>5.0}–{:<6.0} {:>8.2} {:>7.2}–{:<7.2}",
            speed.median, speed.min, speed.max, ratio.median, ratio.min, ratio.max,
        );
        json.push(format!(
            "{{\"name\":{name:?},\"mib_s\":{:.1},\"mib_s_min\":{:.1},\"mib_s_max\":{:.1},\
             \"ratio\":{:.3},\"ratio_min\":{:.3},\"ratio_max\":{:.3}}}",
            speed.median, speed.min, speed.max, ratio.median, ratio.min, ratio.max,
        ));
    }
    StyleRun { mib, json }
}

fn main() {
    // `cargo bench` passes `--bench`; a bare number is the round count,
    // `--json FILE` where to write the figures too.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(9);
    let option = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let json_out = option("--json");
    let only_style = option("--style");
    let only = option("--only").map(String::as_str);
    let config = config();
    let mut styles = Vec::new();
    for (name, style) in [
        ("native", Style::Native),
        ("mysqlnd", Style::Mysqlnd),
        ("strings", Style::Strings),
    ] {
        if only_style.is_some_and(|s| s != name) {
            continue;
        }
        let body = erpdata_sandbox::table_body_styled("sales_invoice", ROWS, style)
            .expect("a sandbox table");
        println!(
            "\n{name}: {} rows, {:.0} MiB body, {rounds} rounds, {ALLOCATOR} allocator; ratio = floor time / time, per round",
            ROWS,
            body.len() as f64 / (1024.0 * 1024.0)
        );
        let run = run_style(&config, &body, rounds, only);
        styles.push(format!(
            "{name:?}:{{\"body_mib\":{:.1},\"results\":[{}]}}",
            run.mib,
            run.json.join(",")
        ));
    }
    if let Some(path) = json_out {
        let text = format!(
            "{{\"rows\":{ROWS},\"rounds\":{rounds},\"threads\":{},\"allocator\":{ALLOCATOR:?},\"styles\":{{{}}}}}\n",
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            styles.join(",")
        );
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir).expect("a folder for the figures");
        }
        std::fs::write(path, text).expect("figures written");
    }
}
