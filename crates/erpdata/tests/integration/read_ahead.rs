//! Past its first 256 KiB, each Rust client reads a body ahead (the
//! blocking client on a thread of its own, the async client on a task)
//! while the rows that arrived decode: what it gives must not change. A
//! body broken off there is still an error, never fewer rows, and a
//! stream hands out only the batches before the break; a body that stops
//! coming times out as one that stops at once does.

use std::time::{Duration, Instant};

use crate::clients::{Client, FLAVOURS};
use crate::raw_server::{raw_server, Then};
use crate::sandbox::{config, quick, Sandbox};
use erpdata::{Error, TransportKind};

fn is_kind(err: &Error, want: TransportKind) -> bool {
    matches!(err, Error::Transport { kind, .. } if *kind == want)
}

#[test]
fn a_large_body_broken_off_while_read_ahead_is_an_error() {
    let sb = Sandbox::start_with(&["--rows", "20000"]);
    for flavour in FLAVOURS {
        for fault in ["reset-3000000", "truncate-3000000"] {
            let at = format!("{flavour}, {fault}");
            let (base, _) = sb.body_faulty(fault);
            let options = quick(0).batch_rows(1000);
            let c = Client::new(flavour, config(&base), options).unwrap();
            let expected = |err: &Error| match fault {
                "reset-3000000" => is_kind(err, TransportKind::Reset),
                _ => matches!(err, Error::Decode { reason, .. } if reason.contains("truncated")),
            };
            let err = c.table("sales_invoice").unwrap_err();
            assert!(expected(&err), "{at}: {err:?}");
            let streamed = c.stream("sales_invoice");
            let err = streamed.error.expect("the stream ends with an error");
            assert!(expected(&err), "{at}: {err:?}");
            // 3 MB hold some 10,000 of the 20,000 rows.
            let rows = streamed.rows;
            assert!((5_000..20_000).contains(&rows), "{at}: {rows} rows");
        }
    }
}

#[test]
fn a_large_body_that_stalls_times_out() {
    let mut answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                       Connection: close\r\n\r\n{\"status\":\"success\",\"data\":["
        .to_vec();
    while answer.len() < 1 << 20 {
        answer.extend_from_slice(b"{\"a\":1},");
    }
    let url = raw_server(answer.leak(), Then::Hold);
    for flavour in FLAVOURS {
        let options = quick(0)
            .timeout(Duration::from_millis(500))
            .batch_rows(1000);
        let c = Client::new(flavour, config(&url), options).unwrap();
        let start = Instant::now();
        let err = c.table("account").unwrap_err();
        assert!(is_kind(&err, TransportKind::Timeout), "{flavour}: {err:?}");
        let streamed = c.stream("account");
        let err = streamed.error.expect("the stream ends with an error");
        assert!(is_kind(&err, TransportKind::Timeout), "{flavour}: {err:?}");
        let rows = streamed.rows;
        assert!(rows > 100_000, "{flavour}: {rows} rows before the stall");
        let took = start.elapsed();
        assert!(took < Duration::from_secs(5), "{flavour}: {took:?}");
    }
}
