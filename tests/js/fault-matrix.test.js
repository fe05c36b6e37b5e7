// The fault matrix: every fault of the sandbox's hostile mode against each
// operation of the client (the dues query, table() with its rows and
// columns, streamTable), each with the outcome it must give, the exact
// number of attempts the sandbox counted, the time it may take, no partial
// result passed off as whole, and the token nowhere in what it printed.
// Writes target/fault-matrix/js.json (fault row → outcome) at the end.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";

import {
  DecodeError,
  ErpClient,
  ErpError,
  HttpStatusError,
  ServiceError,
  TransportError,
} from "../../js/src/index.js";
import { assertNoToken, captureConsole, printable } from "./leaks.js";
import { attempts, faultsBase, freshKey, requestLog, startSandbox } from "./sandbox.js";

// Obviously fake, and with characters that URL encoding changes.
const TOKEN = "fake-matrix-token/+=4711";
const ROWS = 20_000;
const MATRIX_FILE = fileURLToPath(new URL("../../target/fault-matrix/js.json", import.meta.url));
const CHILD = fileURLToPath(new URL("fixtures/https-to-http.mjs", import.meta.url));
/** Slack on every timing bound: two shared cores, a debug sandbox. */
const SLACK_MS = 1500;
/** The core's first backoff is 0.25-0.5 s (equal jitter on 0.5 s). */
const FIRST_BACKOFF = [250, 500];
/** The core follows this many redirects, then refuses. */
const MAX_REDIRECTS = 5;

let sandbox;
/** Another origin (another port): where cross-origin redirects point. */
let other;
let tls;
let certDir;
let console_;
/** Dues rows and table rows as the sandbox gives them without a fault. */
const truth = {};
const matrix = {};

before(async () => {
  certDir = mkdtempSync(join(tmpdir(), "erpdata-tls-"));
  const args = ["--token", TOKEN, "--rows", String(ROWS)];
  [sandbox, other, tls] = await Promise.all([
    startSandbox(args),
    startSandbox(args),
    startSandbox([...args, "--tls", "--tls-cert", join(certDir, "cert.pem")]),
  ]);
  const c = client(sandbox.url);
  truth.dues = (await c.receivables("C001")).rows;
  truth.table = await c.table("sales_invoice");
  assert.ok(truth.dues.length > 0);
  assert.equal(truth.table.length, ROWS);
  console_ = captureConsole();
});

after(async () => {
  console_?.stop();
  await Promise.all([sandbox?.stop(), other?.stop(), tls?.stop()]);
  if (certDir) rmSync(certDir, { recursive: true, force: true });
  mkdirSync(join(MATRIX_FILE, ".."), { recursive: true });
  writeFileSync(MATRIX_FILE, `${JSON.stringify(matrix, null, 2)}\n`);
});

function client(baseUrl, options = {}) {
  return new ErpClient({
    baseUrl,
    project: "demo",
    accessToken: TOKEN,
    companyId: 1,
    yearId: 2025,
    ...options,
  });
}

const port = (url) => new URL(url).port;

/** A fault-API read from the https sandbox, trusting its certificate. */
function tlsRead(path) {
  const ca = readFileSync(join(certDir, "cert.pem"));
  return new Promise((resolve, reject) => {
    httpsGet(`${tls.url}/_faults/${path}`, { ca }, (res) => {
      let text = "";
      res
        .setEncoding("utf8")
        .on("data", (chunk) => {
          text += chunk;
        })
        .on("end", () => {
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`/_faults/${path}: HTTP ${res.statusCode}`));
        });
    }).on("error", reject);
  });
}

// --- the operations ---------------------------------------------------------

/**
 * Each operation resolves with what it delivered, or rejects; `delivered`
 * counts the rows streamTable handed out before it threw.
 */
const OPERATIONS = {
  async dues(c, progress) {
    const dues = await c.receivables("C001");
    progress.rows = dues.rows.length;
    assert.deepEqual(dues.rows, truth.dues, "dues rows differ from the real answer");
    return dues;
  },
  async table(c, progress) {
    const table = await c.table("sales_invoice");
    progress.rows = table.length;
    // Whole or nothing: the length, the rows and every column agree with
    // the real table.
    assert.equal(table.length, ROWS);
    assert.equal(table.rows.length, ROWS);
    assert.deepEqual(table.rows[ROWS - 1], truth.table.rows[ROWS - 1]);
    const columns = table.columns();
    assert.deepEqual(Object.keys(columns), truth.table.columnNames);
    for (const col of Object.values(columns)) assert.equal(col.length, ROWS, col.name);
    return table;
  },
  async stream(c, progress, { signal, batchRows = 1000 } = {}) {
    progress.rows = 0;
    let last;
    for await (const batch of c.streamTable("sales_invoice", { batchRows, signal })) {
      progress.rows += batch.length;
      last = batch[batch.length - 1];
    }
    assert.equal(progress.rows, ROWS, "a stream that ended without an error had every row");
    assert.deepEqual(last, truth.table.rows[ROWS - 1]);
    return { rows: progress.rows };
  },
};

// --- what each fault must give ----------------------------------------------

/** A successful call after `tries` attempts. */
const ok = (tries, more = {}) => ({ ok: true, tries, ...more });
/** A rejection with `cls` (and these fields) after `tries` attempts. */
const fails = (cls, fields, tries, more = {}) => ({ ok: false, cls, fields, tries, ...more });

const http = (code) => ({ status: code });
const timeout = { transportKind: "timeout" };
const reset = { transportKind: "reset" };

/**
 * The rows of FAULTS.md. `fault(op)` is the fault under /_faults/ for that
 * operation (a dues answer is a few hundred bytes, a table answer
 * megabytes, so cuts differ); `expect[op]` is what it must give, with the
 * time it may take (`minMs`/`maxMs`) where timing is the point.
 */
const ROWS_OF_FAULTS = [
  {
    name: "latency",
    fault: () => "latency-400",
    options: { timeoutMs: 10_000 },
    expect: { all: ok(1, { minMs: 400 }) },
  },
  {
    name: "slow-body",
    fault: (op) => (op === "dues" ? "trickle-64x20" : "trickle-524288x60"),
    options: { timeoutMs: 20_000 },
    // At least one pause per chunk after the first.
    expect: {
      dues: ok(1, { minMs: 60 }),
      table: ok(1, { minMs: 240 }),
      stream: ok(1, { minMs: 240 }),
    },
  },
  {
    name: "429-retry-after",
    fault: () => "status-429x1-ra1",
    expect: { all: ok(2, { minMs: 1000, maxMs: 1000 + SLACK_MS }) },
  },
  {
    name: "500-html",
    fault: () => "status-500x1",
    expect: { all: fails(HttpStatusError, http(500), 1) },
  },
  { name: "502-html", fault: () => "status-502x1", expect: { all: ok(2) } },
  { name: "503-html", fault: () => "status-503x1", expect: { all: ok(2) } },
  { name: "504-html", fault: () => "status-504x1", expect: { all: ok(2) } },
  {
    name: "503-exhausted",
    fault: () => "status-503x10",
    options: { maxRetries: 2 },
    expect: { all: fails(HttpStatusError, http(503), 3) },
  },
  {
    name: "php-notice",
    fault: () => "notice",
    expect: { all: ok(1, { notices: true, label: "ok with notices" }) },
  },
  { name: "html-200", fault: () => "html200", expect: { all: fails(DecodeError, {}, 1) } },
  {
    name: "service-error",
    fault: () => "service-error",
    expect: {
      all: fails(
        ServiceError,
        { status: "error", serviceMessage: "Database connection failed" },
        1,
      ),
    },
  },
  {
    name: "cut-with-length",
    fault: (op) => (op === "dues" ? "truncate-60" : "truncate-1000000"),
    // A complete HTTP message: nothing to retry, the JSON is short.
    expect: { all: fails(DecodeError, {}, 1, { rowCount: true }) },
  },
  {
    name: "cut-length-mismatch",
    fault: (op) => (op === "dues" ? "short-60" : "short-1000000"),
    options: { maxRetries: 1 },
    // A broken transfer is retried while nothing has been handed out; a
    // stream has handed out rows by then, so it stops.
    expect: {
      dues: fails(TransportError, reset, 2),
      table: fails(TransportError, reset, 2),
      stream: fails(TransportError, reset, 1, { rowCount: true }),
    },
  },
  {
    name: "reset-mid-body",
    fault: (op) => (op === "dues" ? "reset-60" : "reset-1000000"),
    options: { maxRetries: 1 },
    expect: {
      dues: fails(TransportError, reset, 2),
      table: fails(TransportError, reset, 2),
      stream: fails(TransportError, reset, 1, { rowCount: true }),
    },
  },
  {
    name: "redirect-same-origin",
    // To http://127.0.0.1:PORT/_faults/pass/KEY/..., PORT this sandbox's
    // own, so the followed request is counted under KEY too.
    fault: () => `redirect-307-${port(sandbox.url)}`,
    expect: { all: ok(2, { label: "followed→ok" }) },
  },
  {
    name: "redirect-other-origin",
    fault: () => `redirect-307-${port(other.url)}`,
    expect: {
      all: fails(HttpStatusError, http(307), 1, {
        refused: /another origin/,
        otherOrigin: () => other,
      }),
    },
  },
  {
    name: "redirect-loop",
    fault: () => "redirect-307-loop",
    expect: {
      all: fails(HttpStatusError, http(307), MAX_REDIRECTS + 1, {
        refused: /more than 5 redirects/,
      }),
    },
  },
  {
    name: "read-timeout",
    fault: () => "hang",
    options: { timeoutMs: 300, maxRetries: 1 },
    expect: {
      // Timeouts are retried once: two waits of 300 ms and a backoff.
      dues: fails(TransportError, timeout, 2, {
        minMs: 600 + FIRST_BACKOFF[0],
        maxMs: 600 + FIRST_BACKOFF[1] + SLACK_MS,
      }),
      table: fails(TransportError, timeout, 2, {
        minMs: 600 + FIRST_BACKOFF[0],
        maxMs: 600 + FIRST_BACKOFF[1] + SLACK_MS,
      }),
      // The stream's answer has started: one wait, no retry.
      stream: fails(TransportError, timeout, 1, {
        minMs: 300,
        maxMs: 300 + SLACK_MS,
        rowCount: true,
      }),
    },
  },
  {
    name: "never-ending",
    fault: () => "endless",
    options: { timeoutMs: 800, maxRetries: 0 },
    expect: {
      // timeoutMs covers the whole answer of a call.
      dues: fails(TransportError, timeout, 1, { minMs: 800, maxMs: 800 + SLACK_MS }),
      table: fails(TransportError, timeout, 1, { minMs: 800, maxMs: 800 + SLACK_MS }),
      // A stream is paced by its reader, so its timeout bounds each wait,
      // and rows keep coming: the caller's signal is what ends it.
      stream: fails(TransportError, { aborted: true }, 1, {
        minMs: 800,
        maxMs: 800 + SLACK_MS,
        rowCount: true,
        streamOptions: () => ({ signal: AbortSignal.timeout(800), batchRows: 10 }),
      }),
    },
  },
];

// --- running one cell ---------------------------------------------------------

function describeError(err) {
  const detail = err.aborted
    ? "aborted by the caller's signal"
    : err instanceof ServiceError
      ? ""
      : (err.status ?? err.transportKind ?? "");
  return `${err.name}${detail === "" ? "" : ` ${detail}`}`;
}

const plural = (n) => `${n} attempt${n === 1 ? "" : "s"}`;

/** Runs `op` under `row`'s fault; checks everything; returns the outcome text. */
async function runCell(row, op) {
  const expected = row.expect[op] ?? row.expect.all;
  const key = freshKey(`js-${row.name}-${op}-`);
  const c = client(faultsBase(sandbox.url, row.fault(op), key), row.options);
  const progress = { rows: 0 };
  const started = performance.now();
  let value;
  let error;
  try {
    value = await OPERATIONS[op](c, progress, expected.streamOptions?.());
  } catch (err) {
    error = err;
  }
  const ms = performance.now() - started;
  const tries = await attempts(sandbox.url, key);
  const where = `${row.name}/${op}`;

  assertNoToken([...printable(c), inspect(c)], TOKEN, `${where} client`);
  if (expected.ok) {
    assert.equal(
      error,
      undefined,
      `${where}: expected success, got ${error?.name}: ${error?.message}`,
    );
    if (expected.notices) {
      if (op !== "stream")
        assert.ok(value.notices.length > 0 && /Notice/.test(value.notices[0]), `${where} notices`);
    }
  } else {
    assert.ok(
      error !== undefined,
      `${where}: expected ${expected.cls.name}, got a result with ${progress.rows} rows`,
    );
    assert.ok(
      error instanceof expected.cls && error instanceof ErpError,
      `${where}: expected ${expected.cls.name}, got ${error?.name}: ${error?.message}`,
    );
    for (const [field, want] of Object.entries(expected.fields)) {
      assert.equal(error[field], want, `${where}: ${field} of ${error.message}`);
    }
    if (expected.refused) assert.match(error.message, expected.refused, where);
    if (expected.rowCount && op === "stream") {
      // The error says how much had arrived, and no more was handed out.
      assert.equal(typeof error.rowsReceived, "number", `${where}: ${error.message}`);
      assert.ok(
        error.rowsReceived >= progress.rows && error.rowsReceived < ROWS,
        `${where}: ${error.rowsReceived}`,
      );
      assert.match(error.message, new RegExp(`${error.rowsReceived} complete rows`), where);
    }
    assertNoToken(printable(error), TOKEN, `${where} error`);
  }
  assert.equal(tries, expected.tries, `${where}: attempts counted by the sandbox`);
  if (expected.minMs !== undefined)
    assert.ok(ms >= expected.minMs - 20, `${where}: took ${ms} ms < ${expected.minMs}`);
  if (expected.maxMs !== undefined)
    assert.ok(ms <= expected.maxMs, `${where}: took ${ms} ms > ${expected.maxMs}`);
  if (expected.otherOrigin) {
    assert.deepEqual(
      await requestLog(expected.otherOrigin().url, key),
      [],
      `${where}: the other origin was reached`,
    );
  }

  const time =
    expected.maxMs !== undefined || expected.minMs !== undefined
      ? `, ${(ms / 1000).toFixed(2)} s`
      : "";
  if (expected.ok)
    return `${expected.label ?? (tries > 1 ? "retried→ok" : "ok")} (${plural(tries)}${time})`;
  const refused = expected.refused ? " refused" : "";
  const otherOrigin = expected.otherOrigin ? "; the other origin got 0 requests" : "";
  const arrived =
    op !== "stream" || error.rowsReceived === undefined
      ? ""
      : `, ${error.rowsReceived} complete rows had arrived`;
  return `${describeError(error)}${refused} (${plural(tries)}${time}${arrived}${otherOrigin})`;
}

/** One matrix cell for a row: table()'s outcome, the others' where they differ. */
function cell(outcomes) {
  const { table, ...rest } = outcomes;
  const differing = Object.entries(rest).filter(
    ([, text]) => text.replace(/, [\d.]+ s/, "") !== table.replace(/, [\d.]+ s/, ""),
  );
  return differing.length === 0
    ? table
    : `${table}; ${differing.map(([op, text]) => `${op}: ${text}`).join("; ")}`;
}

async function recorded(name, run) {
  try {
    const outcome = await run();
    matrix[name] = { outcome, ok: true };
  } catch (err) {
    matrix[name] = { outcome: `FAILED: ${String(err?.message ?? err).split("\n")[0]}`, ok: false };
    throw err;
  }
}

describe("fault matrix", () => {
  for (const row of ROWS_OF_FAULTS) {
    test(row.name, () =>
      recorded(row.name, async () => {
        // The three operations at once, each under its own key.
        const ops = Object.keys(OPERATIONS);
        const texts = await Promise.all(ops.map((op) => runCell(row, op)));
        return cell(Object.fromEntries(ops.map((op, i) => [op, texts[i]])));
      }),
    );
  }

  test("redirect-https-to-http", () =>
    recorded("redirect-https-to-http", async () => {
      const keys = {
        dues: freshKey("js-https-dues-"),
        table: freshKey("js-https-table-"),
        stream: freshKey("js-https-stream-"),
      };
      const fault = `redirect-307-${port(other.url)}`;
      assert.match(tls.url, /^https:\/\//);
      const config = {
        passBase: faultsBase(tls.url, "pass", freshKey("js-https-pass-")),
        redirectBases: Object.fromEntries(
          Object.entries(keys).map(([op, key]) => [op, faultsBase(tls.url, fault, key)]),
        ),
        token: TOKEN,
      };
      // Node reads NODE_EXTRA_CA_CERTS only at start: the client runs in a
      // child that trusts the https sandbox's certificate.
      const { stdout, stderr } = await new Promise((resolve, reject) => {
        execFile(
          process.execPath,
          [CHILD, JSON.stringify(config)],
          {
            env: { ...process.env, NODE_EXTRA_CA_CERTS: join(certDir, "cert.pem") },
            timeout: 60_000,
          },
          (err, out, errOut) =>
            err
              ? reject(new Error(`${err.message}\n${errOut}`))
              : resolve({ stdout: out, stderr: errOut }),
        );
      });
      assertNoToken([stdout.replaceAll(JSON.stringify(TOKEN), ""), stderr], TOKEN, "child output");
      const result = JSON.parse(stdout);
      // The certificate is trusted: the same calls without the redirect work.
      for (const [op, got] of Object.entries(result.control)) {
        assert.ok(got.ok, `https control ${op}: ${got.message}`);
      }
      assert.equal(result.control.table.rows, ROWS);
      for (const [op, got] of Object.entries(result.redirected)) {
        assert.equal(got.ok, false, `${op} followed https → http`);
        assert.equal(got.name, "HttpStatusError", `${op}: ${got.message}`);
        assert.equal(got.status, 307);
        assert.match(got.message, /from https to http:\/\/127\.0\.0\.1:\d+\/.* refused/, op);
        assertNoToken(got.printed, TOKEN, `https→http ${op}`);
        assert.equal(
          Number(await tlsRead(`count/${keys[op]}`)),
          1,
          `${op}: attempts on the https sandbox`,
        );
        assert.deepEqual(
          await requestLog(other.url, keys[op]),
          [],
          `${op}: the http sandbox was reached`,
        );
      }
      return "HttpStatusError 307 refused (1 attempt; the http origin got 0 requests)";
    }));

  test("nothing printed a token through the console", () => {
    assertNoToken(console_.lines, TOKEN, "console");
  });
});
