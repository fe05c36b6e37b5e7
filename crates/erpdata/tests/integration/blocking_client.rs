//! `BlockingClient` against a real sandbox process over loopback.

use crate::raw_server::{raw_server, Then};
use crate::sandbox;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use erpdata::{
    BatchIter, BlockingClient, Cell, Config, DuesKind, Error, Method, TableQuery, TransportKind,
};
use sandbox::{config, quick, Sandbox, TOKEN};

fn client(base: &str) -> BlockingClient {
    BlockingClient::with_options(config(base), quick(2)).unwrap()
}

#[test]
fn dues_receivables_and_payables() {
    let sb = Sandbox::start();
    let c = client(&sb.url);
    let dues = c.receivables("C001").unwrap();
    assert!(!dues.rows.is_empty());
    assert_eq!(dues.kind, DuesKind::Receipt);
    assert!(matches!(dues.rows[0].get("balance"), Some(Cell::Number(_))));
    assert_eq!(c.dues("C001", DuesKind::Receipt).unwrap(), dues);
    assert!(!c.payables("S001").unwrap().rows.is_empty());
    assert!(c.receivables("C012").unwrap().rows.is_empty());
    let err = c.receivables("NOPE").unwrap_err();
    assert!(
        matches!(&err, Error::Service { message, .. } if message.contains("Unknown account")),
        "{err:?}"
    );
}

#[test]
fn table_post_get_and_overrides() {
    let sb = Sandbox::start();
    let c = client(&sb.url);
    let table = c.table("sales_invoice").unwrap();
    assert_eq!(table.rows.len(), 40);
    // The table's own ids first, as a PHP service's `SELECT *` sends them.
    assert_eq!(table.columns[..3], ["compid", "yearid", "invoice_no"]);
    let by_get = c
        .table(TableQuery::new("sales_invoice").method(Method::Get))
        .unwrap();
    assert_eq!(by_get, table);
    let other = c
        .table(TableQuery::new("sales_invoice").company_id(2))
        .unwrap();
    assert_eq!(other.rows.len(), 28);
}

#[test]
fn a_service_error_of_a_form_names_what_the_form_sent_but_the_token() {
    let sb = Sandbox::start();
    let c = client(&sb.url);
    let err = c
        .table(TableQuery::new("sales_invoice").company_id(99))
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains(
            "/apis/dataapi.php (sent req=getdata, project=demo, yearid=2025, compid=99, \
             table=sales_invoice): Invalid company or year"
        ),
        "{message}"
    );
    assert!(!message.contains(TOKEN), "{message}");
    // The GET form's URL holds them already (the token redacted).
    let err = c
        .table(
            TableQuery::new("sales_invoice")
                .company_id(99)
                .method(Method::Get),
        )
        .unwrap_err();
    assert!(!err.to_string().contains("(sent "), "{err}");
    assert_eq!(err.call().unwrap().form, None);
}

#[test]
fn stream_gives_the_same_rows_in_batches() {
    let sb = Sandbox::start();
    let c = BlockingClient::with_options(config(&sb.url), quick(2).batch_rows(7)).unwrap();
    let whole = c.table("sales_invoice").unwrap();
    let batches: Vec<_> = c
        .stream_table("sales_invoice")
        .unwrap()
        .collect::<Result<_, _>>()
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

#[test]
fn a_large_table_streams() {
    let sb = Sandbox::start_with(&["--rows", "150000"]);
    let c = client(&sb.url);
    let (mut rows, mut batches) = (0, 0);
    let mut iter = c.stream_table("sales_invoice").unwrap();
    for batch in iter.by_ref() {
        rows += batch.unwrap().num_rows;
        batches += 1;
    }
    assert_eq!((rows, batches), (150_000, 3));
    let end = iter.end().expect("the body ended without error");
    assert_eq!(end.total_rows, 150_000);
    assert!(end.notices.is_empty());
}

#[test]
fn a_503_is_retried_then_succeeds() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("status-503x2");
    let dues = client(&base).receivables("C001").unwrap();
    assert!(!dues.rows.is_empty());
    assert_eq!(sb.count(&key), 3, "two 503s, then the answer");

    let (base, key) = sb.faulty("status-503x2");
    let stream = client(&base).stream_table("receipt").unwrap();
    let batches: Vec<_> = stream.collect::<Result<_, _>>().unwrap();
    assert!(batches.iter().map(|b| b.num_rows).sum::<usize>() > 0);
    assert_eq!(sb.count(&key), 3);
}

#[test]
fn retries_stop_at_the_policy_limit() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("status-503x9");
    let c = BlockingClient::with_options(config(&base), quick(1)).unwrap();
    let err = c.table("account").unwrap_err();
    assert!(
        matches!(err, Error::HttpStatus { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(sb.count(&key), 2, "one attempt and one retry");

    // 500 is not worth retrying.
    let (base, key) = sb.faulty("status-500x9");
    let err = client(&base).receivables("C001").unwrap_err();
    assert!(matches!(err, Error::HttpStatus { status: 500, .. }));
    assert_eq!(sb.count(&key), 1);
}

#[test]
fn a_cross_origin_redirect_is_refused_and_the_other_origin_gets_nothing() {
    let sb = Sandbox::start();
    let other = Sandbox::start();
    let (base, key) = sb.faulty(&format!("redirect-307-{}", other.port()));
    let c = client(&base);
    let err = c.table("sales_invoice").unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(
        matches!(err, Error::HttpStatus { status: 307, .. }),
        "{text}"
    );
    assert!(text.contains("refused"), "{text}");
    assert!(!text.contains(TOKEN), "{text}");
    let err = c.stream_table("sales_invoice").unwrap_err();
    assert!(matches!(err, Error::HttpStatus { status: 307, .. }));
    assert_eq!(sb.count(&key), 2);
    assert_eq!(other.count(&key), 0, "the other origin received a request");
}

#[test]
fn a_same_origin_redirect_is_followed_with_the_form() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("redirect-307-self");
    let table = client(&base).table("sales_invoice").unwrap();
    assert_eq!(table.rows.len(), 40);
    assert_eq!(sb.count(&key), 1);
}

#[test]
fn invalid_input_sends_nothing() {
    let sb = Sandbox::start();
    let (base, key) = sb.faulty("pass");
    let c = client(&base);
    let err = c.table("sales_invoice; drop").unwrap_err();
    assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "table"));
    let err = c.receivables("C\u{0}01").unwrap_err();
    assert!(matches!(&err, Error::InvalidInput { field, .. } if field == "acid"));
    assert!(c.stream_table("").is_err());
    assert_eq!(sb.count(&key), 0);
}

#[test]
fn a_refused_connection_is_a_transport_error_with_its_cause() {
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
    let c = BlockingClient::with_options(config, quick(1)).unwrap();
    let err = c
        .table(TableQuery::new("account").method(Method::Get))
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
}

#[test]
fn the_timeout_is_honoured() {
    let url = raw_server(b"", Then::Hold);
    let options = quick(0).timeout(Duration::from_millis(300));
    let c = BlockingClient::with_options(config(&url), options).unwrap();
    let start = Instant::now();
    let err = c.receivables("C001").unwrap_err();
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
    let err = c.stream_table("account").unwrap_err();
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

#[test]
fn a_body_cut_short_is_an_error_not_fewer_rows() {
    let url = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n\
          {\"status\":\"success\",\"data\":[{\"a\":1},{\"a\":2},{\"a\"",
        Then::Close,
    );
    let c = BlockingClient::with_options(config(&url), quick(0).batch_rows(1)).unwrap();
    let err = c.table("account").unwrap_err();
    assert!(
        matches!(&err, Error::Decode { reason, .. } if reason.contains("truncated")),
        "{err:?}"
    );
    let mut stream = c.stream_table("account").unwrap();
    let (rows, err) = rows_until_error(&mut stream);
    assert!(rows <= 2, "{rows} rows: the body holds two whole rows");
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(stream.next().is_none());
    assert!(stream.end().is_none(), "an incomplete table has no end");
}

/// The rows a stream hands out before the error it must end with.
fn rows_until_error(stream: &mut BatchIter) -> (usize, Error) {
    let mut rows = 0;
    loop {
        match stream.next() {
            Some(Ok(batch)) => rows += batch.num_rows,
            Some(Err(e)) => return (rows, e),
            None => panic!("the iterator ended without an error after {rows} rows"),
        }
    }
}

#[test]
fn debug_never_shows_the_token() {
    let c = client("http://127.0.0.1:9");
    let text = format!("{c:?}");
    assert!(!text.contains(TOKEN), "{text}");
    assert!(text.contains("BlockingClient"));
}

#[test]
fn client_and_iterator_cross_threads() {
    fn shared<T: Send + Sync + Clone>() {}
    fn sent<T: Send>() {}
    shared::<BlockingClient>();
    sent::<erpdata::BatchIter>();
}

#[test]
fn a_broken_body_is_retried_whole_but_never_mid_stream() {
    let sb = Sandbox::start();
    let (base, key) = sb.body_faulty("reset-700");
    let c = BlockingClient::with_options(config(&base), quick(1).batch_rows(2)).unwrap();
    let err = c.table("sales_invoice").unwrap_err();
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
    let c = BlockingClient::with_options(config(&base), quick(1).batch_rows(2)).unwrap();
    let mut stream = c.stream_table("sales_invoice").unwrap();
    let (rows, err) = rows_until_error(&mut stream);
    assert!(rows > 0 && rows < 40, "{rows}");
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert_eq!(sb.body_count(&key), 1, "batches went out: not retried");
}

#[test]
fn a_stalled_body_times_out() {
    let sb = Sandbox::start();
    let (base, _) = sb.body_faulty("stall-5000");
    let options = quick(0).timeout(Duration::from_millis(400));
    let c = BlockingClient::with_options(config(&base), options).unwrap();
    let start = Instant::now();
    let err = c.table("account").unwrap_err();
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
    let err = c.stream_table("account").unwrap_err();
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

#[test]
fn a_truncated_answer_from_the_sandbox_is_an_error() {
    let sb = Sandbox::start();
    let (base, _) = sb.body_faulty("truncate-700");
    let c = BlockingClient::with_options(config(&base), quick(0)).unwrap();
    let err = c.table("sales_invoice").unwrap_err();
    assert!(
        matches!(&err, Error::Decode { reason, .. } if reason.contains("truncated")),
        "{err:?}"
    );
    let batches: Result<Vec<_>, _> = match c.stream_table("sales_invoice") {
        Ok(iter) => iter.collect(),
        Err(e) => Err(e),
    };
    assert!(matches!(batches, Err(Error::Decode { .. })), "{batches:?}");
}

/// The sandbox's three answer styles (money as numbers, DECIMAL as
/// strings, every value a string) give the same types and values; a
/// stream keeps one schema; declared types and string inference apply.
#[test]
fn every_answer_style_is_typed_alike() {
    use erpdata::{ColumnType, DeclaredSchema};
    let sb = Sandbox::start();
    let typed = |style: &str, options: erpdata::ClientOptions| {
        let base = format!("{}/_style/{style}/", sb.url.trim_end_matches('/'));
        BlockingClient::with_options(config(&base), options).unwrap()
    };
    let mut tables = Vec::new();
    for style in ["native", "mysqlnd", "strings"] {
        let table = typed(style, quick(2)).table("sales_invoice").unwrap();
        let ty = |name: &str| table.schema.iter().find(|(n, _)| n == name).unwrap().1;
        assert!(
            matches!(ty("amount"), ColumnType::Decimal { scale: 2, .. }),
            "{style}"
        );
        assert_eq!(ty("items"), ColumnType::Int, "{style}");
        assert_eq!(ty("date"), ColumnType::Date, "{style}");
        assert_eq!(ty("posted_at"), ColumnType::Timestamp, "{style}");
        assert_eq!(ty("cleared_on"), ColumnType::Date, "{style}");
        assert!(table
            .rows
            .iter()
            .any(|r| r.get("cleared_on") == Some(&Cell::Null)));
        tables.push(table);
    }
    assert_eq!(tables[0], tables[1]);
    assert_eq!(tables[1], tables[2]);

    // A stream: one schema for every batch.
    let batches: Vec<_> = typed("strings", quick(2).batch_rows(7))
        .stream_table("sales_invoice")
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(batches.len() > 2);
    for b in &batches {
        assert_eq!(b.schema(), batches[0].schema());
    }

    // Declared types, and strings left as sent.
    let schema =
        DeclaredSchema::parse("schema", [("amount", "string"), ("items", "decimal(10,1)")])
            .unwrap();
    let table = typed("strings", quick(2).schema(schema))
        .table("sales_invoice")
        .unwrap();
    let ty = |name: &str| table.schema.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(ty("amount"), ColumnType::String);
    assert_eq!(
        ty("items"),
        ColumnType::Decimal {
            precision: 10,
            scale: 1
        }
    );
    let table = typed("strings", quick(2).infer_strings(false))
        .table("sales_invoice")
        .unwrap();
    assert!(table
        .schema
        .iter()
        .all(|(_, t)| *t == ColumnType::String || *t == ColumnType::Null));
}
