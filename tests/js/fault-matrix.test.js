// The fault matrix: every case of the shared table tests/vectors/faults.json
// (the same table the Rust and Python clients run) met by the JS client
// with each call — dues, table, stream (one row a batch) — with the same
// expectations as every other client: the typed error (whether it may pass
// later, and when: retryable, retryAfterMs) or the recovery, the
// requests the sandbox saw, the attempts the error reports, timeouts
// honoured, no partial table passed off as whole, and the token in no
// error, URL or printed client. Writes target/fault-matrix/js.json (case →
// outcome) at the end.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";

import { matrixClient, runCall } from "./fault-calls.js";
import { assertNoToken, captureConsole } from "./leaks.js";
import { attempts, requestLog, startSandbox } from "./sandbox.js";

// Obviously fake, and with characters that URL encoding changes.
const TOKEN = "fake-matrix-token/+=4711";
const TOKEN_FORMS = [TOKEN, encodeURIComponent(TOKEN)];
const SPEC = JSON.parse(readFileSync(new URL("../vectors/faults.json", import.meta.url), "utf8"));
const CALLS = ["dues", "ajax", "table", "stream"];
const MATRIX_FILE = fileURLToPath(new URL("../../target/fault-matrix/js.json", import.meta.url));
const CHILD = fileURLToPath(new URL("fixtures/fault-cells.mjs", import.meta.url));

let plain;
/** Another origin (another port): where cross-origin redirects point. */
let other;
let tls;
let certDir;
let console_;
/** Rows of each call without a fault. */
const whole = {};
const matrix = {};

before(async () => {
  certDir = mkdtempSync(join(tmpdir(), "erpdata-tls-"));
  const args = ["--token", TOKEN];
  [plain, other, tls] = await Promise.all([
    startSandbox(args),
    startSandbox(args),
    startSandbox([...args, "--tls", "--tls-cert", join(certDir, "cert.pem")]),
  ]);
  const settings = settingsOf({});
  for (const what of CALLS) {
    const got = await runCall(matrixClient(plain.url, TOKEN, settings), what, settings);
    assert.equal(got.error, undefined, `${what} without a fault: ${got.error?.message}`);
    whole[what] = got.rows;
    assert.ok(got.rows > 0, what);
  }
  console_ = captureConsole();
});

after(async () => {
  console_?.stop();
  await Promise.all([plain?.stop(), other?.stop(), tls?.stop()]);
  if (certDir) rmSync(certDir, { recursive: true, force: true });
  mkdirSync(join(MATRIX_FILE, ".."), { recursive: true });
  const text = `${JSON.stringify(matrix, null, 2)}\n`;
  assertNoToken([text], TOKEN, "the matrix file");
  writeFileSync(MATRIX_FILE, text);
});

/** A case's settings, the table's defaults where it has none. */
function settingsOf(testCase) {
  const out = {};
  for (const [name, value] of Object.entries(SPEC.defaults)) out[name] = testCase[name] ?? value;
  return out;
}

/** A count from the https sandbox, trusting its certificate. */
function tlsCount(key) {
  const ca = readFileSync(join(certDir, "cert.pem"));
  return new Promise((resolve, reject) => {
    httpsGet(`${tls.url}/_faults/count/${key}`, { ca }, (res) => {
      let text = "";
      res
        .setEncoding("utf8")
        .on("data", (chunk) => {
          text += chunk;
        })
        .on("end", () => {
          if (res.statusCode === 200) resolve(Number(text));
          else reject(new Error(`count/${key}: HTTP ${res.statusCode}`));
        });
    }).on("error", reject);
  });
}

/**
 * The cells on the https sandbox run in a child `node` that trusts its
 * certificate (Node reads NODE_EXTRA_CA_CERTS only at start).
 */
function inChild(cells) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CHILD, JSON.stringify({ token: TOKEN, cells })],
      {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(certDir, "cert.pem") },
        timeout: 120_000,
      },
      (err, out, errOut) => {
        if (err) return reject(new Error(`${err.message}\n${errOut}`));
        assertNoToken([errOut], TOKEN, "the child's stderr");
        resolve(JSON.parse(out));
      },
    );
  });
}

/** Checks what one call gave against `want`; the problems found. */
async function check(testCase, what, want, got, key) {
  const problems = [];
  const seen = testCase.origin === "tls" ? await tlsCount(key) : await attempts(plain.url, key);
  if (want.attempts !== undefined && seen !== want.attempts) {
    problems.push(`the sandbox saw ${seen} requests, not ${want.attempts}`);
  }
  if (want.min_s !== undefined && got.took < want.min_s) {
    problems.push(`answered after ${got.took.toFixed(2)} s`);
  }
  const max = (want.max_s ?? 5) + SPEC.tolerance_s;
  if (got.took > max) problems.push(`took ${got.took.toFixed(2)} s, more than ${max} s`);
  if (testCase.fault.includes("{elsewhere}")) {
    const reached = await attempts(other.url, key);
    const log = await requestLog(other.url, key);
    if (reached !== 0 || log.length !== 0)
      problems.push(`the other origin got ${reached} requests`);
  }
  const leaks = (texts) => texts.some((t) => TOKEN_FORMS.some((form) => String(t).includes(form)));
  if (leaks(got.client ?? [])) problems.push("the token is in the printed client");
  const e = got.error;
  let outcome;
  if (want.outcome === "ok" && e === undefined) {
    if (got.rows !== whole[what]) problems.push(`${got.rows} rows, not the whole ${whole[what]}`);
    if (want.notices === true && got.notices === 0) problems.push("the notices were not reported");
    outcome = `ok (${seen} seen, ${got.took.toFixed(2)} s)`;
  } else if (want.outcome === "error" && e !== undefined) {
    if (!e.erp) problems.push(`not an ErpError: ${e.name}: ${e.message}`);
    if (leaks(e.printed)) problems.push("the token is in the error");
    if (e.kind !== want.error) problems.push(`wrong error: ${e.name}: ${e.message}`);
    if (want.transport_kind !== undefined && e.transportKind !== want.transport_kind) {
      problems.push(`not a ${want.transport_kind} transport error: ${e.message}`);
    }
    if (want.status !== undefined && e.status !== want.status) {
      problems.push(`not status ${want.status}: ${e.message}`);
    }
    // Whether trying later may help, and when: the core's rule.
    if (e.retryable !== want.retryable) {
      problems.push(`retryable is ${e.retryable}, not ${want.retryable}: ${e.message}`);
    }
    if (want.retry_after_s !== undefined) {
      const ms = want.retry_after_s === null ? undefined : want.retry_after_s * 1000;
      if (e.retryAfterMs !== ms) problems.push(`retryAfterMs is ${e.retryAfterMs}, not ${ms}`);
    }
    if (want.message !== undefined && !e.message.includes(want.message)) {
      problems.push(`the message lacks ${JSON.stringify(want.message)}: ${e.message}`);
    }
    if (e.attempts === undefined || e.url === undefined) {
      problems.push("the error does not say where the call stood");
    } else {
      if (want.sent !== undefined && e.attempts !== want.sent) {
        problems.push(`${e.attempts} attempts reported, not ${want.sent}`);
      }
      if (leaks([e.url])) problems.push("the token is in the error's URL");
    }
    if (want.rows_delivered !== undefined) {
      if (got.delivered < want.rows_delivered) {
        problems.push(`${got.delivered} rows delivered before the error`);
      }
      if ((e.rowsDelivered ?? 0) !== got.delivered) {
        problems.push(`${e.rowsDelivered} rows reported delivered, ${got.delivered} were`);
      }
    }
    const detail = e.transportKind ?? e.status ?? "";
    outcome = `${e.name}${detail === "" ? "" : ` ${detail}`} (${seen} seen, ${got.took.toFixed(2)} s)`;
  } else if (e === undefined) {
    problems.push(`${got.rows} rows where an error was due`);
    outcome = "no error";
  } else {
    problems.push(`failed: ${e.name}: ${e.message}`);
    outcome = "error";
  }
  return { outcome, problems };
}

/** Runs every call of one case; its matrix entry, and the problems found. */
async function runCase(testCase) {
  const settings = settingsOf(testCase);
  const fault = testCase.fault.replace("{elsewhere}", new URL(other.url).port);
  const origin = testCase.origin === "tls" ? tls.url : plain.url;
  const cells = CALLS.map((what) => {
    const key = `m-js-${testCase.name}-${what}-${process.pid}`;
    return { what, key, base: `${origin}/_faults/${fault}/${key}/`, settings };
  });
  let results;
  if (testCase.origin === "tls") {
    results = await inChild(cells.map(({ base, what }) => ({ base, what, settings })));
  } else {
    results = [];
    for (const { base, what } of cells) {
      const client = matrixClient(base, TOKEN, settings);
      const got = await runCall(client, what, settings);
      got.client = [inspect(client, { showHidden: true }), JSON.stringify(client)];
      results.push(got);
    }
  }
  const outcomes = [];
  const failed = [];
  for (const [i, { what, key }] of cells.entries()) {
    const want = testCase.expect[what] ?? testCase.expect.all;
    const { outcome, problems } = await check(testCase, what, want, results[i], key);
    if (problems.length === 0) outcomes.push(`${what}: ${outcome}`);
    else {
      outcomes.push(`${what}: ${outcome}: ${problems.join("; ")}`);
      failed.push(`${what}: ${problems.join("; ")}`);
    }
  }
  return { outcome: outcomes.join("; "), ok: failed.length === 0, failed };
}

describe("fault matrix", () => {
  for (const testCase of SPEC.cases) {
    test(testCase.name, async () => {
      const { outcome, ok, failed } = await runCase(testCase);
      matrix[testCase.name] = { outcome, ok };
      assert.ok(ok, `${testCase.name}: ${failed.join("\n")}`);
    });
  }

  test("nothing printed a token through the console", () => {
    assertNoToken(console_.lines, TOKEN, "console");
  });
});
