//! A real sandbox ERP process on a free loopback port, for the clients'
//! integration tests (and `erpdata-bench`'s clients bench), plus a raw
//! HTTP/1.1 GET to read its fault counters (so the counters are not read
//! through the clients under test).
#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use erpdata::{ClientOptions, Config, RetryPolicy};

/// The sandbox's default token: public, guards nothing.
pub const TOKEN: &str = "sandbox-token-not-secret";

/// A config for the sandbox at `base`: its project, token, company and year.
pub fn config(base: &str) -> Config {
    config_with_token(base, TOKEN)
}

/// [`config`] for a sandbox started with `--token token`.
pub fn config_with_token(base: &str, token: &str) -> Config {
    Config::builder(base)
        .project("demo")
        .access_token(token)
        .company_id(1)
        .year_id(2025)
        .build()
        .unwrap()
}

/// Fast retries, so the tests do not wait out the default backoff.
pub fn quick(max_retries: u32) -> ClientOptions {
    ClientOptions::default().retry_policy(RetryPolicy {
        max_retries,
        base_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    })
}

/// A running sandbox; killed when dropped.
pub struct Sandbox {
    child: Child,
    /// `http://127.0.0.1:PORT` (`https://` with `--tls`), without a
    /// trailing slash.
    pub url: String,
}

impl Sandbox {
    /// Starts `$ERPDATA_SANDBOX_BIN` (default: the workspace's
    /// `target/debug/erpdata-sandbox`, built by `make sandbox`).
    pub fn start() -> Sandbox {
        Sandbox::start_with(&[])
    }

    /// Starts the sandbox with extra arguments (e.g. `--rows 200000`).
    pub fn start_with(args: &[&str]) -> Sandbox {
        let bin = std::env::var_os("ERPDATA_SANDBOX_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/erpdata-sandbox")
            });
        assert!(
            bin.exists(),
            "sandbox binary not found at {}: run `make sandbox` or set ERPDATA_SANDBOX_BIN",
            bin.display()
        );
        let mut child = Command::new(&bin)
            .args(["--port", "0", "--quiet"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        // The first line is the URL; read it on a thread so a sandbox that
        // never prints one fails the test instead of hanging it.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout);
            let mut first = String::new();
            let _ = lines.read_line(&mut first);
            let _ = tx.send(first);
            // Keep draining so the sandbox never blocks on a full pipe.
            let _ = std::io::copy(&mut lines, &mut std::io::sink());
        });
        let url = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_default()
            .trim()
            .to_owned();
        if !url.starts_with("http://") && !url.starts_with("https://") {
            let _ = child.kill();
            panic!("the sandbox did not print its URL (got {url:?})");
        }
        Sandbox { child, url }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.url.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// A base URL under which requests meet `fault`, counted under a key
    /// unique to this test process (returned too).
    pub fn faulty(&self, fault: &str) -> (String, String) {
        let key = unique_key();
        (format!("{}/_faults/{fault}/{key}/", self.url), key)
    }

    /// A base URL under which answers are spoiled in their body or timing
    /// (`/_body/FAULT/KEY/`), with its key.
    pub fn body_faulty(&self, fault: &str) -> (String, String) {
        let key = unique_key();
        (format!("{}/_body/{fault}/{key}/", self.url), key)
    }

    /// How many requests arrived under a `body_faulty` key.
    pub fn body_count(&self, key: &str) -> u64 {
        let body = get(&format!("{}/_body/count/{key}", self.url));
        body.trim()
            .parse()
            .unwrap_or_else(|_| panic!("count: {body:?}"))
    }

    /// What each request under `key` carried: the sandbox's JSON array
    /// of `{"method","path","query","headers","body"}`.
    pub fn log(&self, key: &str) -> String {
        get(&format!("{}/_faults/log/{key}", self.url))
    }

    /// Every request this sandbox has answered (its own reads excepted).
    pub fn total(&self) -> u64 {
        let body = get(&format!("{}/_faults/total", self.url));
        body.trim()
            .parse()
            .unwrap_or_else(|_| panic!("total: {body:?}"))
    }

    /// How many requests arrived under `key`.
    pub fn count(&self, key: &str) -> u64 {
        let body = get(&format!("{}/_faults/count/{key}", self.url));
        body.trim()
            .parse()
            .unwrap_or_else(|_| panic!("count: {body:?}"))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unique_key() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "k{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// The body of a plain GET (the counters answer small, with a length;
/// plain http only).
fn get(url: &str) -> String {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority).expect("connect to the sandbox");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}
