//! A service that cannot be reached: both clients give it the same kind,
//! and the message itself, not only its source chain, says why.

use std::net::TcpListener;

use erpdata::TransportKind;

use crate::clients::{error_text, Client, FLAVOURS};
use crate::sandbox::{config, quick};

/// reqwest's own message is "error sending request for url (...)" for
/// every failure to connect; the reason (refused, no such host) was only
/// in the source chain, which `{err}` does not print.
#[test]
fn a_refused_connection_says_so_in_its_message() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config(&url), quick(0)).unwrap();
        let err = c.table("account").unwrap_err();
        assert_eq!(
            err.transport_kind(),
            Some(TransportKind::Connect),
            "{flavour}: {}",
            error_text(&err)
        );
        let message = err.to_string();
        assert!(
            message.to_lowercase().contains("refused"),
            "{flavour}: {message}"
        );
    }
}

/// A host name that does not resolve is a connection that could not be
/// made (`Connect`), as reqwest, Python and JavaScript have it; ureq gives
/// the resolver's failure as an io::Error the blocking client called
/// `Other`.
#[test]
fn a_host_that_does_not_resolve_is_a_connect_failure_in_both() {
    // `.invalid` never resolves (RFC 2606); https, so the config takes a
    // token for a host that is not loopback.
    for flavour in FLAVOURS {
        let c = Client::new(flavour, config("https://erp.invalid"), quick(0)).unwrap();
        let err = c.table("account").unwrap_err();
        assert_eq!(
            err.transport_kind(),
            Some(TransportKind::Connect),
            "{flavour}: {}",
            error_text(&err)
        );
    }
}
