// The smoke test every runtime runs (Deno, Bun, workerd): the installed
// npm package against a sandbox ERP on loopback. Plain JavaScript with no
// imports, so it runs unchanged inside a Worker: the entry of each runtime
// imports the package by its name and passes it in.
//
//   await smoke(erpdata, { baseUrl, token })  -> a summary; throws on any failure

const SALES_INVOICE_ROWS = 3000; // the sandbox is started with --rows 3000
const BATCH_ROWS = 500;

class SmokeFailure extends Error {}

function check(condition, what) {
  if (!condition) throw new SmokeFailure(what);
}

function same(actual, expected, what) {
  check(Object.is(actual, expected), `${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

/** Awaits `promise`, which must reject; returns what it rejected with. */
async function rejection(promise, what) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new SmokeFailure(`${what}: resolved, expected an error`);
}

/**
 * @param {object} erpdata the package's module namespace (`import * as erpdata from "erpdata"`)
 * @param {{baseUrl: string, token: string}} sandbox
 */
export async function smoke(erpdata, { baseUrl, token }) {
  const { ErpClient, ErpError, ServiceError, InvalidInputError, Table, TransportError } = erpdata;
  for (const name of ["ErpClient", "ErpError", "ServiceError", "InvalidInputError", "Table", "Column",
    "TransportError", "HttpStatusError", "DecodeError"]) {
    same(typeof erpdata[name], "function", `export ${name}`);
  }
  const client = new ErpClient({ baseUrl, project: "demo", accessToken: token, companyId: 1, yearId: 2025 });
  const described = JSON.stringify(client);
  check(!described.includes(token) && described.includes("[REDACTED]"), `JSON of the client shows the token: ${described}`);

  // Dues: the receivables of one account.
  const dues = await client.receivables("C001");
  check(Array.isArray(dues.rows) && dues.rows.length > 0, "receivables(C001) has rows");
  for (const row of dues.rows) {
    check(typeof row.doc_no === "string" && row.doc_no.length > 0, `dues row doc_no: ${JSON.stringify(row)}`);
    check(typeof row.balance === "number" && Number.isFinite(row.balance), `dues row balance: ${JSON.stringify(row)}`);
  }

  // A table: rows and typed columns.
  const table = await client.table("sales_invoice");
  check(table instanceof Table, "table() returns a Table");
  same(table.rows.length, SALES_INVOICE_ROWS, "sales_invoice rows");
  same(table.length, table.rows.length, "table.length");
  const columns = table.columns();
  const names = Object.keys(columns);
  check(names.length > 1, `columns(): ${names}`);
  same(names.join(","), table.columnNames.join(","), "columns() against columnNames");
  const { amount } = columns;
  same(amount?.type, "float64", "the amount column's type");
  check(amount.values instanceof Float64Array, "amount.values is a Float64Array");
  same(amount.values.length, table.rows.length, "amount.values.length");
  let tableSum = 0;
  table.rows.forEach((row, i) => {
    same(row.amount, amount.values[i], `rows[${i}].amount against columns().amount`);
    tableSum += row.amount;
  });

  // The same table streamed in batches: the same rows.
  let streamed = 0;
  let batches = 0;
  let streamSum = 0;
  for await (const batch of client.streamTable("sales_invoice", { batchRows: BATCH_ROWS })) {
    check(Array.isArray(batch) && batch.length > 0 && batch.length <= BATCH_ROWS, `batch of ${batch.length} rows`);
    for (const row of batch) {
      same(row.doc_no, table.rows[streamed].doc_no, `streamed row ${streamed}'s doc_no`);
      streamSum += row.amount;
      streamed += 1;
    }
    batches += 1;
  }
  same(streamed, table.rows.length, "rows streamed against table()");
  same(batches, Math.ceil(SALES_INVOICE_ROWS / BATCH_ROWS), "batches streamed");
  same(streamSum, tableSum, "sum of amount, streamed against table()");

  // Errors: typed classes, checked with instanceof, and their fields.
  const unknown = await rejection(client.table("no_such_table"), "table(no_such_table)");
  check(unknown instanceof ServiceError, `unknown table: not a ServiceError: ${unknown?.stack ?? unknown}`);
  check(unknown instanceof ErpError && unknown instanceof Error, "a ServiceError is an ErpError and an Error");
  same(unknown.name, "ServiceError", "error name");
  same(unknown.kind, "service", "error kind");
  same(unknown.status, "error", "ServiceError.status");
  check(typeof unknown.serviceMessage === "string" && unknown.serviceMessage.length > 0,
    `ServiceError.serviceMessage: ${unknown.serviceMessage}`);
  check(!String(unknown.message).includes(token), "the error message holds no token");

  const invalid = await rejection(client.table(""), "table('')");
  check(invalid instanceof InvalidInputError && invalid instanceof ErpError,
    `empty table name: not an InvalidInputError: ${invalid?.stack ?? invalid}`);
  same(invalid.kind, "invalid_input", "InvalidInputError kind");
  same(invalid.field, "table", "InvalidInputError field");

  // A connection broken off mid-answer is retried: Deno's and workerd's
  // fetch say what happened only in words (no error code), which the
  // package reads as well as Node's and Bun's codes.
  const resetKey = `smoke-reset-${Math.random().toString(36).slice(2)}`;
  const broken = new ErpClient({
    baseUrl: `${baseUrl}/_body/reset-5000/${resetKey}/`,
    project: "demo",
    accessToken: token,
    companyId: 1,
    yearId: 2025,
    maxRetries: 1,
  });
  const reset = await rejection(broken.table("sales_invoice"), "a connection reset mid-answer");
  check(reset instanceof TransportError, `a connection reset: not a TransportError: ${reset?.stack ?? reset}`);
  same(reset.transportKind, "reset", `a connection reset's transportKind (${reset.message})`);
  same(reset.attempts, 2, `a connection reset's attempts (${reset.message})`);

  return {
    dues: dues.rows.length,
    rows: table.rows.length,
    columns: names.length,
    streamed,
    batches,
    error: `${unknown.name}(${JSON.stringify(unknown.serviceMessage)})`,
    reset: `${reset.transportKind} after ${reset.attempts} attempts`,
  };
}

/** One line from a summary of `smoke`. */
export function describe(summary) {
  return `dues ${summary.dues} rows, table ${summary.rows}x${summary.columns}, ` +
    `stream ${summary.streamed} rows/${summary.batches} batches, ${summary.error}, ${summary.reset}`;
}

/**
 * `smoke` on each of the package's entry points (`{name: namespace}`), one
 * after the other: `{ok: true, result}` with a line per entry, or
 * `{ok: false, error}` naming the entry that failed.
 */
export async function smokeEntries(entries, sandbox) {
  const lines = [];
  for (const [name, erpdata] of Object.entries(entries)) {
    try {
      lines.push(`${name}: ${describe(await smoke(erpdata, sandbox))}`);
    } catch (err) {
      return { ok: false, error: `${name}: ${err?.stack ?? err}` };
    }
  }
  return { ok: true, result: lines.join("; ") };
}
