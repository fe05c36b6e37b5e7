//! The call's decisions, driven by hand: no socket, no clock.

use std::time::Duration;

use super::*;
use crate::decode::DecoderOptions;
use crate::error::Result;
use crate::query::{DuesKind, DuesQuery, TableQuery};
use crate::retry::RetryPolicy;

const TOKEN: &str = "fake-token-for-call-tests";

fn config() -> Config {
    config_at("https://erp.example.com/")
}

fn config_at(base_url: &str) -> Config {
    Config::builder(base_url)
        .project("demo")
        .access_token(TOKEN)
        .company_id(1)
        .year_id(2025)
        .build()
        .unwrap()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn options(total: Duration, read: Duration, retries: u32) -> CallOptions {
    CallOptions {
        timeouts: Timeouts {
            total,
            connect: secs(1).min(total),
            read,
        },
        retry: RetryPolicy::with_max_retries(retries),
    }
}

fn dues_call(options: CallOptions) -> Call<WholeBody> {
    dues_call_of(&config(), options)
}

fn dues_call_of(c: &Config, options: CallOptions) -> Call<WholeBody> {
    let request = c
        .dues_request(&DuesQuery::new("C001", DuesKind::Receipt))
        .unwrap();
    Call::new(c, request, options, WholeBody::default(), Duration::ZERO, 1)
}

fn stream_call(options: CallOptions) -> Call<TableStream> {
    let c = config();
    let request = c.table_request(&TableQuery::new("sales_invoice")).unwrap();
    let sink = TableStream::new(DecoderOptions::with_batch_rows(1));
    Call::new(&c, request, options, sink, Duration::ZERO, 1).streaming()
}

fn ok() -> Head<'static> {
    Head {
        status: 200,
        ..Head::default()
    }
}

fn status(code: u16) -> Head<'static> {
    Head {
        status: code,
        ..Head::default()
    }
}

fn expect_send<O: std::fmt::Debug>(a: Action<O>) -> (Duration, Duration, Duration) {
    match a {
        Action::Send {
            connect,
            read,
            wait,
            ..
        } => (connect, read, wait),
        other => panic!("expected Send, got {other:?}"),
    }
}

fn expect_failed<O: std::fmt::Debug>(a: Action<O>) -> Error {
    match a {
        Action::Failed(e) => e,
        other => panic!("expected Failed, got {other:?}"),
    }
}

#[test]
fn a_redirect_within_the_origin_is_followed_then_the_answer_read() {
    let mut call = dues_call(CallOptions::default());
    expect_send(call.next(ms(0)));
    call.head(
        ms(1),
        Head {
            status: 307,
            location: Some("/v2/apis/ajax.php"),
            ..Head::default()
        },
    );
    expect_send(call.next(ms(1)));
    assert_eq!(call.request().uri().path(), "/v2/apis/ajax.php");
    call.head(ms(2), ok());
    assert!(matches!(call.next(ms(2)), Action::Read { .. }));
    call.chunk(ms(3), b"[]");
    assert!(matches!(call.next(ms(3)), Action::Read { .. }));
    call.end(ms(4));
    let Action::Done(answer) = call.next(ms(4)) else {
        panic!()
    };
    assert_eq!((answer.status, answer.body.as_slice()), (200, &b"[]"[..]));
    assert_eq!(call.attempts(), 2);
}

#[test]
fn a_redirect_elsewhere_fails_naming_the_attempts_and_never_the_token() {
    let mut call = dues_call(CallOptions::default());
    expect_send(call.next(ms(0)));
    call.head(
        ms(1),
        Head {
            status: 302,
            location: Some(&format!("https://evil.example/?t={TOKEN}")),
            ..Head::default()
        },
    );
    let e = expect_failed(call.next(ms(1)));
    assert_eq!(e.status_code(), Some(302));
    assert_eq!(e.call().unwrap().attempts, 1);
    assert!(!format!("{e} {e:?}").contains(TOKEN));
}

#[test]
fn retry_after_is_honoured_only_within_the_time_left() {
    let mut call = dues_call(options(secs(10), secs(5), 2));
    expect_send(call.next(ms(0)));
    call.head(
        ms(1),
        Head {
            status: 503,
            retry_after: Some("3"),
            ..Head::default()
        },
    );
    assert!(matches!(call.next(ms(1)), Action::Sleep(d) if d == secs(3)));
    expect_send(call.next(secs(3)));
    // 9 s asked for with ~7 s left: the answer is the result.
    call.head(
        secs(3),
        Head {
            status: 503,
            retry_after: Some("9"),
            ..Head::default()
        },
    );
    assert!(matches!(call.next(secs(3)), Action::Read { .. }));
    call.chunk(secs(3), b"<html>busy</html>");
    call.next(secs(3));
    call.end(secs(3));
    // A whole body is the answer whatever its status: its parser decides.
    let Action::Done(answer) = call.next(secs(3)) else {
        panic!()
    };
    assert_eq!((answer.status, call.attempts()), (503, 2));
}

#[test]
fn every_wait_is_capped_by_what_is_left_of_the_total() {
    let mut call = dues_call(options(secs(2), secs(30), 0));
    let (connect, read, wait) = expect_send(call.next(ms(500)));
    assert_eq!((connect, read, wait), (secs(1), ms(1500), ms(1500)));
    call.head(ms(600), ok());
    assert!(matches!(call.next(ms(600)), Action::Read { wait } if wait == ms(1400)));
    call.failed(secs(2), TransportKind::Timeout, "");
    let e = expect_failed(call.next(secs(2)));
    assert_eq!(e.transport_kind(), Some(TransportKind::Timeout));
    assert!(e.to_string().contains("call's timeout of 2 s"), "{e}");
}

#[test]
fn a_timeout_before_the_total_ran_out_is_the_attempts_not_the_calls() {
    // Total 1.9 s, connect and read 1 s: the wait given is what is left
    // (1.9 s, shorter than connect + read), but httpx and ureq are bound by
    // their read limit, met at 1 s. It said "within the call's timeout".
    let mut call = dues_call(options(ms(1900), secs(1), 0));
    let (connect, read, wait) = expect_send(call.next(ms(0)));
    assert_eq!((connect, read, wait), (secs(1), secs(1), ms(1900)));
    call.failed(secs(1), TransportKind::Timeout, "");
    let e = expect_failed(call.next(secs(1)));
    assert!(
        e.to_string()
            .contains("within the connect timeout of 1 s and read timeout of 1 s"),
        "{e}"
    );
    // The whole wait run out (fetch, reqwest): the call's.
    let mut call = dues_call(options(ms(1900), secs(1), 0));
    expect_send(call.next(ms(0)));
    call.failed(ms(1900), TransportKind::Timeout, "");
    let e = expect_failed(call.next(ms(1900)));
    assert!(e.to_string().contains("call's timeout of 1.9 s"), "{e}");
    // And in the body: a read limit met with the total not run out.
    let mut call = dues_call(options(ms(1900), secs(1), 0));
    expect_send(call.next(ms(0)));
    call.head(ms(500), ok());
    assert!(matches!(call.next(ms(500)), Action::Read { wait } if wait == secs(1)));
    call.failed(ms(1500), TransportKind::Timeout, "");
    let e = expect_failed(call.next(ms(1500)));
    assert!(e.to_string().contains("read timeout of 1 s"), "{e}");
}

#[test]
fn a_read_timeout_says_so_and_is_retried_while_nothing_was_delivered() {
    let mut call = dues_call(options(secs(60), ms(300), 1));
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    call.next(ms(1));
    call.chunk(ms(2), b"{\"status\":");
    call.next(ms(2));
    call.failed(ms(302), TransportKind::Timeout, "");
    assert!(matches!(call.next(ms(302)), Action::Sleep(_)));
    expect_send(call.next(ms(800)));
    call.head(ms(801), ok());
    call.next(ms(801));
    call.failed(ms(1101), TransportKind::Timeout, "");
    let e = expect_failed(call.next(ms(1101)));
    assert!(e.to_string().contains("read timeout of 0.3 s"), "{e}");
    assert_eq!(e.call().unwrap().attempts, 2);
}

#[test]
fn no_free_connection_is_a_timeout_retried_that_says_what_ran_out() {
    let mut call = dues_call(options(secs(60), ms(300), 1));
    expect_send(call.next(ms(0)));
    call.no_free_connection(ms(10_000));
    assert!(matches!(call.next(ms(10_000)), Action::Sleep(_)));
    expect_send(call.next(ms(10_500)));
    call.no_free_connection(ms(20_500));
    let e = expect_failed(call.next(ms(20_500)));
    assert!(matches!(
        e,
        Error::Transport {
            kind: TransportKind::Timeout,
            ..
        }
    ));
    let text = e.to_string();
    assert!(text.contains("no free connection to https://"), "{text}");
    assert!(text.contains("pool was busy with other calls"), "{text}");
    assert_eq!(e.call().unwrap().attempts, 2);
}

#[test]
fn a_stream_cut_after_a_batch_fails_at_once_saying_how_far_it_got() {
    let mut call = stream_call(options(secs(60), secs(5), 3));
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    call.next(ms(1));
    call.chunk(
        ms(2),
        br#"{"status":"success","data":[{"a":1},{"a":2},{"a":3}"#,
    );
    let mut delivered = 0;
    loop {
        match call.next(ms(3)) {
            Action::Emit(batch) => delivered += batch.num_rows,
            Action::Read { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(delivered >= 1);
    call.failed(ms(4), TransportKind::Reset, "connection reset by peer");
    let e = expect_failed(call.next(ms(4)));
    let info = e.call().unwrap();
    assert_eq!(info.attempts, 1);
    assert_eq!(info.rows_delivered, Some(delivered as u64));
    assert_eq!(info.rows_received, Some(3));
    let text = e.to_string();
    assert!(text.contains("3 rows had arrived"), "{text}");
    assert!(text.contains("connection reset by peer"), "{text}");
}

#[test]
fn a_stream_cut_after_one_row_says_one_row() {
    let mut call = stream_call(options(secs(60), secs(5), 3));
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    call.next(ms(1));
    call.chunk(ms(2), br#"{"status":"success","data":[{"a":1},"#);
    while let Action::Emit(_) = call.next(ms(3)) {}
    call.failed(ms(4), TransportKind::Reset, "connection reset by peer");
    let e = expect_failed(call.next(ms(4)));
    assert_eq!(e.call().unwrap().rows_received, Some(1));
    let text = e.to_string();
    assert!(text.contains(" (1 row had arrived, "), "{text}");
}

/// A stream's sink whose batches complete later than the chunks that
/// hold them, as a decoder on another thread hands them over: each batch
/// is held until the sink is asked to catch up (`check`, `finish`) or its
/// decoder fails.
struct Lagging {
    inner: TableStream,
    held: std::collections::VecDeque<crate::decode::Batch>,
    ready: std::collections::VecDeque<crate::decode::Batch>,
}

impl Lagging {
    fn new() -> Self {
        Lagging {
            inner: TableStream::new(DecoderOptions::with_batch_rows(1)),
            held: Default::default(),
            ready: Default::default(),
        }
    }

    fn catch_up(&mut self) {
        while let Some(batch) = self.inner.next_batch() {
            self.held.push_back(batch);
        }
        self.ready.append(&mut self.held);
    }
}

impl Sink for Lagging {
    type Output = StreamEnd;

    fn start(&mut self, config: &Config, status: u16) -> Result<()> {
        self.held.clear();
        self.ready.clear();
        self.inner.start(config, status)
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        let fed = self.inner.feed(chunk);
        while let Some(batch) = self.inner.next_batch() {
            self.held.push_back(batch);
        }
        if fed.is_err() {
            self.catch_up();
        }
        fed
    }

    fn next_batch(&mut self) -> Option<crate::decode::Batch> {
        self.ready.pop_front()
    }

    fn has_batch(&self) -> bool {
        !self.ready.is_empty()
    }

    fn rows(&self) -> Option<u64> {
        self.inner.rows()
    }

    fn check(&mut self) -> Result<()> {
        self.catch_up();
        self.inner.check()
    }

    fn finish(&mut self) -> Result<StreamEnd> {
        let end = self.inner.finish();
        self.catch_up();
        end
    }
}

/// How a stream's answer goes after its head: chunks, then the end or a
/// broken connection.
enum Ending {
    End,
    Reset,
}

/// Runs a stream through `sink` against an answer of `chunks` and
/// `ending` (then, if it is sent for again, a complete answer): the rows
/// handed out per attempt and the call's result.
fn run_stream<S: Sink<Output = StreamEnd>>(
    sink: S,
    chunks: &[&[u8]],
    ending: Ending,
) -> (Vec<usize>, std::result::Result<StreamEnd, String>) {
    let c = config();
    let request = c.table_request(&TableQuery::new("sales_invoice")).unwrap();
    let mut call =
        Call::new(&c, request, options(secs(60), secs(5), 1), sink, ms(0), 1).streaming();
    let mut rows = Vec::new();
    let mut attempt_rows = 0;
    let mut step = 0;
    let mut attempt = 0;
    let mut sent_again = false;
    let mut fed = 0;
    loop {
        match call.next(ms(step)) {
            Action::Send { .. } => {
                attempt += 1;
                if attempt > 1 {
                    rows.push(attempt_rows);
                    attempt_rows = 0;
                }
                call.head(ms(step), ok());
            }
            Action::Read { .. } if attempt > 1 && !sent_again => {
                call.chunk(ms(step), br#"{"status":"success","data":[{"a":9}]}"#);
                sent_again = true;
            }
            Action::Read { .. } if attempt > 1 => call.end(ms(step)),
            Action::Read { .. } => match chunks.get(fed) {
                Some(chunk) => {
                    call.chunk(ms(step), chunk);
                    fed += 1;
                }
                None => match ending {
                    Ending::End => call.end(ms(step)),
                    Ending::Reset => call.failed(ms(step), TransportKind::Reset, "reset by peer"),
                },
            },
            Action::Emit(batch) => attempt_rows += batch.num_rows,
            Action::Sleep(_) => {}
            Action::Done(end) => {
                rows.push(attempt_rows);
                return (rows, Ok(end));
            }
            Action::Failed(e) => {
                rows.push(attempt_rows);
                let info = e.call().unwrap();
                return (
                    rows,
                    Err(format!(
                        "{e} | {:?} {:?}",
                        info.rows_delivered, info.rows_received
                    )),
                );
            }
        }
        step += 1;
    }
}

#[test]
fn batches_a_lagging_sink_completed_go_out_before_the_answer_s_failure() {
    // Whatever the sink's lag, the caller sees what a sink decoding each
    // chunk as it came gives: the same batches, the same error saying the
    // same rows delivered, a retry only when nothing was complete.
    let cases: [(&str, &[&[u8]], Ending); 5] = [
        (
            "cut after rows",
            &[
                br#"{"status":"success","data":[{"a":1},{"a":2},"#,
                br#"{"a":3},"#,
            ],
            Ending::Reset,
        ),
        (
            "cut before a row",
            &[br#"{"status":"success","data":[{"a""#],
            Ending::Reset,
        ),
        (
            "bad JSON after rows",
            &[
                br#"{"status":"success","data":[{"a":1},{"a":2},"#,
                br#"{"a":3}}}"#,
            ],
            Ending::End,
        ),
        (
            "truncated at the end",
            &[br#"{"status":"success","data":[{"a":1},{"a":2},"#],
            Ending::End,
        ),
        (
            "whole",
            &[br#"{"status":"success","data":[{"a":1},"#, br#"{"a":2}]}"#],
            Ending::End,
        ),
    ];
    for (name, chunks, ending) in cases {
        let at_once = run_stream(
            TableStream::new(DecoderOptions::with_batch_rows(1)),
            chunks,
            match ending {
                Ending::End => Ending::End,
                Ending::Reset => Ending::Reset,
            },
        );
        let lagging = run_stream(Lagging::new(), chunks, ending);
        assert_eq!(lagging, at_once, "{name}");
    }
    let (rows, result) = run_stream(
        Lagging::new(),
        &[br#"{"status":"success","data":[{"a":1},{"a":2},"#],
        Ending::Reset,
    );
    assert_eq!(rows, vec![2]);
    let error = result.unwrap_err();
    assert!(error.contains("Some(2) Some(2)"), "{error}");
}

#[test]
fn a_stream_cut_before_any_batch_is_sent_for_again() {
    let mut call = stream_call(options(secs(60), secs(5), 1));
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    call.next(ms(1));
    call.chunk(ms(2), br#"{"status":"succ"#);
    call.next(ms(2));
    call.failed(ms(3), TransportKind::Reset, "");
    assert!(matches!(call.next(ms(3)), Action::Sleep(_)));
    expect_send(call.next(secs(1)));
    assert_eq!(call.attempts(), 2);
}

#[test]
fn time_a_stream_s_caller_holds_a_batch_does_not_count() {
    let mut call = stream_call(options(secs(1), secs(1), 0));
    expect_send(call.next(ms(0)));
    call.head(ms(100), ok());
    call.next(ms(100));
    call.chunk(ms(200), br#"{"status":"success","data":[{"a":1},{"a":2},"#);
    assert!(matches!(call.next(ms(200)), Action::Emit(_)));
    // The caller takes 10 s over the batch.
    assert!(matches!(call.next(secs(10) + ms(200)), Action::Emit(_)));
    match call.next(secs(20) + ms(200)) {
        Action::Read { wait } => assert_eq!(wait, ms(800)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_chunk_lent_to_a_sink_that_cannot_keep_it_is_fed_as_any_other() {
    // `chunk_owned` with the sinks' default `feed_owned`: the same bytes,
    // in the same order, as `chunk`.
    let mut call = dues_call(CallOptions::default());
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    assert!(matches!(call.next(ms(1)), Action::Read { .. }));
    call.chunk_owned(ms(2), Box::new(b"[1,".to_vec()));
    assert!(matches!(call.next(ms(2)), Action::Read { .. }));
    call.chunk(ms(3), b"2]");
    assert!(matches!(call.next(ms(3)), Action::Read { .. }));
    call.end(ms(4));
    let Action::Done(answer) = call.next(ms(4)) else {
        panic!()
    };
    assert_eq!(answer.body.as_slice(), b"[1,2]");
    // Out of turn, it is the same misuse as a chunk.
    let mut call = dues_call(CallOptions::default());
    call.chunk_owned(ms(0), Box::new(b"x".to_vec()));
    let e = expect_failed(call.next(ms(0)));
    assert!(e.to_string().contains("a bug in the binding"), "{e}");
}

#[test]
fn a_host_driving_out_of_order_gets_an_error_not_a_panic() {
    let mut call = dues_call(CallOptions::default());
    call.chunk(ms(0), b"x");
    let e = expect_failed(call.next(ms(0)));
    assert!(e.to_string().contains("a bug in the binding"), "{e}");
    let mut call = dues_call(CallOptions::default());
    expect_send(call.next(ms(0)));
    let e = expect_failed(call.next(ms(0)));
    assert!(e.to_string().contains("before reporting"), "{e}");
}

#[test]
fn the_jitter_comes_from_the_seed() {
    let delays = |seed| {
        let c = config();
        let request = c
            .dues_request(&DuesQuery::new("C001", DuesKind::Receipt))
            .unwrap();
        let mut call = Call::new(
            &c,
            request,
            options(secs(60), secs(5), 1),
            WholeBody::default(),
            Duration::ZERO,
            seed,
        );
        call.next(ms(0));
        call.head(ms(0), status(502));
        match call.next(ms(0)) {
            Action::Sleep(d) => d,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(delays(7), delays(7));
    assert_ne!(delays(7), delays(8));
    for seed in 0..50 {
        let d = delays(seed);
        assert!(d >= ms(250) && d <= ms(500), "{d:?}");
    }
}

/// Runs a dues call of `config` whose every attempt is answered `code`
/// (then `200` once `failures` are used up): the attempts it made and its
/// error, if any.
fn run_against(config: &Config, failures: &mut u32, code: u16) -> (u32, Option<Error>) {
    let request = config
        .dues_request(&DuesQuery::new("C001", DuesKind::Receipt))
        .unwrap();
    let options = options(secs(60), secs(10), 2);
    // As the clients' parsers do: a status outside 2xx is the call's error.
    let sink = Parsed::new(|_: &Config, status: u16, _: &[u8]| match status {
        200 => Ok(()),
        _ => Err(Error::HttpStatus {
            status,
            excerpt: String::new(),
            call: None,
        }),
    });
    let mut call = Call::new(config, request, options, sink, ms(0), 3);
    loop {
        match call.next(ms(0)) {
            Action::Send { .. } if *failures > 0 => {
                *failures -= 1;
                call.head(ms(0), status(code));
            }
            Action::Send { .. } => call.head(ms(0), ok()),
            Action::Read { .. } => {
                call.chunk(ms(0), br#"{"status":"success","data":[]}"#);
                call.next(ms(0));
                call.end(ms(0));
            }
            Action::Sleep(_) | Action::Emit(_) => {}
            Action::Done(_) => return (call.attempts(), None),
            Action::Failed(e) => return (call.attempts(), Some(e)),
        }
    }
}

#[test]
fn the_retry_budget_is_shared_by_a_configs_calls_and_refilled_by_successes() {
    let config = config();
    let mut failures = 12;
    let mut attempts = vec![];
    let mut last = None;
    while failures > 0 {
        let (n, error) = run_against(&config.clone(), &mut failures, 503);
        attempts.push(n);
        last = error;
    }
    // Three attempts, then two, then one a call: ten tokens, one a
    // failure, retries only while more than five are left.
    assert_eq!(attempts, [3, 2, 1, 1, 1, 1, 1, 1, 1]);
    let last = last.unwrap();
    assert!(last.call().unwrap().retry_withheld);
    assert!(
        last.to_string().contains("not retried: recent requests"),
        "{last}"
    );
    // A healthy answer again: no error, and each success refills a tenth.
    assert_eq!(run_against(&config, &mut failures, 503), (1, None));
    assert_eq!(config.retry_budget().tokens(), 100);
    // Another client of the same service has its own budget.
    let mut one = 1;
    assert_eq!(run_against(&self::config(), &mut one, 503), (2, None));
}

#[test]
fn failures_that_would_fail_again_do_not_spend_the_budget() {
    let config = config();
    let mut failures = 20;
    for _ in 0..20 {
        let (n, error) = run_against(&config, &mut failures, 500);
        assert_eq!(n, 1);
        assert!(!error.unwrap().call().unwrap().retry_withheld);
    }
    assert_eq!(config.retry_budget().tokens(), crate::RETRY_BUDGET_TOKENS);
}

#[test]
fn debug_of_a_send_withholds_the_token() {
    let c = config();
    for method in [crate::query::Method::Post, crate::query::Method::Get] {
        let request = c
            .table_request(&TableQuery::new("sales_invoice").method(method))
            .unwrap();
        let mut call = Call::new(
            &c,
            request,
            CallOptions::default(),
            WholeBody::default(),
            Duration::ZERO,
            1,
        );
        let shown = format!("{:?}", call.next(ms(0)));
        assert!(!shown.contains(TOKEN), "{shown}");
        // Nor the body's bytes, which would spell it as numbers.
        assert!(!shown.contains("body: ["), "{shown}");
        assert!(shown.contains("accesstoken=[REDACTED]"), "{shown}");
        assert!(
            shown.contains("dataapi.php") && shown.contains("sales_invoice"),
            "{shown}"
        );
        assert!(shown.starts_with("Send {"), "{shown}");
    }
}

#[test]
fn debug_of_a_send_redacts_a_token_in_the_path_or_a_redirects_location() {
    // Not an `accesstoken` pair: the token in the base URL's path, then a
    // same-origin redirect whose `Location` carries it encoded.
    let c = config_at(&format!("https://erp.example.com/gw/{TOKEN}/"));
    let mut call = dues_call_of(&c, CallOptions::default());
    let first = format!("{:?}", call.next(ms(0)));
    call.head(
        ms(1),
        Head {
            status: 307,
            location: Some(&format!(
                "/login?return=%2Fapis%2Fajax.php%3Faccesstoken%3D{TOKEN}"
            )),
            ..Head::default()
        },
    );
    let second = format!("{:?}", call.next(ms(1)));
    for shown in [first, second] {
        assert!(shown.starts_with("Send {"), "{shown}");
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(shown.contains("[REDACTED]"), "{shown}");
    }
    // A refused argument of a request built by hand is redacted as the
    // catalogue's are (`stream_table` builds its request so).
    let refused = c
        .table_request(&TableQuery::new("sales_invoice").company_id(format!("{TOKEN} ")))
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("invalid company_id: ") && !refused.contains(TOKEN),
        "{refused}"
    );
}

#[test]
fn debug_of_an_answer_shows_its_length_not_its_bytes() {
    let mut call = dues_call(CallOptions::default());
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    assert!(matches!(call.next(ms(1)), Action::Read { .. }));
    call.chunk(ms(2), format!("[\"{TOKEN}\"]").as_bytes());
    assert!(matches!(call.next(ms(2)), Action::Read { .. }));
    let in_progress = format!("{:?}", call.sink());
    call.end(ms(3));
    let done = format!("{:?}", call.next(ms(3)));
    for shown in [in_progress, done] {
        assert!(shown.contains("body: <29 bytes>"), "{shown}");
        assert!(!shown.contains("[91"), "{shown}");
    }
}

#[test]
fn options_out_of_range_fail_before_anything_is_sent() {
    let mut retries = CallOptions::default();
    retries.retry.max_retries = 1000;
    let mut forever = CallOptions::default();
    forever.timeouts.read = Duration::MAX;
    forever.timeouts.connect = Duration::MAX;
    for (options, field) in [(retries, "max_retries"), (forever, "timeout")] {
        let mut call = dues_call(options);
        match expect_failed(call.next(ms(0))) {
            Error::InvalidInput { field: f, .. } => assert_eq!(f, field),
            other => panic!("{other:?}"),
        }
    }
}

/// A dues call whose answers are `heads` in turn, each with an HTML body,
/// its status error made by the dues parser: the call's error.
fn fail_with(options: CallOptions, heads: &[Head<'_>]) -> Error {
    let c = config();
    let query = DuesQuery::new("C001", DuesKind::Receipt);
    let request = c.dues_request(&query).unwrap();
    let sink =
        Parsed::new(move |c: &Config, status, body: &[u8]| c.parse_dues(&query, status, body));
    let mut call = Call::new(&c, request, options, sink, ms(0), 5);
    let mut heads = heads.iter();
    loop {
        match call.next(ms(0)) {
            Action::Send { .. } => call.head(ms(0), *heads.next().expect("a head per attempt")),
            Action::Read { .. } => {
                call.chunk(ms(0), b"<html>busy</html>");
                call.next(ms(0));
                call.end(ms(0));
            }
            Action::Sleep(_) | Action::Emit(_) => {}
            Action::Done(_) => panic!("the call passed"),
            Action::Failed(e) => return e,
        }
    }
}

fn asking(code: u16, retry_after: &str) -> Head<'_> {
    Head {
        status: code,
        retry_after: Some(retry_after),
        ..Head::default()
    }
}

#[test]
fn a_wait_longer_than_max_retry_after_is_kept_and_said() {
    let e = fail_with(CallOptions::default(), &[asking(503, "120")]);
    assert_eq!(e.status_code(), Some(503));
    assert_eq!(e.call().unwrap().attempts, 1);
    assert!(e.is_retryable());
    assert_eq!(e.retry_after(), Some(secs(120)));
    assert!(
        e.to_string().contains(
            "(not retried: the service asked to wait 120 s, longer than the longest wait a \
             client retries after (30 s): try again once it has passed)"
        ),
        "{e}"
    );
}

#[test]
fn a_status_error_keeps_the_wait_of_its_own_answer() {
    // Retries spent: the last answer's wait is kept, and the message does
    // not blame max_retry_after.
    let e = fail_with(
        options(secs(60), secs(10), 1),
        &[asking(429, "1"), asking(429, "2")],
    );
    assert_eq!((e.retry_after(), e.is_retryable()), (Some(secs(2)), true));
    assert!(!e.to_string().contains("longest wait"), "{e}");
    // No retries allowed: a long wait is still not the reason it stopped.
    let e = fail_with(options(secs(60), secs(10), 0), &[asking(503, "120")]);
    assert_eq!(e.retry_after(), Some(secs(120)));
    assert!(!e.to_string().contains("longest wait"), "{e}");
    // An HTTP date, counted from the binding's clock.
    let now = httpdate::parse_http_date("Sun, 22 Nov 2026 10:00:00 GMT").unwrap();
    let dated = Head {
        date: Some(now),
        ..asking(503, "Sun, 22 Nov 2026 10:02:00 GMT")
    };
    let e = fail_with(CallOptions::default(), &[dated]);
    assert_eq!(e.retry_after(), Some(secs(120)));
    assert!(e.to_string().contains("asked to wait 120 s"), "{e}");
    // A retry answered by a status that asks nothing keeps nothing of the
    // wait asked before it.
    let e = fail_with(
        options(secs(60), secs(10), 2),
        &[asking(503, "0"), status(404)],
    );
    assert_eq!((e.status_code(), e.retry_after()), (Some(404), None));
    assert!(!e.is_retryable());
    // A status that would fail again: its Retry-After is no wait to keep.
    let e = fail_with(CallOptions::default(), &[asking(500, "5")]);
    assert_eq!((e.retry_after(), e.is_retryable()), (None, false));
    // Unreadable: nothing kept, the backoff applied.
    let e = fail_with(options(secs(60), secs(10), 0), &[asking(503, "soon")]);
    assert_eq!((e.retry_after(), e.is_retryable()), (None, true));
}

#[test]
fn a_transport_failure_is_retryable_unless_it_would_fail_again() {
    for (kind, retryable) in [
        (TransportKind::Connect, true),
        (TransportKind::Timeout, true),
        (TransportKind::Reset, true),
        (TransportKind::Tls, false),
        (TransportKind::Other, false),
    ] {
        let mut call = dues_call(options(secs(60), secs(10), 0));
        expect_send(call.next(ms(0)));
        call.failed(ms(1), kind, "it failed");
        let e = expect_failed(call.next(ms(1)));
        assert_eq!(
            (e.is_retryable(), e.retry_after()),
            (retryable, None),
            "{kind}"
        );
    }
}

#[test]
fn a_server_answering_tls_in_plain_http_is_a_tls_failure_not_retried() {
    // Each stack's own words and kind: httpx's connect, Node's other,
    // rustls's. Not on this machine, plain http is no advice (it would
    // carry the token unencrypted); a loopback service's is in
    // tests/integration/tls.rs.
    for (kind, detail) in [
        (
            TransportKind::Connect,
            "ConnectError: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)",
        ),
        (
            TransportKind::Other,
            "write EPROTO ...:SSL routines:ssl3_get_record:wrong version number:...",
        ),
        (
            TransportKind::Connect,
            "received corrupt message of type InvalidContentType",
        ),
    ] {
        let mut call = dues_call(options(secs(60), secs(10), 2));
        expect_send(call.next(ms(0)));
        call.failed(ms(1), kind, detail);
        let e = expect_failed(call.next(ms(1)));
        assert_eq!(e.transport_kind(), Some(TransportKind::Tls), "{detail}");
        assert!(!e.is_retryable());
        assert_eq!(e.call().unwrap().attempts, 1);
        let message = e.to_string();
        assert!(
            message.starts_with(
                "transport error (tls): https://erp.example.com answered in plain HTTP, not TLS"
            ) && message.contains("is the base URL's port the service's port for https?")
                && !message.contains("http://")
                && message.contains(detail),
            "{message}"
        );
    }
    // The same words for a base URL of http:// are left as the stack's.
    let config = config_at("http://127.0.0.1:8080/");
    let mut call = dues_call_of(&config, options(secs(60), secs(10), 0));
    expect_send(call.next(ms(0)));
    call.failed(ms(1), TransportKind::Other, "wrong version number");
    let e = expect_failed(call.next(ms(1)));
    assert_eq!(e.transport_kind(), Some(TransportKind::Other));
}

#[test]
fn a_retry_the_timeout_has_no_room_for_is_said() {
    // A connection refused 1.9 s into a 2 s call: the backoff (0.25-0.5 s)
    // would pass the timeout, so the refusal is the result, saying why.
    let mut call = dues_call(options(secs(2), secs(1), 2));
    expect_send(call.next(ms(0)));
    call.failed(ms(1900), TransportKind::Connect, "connection refused");
    let e = expect_failed(call.next(ms(1900)));
    assert_eq!(e.transport_kind(), Some(TransportKind::Connect));
    let delay = e.call().unwrap().retry_past_timeout.unwrap();
    assert!(delay >= ms(250) && delay <= ms(500), "{delay:?}");
    let text = e.to_string();
    assert!(
        text.contains("(not retried: the next attempt was due in 0.")
            && text.ends_with(" s, past the call's timeout; a longer timeout lets it retry)"),
        "{text}"
    );

    // The wait a 503 asked for (9 s, within max_retry_after) with 5 s to go.
    let e = fail_with(options(secs(5), secs(1), 2), &[asking(503, "9")]);
    assert_eq!(e.status_code(), Some(503));
    assert_eq!(e.call().unwrap().retry_past_timeout, Some(secs(9)));
    assert!(
        e.to_string()
            .ends_with("(not retried: the next attempt was due in 9 s, past the call's timeout; a longer timeout lets it retry)"),
        "{e}"
    );
}

#[test]
fn a_call_out_of_time_says_only_its_timeout() {
    let mut call = dues_call(options(secs(2), secs(30), 2));
    expect_send(call.next(ms(0)));
    call.failed(secs(2), TransportKind::Timeout, "");
    let e = expect_failed(call.next(secs(2)));
    assert_eq!(e.call().unwrap().retry_past_timeout, None);
    assert!(!e.to_string().contains("not retried"), "{e}");
    assert!(e.to_string().contains("call's timeout of 2 s"), "{e}");
}

#[test]
fn each_call_has_its_own_number_and_its_log_lines_start_with_it() {
    let mut first = dues_call(CallOptions::default());
    let second = stream_call(CallOptions::default());
    assert!(
        second.id() > first.id(),
        "{} then {}",
        first.id(),
        second.id()
    );
    let n = first.id();
    assert_eq!(first.ended_line(), None, "nothing sent, nothing logged");
    expect_send(first.next(ms(0)));
    assert_eq!(
        first.ended_line(),
        Some(format!("call {n}: ended by its caller after 0 rows"))
    );
    assert!(first
        .request_line()
        .starts_with(&format!("call {n}: request 1: GET ")));
    assert_eq!(first.answer_line(503), format!("call {n}: answer 503"));
    assert_eq!(
        first.waiting_line(ms(517)),
        format!("call {n}: waiting 0.52 s before request 2 (as the core's call asks)")
    );
    assert_eq!(first.done_line(), format!("call {n}: done after 1 request"));
    assert_eq!(
        first.failed_line("busy"),
        format!("call {n}: failed after 1 request: busy")
    );
}

#[test]
fn a_table_cut_before_its_first_row_says_none_had_arrived() {
    // rows_received was missing where no row was complete, while the
    // message said "after 0 complete rows"; a dues call has no rows.
    let c = config();
    let request = c.table_request(&TableQuery::new("sales_invoice")).unwrap();
    let sink = crate::catalogue::WholeTable::new(DecoderOptions::default());
    let mut call = Call::new(
        &c,
        request,
        options(secs(60), secs(5), 0),
        sink,
        Duration::ZERO,
        1,
    );
    expect_send(call.next(ms(0)));
    call.head(ms(1), ok());
    call.next(ms(1));
    call.chunk(ms(2), br#"{"status":"success","data":[{"a":"#);
    call.next(ms(2));
    call.end(ms(3));
    let e = expect_failed(call.next(ms(3)));
    assert_eq!(e.call().unwrap().rows_received, Some(0), "{e}");

    let mut dues = dues_call(options(secs(60), secs(5), 0));
    expect_send(dues.next(ms(0)));
    dues.head(ms(1), ok());
    dues.next(ms(1));
    dues.chunk(ms(2), br#"{"status":"success","data":[{"#);
    dues.next(ms(2));
    dues.failed(ms(3), TransportKind::Reset, "connection reset by peer");
    let e = expect_failed(dues.next(ms(3)));
    assert_eq!(e.call().unwrap().rows_received, None, "{e}");
}
