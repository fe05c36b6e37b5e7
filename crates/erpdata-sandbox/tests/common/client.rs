//! A raw HTTP/1.1 client, so the tests see exactly what the sandbox
//! sends (chunking included).
#![allow(dead_code)] // each test binary uses its own part

use std::collections::HashMap;
use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    /// The size of each HTTP chunk of a chunked body (none otherwise).
    pub chunk_sizes: Vec<usize>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    pub fn json(&self) -> Value {
        assert_eq!(self.status, 200, "{}", self.text());
        assert_eq!(
            self.header("content-type"),
            Some("application/json; charset=utf-8")
        );
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn rows(&self) -> Vec<Value> {
        let v = self.json();
        assert_eq!(v["status"], "success", "{}", self.text());
        v["data"].as_array().unwrap().clone()
    }

    pub fn error(&self) -> String {
        let v = self.json();
        assert_eq!(v["status"], "error", "{}", self.text());
        assert_eq!(v.as_object().unwrap().len(), 2);
        v["message"].as_str().unwrap().to_owned()
    }
}

/// One request on its own connection. A form body is sent when given.
pub async fn request(addr: SocketAddr, method: &str, target: &str, form: Option<&str>) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    let body = form.unwrap_or("");
    if form.is_some() {
        head += &format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of head");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: HashMap<String, String> = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    let rest = &raw[split + 4..];
    let (body, chunk_sizes) =
        if headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
            dechunk(rest)
        } else {
            (rest.to_vec(), Vec::new())
        };
    Reply {
        status,
        headers,
        body,
        chunk_sizes,
    }
}

/// The body of a chunked reply, and each chunk's size.
fn dechunk(mut rest: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut sizes = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&rest[..eol]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        rest = &rest[eol + 2..];
        if size == 0 {
            return (out, sizes);
        }
        sizes.push(size);
        out.extend_from_slice(&rest[..size]);
        assert_eq!(&rest[size..size + 2], b"\r\n");
        rest = &rest[size + 2..];
    }
}

/// Percent-encodes everything but unreserved characters.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}
