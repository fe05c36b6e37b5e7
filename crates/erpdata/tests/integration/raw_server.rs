//! A loopback server that answers any request with the same bytes, for
//! answers the sandbox does not make: a body cut mid-row, a server that
//! never answers, a large body that stops coming.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

/// What the server does once it has written its answer.
pub enum Then {
    /// Closes the connection: a body without a length ends there.
    Close,
    /// Keeps the connection open and sends nothing more.
    Hold,
}

/// Starts the server; its base URL (`http://127.0.0.1:PORT`).
pub fn raw_server(answer: &'static [u8], then: Then) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hold = matches!(then, Then::Hold);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(answer);
                if hold {
                    std::thread::sleep(Duration::from_secs(30));
                }
            });
        }
    });
    url
}
