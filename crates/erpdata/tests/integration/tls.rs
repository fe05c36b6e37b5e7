//! Both clients' trust: the caller's root certificates read alike, and
//! Mozilla's roots on a system without a certificate store.

use crate::clients::{error_text, Client, FLAVOURS};
use crate::raw_server::{raw_server, Then};
use crate::sandbox::{config, quick, Sandbox};

use std::process::Command;

use erpdata::{ClientOptions, Error, TransportKind};

/// A CERTIFICATE block whose bytes are no certificate: refused by both
/// clients when made, naming the option, not at every call's handshake.
#[test]
fn a_root_certificate_that_is_none_is_refused_by_both() {
    let pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    for flavour in FLAVOURS {
        let options = ClientOptions::default().root_certificates_pem(pem);
        let err = Client::new(flavour, config("https://erp.example.com"), options).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput { field, reason }
                if field == "root_certificates" && reason.contains("not a valid root")),
            "{flavour}: {err:?}"
        );
    }
}

/// Set in the child process of the test below.
const EMPTY_STORE: &str = "ERPDATA_TEST_EMPTY_STORE";

/// With no certificate store (SSL_CERT_FILE and SSL_CERT_DIR, which the
/// system store is read from first, pointing at nothing), each client
/// trusts Mozilla's roots: an https call gets as far as the handshake and
/// is refused there, the sandbox's certificate being signed by no public
/// root, instead of failing to set up TLS at every call.
#[test]
fn without_a_system_store_both_clients_trust_mozillas_roots() {
    if std::env::var_os(EMPTY_STORE).is_none() {
        let name = "tls::without_a_system_store_both_clients_trust_mozillas_roots";
        let run = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--nocapture"])
            .env(EMPTY_STORE, "1")
            .env("SSL_CERT_FILE", "/nonexistent/erpdata-no-roots.pem")
            .env("SSL_CERT_DIR", "/nonexistent")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "the run without a store failed:\n{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        return;
    }
    let pem = std::env::temp_dir().join(format!("erpdata-no-store-{}.pem", std::process::id()));
    let tls = Sandbox::start_with(&["--tls-cert", pem.to_str().unwrap()]);
    let _ = std::fs::remove_file(&pem);
    for flavour in FLAVOURS {
        let client = Client::new(flavour, config(&tls.url), quick(0)).unwrap();
        let err = client.table("account").unwrap_err();
        let text = error_text(&err);
        assert!(!text.contains("No CA certificates"), "{flavour}: {text}");
        assert!(text.contains("UnknownIssuer"), "{flavour}: {text}");
    }
}

/// A certificate the client does not trust is a failure of its own kind,
/// `Tls`, sent once: retrying would meet the same certificate.
#[test]
fn an_untrusted_certificate_is_a_tls_failure_tried_once() {
    let tls = Sandbox::start_with(&["--tls"]);
    for flavour in FLAVOURS {
        let client = Client::new(flavour, config(&tls.url), quick(2)).unwrap();
        let err = client.table("account").unwrap_err();
        let text = error_text(&err);
        assert_eq!(
            err.transport_kind(),
            Some(TransportKind::Tls),
            "{flavour}: {text}"
        );
        assert_eq!(err.call().map(|c| c.attempts), Some(1), "{flavour}: {text}");
        assert!(text.contains("certificate"), "{flavour}: {text}");
    }
}

/// A base URL of the wrong scheme fails alike in both clients, as in the
/// Python and JavaScript ones: https to a server that answers in plain
/// HTTP is `Tls`, sent once, its message saying so and how to fix it
/// (rustls calls it a corrupt message of type InvalidContentType, a
/// `Connect` failure retried); http to a server that answers in TLS is an
/// answer that is not HTTP (`Reset`). The blocking client called both
/// `Other`, so a caller's retry or message keyed on the kind went another
/// way with it.
#[test]
fn a_base_url_of_the_wrong_scheme_is_the_same_kind_in_both_clients() {
    // What an HTTP server answers to a TLS ClientHello, and what a TLS
    // server answers to a plain request (an alert record: protocol
    // version).
    let plain = raw_server(
        b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        Then::Close,
    );
    let tls = raw_server(b"\x15\x03\x01\x00\x02\x02\x46", Then::Close);
    let https = plain.replacen("http://", "https://", 1);
    let cases = [
        (https.clone(), TransportKind::Tls, 2),
        (tls, TransportKind::Reset, 0),
    ];
    for (url, kind, retries) in cases {
        for flavour in FLAVOURS {
            let client = Client::new(flavour, config(&url), quick(retries)).unwrap();
            let err = client.table("account").unwrap_err();
            let text = error_text(&err);
            assert_eq!(err.transport_kind(), Some(kind), "{flavour} {url}: {text}");
            if kind == TransportKind::Tls {
                assert_eq!(err.call().map(|c| c.attempts), Some(1), "{flavour}: {text}");
                let origin = https.trim_end_matches('/');
                assert!(
                    text.contains(&format!("{origin} answered in plain HTTP, not TLS"))
                        && text.contains("begins http://"),
                    "{flavour}: {text}"
                );
            }
        }
    }
}
