// Type declarations of the erpdata package.

import type { AjaxFunctions } from "./functions.js";

export type { AjaxFunctions };

/** An account, company or year id: sent exactly as given (`"007"` keeps its zeros, `7` is sent as `7`). */
export type Id = string | number | bigint;

/**
 * Account ids: an array, a Set, a generator... A string is iterable too,
 * but a single id is refused, not spread into its characters, so it is no
 * list of ids here either.
 */
export type Ids<T = Id> = Iterable<T> & object;

/** Which side of the ledger a dues query asks for (any letter case is accepted). */
export type DuesKind = "RECEIPT" | "PAYMENT" | (string & {});

/** How the table fetch is sent; POST (the default) keeps the token out of URLs. */
export type Method = "POST" | "GET" | (string & {});

/**
 * How numbers reach you in rows: `"number"` (default) gives JS numbers,
 * exactly as `JSON.parse` would, so an integer beyond
 * `Number.MAX_SAFE_INTEGER` (2^53 - 1) or a decimal with more than about
 * 15 significant digits is rounded to the nearest double, as `JSON.parse`
 * rounds it; `"string"` gives each number's exact decimal text
 * (`"1234.50"`, `"9007199254740993"`), so money and large ids are never
 * rounded. In `columns()` integers beyond 32 bits are a `BigInt64Array`
 * (exact) either way.
 */
export type Numbers = "number" | "string";

/**
 * A column type to declare (`schema` option), as the core names it:
 * `"string"`, `"int"`, `"decimal"` (the scale the values need) or
 * `"decimal(P,S)"` (P 1–38 digits in all, S after the point), `"date"`,
 * `"timestamp"`, `"bool"`, `"json"` (any letter case; also `"datetime"`,
 * `"int64"`, `"numeric(P,S)"`, `"boolean"`, `"text"`...).
 */
export type DeclaredType =
  | "string"
  | "int"
  | "decimal"
  | `decimal(${number},${number})`
  | "date"
  | "timestamp"
  | "bool"
  | "json"
  | (string & {});

/**
 * A column's type as the core decided it (or as declared): `"null"` (no
 * value), `"bool"`, `"int"`, `"decimal(P,S)"`, `"date"`, `"timestamp"`,
 * `"string"`, `"json"`.
 */
export type DataType =
  | "null"
  | "bool"
  | "int"
  | `decimal(${number},${number})`
  | "date"
  | "timestamp"
  | "string"
  | "json";

/** A value inside a nested object or array, as `JSON.parse` gives it. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * One value of a row, typed by its column (the same rule for values sent
 * as JSON numbers and as strings, decided by the core; see docs/types.md):
 * an int or decimal column's values are numbers (`"1500.00"` sent by a PHP
 * service reads as `1500`; with `numbers: "string"` the exact text as
 * sent), a date is `"YYYY-MM-DD"`, a timestamp `"YYYY-MM-DD HH:MM:SS"`
 * (with `.ffffff` when not whole seconds; no time zone), MySQL's zero date
 * and datetime are `null`, a string column's values (a column of mixed
 * scalars included) are each value's text as sent, a json column's values
 * are as `JSON.parse` gives them.
 */
export type Value = JsonValue;

/** One row: its fields in the order the service sent them. */
export type Row = Record<string, Value>;

/**
 * What a client logs to (its `logger` option): `console`, or any object
 * with these methods (a pino, winston or bunyan logger). Each gets one
 * line, as the Rust and Python clients log it, the URL and form with the
 * access token as `[REDACTED]`.
 */
export interface Logger {
  /**
   * Each request (`request 1: POST https://erp.example.com/apis/dataapi.php
   * form: ...`) and each answer's status (`answer 503`).
   */
  debug(message: string): void;
  /** Each wait before another attempt (`waiting 0.52 s before request 2 (as the core's call asks)`). */
  info(message: string): void;
}

/**
 * What a client passes its `fetch` (the `fetch` option) besides the URL,
 * a string. The headers are name/value pairs; redirects are never followed
 * by the fetch (the client decides on each, as the core says); the signal
 * ends the request when a limit or the caller's signal does.
 */
export interface FetchInit {
  method: string;
  headers: [string, string][];
  /**
   * The form's bytes, a `Uint8Array`; left out when there is none. Typed
   * `any` because node-fetch 3 declares only a `Buffer` body, though it
   * sends any `ArrayBufferView`: with the `Uint8Array` declared, its
   * `fetch` would be refused.
   */
  // biome-ignore lint/suspicious/noExplicitAny: see the comment above
  body?: any;
  redirect: "manual";
  signal: AbortSignal;
}

/**
 * A body as a web stream (fetch's, undici's): read with `getReader()`, let
 * go of with `cancel()`.
 */
export interface FetchWebBody {
  getReader(): {
    read(): Promise<{ done: true; value?: unknown } | { done: false; value: Uint8Array }>;
    cancel(): Promise<unknown>;
  };
  cancel(): Promise<unknown>;
}

/**
 * A body as a Node stream (node-fetch's, cross-fetch's in Node), or any
 * async iterable of its chunks, let go of with `destroy()` if it has one.
 * The chunks are bytes: Node's stream types say `string | Buffer`, but a
 * stream with no encoding set, as node-fetch's is, yields Buffers.
 */
export interface FetchNodeBody extends AsyncIterable<Uint8Array | string> {
  destroy?(): unknown;
}

/**
 * What a client reads of the response its `fetch` resolves to: the
 * status, the `location` and `retry-after` headers, and the body (none
 * reads as empty).
 */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: FetchWebBody | FetchNodeBody | null;
}

/**
 * A `fetch` a client can send with (its `fetch` option): the runtime's,
 * undici's, node-fetch's (3, or 2 with @types/node-fetch), cross-fetch's, a
 * test's. Called unbound, with the URL and a {@link FetchInit}.
 */
export type FetchLike = (input: string, init: FetchInit) => Promise<FetchResponse>;

/**
 * The constructor's options. A key not listed here (a misspelt or
 * snake_case option: `accesToken`, `access_token`) is refused with an
 * InvalidInputError naming it and the option it most likely meant, as is
 * any key a call's options object does not take. An option given as
 * `undefined` (`baseUrl: process.env.ERP_URL` when it is unset), here or
 * in a call's options, is one left out.
 */
export interface ErpClientOptions extends LimitOptions {
  /** The service's base URL; default `ERPDATA_BASE_URL`. A path prefix is kept. */
  baseUrl?: string | undefined;
  /** ERP project name (table fetch); default `ERPDATA_PROJECT`. */
  project?: string | undefined;
  /** `sys_projectfolder` of the dues query; default `ERPDATA_PROJECT_FOLDER`, else the project. */
  projectFolder?: string | undefined;
  /** Token of the table fetch; default `ERPDATA_ACCESS_TOKEN`. Keep it on a server. */
  accessToken?: string | undefined;
  /** Default company (`compid`); default `ERPDATA_COMPANY_ID`. */
  companyId?: Id | undefined;
  /** Default financial year (`yearid`); default `ERPDATA_YEAR_ID`. */
  yearId?: Id | undefined;
  /**
   * The `fetch` to use (a proxy's, an undici agent's, node-fetch's with an
   * https.Agent, a test's): any {@link FetchLike}. Default:
   * in Node, node:http and node:https (less memory than Node's fetch on
   * large tables; pass `globalThis.fetch` for undici's, with its global
   * dispatcher); in other runtimes `globalThis.fetch`.
   */
  fetch?: FetchLike | undefined;
  /**
   * Where each request and answer (`debug`) and each wait before another
   * attempt (`info`) are logged, the token redacted: `console`, or a
   * logger with those methods. Default: nothing is logged (and no line is
   * made). What the logger throws (or its promise rejects with) is ignored.
   */
  logger?: Logger | undefined;
  /** Send the token over plain http to a host that is not loopback. Only on trusted networks. */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Send the token with every ajax.php call too (the dues query and the
   * other functions), in a POST form body, for a deployment that asks for
   * it there. Default false: the interface defines no credential there.
   */
  ajaxToken?: boolean | undefined;
  /** Allow construction in a browser, where the token would be public. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/**
 * How a call types its columns. Checked before anything is sent: an
 * unknown type name is an InvalidInputError naming `schema["column"]`, a
 * `schema` that is not a plain object (or a type that is not a string) one
 * naming `schema`.
 */
export interface TypingOptions {
  /**
   * Declared column types, in place of the ones the values would give:
   * `{ amount: "decimal(14,2)", acid: "string", posted_at: "timestamp" }`.
   * A value its declared type cannot take (`"n/a"` in an int column, more
   * digits after the point than the scale) rejects the call with a
   * DecodeError naming the column and the row; `""` is null in every
   * declared type but `string` and `json`.
   */
  schema?: Record<string, DeclaredType> | undefined;
  /**
   * Whether strings are typed from their text (`"1500.00"` a decimal,
   * `"2025-04-01"` a date); default true. False: every JSON string stays a
   * string; JSON numbers are still typed.
   */
  inferStrings?: boolean | undefined;
}

/**
 * The limits of a call, decided and checked by the core (`ErpClient.limits`
 * has its defaults and ranges): given to the client, they are every call's
 * defaults; given to one call, they override them for it. Out of range is
 * an InvalidInputError naming the option (`timeoutMs`, `maxRetries`,
 * `maxRetryAfterMs`).
 */
export interface LimitOptions {
  /**
   * Milliseconds for the whole call: every attempt, the waits between them
   * and the whole answer (for `streamTable`, only the time spent waiting
   * for the service, not the time the caller holds a batch); default
   * 300000, at most a day. Finite: there is no way to wait forever.
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds to connect; default 10000, or `timeoutMs` if that is less
   * (a longer value given still ends the call at `timeoutMs`). fetch
   * cannot tell connecting from waiting for the answer, so the wait for an
   * answer's head is bounded by `connectTimeoutMs + readTimeoutMs`.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * Milliseconds without a byte from the service: for the answer's head,
   * and between two parts of its body; default 30000, or `timeoutMs` if
   * that is less (a longer value given still ends the call at `timeoutMs`).
   */
  readTimeoutMs?: number | undefined;
  /**
   * Retries of 429/502/503/504 answers and of connection failures, resets
   * and timeouts (a body cut short only while nothing of it reached the
   * caller), with the core's backoff and jitter, `Retry-After` honoured
   * within the time left; 0 to 10, default 2.
   */
  maxRetries?: number | undefined;
  /**
   * Milliseconds: the longest wait a 429/502/503/504's `Retry-After` may
   * ask for that a call waits out before retrying; default 30000, 0 (retry
   * only after `Retry-After: 0`) to a day. A longer wait ends the call at
   * once with an HttpStatusError that keeps it (`retryAfterMs`) and says
   * so, rather than keep the caller waiting.
   */
  maxRetryAfterMs?: number | undefined;
}

/** The core's limits and defaults (`ErpClient.limits`). */
export interface Limits {
  defaults: {
    timeoutMs: number;
    connectTimeoutMs: number;
    readTimeoutMs: number;
    maxRetries: number;
    maxRetryAfterMs: number;
    /** Rows per batch the core decodes a whole table in (`table()`). */
    batchRows: number;
    /** Rows per batch of `streamTable`, whose batches are row objects. */
    streamBatchRows: number;
  };
  /** The longest limit accepted (a day). */
  maxTimeoutMs: number;
  maxRetries: { min: number; max: number };
  batchRows: { min: number; max: number };
  /** Requests one call keeps in flight (`duesTable`, `aging`, `creditStatus`). */
  concurrency: { min: number; max: number };
}

/** Options every call takes (a key a call does not take is refused before sending). */
export interface CallOptions extends TypingOptions, LimitOptions {
  numbers?: Numbers | undefined;
  /**
   * Aborts the call (and its retries); the call then rejects with a
   * TransportError (`aborted: true`), of `transportKind` `"timeout"` when
   * the signal's reason is a TimeoutError (`AbortSignal.timeout(ms)`, also
   * within `AbortSignal.any`), else `"other"`.
   */
  signal?: AbortSignal | undefined;
}

/** How an ajax.php call (the dues query and the other functions) is sent. */
export interface AjaxOptions {
  /**
   * Send the access token with this call (default: the client's
   * `ajaxToken`): as `accesstoken` in a POST form body, or in the URL if
   * `method: "GET"` is asked for.
   */
  sendToken?: boolean | undefined;
  /** `"GET"` (the default without the token) or `"POST"` (the default with it). */
  method?: Method | undefined;
}

/** The options of a function of ajax.php. */
export interface FunctionOptions extends CallOptions, AjaxOptions {}

/** A date argument: `"YYYY-MM-DD"` text, or a Date at exactly midnight UTC. */
export type DateArg = string | Date;

/**
 * A value of a parameter of `ajax()`: text, an integer (a number within
 * `Number.MAX_SAFE_INTEGER`, or a bigint), or a Date at exactly midnight
 * UTC (sent as its `YYYY-MM-DD`). Each is checked by the core before
 * anything is sent.
 */
export type AjaxParamValue = string | number | bigint | Date;

/**
 * The parameters of `ajax()`, in the order they are sent: a plain object,
 * a Map, or `[name, value]` pairs (what `Object.entries` gives).
 */
export type AjaxParams =
  | Readonly<Record<string, AjaxParamValue>>
  | ReadonlyMap<string, AjaxParamValue>
  | ReadonlyArray<readonly [string, AjaxParamValue]>;

export interface DuesOptions extends CallOptions, AjaxOptions {
  acid: Id;
  kind: DuesKind;
}

/**
 * The options of the calls of many queries (`duesTable`, `aging`,
 * `creditStatus`): `timeoutMs` and the other limits bound each query, not
 * the whole; a `signal` (`AbortSignal.timeout(ms)` for a deadline) ends
 * them all.
 */
export interface DuesTableOptions extends CallOptions {
  /** Queries at a time (default 8; 1 to `ErpClient.limits.concurrency.max`, 256). */
  concurrency?: number | undefined;
}

/** What an aging report is computed with. */
export interface AgingOptions {
  /** The day the ages are counted to (default: today, local time). */
  asOf?: DateArg | undefined;
  /** Upper bounds of the past-due buckets, in days (default `[30, 60, 90]`). */
  buckets?: readonly number[] | undefined;
  /** The due-date column (default: the first of `due_date`, `duedate`, `date`, `doc_date`). */
  dueDateColumn?: string | undefined;
  /** The balance column (default: the first of `balance`, `outstanding`, `amount`). */
  balanceColumn?: string | undefined;
}

/** An account's average payment days: its avgPayDays answer, or the number. */
export type PayDays = AjaxAnswer | number | bigint | string | null;

export interface CreditStatusOptions {
  /** Average payment days by acid. */
  payDays?: Map<string, PayDays> | Record<string, PayDays> | undefined;
  /** The day overdue is counted to (default: today, local time). */
  asOf?: DateArg | undefined;
  /** Only these customers (each must be one in the account table). */
  acids?: Ids<string> | undefined;
}

/** The options of `ErpClient.aging()`. */
export interface ClientAgingOptions
  extends DuesTableOptions,
    Omit<AgingOptions, "dueDateColumn" | "balanceColumn"> {
  /** The accounts (default: every customer or supplier of the account table). */
  accounts?: Ids | undefined;
  /** The account table's name (default `"account"`). */
  accountsTable?: string | undefined;
  companyId?: Id | undefined;
  yearId?: Id | undefined;
}

/** The options of `ErpClient.creditStatus()`. */
export interface ClientCreditStatusOptions extends DuesTableOptions {
  /** The customers (default: every customer of the account table). */
  accounts?: Ids | undefined;
  asOf?: DateArg | undefined;
  /** Ask avgPayDays of each customer (default true). */
  payDays?: boolean | undefined;
  /** The account table's name (default `"account"`). */
  accountsTable?: string | undefined;
  companyId?: Id | undefined;
  yearId?: Id | undefined;
}

/** Upper bounds of the default past-due buckets, in days. */
export declare const DEFAULT_BUCKETS: readonly number[];

/**
 * The aging of a dues table (`duesTable()`, or a Dues) as of `asOf`: one
 * row per account (`acid`), its balance in `current`, `1-30`, `31-60`,
 * `61-90`, `91+` (or the buckets given), `undated`, and `total`, summed
 * exactly by the core. Decimals read as JS numbers come back exactly up to
 * 15 significant digits; beyond, read the table with `numbers: "string"`.
 */
export declare function aging(dues: Table<unknown> | Dues, options?: AgingOptions): Table;

/**
 * The credit status of the customers of an account table (`acid`,
 * `credit_limit`, `name`, `kind`) from their receivables (`duesTable()`):
 * `acid`, `name`, `credit_limit`, `outstanding`, `available`,
 * `over_limit`, `overdue`, `oldest_overdue_due_date`,
 * `oldest_overdue_days`, `avg_pay_days`.
 */
export declare function creditStatus(
  accounts: Table<unknown>,
  dues: Table<unknown>,
  options?: CreditStatusOptions,
): Table;

/**
 * The answer of a function of ajax.php. `shape` says what came back:
 * `"rows"` (in `rows`, also as typed `columns()`), `"object"` (in
 * `fields`) or `"value"` (in `value`). `value` is the answer whatever its
 * shape.
 */
export declare class AjaxAnswer {
  private constructor();
  /** The function called (`func`). */
  readonly func: string;
  readonly shape: "rows" | "object" | "value";
  /** The rows (empty unless `shape` is `"rows"`), typed by column. */
  readonly rows: Row[];
  /** The one object's fields (empty unless `shape` is `"object"`), each typed alone. */
  readonly fields: Row;
  /** The rows, the fields or the one value, as `shape` says. */
  readonly value: Value | Row | Row[];
  /** Each column's or field's type. */
  readonly schema: Record<string, DataType>;
  /** The JSON text the service sent (redacted). */
  readonly raw: string;
  /** PHP notices or warnings that preceded the JSON. */
  readonly notices: string[];
  /** The rows as a Table; throws an InvalidInputError unless `shape` is `"rows"`. */
  toTable(): Table;
  /** The rows' typed columns (`toTable().columns()`). */
  columns(): Record<string, Column>;
  toJSON(): {
    func: string;
    shape: "rows" | "object" | "value";
    value: Value | Row | Row[];
    schema: Record<string, DataType>;
    notices: string[];
  };
}

export declare class Dues {
  private constructor();
  /** The account asked about, as sent. */
  readonly acid: string;
  readonly kind: "RECEIPT" | "PAYMENT";
  /** Rows typed by column, as a table's are. */
  readonly rows: Row[];
  /** Each column's type, decided over all the rows (or declared). */
  readonly schema: Record<string, DataType>;
  /** The JSON text the service sent (redacted), since the dues fields are not documented. */
  readonly raw: string;
  /** PHP notices or warnings that preceded the JSON. */
  readonly notices: string[];
  /** The rows as typed columns, as `Table.columns()` gives them. */
  columns(): Record<string, Column>;
  toJSON(): {
    acid: string;
    kind: "RECEIPT" | "PAYMENT";
    rows: Row[];
    schema: Record<string, DataType>;
    raw: string;
    notices: string[];
  };
}

export interface TableOptions extends CallOptions {
  /** Overrides the configured company. */
  companyId?: Id | undefined;
  /** Overrides the configured year. */
  yearId?: Id | undefined;
  /** `"POST"` (default) or `"GET"`, which puts the token in the URL. */
  method?: Method | undefined;
}

export interface StreamTableOptions extends TableOptions {
  /**
   * Rows per batch, 1 to 1,048,576 (default 4,096,
   * `ErpClient.limits.defaults.streamBatchRows`; the core's range,
   * `ErpClient.limits.batchRows`): memory is bounded by it. Row objects
   * weigh about ten times their values in columns: at the default a
   * stream of millions of rows peaks near Node's own floor for reading
   * the body, and fits an edge runtime's 128 MB.
   */
  batchRows?: number | undefined;
}

/**
 * What `streamTable` returns: its batches, then what the answer said.
 * `R` is the rows' type, as the caller states it (`streamTable<Invoice>`):
 * the rows are not checked against it.
 */
export interface TableStream<R = Row> extends AsyncIterable<R[]> {
  /**
   * The batches, the request sent on the first `next()`; a stream is read
   * once (a second loop throws a `TypeError`: call `streamTable()` again).
   * `return()` ends
   * the call early (its connection let go), as leaving a `for await` does:
   * what a ReadableStream's `cancel` calls when it passes a table on; so
   * does `throw()`, what `Readable.from()` calls when its stream is
   * destroyed (by `pipeline()`, once the response closed early). Neither
   * waits for a `next()` in progress, which then rejects with a
   * TransportError (`aborted: true`). The call's `signal` aborted lets go
   * of the connection at once too, even while the batches wait for their
   * consumer.
   */
  [Symbol.asyncIterator](): AsyncGenerator<R[], void, undefined>;
  /** The answer's notices, once the batches ended without an error. */
  readonly notices: string[] | undefined;
  /** The rows of the whole answer, once the batches ended without an error. */
  readonly totalRows: number | undefined;
}

/**
 * How a column's values are held in JS: `float64` holds decimals as JS
 * numbers (`decimal`, with `numbers: "string"`, their text as sent),
 * `int32`/`int64` integers (`int64` when some value needs more than 32
 * bits), `date` days since 1970-01-01, `timestamp` microseconds since
 * 1970-01-01 00:00:00 (a `BigInt64Array`; no time zone: the service's
 * wall-clock time), `json` nested values. `Column.dataType` is the type
 * itself.
 */
export type ColumnType =
  | "null"
  | "bool"
  | "int32"
  | "int64"
  | "float64"
  | "date"
  | "timestamp"
  | "string"
  | "decimal"
  | "json";

/** One column of a table. */
export declare class Column {
  private constructor();
  readonly name: string;
  /** How the values are held (see ColumnType). */
  readonly type: ColumnType;
  /** The column's type, decided over the whole table by the core (or declared): `"decimal(14,2)"`, `"int"`, `"timestamp"`... */
  readonly dataType: DataType;
  /** A decimal column's total digits (1–38). */
  readonly precision?: number;
  /** A decimal column's digits after the point. */
  readonly scale?: number;
  readonly length: number;
  /**
   * `Float64Array` (float64), `Int32Array` (int32; date: days since
   * 1970-01-01), `BigInt64Array` (int64; timestamp: microseconds since
   * 1970-01-01 00:00:00, no time zone), `Uint8Array` (bool: 0 or 1), an
   * array of strings (string, decimal) or of JSON values (json); `null`
   * for an all-null column. A row without a value holds a placeholder
   * (in a typed array) or `null`; see `validity`. Text is kept as the
   * core decoded it until read: `get(i)` makes one string, and `values`
   * makes them all at its first use (then keeps them).
   */
  readonly values:
    | Float64Array
    | Int32Array
    | BigInt64Array
    | Uint8Array
    | (string | null)[]
    | JsonValue[]
    | null;
  /** Packed bitmap, bit i set when row i has a value; `null` when every row has one. */
  readonly validity: Uint8Array | null;
  /** For a string column whose values repeat: the distinct values. */
  readonly dictionary?: string[];
  /** For a dictionary column: per row, the index of its value in `dictionary`. */
  readonly indices?: Int32Array;
  /** Whether row `i` has a value. */
  isValid(i: number): boolean;
  /**
   * Row `i`'s value as rows give it (a date as `YYYY-MM-DD`, a timestamp
   * as in rows, a decimal as a number or, with `numbers: "string"`, its
   * text), except an integer: a number in an int32 column and a bigint in
   * an int64 one, whatever `numbers` says; null where there is none. A
   * `RangeError` for an `i` that is not a row (0 to `length - 1`).
   */
  get(i: number): Value | bigint;
  /** Every value, as `get` gives them. */
  toArray(): (Value | bigint)[];
}

/**
 * An apache-arrow `Table`, described here only as far as erpdata uses it
 * (so that apache-arrow stays optional); cast it to apache-arrow's `Table`.
 */
export interface ArrowTable {
  readonly numRows: number;
  readonly schema: { readonly fields: ReadonlyArray<{ name: string; type: unknown }> };
  getChild(name: string): { get(index: number): unknown; readonly nullCount: number } | null;
}

/**
 * A whole table. `R` is the rows' type, as the caller states it
 * (`table<Invoice>("sales_invoice")`): the rows are not checked against
 * it; `schema` says what came.
 */
export declare class Table<R = Row> implements Iterable<R> {
  private constructor();
  /** Every key seen in any row, in first-seen order. */
  readonly columnNames: string[];
  /** Each column's type, decided over the whole table (or declared). */
  readonly schema: Record<string, DataType>;
  /** The number of rows. */
  readonly length: number;
  /**
   * The rows as plain objects, fields in the order sent, each value typed
   * by its column (see Value; numbers as exact text with
   * `numbers: "string"`). Built on first access.
   */
  readonly rows: R[];
  /** PHP notices or warnings that preceded the JSON. */
  readonly notices: string[];
  /** Typed columns by name (built on first call, then the same object). */
  columns(): Record<string, Column>;
  [Symbol.iterator](): Iterator<R>;
  toJSON(): { columns: string[]; rows: R[]; notices: string[] };
  /**
   * The table as an apache-arrow `Table` (install `apache-arrow`, an
   * optional peer dependency): int64, decimal128 (exact with
   * `numbers: "string"`; float64 with JS numbers), date32, timestamp[us],
   * bool, utf8 (a json column: each value's JSON text, the field's
   * metadata `erpdata.type` = `json`).
   */
  toArrow(): Promise<ArrowTable>;
  /** The table as Arrow IPC stream bytes (needs `apache-arrow`). */
  toArrowIPC(): Promise<Uint8Array>;
}

export declare class ErpClient {
  constructor(options?: ErpClientOptions);
  dues(options: DuesOptions): Promise<Dues>;
  /** What a customer owes (`type=RECEIPT`). */
  receivables(acid: Id, options?: CallOptions & AjaxOptions): Promise<Dues>;
  /** What is owed to a supplier (`type=PAYMENT`). */
  payables(acid: Id, options?: CallOptions & AjaxOptions): Promise<Dues>;
  /**
   * The dues of many accounts as one Table, an `acid` column first (text),
   * typed over all the accounts together; every account checked before
   * anything is sent.
   */
  duesTable(acids: Ids, kind: DuesKind, options?: DuesTableOptions): Promise<Table>;
  /**
   * The aging of the receivables (`"receipt"`, the default) or payables
   * (`"payment"`) of `accounts`, or of every customer or supplier of the
   * account table; see `aging()`.
   */
  aging(kind?: "receipt" | "payment" | DuesKind, options?: ClientAgingOptions): Promise<Table>;
  /**
   * The credit status of `accounts` (default: every customer), with each
   * one's avgPayDays unless `payDays: false`; see `creditStatus()`.
   */
  creditStatus(options?: ClientCreditStatusOptions): Promise<Table>;
  /**
   * Any function of ajax.php by name, its parameters in order
   * (`ajax("avgPayDays", { acid: "C001" })`).
   */
  ajax(func: string, params?: AjaxParams, options?: FunctionOptions): Promise<AjaxAnswer>;
  /**
   * Every row of an ERP table (POST unless `method: "GET"`); each column's
   * type is decided over the whole table.
   */
  table<R = Row>(name: string, options?: TableOptions): Promise<Table<R>>;
  /**
   * The table as batches of rows, decoded while the body arrives. One
   * schema: the first batch (or `schema`) fixes every column's type, and a
   * later value that does not fit it, or a column first seen after the
   * first batch, rejects with a DecodeError naming the column and the row
   * (declare the type to avoid it). Every row has every column (null
   * where the row lacked the key). A body that breaks off throws after
   * the last complete batch, the error saying how many rows had arrived
   * and how many were handed out. Retries and redirects happen only before
   * the first batch. `timeoutMs` counts only the time spent waiting for
   * the service, not the time the caller's loop holds a batch.
   */
  streamTable<R = Row>(name: string, options?: StreamTableOptions): TableStream<R>;
  /** The configuration, with the token shown as `[REDACTED]`. */
  toJSON(): {
    baseUrl: string;
    project: string | null;
    projectFolder: string | null;
    accessToken: "[REDACTED]" | null;
    companyId: string | null;
    yearId: string | null;
    timeoutMs: number;
    connectTimeoutMs: number;
    readTimeoutMs: number;
    maxRetries: number;
    maxRetryAfterMs: number;
  };
  /** The core's limits and defaults. */
  static readonly limits: Limits;
}

/** The functions of ajax.php (`duesSummary`, `avgPayDays`...), from the catalogue. */
export interface ErpClient extends AjaxFunctions {}

export type ErrorKind = "invalid_input" | "transport" | "http_status" | "service" | "decode";

/**
 * The base of every error the SDK throws. An error a call ended with says
 * where the call stood (the same in every language); the four fields are
 * undefined for input refused before sending.
 */
export declare class ErpError extends Error {
  constructor(
    message: string,
    options?: {
      kind?: string;
      cause?: unknown;
      retryable?: boolean;
      attempts?: number;
      url?: string;
      rowsReceived?: number;
      rowsDelivered?: number;
    },
  );
  readonly kind: ErrorKind | (string & {});
  /**
   * Whether the same call may pass if tried later, after the client's own
   * retries gave up: a connection refused, reset or timed out, or a 429,
   * 502, 503 or 504 (the rule the retries follow). Never invalid input, a
   * service or decode error, another status or a TLS certificate refused,
   * which would fail the same way again. A job queue retries later what
   * is retryable (after `retryAfterMs` where the service said); a server
   * answers it with 503.
   */
  readonly retryable: boolean;
  /** Requests the call sent: the first, each retry and each redirect followed. */
  readonly attempts: number | undefined;
  /** The last request's URL, the token redacted. */
  readonly url: string | undefined;
  /** For a table: complete rows of the failed answer decoded before the error, if a body was read. */
  readonly rowsReceived: number | undefined;
  /** For `streamTable`: rows handed out in complete batches before the error. */
  readonly rowsDelivered: number | undefined;
}

/** Rejected before anything was sent. */
export declare class InvalidInputError extends ErpError {
  constructor(message: string, options?: { field?: string; reason?: string });
  readonly kind: "invalid_input";
  /**
   * The option or parameter as this package spells it (`acid`, `kind`,
   * `table`, `companyId`, `baseUrl`, `timeoutMs`...), an environment
   * variable (`ERPDATA_BASE_URL`), or an option given that the call does
   * not take (the message then names the one it most likely meant).
   */
  readonly field: string;
  readonly reason: string;
}

export type TransportKind = "connect" | "timeout" | "reset" | "tls" | "other";

/** The request did not complete: connection refused, reset, timeout. */
export declare class TransportError extends ErpError {
  constructor(message: string, options?: { transportKind?: TransportKind; cause?: unknown });
  readonly kind: "transport";
  readonly transportKind: TransportKind;
  /**
   * Set when the caller's `signal` aborted the call; `transportKind` is
   * then `"timeout"` if the signal timed out (`AbortSignal.timeout`).
   */
  readonly aborted?: true;
}

/** A status outside 2xx (a redirect included). */
export declare class HttpStatusError extends ErpError {
  constructor(
    message: string,
    options?: { status?: number; excerpt?: string; retryAfterMs?: number },
  );
  readonly kind: "http_status";
  readonly status: number;
  /** A short, redacted excerpt of the body. */
  readonly excerpt: string;
  /**
   * For a 429, 502, 503 or 504: the wait its `Retry-After` header asked
   * for, in milliseconds (as `timeoutMs` and the other options count; a
   * date counted from `Date.now()`), else undefined. When that was longer
   * than the client waits, the call stopped at once and its message says
   * so.
   */
  readonly retryAfterMs: number | undefined;
}

/** JSON whose `status` is not `success`. */
export declare class ServiceError extends ErpError {
  constructor(message: string, options?: { status?: string; serviceMessage?: string });
  readonly kind: "service";
  /** The `status` the service sent, e.g. `"error"`. */
  readonly status: string;
  /** The service's message (redacted). */
  readonly serviceMessage: string;
}

/**
 * The answer was not of the documented shape, or a value did not fit its
 * column's declared type (or a stream's fixed type): the message names
 * the column and the row.
 */
export declare class DecodeError extends ErpError {
  constructor(
    message: string,
    options?: { reason?: string; excerpt?: string; excerptAt?: number | null },
  );
  readonly kind: "decode";
  readonly reason: string;
  /**
   * A short, redacted excerpt of the body: around `excerptAt`, where it
   * stopped being the documented JSON, or its start.
   */
  readonly excerpt: string;
  /** The byte the excerpt is taken around, or null for the body's start. */
  readonly excerptAt: number | null;
}
