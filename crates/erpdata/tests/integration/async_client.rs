//! `AsyncClient` against a real sandbox process over loopback.

use crate::raw_server::{raw_server, Then};
use crate::sandbox;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use erpdata::{
    AsyncClient, BatchStream, Cell, Config, DuesKind, Error, Method, TableQuery, TransportKind,
};
use futures_util::TryStreamExt;
use sandbox::{config, quick, Sandbox, TOKEN};

fn client(base: &str) -> AsyncClient {
    AsyncClient::with_options(config(base), quick(2)).unwrap()
}

#[tokio::test]
async fn dues_receivables_and_payables() {
    let sb = Sandbox::start();
    let c = client(&sb.url);
    let dues = c.receivables("C001").await.unwrap();
    assert!(!dues.rows.is_empty());
    assert_eq!(dues.kind, DuesKind::Receipt);
    assert!(matches!(dues.rows[0].get("balance"), Some(Cell::Number(_))));
    assert_eq!(c.dues("C001", DuesKind::Receipt).await.unwrap(), dues);
    assert!(!c.payables("S001").await.unwrap().rows.is_empty());
    assert!(c.receivables("C012").await.unwrap().rows.is_empty());
    let err = c.receivables("NOPE").await.unwrap_err();
    assert!(
        matches!(&err, Error::Service { message, .. } if message.contains("Unknown account")),
        "{err:?}"
    );
}

#[tokio::test]
async fn table_post_get_and_overrides() {
    let sb = Sandbox::start();
    let c = client(&sb.url);
    let table = c.table("sales_invoice").await.unwrap();
    assert_eq!(table.rows.len(), 40);
    // The table's own ids first, as a PHP service's `SELECT *` sends them.
    assert_eq!(table.columns[..3], ["compid", "yearid", "invoice_no"]);
    let by_get = c
        .table(TableQuery::new("sales_invoice").method(Method::Get))
        .await
        .unwrap();
    assert_eq!(by_get, table);
    let other = c
        .table(TableQuery::new("sales_invoice").company_id(2))
        .await
        .unwrap();
    assert_eq!(other.rows.len(), 28);
}

#[tokio::test]
async fn stream_gives_the_same_rows_in_batches() {
    let sb = Sandbox::start();
    let c = AsyncClient::with_options(config(&sb.url), quick(2).batch_rows(7)).unwrap();
    let whole = c.table("sales_invoice").await.unwrap();
    let batches: Vec<_> = c
        .stream_table("sales_invoice")
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(batches.len(), 6);
    assert!(batches.iter().all(|b| b.num_rows <= 7));
    let rows: Vec<_> = batches.iter().flat_map(|b| b.rows()).collect();
    assert_eq!(rows.len(), whole.rows.len());
    for (streamed, row) in rows.iter().zip(&whole.rows) {
        for (key, cell) in &row.fields {
            let got = streamed.get(key).unwrap();
            match (cell, got) {
                // The typed column keeps the decimal at the column's scale.
                (Cell::Number(a), Cell::Number(b)) => {
                    assert_eq!(a.parse::<f64>().unwrap(), b.parse::<f64>().unwrap())
                }
                (Cell::Int(a), Cell::Number(b)) => assert_eq!(*a as f64, b.parse::<f64>().unwrap()),
                _ => assert_eq!(cell, got, "{key}"),
            }
        }
    }
}

#[tokio::test]
async fn a_large_table_streams() {
    let sb = Sandbox::start_with(&["--rows", "150000"]);
    let c = client(&sb.url);
    let mut stream = c.stream_table("sales_invoice").await.unwrap();
    let (mut rows, mut batches) = (0, 0);
    while let Some(batch) = stream.try_next().await.unwrap() {
        rows += batch.num_rows;
        batches += 1;
    }
    assert_eq!((rows, batches), (150_000, 3));
    let end = stream.end().expect("the body ended without error");
    assert_eq!(end.total_rows, 150_000);
    assert!(end.notices.is_empty());
}

#[tokio::test]
async fn a_503_is_retried_then_succeeds() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("status-503x2");
    let dues = client(&base).receivables("C001").await.unwrap();
    assert!(!dues.rows.is_empty());
    assert_eq!(sb.count(&key), 3, "two 503s, then the answer");

    let (base, key) = sb.faulty("status-503x2");
    let stream = client(&base).stream_table("receipt").await.unwrap();
    let batches: Vec<_> = stream.try_collect().await.unwrap();
    assert!(batches.iter().map(|b| b.num_rows).sum::<usize>() > 0);
    assert_eq!(sb.count(&key), 3);
}

#[tokio::test]
async fn retries_stop_at_the_policy_limit() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("status-503x9");
    let c = AsyncClient::with_options(config(&base), quick(1)).unwrap();
    let err = c.table("account").await.unwrap_err();
    assert!(
        matches!(err, Error::HttpStatus { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(sb.count(&key), 2, "one attempt and one retry");

    // 500 is not worth retrying.
    let (base, key) = sb.faulty("status-500x9");
    let err = client(&base).receivables("C001").await.unwrap_err();
    assert!(matches!(err, Error::HttpStatus { status: 500, .. }));
    assert_eq!(sb.count(&key), 1);
}

#[tokio::test]
async fn a_cross_origin_redirect_is_refused_and_the_other_origin_gets_nothing() {
    let sb = Sandbox::start();
    let other = Sandbox::start();
    let (base, key) = sb.faulty(&format!("redirect-307-{}", other.port()));
    let c = client(&base);
    let err = c.table("sales_invoice").await.unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(
        matches!(err, Error::HttpStatus { status: 307, .. }),
        "{text}"
    );
    assert!(text.contains("refused"), "{text}");
    assert!(!text.contains(TOKEN), "{text}");
    let err = c.stream_table("sales_invoice").await.unwrap_err();
    assert!(matches!(err, Error::HttpStatus { status: 307, .. }));
    assert_eq!(sb.count(&key), 2);
    assert_eq!(other.count(&key), 0, "the other origin received a request");
}

#[tokio::test]
async fn a_same_origin_redirect_is_followed_with_the_form() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("redirect-307-self");
    let table = client(&base).table("sales_invoice").await.unwrap();
    assert_eq!(table.rows.len(), 40);
    assert_eq!(sb.count(&key), 1);
}

#[tokio::test]
async fn invalid_input_sends_nothing() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("pass");
    let c = client(&base);
    let err = c.table("sales_invoice; drop").await.unwrap_err();
    assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "table"));
    let err = c.receivables("C\u{0}01").await.unwrap_err();
    assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "acid"));
    assert!(c.stream_table("").await.is_err());
    assert_eq!(sb.count(&key), 0);
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_with_its_cause() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The GET form puts the token in the URL, which the host stack's
    // errors quote: it must be redacted in every link of the chain.
    let secret = "fake-token-that-must-not-leak";
    let config = Config::builder(format!("http://127.0.0.1:{port}/erp/"))
        .project("demo")
        .access_token(secret)
        .company_id(1)
        .year_id(2025)
        .build()
        .unwrap();
    let c = AsyncClient::with_options(config, quick(1)).unwrap();
    let err = c
        .table(TableQuery::new("account").method(Method::Get))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Connect,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("could not connect"), "{err}");
    let mut chain = Vec::new();
    let mut link = std::error::Error::source(&err);
    while let Some(e) = link {
        chain.push(format!("{e} {e:?}"));
        link = e.source();
    }
    assert!(
        chain.iter().any(|m| m.to_lowercase().contains("refused")),
        "the host stack's cause is kept: {chain:?}"
    );
    let everything = format!("{err} {err:?} {chain:?}");
    assert!(!everything.contains(secret), "{everything}");
    // reqwest quotes the URL: the redaction, not luck, kept the token out.
    assert!(
        everything.contains("accesstoken=[REDACTED]"),
        "{everything}"
    );
}

#[tokio::test]
async fn the_timeout_is_honoured() {
    let url = raw_server(b"", Then::Hold);
    let options = quick(0).timeout(Duration::from_millis(300));
    let c = AsyncClient::with_options(config(&url), options).unwrap();
    let start = Instant::now();
    let err = c.receivables("C001").await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{err:?}"
    );
    let err = c.stream_table("account").await.unwrap_err();
    assert!(matches!(
        err,
        Error::Transport {
            kind: TransportKind::Timeout,
            ..
        }
    ));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn a_body_cut_short_is_an_error_not_fewer_rows() {
    let url = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n\
          {\"status\":\"success\",\"data\":[{\"a\":1},{\"a\":2},{\"a\"",
        Then::Close,
    );
    let c = AsyncClient::with_options(config(&url), quick(0).batch_rows(1)).unwrap();
    let err = c.table("account").await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { reason, .. } if reason.contains("truncated")),
        "{err:?}"
    );
    let mut stream = c.stream_table("account").await.unwrap();
    let (rows, err) = rows_until_error(&mut stream).await;
    assert!(rows <= 2, "{rows} rows: the body holds two whole rows");
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(stream.try_next().await.unwrap().is_none());
    assert!(stream.end().is_none(), "an incomplete table has no end");
}

#[tokio::test]
async fn a_table_without_rows_streams_no_batch_and_ends() {
    let url = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n\
          \nNotice: Undefined index: sort in /var/www/apis/dataapi.php on line 8\n\
          {\"status\":\"success\",\"data\":[]}",
        Then::Close,
    );
    let c = AsyncClient::with_options(config(&url), quick(0)).unwrap();
    let mut stream = c.stream_table("sales_invoice").await.unwrap();
    assert!(
        stream.try_next().await.unwrap().is_none(),
        "no batch, no error"
    );
    assert!(
        stream.try_next().await.unwrap().is_none(),
        "and it stays ended"
    );
    let end = stream.end().expect("the body ended without error");
    assert_eq!(end.total_rows, 0);
    assert_eq!(end.notices.len(), 1, "{:?}", end.notices);
}

/// The rows a stream hands out before the error it must end with.
async fn rows_until_error(stream: &mut BatchStream) -> (usize, Error) {
    let mut rows = 0;
    loop {
        match stream.try_next().await {
            Ok(Some(batch)) => rows += batch.num_rows,
            Err(e) => return (rows, e),
            Ok(None) => panic!("the stream ended without an error after {rows} rows"),
        }
    }
}

#[tokio::test]
async fn debug_never_shows_the_token() {
    let c = client("http://127.0.0.1:9");
    let text = format!("{c:?}");
    assert!(!text.contains(TOKEN), "{text}");
    assert!(text.contains("AsyncClient"));
}

#[test]
fn client_and_stream_cross_threads() {
    fn shared<T: Send + Sync + Clone>() {}
    fn sent<T: Send + Unpin>() {}
    shared::<AsyncClient>();
    sent::<erpdata::BatchStream>();
}

#[tokio::test]
async fn a_broken_body_is_retried_whole_but_never_mid_stream() {
    let sb = Sandbox::start();
    let (base, key) = sb.body_faulty("reset-700");
    let c = AsyncClient::with_options(config(&base), quick(1).batch_rows(2)).unwrap();
    let err = c.table("sales_invoice").await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Reset,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(sb.body_count(&key), 2, "table() is a read: retried once");

    // Cut in the third row: a first batch of two went out before it.
    let (base, key) = sb.body_faulty("reset-700");
    let c = AsyncClient::with_options(config(&base), quick(1).batch_rows(2)).unwrap();
    let mut stream = c.stream_table("sales_invoice").await.unwrap();
    let (rows, err) = rows_until_error(&mut stream).await;
    assert!(rows > 0 && rows < 40, "{rows}");
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert_eq!(sb.body_count(&key), 1, "batches went out: not retried");
}

#[tokio::test]
async fn a_stalled_body_times_out() {
    let sb = Sandbox::start();
    let (base, _) = sb.body_faulty("stall-5000");
    let options = quick(0).timeout(Duration::from_millis(400));
    let c = AsyncClient::with_options(config(&base), options).unwrap();
    let start = Instant::now();
    let err = c.table("account").await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{err:?}"
    );
    // The head arrives at once; the stream's reads time out one by one.
    // Nothing was handed out, so the error is `stream_table`'s own.
    let err = c.stream_table("account").await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn a_truncated_answer_from_the_sandbox_is_an_error() {
    let sb = Sandbox::start();
    let (base, _) = sb.body_faulty("truncate-700");
    let c = AsyncClient::with_options(config(&base), quick(0)).unwrap();
    let err = c.table("sales_invoice").await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { reason, .. } if reason.contains("truncated")),
        "{err:?}"
    );
    let batches = match c.stream_table("sales_invoice").await {
        Ok(stream) => stream.try_collect::<Vec<_>>().await,
        Err(e) => Err(e),
    };
    assert!(matches!(batches, Err(Error::Decode { .. })), "{batches:?}");
}

/// A keep-alive server that answers every request with an empty table and
/// counts the connections it accepted.
fn counting_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                loop {
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
                        return;
                    }
                    let answer = br#"{"status":"success","data":[]}"#;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        answer.len()
                    );
                    let stream = reader.get_mut();
                    if stream.write_all(head.as_bytes()).is_err()
                        || stream.write_all(answer).is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (url, accepted)
}

/// A client for one call's shorter total (`Timeouts::total`, which also
/// lowers the connect limit to it) keeps using the client's connections:
/// no call waits past its total, so the connect limit reqwest holds per
/// client binds before it in neither. It made a client of its own, a TLS
/// setup and a new connection on every call that asked for it.
#[tokio::test]
async fn a_shorter_total_for_one_call_shares_the_connections() {
    use std::sync::atomic::Ordering;

    let (url, accepted) = counting_server();
    let c = client(&url);
    c.table("account").await.unwrap();
    for total in [5, 2] {
        let quick = c
            .with_timeouts(erpdata::Timeouts::total(Duration::from_secs(total)))
            .unwrap();
        quick.table("account").await.unwrap();
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "one connection for all three"
    );
    // A connect limit tighter than the total is reqwest's to keep: that
    // client has connections of its own.
    let tight = erpdata::Timeouts {
        connect: Duration::from_millis(500),
        ..erpdata::Timeouts::default()
    };
    c.with_timeouts(tight)
        .unwrap()
        .table("account")
        .await
        .unwrap();
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

/// reqwest, like fetch, cannot tell connecting from waiting for the
/// answer's head, so the async client gives the two one wait of connect +
/// read (as `ClientOptions::read_timeout` says); ureq can, and the
/// blocking client gives the head the read limit alone.
#[tokio::test]
async fn the_head_may_take_connect_and_read_together() {
    let sb = Sandbox::start();
    let (base, _) = sb.faulty("latency-1500");
    let options = quick(0)
        .connect_timeout(Duration::from_secs(2))
        .read_timeout(Duration::from_secs(1));
    let c = AsyncClient::with_options(config(&base), options.clone()).unwrap();
    c.table("account").await.unwrap();
    let b = erpdata::BlockingClient::with_options(config(&base), options).unwrap();
    let err = tokio::task::spawn_blocking(move || b.table("account").unwrap_err())
        .await
        .unwrap();
    assert_eq!(err.transport_kind(), Some(TransportKind::Timeout), "{err}");
}

/// One table's declared types without a client of their own: a client
/// reads many tables, and `ClientOptions::schema` applies to each (a
/// stream's batches carry every declared column), so a service declared
/// them per table by making a client per table, each with its own
/// connections and TLS setup.
#[tokio::test]
async fn one_tables_schema_shares_the_clients_connections() {
    use std::sync::atomic::Ordering;

    use erpdata::{ColumnType, DeclaredSchema};

    let (url, accepted) = counting_server();
    let c = client(&url);
    c.table("account").await.unwrap();
    let schema = DeclaredSchema::parse("schema", [("credit_limit", "decimal(18,4)")]).unwrap();
    let typed = c.with_schema(schema.clone());
    typed.table("account").await.unwrap();
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "one connection for both"
    );
    assert_eq!(typed.options().decoder_options().schema, schema);
    assert!(
        c.options().decoder_options().schema.is_empty(),
        "the client's own stay"
    );

    let sb = Sandbox::start();
    for typed in [
        client(&sb.url).with_schema(schema.clone()),
        AsyncClient::with_options(config(&sb.url), quick(0).schema(DeclaredSchema::new()))
            .unwrap()
            .with_schema(schema.clone()),
    ] {
        let table = typed.table("account").await.unwrap();
        let credit_limit = table.schema.iter().find(|(n, _)| n == "credit_limit");
        assert_eq!(
            credit_limit.map(|(_, t)| *t),
            Some(ColumnType::Decimal {
                precision: 18,
                scale: 4
            })
        );
    }
    let blocking = erpdata::BlockingClient::new(config(&sb.url))
        .unwrap()
        .with_schema(schema);
    let table = tokio::task::spawn_blocking(move || blocking.table("account").unwrap())
        .await
        .unwrap();
    assert!(table
        .schema
        .iter()
        .any(|(n, t)| n == "credit_limit" && t.name() == "decimal(18,4)"));
}
