// Compiled (not run) by types.test.js: the declarations in js/src/index.d.ts
// must describe what users write.
import {
  type AjaxAnswer,
  type AjaxParams,
  type AjaxParamValue,
  aging,
  Column,
  creditStatus,
  type DataType,
  DEFAULT_BUCKETS,
  type DeclaredType,
  DecodeError,
  type Dues,
  ErpClient,
  type ErpClientOptions,
  ErpError,
  type FetchInit,
  type FetchLike,
  type FetchResponse,
  HttpStatusError,
  InvalidInputError,
  type Logger,
  type Row,
  ServiceError,
  type Table,
  Table as TableClass,
  TransportError,
} from "../../../js/src/index.js";

const options: ErpClientOptions = {
  baseUrl: "http://127.0.0.1:8787",
  project: "demo",
  accessToken: "sandbox-token-not-secret",
  companyId: 1,
  yearId: 2025n,
  timeoutMs: 5000,
  connectTimeoutMs: 1000,
  readTimeoutMs: 2000,
  maxRetries: 0,
  fetch: globalThis.fetch,
  logger: console,
};
const client = new ErpClient(options);
const lines: string[] = [];
const logger: Logger = { debug: (m) => lines.push(m), info: (m: string) => lines.push(m) };
new ErpClient({ ...options, logger });
// @ts-expect-error: a logger has debug and info methods
new ErpClient({ ...options, logger: { debug: () => {} } });
// @ts-expect-error: not a function
new ErpClient({ ...options, logger: (m: string) => lines.push(m) });
new ErpClient();
// A fetch of a test's: the status, headers and body the client reads, the
// body a web stream, an async iterable of bytes or none. (cross-fetch's
// is declared as lib.dom's, the global one above; the Node libraries'
// are checked by fetch.mts, with @types/node.)
const sent: string[] = [];
const answer: FetchLike = async (url: string, init: FetchInit) => {
  sent.push(url, init.method, init.redirect, ...init.headers.map(([name]) => name));
  return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
};
new ErpClient({ ...options, fetch: answer });
new ErpClient({
  ...options,
  fetch: async (url, init) => {
    init.signal.throwIfAborted();
    const chunks = (async function* () {
      yield new TextEncoder().encode(url);
    })();
    const response: FetchResponse = { status: 200, headers: new Headers(), body: chunks };
    return response;
  },
});
new ErpClient({
  ...options,
  fetch: async () => ({ status: 204, headers: new Headers(), body: null }),
});
// @ts-expect-error: a fetch resolves to a response, not its text
new ErpClient({ ...options, fetch: async (url: string) => url });
// @ts-expect-error: nor to a status alone
new ErpClient({ ...options, fetch: (url: string) => fetch(url).then((r) => r.status) });
// @ts-expect-error: a body is a stream or an async iterable of bytes, not text
new ErpClient({ fetch: async () => ({ status: 200, headers: new Headers(), body: "{}" }) });
// @ts-expect-error: the URL passed is a string
new ErpClient({ ...options, fetch: (url: URL) => fetch(url) });

async function main(): Promise<void> {
  const dues: Dues = await client.receivables("C001");
  console.log(dues.columns().balance?.length);
  const kind: "RECEIPT" | "PAYMENT" = dues.kind;
  const first: Row | undefined = dues.rows[0];
  console.log(kind, first?.balance, dues.raw.length, dues.notices.join());
  await client.payables(7, { numbers: "string" });
  await client.dues({ acid: "S001", kind: "payment" });
  const table: Table = await client.table("sales_invoice", {
    companyId: "002",
    yearId: 2024,
    method: "GET",
    numbers: "string",
  });
  const names: string[] = table.columnNames;
  console.log(names, table.rows.length, table.length);
  const columns: Record<string, Column> = table.columns();
  const amount = columns.amount;
  if (amount?.values instanceof Float64Array) console.log(amount.values[0]);
  console.log(
    amount?.type === "float64",
    amount?.get(0),
    amount?.isValid(0),
    amount?.dictionary?.length,
  );
  for (const row of table) console.log(row.invoice_no);
  const controller = new AbortController();
  await client.receivables("C001", { signal: controller.signal });
  for await (const batch of client.streamTable("sales_invoice", {
    batchRows: 1000,
    signal: controller.signal,
  })) {
    const rows: Row[] = batch;
    console.log(rows.length);
  }
  // Declared types and string inference, on every call.
  const declared: Record<string, DeclaredType> = {
    credit_limit: "decimal(18,4)",
    acid: "string",
    created_at: "timestamp",
  };
  const typed = await client.table("account", {
    schema: declared,
    inferStrings: false,
    numbers: "string",
  });
  const creditType: DataType | undefined = typed.schema.credit_limit;
  const created = typed.columns().created_at;
  if (created?.type === "timestamp" && created.values instanceof BigInt64Array) {
    const micros: bigint | undefined = created.values[0];
    console.log(creditType, micros, created.dataType, created.get(0));
  }
  const credit = typed.columns().credit_limit;
  console.log(credit?.precision, credit?.scale, credit?.dataType === "decimal(18,4)");
  for await (const batch of client.streamTable("sales_invoice", {
    schema: { amount: "decimal(14,2)" },
    inferStrings: true,
  })) {
    console.log(batch.length);
  }
  const owed: Dues = await client.receivables("C001", {
    schema: { balance: "decimal" },
    inferStrings: false,
  });
  const balanceType: DataType | undefined = owed.schema.balance;
  await client.payables("S001", { schema: { due_date: "date" } });
  await client.dues({ acid: "S001", kind: "PAYMENT", schema: { amount: "DECIMAL(14, 2)" } });
  console.log(balanceType);
  // @ts-expect-error: inferStrings is a boolean
  await client.table("account", { inferStrings: "no" });
  // @ts-expect-error: a schema maps names to type names
  await client.table("account", { schema: { amount: 14 } });
  // @ts-expect-error: numbers is "number" or "string"
  await client.table("account", { numbers: "decimal" });
  // @ts-expect-error: an id is not an object
  await client.receivables({});
  // Per-call limits over the client's.
  await client.table("account", {
    timeoutMs: 60_000,
    maxRetries: 1,
    signal: AbortSignal.timeout(1),
  });
  await client.payables("S001", { readTimeoutMs: 500 });
  const stream = client.streamTable("account", { batchRows: 1_048_576, connectTimeoutMs: 100 });
  for await (const batch of stream) console.log(batch.length);
  const notices: string[] | undefined = stream.notices;
  const limit: number = ErpClient.limits.defaults.timeoutMs + ErpClient.limits.batchRows.max;
  const streamBatch: number = ErpClient.limits.defaults.streamBatchRows;
  console.log(notices, limit, streamBatch);
  const json: string = JSON.stringify(client.toJSON());
  console.log(json);

  // The other functions of ajax.php.
  const guarded = new ErpClient({ baseUrl: "https://erp.example.com/", ajaxToken: true });
  const summary: AjaxAnswer = await guarded.duesSummary({ sendToken: false, method: "GET" });
  const shape: "rows" | "object" | "value" = summary.shape;
  const rows: Row[] = summary.rows;
  console.log(shape, rows.length, summary.columns().balance?.length, summary.toTable().length);
  const avg = await guarded.avgPayDays("C001", { numbers: "string" });
  console.log(avg.fields.avg_pay_days, avg.schema.avg_pay_days, avg.raw);
  await guarded.netProfit("2025-04-01", new Date(Date.UTC(2026, 2, 31)));
  await guarded.grossProfit("2025-04-01", "2026-03-31", { timeoutMs: 5_000 });
  await guarded.scheduleAccounts("Sundry Debtors", "2025-04-01", "2026-03-31");
  const generic = await guarded.ajax("avgPayDays", { acid: "C001", limit: 5 }, { sendToken: true });
  // Every shape and value the core takes: text, integers, bigints, Dates,
  // an object, a Map or [name, value] pairs.
  await guarded.ajax("netProfit", { sdate: new Date(Date.UTC(2025, 3, 1)), edate: "2026-03-31" });
  await guarded.ajax("fn", new Map<string, AjaxParamValue>([["id", 9_007_199_254_740_993n]]));
  await guarded.ajax("fn", [
    ["a", 1],
    ["b", "two"],
  ] as const);
  const params: AjaxParams = Object.entries({ a: 1 });
  await guarded.ajax("fn", params);
  // @ts-expect-error: a parameter is text, an integer or a date, not a boolean
  await guarded.ajax("fn", { flag: true });
  // @ts-expect-error: nor a list
  await guarded.ajax("fn", { ids: [1, 2] });
  console.log(generic.value, generic.notices.length);
  const joined: Table = await guarded.duesTable(["C001", 7], "RECEIPT", { concurrency: 4 });
  await guarded.receivables("C001", { sendToken: true });
  await guarded.dues({ acid: "C001", kind: "RECEIPT", method: "POST" });
  console.log(joined.columnNames);
  const report: Table = aging(joined, { asOf: "2025-12-31", buckets: [...DEFAULT_BUCKETS, 120] });
  const accounts = await guarded.table("account");
  const status: Table = creditStatus(accounts, joined, {
    payDays: new Map([["C001", avg]]),
    acids: ["C001"],
  });
  const aged: Table = await guarded.aging("payment", { accounts: ["S001"], asOf: new Date(0) });
  // Any list of ids: a Set, a generator. One id alone, though a string is
  // iterable, is refused when called (not spread into its characters).
  await guarded.duesTable(new Set(["C001"]), "RECEIPT");
  await guarded.creditStatus({ accounts: new Map([["C001", 1]]).keys() });
  // @ts-expect-error: one id, not a list of them
  await guarded.duesTable("C001", "RECEIPT");
  // @ts-expect-error: one id, not a list of them
  await guarded.aging("receipt", { accounts: "C001" });
  // @ts-expect-error: one id, not a list of them
  await guarded.creditStatus({ accounts: "C001" });
  // @ts-expect-error: one id, not a list of them
  creditStatus(accounts, joined, { acids: "C001" });
  const standing: Table = await guarded.creditStatus({ payDays: false, concurrency: 2 });
  console.log(report.length, status.schema.over_limit, aged.rows, standing.columnNames);
  // Rows of a stated type (an interface, as a backend declares them); the
  // table then still goes where any table does.
  interface Account {
    acid: string;
    name: string | null;
    credit_limit: number;
  }
  const known = await guarded.table<Account>("account");
  const firstAccount: Account | undefined = known.rows[0];
  for (const account of known) console.log(account.acid.toUpperCase(), firstAccount?.name);
  // @ts-expect-error: not a column of Account
  console.log(known.rows[0]?.city);
  console.log(creditStatus(known, joined).length, known.toJSON().rows[0]?.credit_limit);
  for await (const batch of guarded.streamTable<Account>("account")) {
    const limits: number[] = batch.map((a) => a.credit_limit);
    console.log(limits);
  }
  const arrow = await report.toArrow();
  const ipc: Uint8Array = await report.toArrowIPC();
  console.log(arrow.numRows, arrow.getChild("total")?.nullCount, ipc.byteLength);
}

function handle(err: unknown): string {
  if (err instanceof InvalidInputError) return `${err.field}: ${err.reason}`;
  if (err instanceof TransportError)
    return `${err.transportKind} ${err.aborted ?? ""} ${err.rowsReceived ?? ""}`;
  if (err instanceof HttpStatusError)
    return `${err.status + 1} ${err.excerpt} ${(err.retryAfterMs ?? 0) / 1000} ${err.retryable}`;
  if (err instanceof ServiceError) return `${err.status.toUpperCase()} ${err.serviceMessage}`;
  if (err instanceof DecodeError) return `${err.reason} ${err.excerpt}`;
  if (err instanceof ErpError)
    return `${err.kind} ${err.message} ${err.attempts ?? 0} ${err.url ?? ""} ${err.rowsDelivered ?? 0}`;
  return String(err);
}

const base: Error = new ErpError("x");
const later: boolean = new ErpError("x", { retryable: true }).retryable;
const timeout = new TransportError("t", { transportKind: "timeout" });
console.log(main, handle(base), later, timeout.kind === "transport", TableClass.name, Column.name);
