// Type declarations of the erpdata package.

/** An account, company or year id: sent exactly as given (`"007"` keeps its zeros, `7` is sent as `7`). */
export type Id = string | number | bigint;

/** Which side of the ledger a dues query asks for (any letter case is accepted). */
export type DuesKind = "RECEIPT" | "PAYMENT" | (string & {});

/** How the table fetch is sent; POST (the default) keeps the token out of URLs. */
export type Method = "POST" | "GET" | (string & {});

/**
 * How numbers reach you: `"number"` (default) gives JS numbers, as
 * `JSON.parse` would; `"string"` gives each number's exact decimal text
 * (`"1234.50"`), so money is never rounded.
 */
export type Numbers = "number" | "string";

/** A value inside a nested object or array, as `JSON.parse` gives it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One value of a row. Numbers are strings with `numbers: "string"`. */
export type Value = JsonValue;

/** One row: its fields in the order the service sent them. */
export type Row = Record<string, Value>;

export interface ErpClientOptions {
  /** The service's base URL; default `ERPDATA_BASE_URL`. A path prefix is kept. */
  baseUrl?: string;
  /** ERP project name (table fetch); default `ERPDATA_PROJECT`. */
  project?: string;
  /** `sys_projectfolder` of the dues query; default `ERPDATA_PROJECT_FOLDER`, else the project. */
  projectFolder?: string;
  /** Token of the table fetch; default `ERPDATA_ACCESS_TOKEN`. Keep it on a server. */
  accessToken?: string;
  /** Default company (`compid`); default `ERPDATA_COMPANY_ID`. */
  companyId?: Id;
  /** Default financial year (`yearid`); default `ERPDATA_YEAR_ID`. */
  yearId?: Id;
  /** Per call, covering the body read; default 30000. */
  timeoutMs?: number;
  /** Retries of 429/502/503/504 and connection failures; default 2 (stored; retrying is not implemented yet). */
  maxRetries?: number;
  /** The `fetch` to use; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Send the token over plain http to a host that is not loopback. Only on trusted networks. */
  allowInsecureHttp?: boolean;
  /** Allow construction in a browser, where the token would be public. */
  dangerouslyAllowBrowser?: boolean;
}

export interface DuesOptions {
  acid: Id;
  kind: DuesKind;
  numbers?: Numbers;
}

export interface Dues {
  /** The account asked about, as sent. */
  acid: string;
  kind: "RECEIPT" | "PAYMENT";
  rows: Row[];
  /** The JSON text the service sent (redacted), since the dues fields are not documented. */
  raw: string;
  /** PHP notices or warnings that preceded the JSON. */
  notices: string[];
}

export interface TableOptions {
  /** Overrides the configured company. */
  companyId?: Id;
  /** Overrides the configured year. */
  yearId?: Id;
  /** `"POST"` (default) or `"GET"`, which puts the token in the URL. */
  method?: Method;
  numbers?: Numbers;
}

export interface Table {
  /** Every key seen in any row, in first-seen order. */
  columns: string[];
  rows: Row[];
  /** PHP notices or warnings that preceded the JSON. */
  notices: string[];
}

export declare class ErpClient {
  constructor(options?: ErpClientOptions);
  dues(options: DuesOptions): Promise<Dues>;
  /** What a customer owes (`type=RECEIPT`). */
  receivables(acid: Id, options?: { numbers?: Numbers }): Promise<Dues>;
  /** What is owed to a supplier (`type=PAYMENT`). */
  payables(acid: Id, options?: { numbers?: Numbers }): Promise<Dues>;
  table(name: string, options?: TableOptions): Promise<Table>;
  /** The configuration, with the token shown as `[REDACTED]`. */
  toJSON(): {
    baseUrl: string;
    project: string | null;
    projectFolder: string | null;
    accessToken: "[REDACTED]" | null;
    companyId: string | null;
    yearId: string | null;
    timeoutMs: number;
    maxRetries: number;
  };
}

export type ErrorKind = "invalid_input" | "transport" | "http_status" | "service" | "decode";

/** The base of every error the SDK throws. */
export declare class ErpError extends Error {
  constructor(message: string, options?: { kind?: string; cause?: unknown });
  readonly kind: ErrorKind | (string & {});
}

/** Rejected before anything was sent. */
export declare class InvalidInputError extends ErpError {
  constructor(message: string, options?: { field?: string; reason?: string });
  readonly kind: "invalid_input";
  /** The parameter as the core names it: `acid`, `kind`, `table`, `company_id`, `base_url`... */
  readonly field: string;
  readonly reason: string;
}

export type TransportKind = "connect" | "timeout" | "reset" | "other";

/** The request did not complete: connection refused, reset, timeout. */
export declare class TransportError extends ErpError {
  constructor(message: string, options?: { transportKind?: TransportKind; cause?: unknown });
  readonly kind: "transport";
  readonly transportKind: TransportKind;
}

/** A status outside 2xx (a redirect included). */
export declare class HttpStatusError extends ErpError {
  constructor(message: string, options?: { status?: number; excerpt?: string });
  readonly kind: "http_status";
  readonly status: number;
  /** A short, redacted excerpt of the body. */
  readonly excerpt: string;
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

/** The answer was not of the documented shape. */
export declare class DecodeError extends ErpError {
  constructor(message: string, options?: { reason?: string; excerpt?: string });
  readonly kind: "decode";
  readonly reason: string;
  /** A short, redacted excerpt of the body. */
  readonly excerpt: string;
}
