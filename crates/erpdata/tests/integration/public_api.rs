//! The crate's public surface, pinned: every name users import, and the
//! signatures of the methods they call. A name that disappears or a
//! signature that changes fails this file's build, so nothing a user calls
//! goes away unnoticed. Adding to the surface is fine; removing is a
//! breaking change and must be deliberate (update this listing with it).
#![allow(unused_imports, clippy::type_complexity)]

#[cfg(any(feature = "reqwest", feature = "blocking"))]
use erpdata::ClientOptions;
use erpdata::{
    account_ids, aging, civil_from_days, credit_status, credit_status_of, operation, parse_decimal,
    parse_plain_decimal, pay_days, pay_days_of_text, timestamp_parts, unify_schemas,
    write_timestamp, AccessToken, Action, AgingOptions, AgingPlan, AjaxAnswer, AjaxFunction,
    AjaxOptions, AjaxQuery, AjaxValue, Answer, Arg, Args, Batch, Bitmap, Call, CallInfo,
    CallOptions, Cell, Column, ColumnData, ColumnType, Config, ConfigBuilder, CreditStatusPlan,
    Decision, DeclaredSchema, DeclaredType, DecoderOptions, Digits, Dues, DuesKind, DuesQuery,
    Error, Finished, Head, Id, Interner, Invocation, Method, Numbering, Operation, OperationSink,
    Outcome, Output, Parsed, Plan, PlanStep, PlannedCall, Result, RetryPolicy, Row, RowsFrom,
    Schema, Sent, Sink, StreamEnd, Table, TableBatches, TableDecoder, TableQuery, TableStream,
    Texts, Timeouts, TransportKind, TransportSource, TypedRows, WholeBody, WholeTable,
    ACCESS_TOKEN_VAR, BALANCE_COLUMNS, BASE_URL_VAR, COMPANY_ID_VAR, DEFAULT_BATCH_ROWS,
    DEFAULT_BUCKETS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT,
    DEFAULT_ROW_BATCH_ROWS, DEFAULT_TOTAL_TIMEOUT, DUE_DATE_COLUMNS, FORM_CONTENT_TYPE,
    MAX_BATCH_ROWS, MAX_CONCURRENCY, MAX_REDIRECTS, MAX_RETRIES, MAX_TIMEOUT, MIN_BATCH_ROWS,
    OPERATIONS, PAY_DAYS_FIELDS, PROJECT_FOLDER_VAR, PROJECT_VAR, REDACTED, RESERVED_PARAMS,
    USER_AGENT_VALUE, YEAR_ID_VAR, ZERO_DATE_MARK, ZERO_TIMESTAMP_MARK,
};
// The Python and JavaScript bindings' helpers, hidden from the docs.
use erpdata::binding::{check_batch_rows, check_concurrency, check_max_retries, closest, js_name};
#[cfg(feature = "reqwest")]
use erpdata::{AsyncClient, BatchStream};
#[cfg(feature = "blocking")]
use erpdata::{BatchIter, BlockingClient};

type Req = http::Request<erpdata::RequestBody>;

#[test]
fn the_core_surface() {
    let _: fn(i64) -> (i32, (u32, u32, u32, u32)) = timestamp_parts;
    let _: fn(&Config, &DuesQuery) -> Result<Req> = Config::dues_request;
    let _: fn(&Config, &TableQuery) -> Result<Req> = Config::table_request;
    let _: fn(&Config, &AjaxQuery) -> Result<Req> = Config::ajax_request;
    let _: fn(&Config, u16, &[u8]) -> Result<Table> = Config::parse_table;
    let _: fn(&Config, u16, &[u8], &DecoderOptions) -> Result<Table> = Config::parse_table_with;
    let _: fn(&Config, &DuesQuery, u16, &[u8]) -> Result<Dues> = Config::parse_dues;
    let _: fn(&Config, &AjaxQuery, u16, &[u8]) -> Result<AjaxAnswer> = Config::parse_ajax;
    let _: fn(&Config, &[Dues], &DecoderOptions) -> Result<TypedRows> = Config::dues_table;
    let _: fn(&Config, &'static Operation, &Args) -> Result<Invocation> = Config::invoke;
    let _: fn(&Config, erpdata::catalogue::Query) -> Result<Invocation> = Config::invocation;
    let _: fn(&Config, &str) -> String = Config::redact;
    let _: fn(&Config) -> bool = Config::proxy_allowed;
    let _: fn(&str) -> Result<&'static Operation> = operation;
    let _: fn(&Config, u16, DecoderOptions) -> TableDecoder = TableDecoder::new;
    let _: fn(&mut TableDecoder, &[u8]) -> Result<Vec<Batch>> = TableDecoder::feed;
    let _: fn(TableDecoder) -> Result<Finished> = TableDecoder::finish;
    let _: fn(&TableDecoder) -> Option<RowsFrom> = TableDecoder::rows_from;
    let _: fn(&[u8]) -> Vec<u8> = RowsFrom::body;
    let _: fn(&mut Interner<'static>, &'static [u8]) -> u32 = Interner::intern;
    let _: fn(&mut Numbering<'static, fn(usize) -> usize>, Option<&'static [u8]>) -> bool =
        Numbering::push;
    let _: fn(
        &mut Numbering<'static, fn(usize) -> usize>,
        &'static Texts,
        Option<&Bitmap>,
    ) -> bool = Numbering::push_texts;
    let _ = |t: &Texts| t.each_value(None, |_| true);
    let _: fn(&[Batch], &AgingOptions) -> Result<TypedRows> = aging;
    let _: fn(&[Batch], &[Batch], &[(String, Cell)], &str) -> Result<TypedRows> = credit_status;
    let _: fn(&[Batch], DuesKind) -> Result<Vec<String>> = account_ids;
    let _: fn(&str, &AjaxAnswer) -> Result<Cell> = pay_days;
    let _: fn(&str, u8) -> Option<i128> = parse_plain_decimal;
    let _: fn(&str, u8) -> Option<i128> = parse_decimal;
    let _: fn(&str, &Arg) -> Result<Vec<String>> = CreditStatusPlan::account_ids;
    let _: fn(AgingPlan, [&'static str; 2]) -> AgingPlan = AgingPlan::accounts;
    let _: fn(AgingPlan, Vec<u32>) -> AgingPlan = AgingPlan::buckets;
    let _: fn(AgingPlan, &'static str) -> AgingPlan = AgingPlan::accounts_table;
    let _: fn(AgingPlan, i64) -> AgingPlan = AgingPlan::company_id;
    let _: fn(AgingPlan, &'static str) -> AgingPlan = AgingPlan::year_id;
    let _: fn(AgingPlan, usize) -> AgingPlan = AgingPlan::concurrency;
    let _: fn(CreditStatusPlan, Vec<String>) -> CreditStatusPlan = CreditStatusPlan::accounts;
    let _: fn(CreditStatusPlan, bool) -> CreditStatusPlan = CreditStatusPlan::pay_days;
    let _: fn(CreditStatusPlan, String) -> CreditStatusPlan = CreditStatusPlan::accounts_table;
    let _: fn(CreditStatusPlan, u32) -> CreditStatusPlan = CreditStatusPlan::company_id;
    let _: fn(CreditStatusPlan, &'static str) -> CreditStatusPlan = CreditStatusPlan::year_id;
    let _: fn(CreditStatusPlan, usize) -> CreditStatusPlan = CreditStatusPlan::concurrency;
    let _: fn(&Config, &Arg, &Arg, i64, DecoderOptions) -> Result<Plan> = Plan::dues_table;
    let _: fn(&Config, &AgingPlan, DecoderOptions) -> Result<Plan> = Plan::aging;
    let _: fn(&Config, &CreditStatusPlan, DecoderOptions) -> Result<Plan> = Plan::credit_status;
    let _: fn(&Config, &Arg, &Arg, i64, DecoderOptions) -> Result<Plan> = Plan::dues_each;
    let _: fn(&mut Plan) -> Vec<Dues> = Plan::take_dues;
    let _: fn(&Plan) -> bool = Plan::answers_each;
    let _: fn(&mut Plan) -> PlanStep = Plan::next;
    let _: fn(&mut Plan, usize, Result<Output>) = Plan::done;
    let _: fn(&Invocation, &Config) -> Result<Req> = Invocation::request;
    let _: fn(&Invocation, DecoderOptions) -> OperationSink = Invocation::sink;
    let _ = |a: &str| -> AjaxQuery { AjaxQuery::avg_pay_days(a) };
    let _ = |a: &str, b: &str| -> AjaxQuery { AjaxQuery::gross_profit(a, b) };
    let _ = |a: &str, b: &str| -> AjaxQuery { AjaxQuery::net_profit(a, b) };
    let _ = |a: &str, b: &str, c: &str| -> AjaxQuery { AjaxQuery::schedule_accounts(a, b, c) };
    let _: fn() -> AjaxQuery = AjaxQuery::dues_summary;
    let _ = |a: &str, k: DuesKind| -> DuesQuery { DuesQuery::new(a, k) };
    let _ = |t: &str| -> TableQuery { TableQuery::new(t) };
    let _: fn(&Error) -> Option<&str> = Error::field;
    let _: fn(&Error) -> &'static str = Error::kind;
    let _: fn(&Error) -> Option<u16> = Error::status_code;
    let _: fn(&Error) -> Error = Error::js_spelled;
    let _: fn(&str) -> std::borrow::Cow<'_, str> = js_name;
    let _: fn(&Error) -> bool = Error::is_retryable;
    let _: fn(&Error) -> Option<std::time::Duration> = Error::retry_after;
    let _ = |o: &Outcome<'_>| -> Option<std::time::Duration> { o.asked_wait(None) };
    let _: for<'a> fn(&str, &[&'a str]) -> Option<&'a str> = closest;
    // A call's log lines, each starting with its number.
    let _: fn(&Call<WholeBody>) -> u64 = Call::id;
    let _: fn(&Call<WholeBody>) -> String = Call::request_line;
    let _: fn(&Call<WholeBody>, u16) -> String = Call::answer_line;
    let _: fn(&Call<WholeBody>, std::time::Duration) -> String = Call::waiting_line;
    let _: fn(&Call<WholeBody>) -> String = Call::done_line;
    let _: fn(&Call<WholeBody>, &str) -> String = Call::failed_line;
    let _: fn(f64, f64, f64) -> Result<Timeouts> = Timeouts::from_millis_f64;
    // Every operation of the interface is in the catalogue.
    let names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
    assert_eq!(
        names,
        [
            "dues",
            "table",
            "dues_summary",
            "avg_pay_days",
            "net_profit",
            "gross_profit",
            "schedule_accounts",
            "ajax"
        ]
    );
}

#[cfg(feature = "blocking")]
#[test]
fn the_blocking_client_surface() {
    let _: fn(Config) -> Result<BlockingClient> = BlockingClient::new;
    let _: fn() -> Result<BlockingClient> = BlockingClient::from_env;
    let _: fn(Config, ClientOptions) -> Result<BlockingClient> = BlockingClient::with_options;
    let _ = |c: &BlockingClient, a: &str, k: DuesKind| -> Result<Dues> { c.dues(a, k) };
    let _: fn(&BlockingClient, DuesQuery) -> Result<Dues> = BlockingClient::dues_query;
    let _ = |c: &BlockingClient, a: &str| -> Result<Dues> { c.receivables(a) };
    let _ = |c: &BlockingClient, a: &str| -> Result<Dues> { c.payables(a) };
    let _ = |c: &BlockingClient, a: Vec<&str>, k: DuesKind, n: usize| -> Result<TypedRows> {
        c.dues_table(a, k, n)
    };
    let _: fn(&BlockingClient, &AgingPlan) -> Result<TypedRows> = BlockingClient::aging;
    let _: fn(&BlockingClient, &CreditStatusPlan) -> Result<TypedRows> =
        BlockingClient::credit_status;
    let _: fn(&BlockingClient, Plan) -> Result<TypedRows> = BlockingClient::run_plan;
    let _: fn(&BlockingClient, &'static Operation, &Args) -> Result<Output> =
        BlockingClient::invoke;
    let _: fn(&BlockingClient, AjaxQuery) -> Result<AjaxAnswer> = BlockingClient::ajax;
    let _: fn(&BlockingClient) -> Result<AjaxAnswer> = BlockingClient::dues_summary;
    let _ = |c: &BlockingClient, a: &str| -> Result<AjaxAnswer> { c.avg_pay_days(a) };
    let _: fn(&BlockingClient, &str, &str) -> Result<AjaxAnswer> = BlockingClient::net_profit;
    let _: fn(&BlockingClient, &str, &str) -> Result<AjaxAnswer> = BlockingClient::gross_profit;
    let _: fn(&BlockingClient, &str, &str, &str) -> Result<AjaxAnswer> =
        BlockingClient::schedule_accounts;
    let _ = |c: &BlockingClient, t: &str| -> Result<Table> { c.table(t) };
    let _ = |c: &BlockingClient, t: &str| -> Result<BatchIter> { c.stream_table(t) };
    let _: fn(&BlockingClient, Timeouts) -> Result<BlockingClient> = BlockingClient::with_timeouts;
    let _: fn(&BlockingClient, u32) -> Result<BlockingClient> = BlockingClient::with_max_retries;
    let _: fn(&BlockingClient, DeclaredSchema) -> BlockingClient = BlockingClient::with_schema;
    let _: fn(&BatchIter) -> Option<&StreamEnd> = BatchIter::end;
}

#[cfg(feature = "reqwest")]
#[test]
fn the_async_client_surface() {
    // Async methods are pinned by calling them in a future never run.
    async fn uses(c: AsyncClient) -> Result<()> {
        let _: Dues = c.dues("C001", DuesKind::Receipt).await?;
        let _: Dues = c
            .dues_query(DuesQuery::new("C001", DuesKind::Receipt))
            .await?;
        let _: Dues = c.receivables("C001").await?;
        let _: Dues = c.payables("C001").await?;
        let _: TypedRows = c.dues_table(["C001"], DuesKind::Receipt, 2).await?;
        let _: TypedRows = c
            .aging(&AgingPlan::new(DuesKind::Receipt, "2025-12-31"))
            .await?;
        let _: TypedRows = c
            .credit_status(&CreditStatusPlan::new("2025-12-31"))
            .await?;
        let _: Output = c.invoke(operation("dues_summary")?, &Args::new()).await?;
        let _: AjaxAnswer = c.ajax(AjaxQuery::dues_summary()).await?;
        let _: AjaxAnswer = c.dues_summary().await?;
        let _: AjaxAnswer = c.avg_pay_days("C001").await?;
        let _: AjaxAnswer = c.net_profit("2025-04-01", "2025-04-30").await?;
        let _: AjaxAnswer = c.gross_profit("2025-04-01", "2025-04-30").await?;
        let _: AjaxAnswer = c.schedule_accounts("S", "2025-04-01", "2025-04-30").await?;
        let _: Table = c.table("account").await?;
        let _: BatchStream = c.stream_table("account").await?;
        Ok(())
    }
    let _ = uses;
    let _: fn(Config) -> Result<AsyncClient> = AsyncClient::new;
    let _: fn(&AsyncClient, Timeouts) -> Result<AsyncClient> = AsyncClient::with_timeouts;
    let _: fn(&AsyncClient, DeclaredSchema) -> AsyncClient = AsyncClient::with_schema;
    // Borrowed, as the blocking iterator's is.
    let _: fn(&BatchStream) -> Option<&StreamEnd> = BatchStream::end;
    let _: fn(&ClientOptions) -> &DecoderOptions = ClientOptions::decoder_options;
}
