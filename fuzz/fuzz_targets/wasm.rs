//! The fuzz targets in WebAssembly (wasm32-wasip1 with `simd128`, as the
//! npm package's module is built), where libFuzzer does not run: this
//! driver stands in for it. `fuzz_target!` here makes the target's `main`,
//! which replays every input of the corpus, then mutates them at random
//! until its time is up. It has no coverage to steer by: it finds what
//! libFuzzer's corpus (grown natively) plus random edits reach, and it
//! never adds to the corpus.
//!
//!   main SECONDS CORPUS ARTIFACT_DIR [SEED]
//!
//! CORPUS is a directory of inputs, or one input (a crash to replay: with
//! SECONDS 0, only it runs).
//!
//! A failing check panics, which aborts a wasm32-wasip1 program: the panic
//! hook writes the input to `ARTIFACT_DIR/crash-<hash>` first.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Mutants are kept under this size (libFuzzer's default `-max_len` for a
/// corpus of small inputs is 4096; the bodies of the vectors are larger).
const MAX_LEN: usize = 1 << 16;

/// Bytes and tokens that matter to the scanner and the decoder: what
/// libFuzzer's `-use_value_profile` and compare tracing would find for it.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"\\\"",
    b"\\\\",
    b"\\u00e9",
    b"\\ud83d\\ude00",
    b"\\ud800",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b" ",
    b"\n",
    b"\t",
    b"null",
    b"true",
    b"false",
    b"-0",
    b"1e309",
    b"12345678901234567890",
    b"0.10",
    b"\"2024-02-29\"",
    b"\"2024-02-29 23:59:59.123456\"",
    b"\"data\":",
    b"\"status\":\"success\"",
    b"\"message\":",
    b"{\"a\":1}",
    b"},{",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xff",
    b"<br />\n<b>Notice</b>:",
];

thread_local! {
    /// The input being checked, for the panic hook to save.
    static CURRENT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// xorshift64*: the driver's only randomness, seeded from the clock or
/// the command line (so that a run can be repeated).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (which is not 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// FNV-1a, to name a crash file by its input.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One random edit of `data` (`corpus` gives the pieces to splice in).
fn mutate(data: &mut Vec<u8>, corpus: &[Vec<u8>], rng: &mut Rng) {
    let len = data.len();
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next() as u8;
        }
        2 => {
            let i = rng.below(len + 1);
            data.insert(i, rng.next() as u8);
        }
        3 if len > 0 => {
            let from = rng.below(len);
            let to = (from + 1 + rng.below(16)).min(len);
            data.drain(from..to);
        }
        4 | 5 => {
            let token = TOKENS[rng.below(TOKENS.len())];
            let i = rng.below(len + 1);
            if rng.below(2) == 0 || i + token.len() > len {
                data.splice(i..i, token.iter().copied());
            } else {
                data[i..i + token.len()].copy_from_slice(token);
            }
        }
        6 if len > 0 => {
            // A piece of itself, elsewhere: rows and strings repeated.
            let from = rng.below(len);
            let piece = data[from..(from + 1 + rng.below(64)).min(len)].to_vec();
            let i = rng.below(len + 1);
            data.splice(i..i, piece);
        }
        7 => {
            // A piece of another input of the corpus.
            let other = &corpus[rng.below(corpus.len())];
            if !other.is_empty() {
                let from = rng.below(other.len());
                let to = (from + 1 + rng.below(256)).min(other.len());
                let i = rng.below(len + 1);
                data.splice(i..i, other[from..to].iter().copied());
            }
        }
        _ if len > 0 => {
            // The header: batch size, cut points (each target's first
            // bytes).
            let i = rng.below(len.min(8));
            data[i] = rng.next() as u8;
        }
        _ => data.push(rng.next() as u8),
    }
    data.truncate(MAX_LEN);
}

/// The inputs in `path`: a directory's files, or one file (a crash to
/// replay).
fn read_corpus(path: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect()
    } else {
        vec![path.to_path_buf()]
    };
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// Saves the input being checked when a check panics (before the abort).
fn save_on_panic(artifacts: PathBuf) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        CURRENT.with(|c| {
            let input = c.borrow();
            let path = artifacts.join(format!("crash-{:016x}", fnv(&input)));
            match std::fs::write(&path, &*input) {
                Ok(()) => eprintln!("the input is in {}", path.display()),
                Err(e) => eprintln!("the input could not be saved in {}: {e}", path.display()),
            }
        });
    }));
}

/// The target's `main`: replays the corpus, then mutates it for the time
/// the command line gives.
pub fn run(check: fn(&[u8])) {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: {} SECONDS CORPUS ARTIFACT_DIR [SEED]", args[0]);
        std::process::exit(2);
    }
    let seconds: u64 = args[1].parse().expect("SECONDS: a whole number");
    let corpus = read_corpus(Path::new(&args[2]));
    assert!(!corpus.is_empty(), "{}: an empty corpus", args[2]);
    save_on_panic(PathBuf::from(&args[3]));
    let seed = match args.get(4) {
        Some(s) => s.parse().expect("SEED: a whole number"),
        None => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    };
    let mut rng = Rng(seed | 1);
    eprintln!("seed {seed}; {} inputs in {}", corpus.len(), args[2]);

    let start = Instant::now();
    let one = |input: &[u8]| {
        CURRENT.with(|c| {
            let mut c = c.borrow_mut();
            c.clear();
            c.extend_from_slice(input);
        });
        check(input);
    };
    for input in &corpus {
        one(input);
    }
    let replayed = start.elapsed();
    eprintln!(
        "replayed {} inputs in {:.1} s, no finding",
        corpus.len(),
        replayed.as_secs_f64()
    );

    let budget = Duration::from_secs(seconds);
    let mut runs = 0u64;
    let mut data = Vec::new();
    while start.elapsed() < budget {
        data.clear();
        data.extend_from_slice(&corpus[rng.below(corpus.len())]);
        for _ in 0..=rng.below(5) {
            mutate(&mut data, &corpus, &mut rng);
        }
        one(&data);
        runs += 1;
    }
    let mutating = start.elapsed() - replayed;
    eprintln!(
        "done: {} replayed and {runs} mutated inputs in {:.0} s ({:.0} a second while mutating), no finding",
        corpus.len(),
        start.elapsed().as_secs_f64(),
        runs as f64 / mutating.as_secs_f64().max(1e-9),
    );
}

/// libfuzzer-sys's macro, for this driver.
macro_rules! fuzz_target {
    (|$input:ident: &[u8]| $body:block) => {
        fn main() {
            fn check($input: &[u8]) $body
            wasm::run(check);
        }
    };
}
