//! A connection made late (its TLS handshake slow) leaves the answer only
//! what is left of the call's total: the total bounds the whole call in
//! both clients.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use erpdata::{ClientOptions, TransportKind};

use crate::clients::{error_text, Client, FLAVOURS};
use crate::sandbox::{config, Sandbox};

/// A relay to `to` that holds back the server's first bytes (its TLS
/// ServerHello) for `delay`, then passes everything on both ways; its
/// base URL.
fn slow_handshake_relay(to: &str, delay: Duration) -> String {
    let to = to.trim_start_matches("https://").to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let to = to.clone();
            thread::spawn(move || {
                let server = TcpStream::connect(&to).unwrap();
                let (mut from_client, mut to_server) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                thread::spawn(move || io::copy(&mut from_client, &mut to_server));
                let (mut from_server, mut to_client) = (server, client);
                thread::sleep(delay);
                let _ = io::copy(&mut from_server, &mut to_client);
            });
        }
    });
    url
}

/// Connected after 2.5 s of a 4 s call, to a service that never answers:
/// the call ends at 4 s. The blocking client gave the head a whole 4 s
/// more once connected, and ended at 6.5 s with a message saying the
/// call's timeout was 4 s.
#[test]
fn a_late_connection_leaves_the_answer_only_what_is_left_of_the_total() {
    let pem = std::env::temp_dir().join(format!("erpdata-late-{}.pem", std::process::id()));
    let tls = Sandbox::start_with(&["--tls-cert", pem.to_str().unwrap()]);
    let cert = std::fs::read(&pem).unwrap();
    let _ = std::fs::remove_file(&pem);
    let relay = slow_handshake_relay(&tls.url, Duration::from_millis(2500));
    let total = Duration::from_secs(4);
    for flavour in FLAVOURS {
        let options = ClientOptions::default()
            .timeout(total)
            .max_retries(0)
            .root_certificates_pem(&cert);
        let base = format!("{relay}/_faults/hang/late-{flavour}/");
        let client = Client::new(flavour, config(&base), options).unwrap();
        let started = Instant::now();
        let err = client.table("account").unwrap_err();
        let took = started.elapsed();
        assert_eq!(
            err.transport_kind(),
            Some(TransportKind::Timeout),
            "{flavour}: {}",
            error_text(&err)
        );
        assert!(
            took < total + Duration::from_millis(900),
            "{flavour}: a call of {total:?} took {took:?}: {}",
            error_text(&err)
        );
    }
}
