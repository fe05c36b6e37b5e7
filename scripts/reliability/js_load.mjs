// Load and size through the JavaScript client, against release sandboxes on
// loopback; prints its figures and exits non-zero when a bound is missed.
//
//   node --expose-gc scripts/reliability/js_load.mjs [SANDBOX_BIN]
//
// (JS_LOAD_PARTS=load,stream,cuts runs only the parts named.)
//
// 1. 10,000 dues calls at concurrency 64, the sandbox failing 1% of requests
//    (503, Retry-After: 0): no call may fail after retries, every answer
//    must be the one for its own request, and RSS, sampled after a full GC
//    every 1,000 calls and after the run, must stay within 10% of RSS after
//    the first 1,000 calls. (Without the GCs V8 lets garbage pile up to
//    its heap's growth limit, which says nothing about what is retained;
//    that peak, VmHWM, is printed too.)
// 2. streamTable over a 5,000,000-row sales_invoice, in a child process
//    whose peak RSS (VmHWM) must stay under 200 MB.
// 3. A 1,000,000-row answer cut at 20 random points (a short body with a
//    matching Content-Length, or a Content-Length the body never reaches):
//    20 errors, no short result.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { ErpClient } from "../../js/src/index.js";
import { startSandbox } from "../../tests/js/sandbox.js";

const TOKEN = "sandbox-token-not-secret";
const CALLS = 10_000;
const CONCURRENCY = 64;
const FIRST = 1_000;
const STREAM_ROWS = 5_000_000;
const STREAM_PEAK_LIMIT_MB = 200;
const CUT_ROWS = 1_000_000;
const CUTS = 20;
const MB = 1024 * 1024;

const client = (baseUrl, options = {}) =>
  new ErpClient({ baseUrl, project: "demo", accessToken: TOKEN, companyId: 1, yearId: 2025, ...options });

/** Peak resident set of this process so far, from the kernel. */
function peakRssMb() {
  const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmHWM:"));
  return Number(line.match(/(\d+)/)[1]) / 1024;
}

// --- the child of part 2 -------------------------------------------------------

if (process.argv[2] === "--stream-child") {
  const started = performance.now();
  let rows = 0;
  let last;
  let sampledPeak = 0;
  const c = client(process.argv[3], { timeoutMs: 60_000 });
  for await (const batch of c.streamTable("sales_invoice", { batchRows: 10_000 })) {
    rows += batch.length;
    last = batch[batch.length - 1];
    if (rows % 500_000 === 0) sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss / MB);
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ rows, seconds, peakMb: peakRssMb(), sampledPeak, last })}\n`);
  process.exit(0);
}

// --- the parent ------------------------------------------------------------------

if (typeof globalThis.gc !== "function") {
  console.error("run with node --expose-gc (RSS is sampled after a GC)");
  process.exit(2);
}
const bin = process.argv[2] ?? fileURLToPath(new URL("../../target/release/erpdata-sandbox", import.meta.url));
if (!existsSync(bin)) {
  console.error(`no sandbox at ${bin} (cargo build --release -p erpdata-sandbox)`);
  process.exit(2);
}
process.env.ERPDATA_SANDBOX_BIN = bin;

const failures = [];
function check(ok, what) {
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

function rssMb() {
  globalThis.gc();
  return process.memoryUsage().rss / MB;
}

async function total(url) {
  return Number(await (await fetch(`${url}/_faults/total`)).text());
}

async function load() {
  console.log(`dues load: ${CALLS} calls, concurrency ${CONCURRENCY}, 1% injected 503s (release sandbox --fail-rate 1)`);
  const sandbox = await startSandbox(["--fail-rate", "1"]);
  try {
    // Retry-After: 0, so retries cost no sleep; three retries make a call
    // fail only if four attempts in a row draw the 1% (about 1e-8).
    const c = client(sandbox.url, { maxRetries: 3, timeoutMs: 30_000 });
    const accounts = [];
    for (const prefix of ["C", "S"]) {
      for (let i = 1; i <= 5; i += 1) accounts.push({ acid: `${prefix}00${i}`, kind: prefix === "C" ? "RECEIPT" : "PAYMENT" });
    }
    // Each account's own answer, to match every response against.
    const expected = new Map();
    for (const { acid, kind } of accounts) {
      const dues = await c.dues({ acid, kind });
      expected.set(acid, JSON.stringify(dues.rows));
    }
    const distinct = new Set(expected.values()).size;
    const before = await total(sandbox.url);

    let next = 0;
    let done = 0;
    let failed = 0;
    let mismatched = 0;
    const samples = [];
    const heap = [];
    const firstErrors = [];
    const started = performance.now();
    async function worker() {
      while (next < CALLS) {
        const i = next;
        next += 1;
        const { acid, kind } = accounts[i % accounts.length];
        try {
          const dues = await c.dues({ acid, kind });
          // The answer names its account: it must be this request's, with
          // this account's rows.
          const answered = JSON.parse(dues.raw).acid;
          if (dues.acid !== acid || answered !== acid || JSON.stringify(dues.rows) !== expected.get(acid)) {
            mismatched += 1;
          }
        } catch (err) {
          failed += 1;
          if (firstErrors.length < 3) firstErrors.push(`${err.name}: ${err.message}`);
        }
        done += 1;
        // Sampled after a full GC every 1,000 calls: what the process
        // holds, not garbage waiting for the collector.
        if (done % FIRST === 0) {
          samples.push(rssMb());
          heap.push(process.memoryUsage().heapUsed / MB);
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const rssEnd = rssMb();
    const [rssFirst] = samples;
    const peak = Math.max(...samples, rssEnd);
    const requests = (await total(sandbox.url)) - before;

    console.log(`  ${CALLS} calls in ${seconds.toFixed(2)} s: ${(CALLS / seconds).toFixed(0)} calls/s`);
    console.log(`  ${requests} requests: ${requests - CALLS} retries of injected 503s`);
    console.log(`  RSS after a GC, every ${FIRST} calls (MB): ${samples.map((m) => m.toFixed(1)).join(" ")}`);
    console.log(`  RSS after ${FIRST} calls ${rssFirst.toFixed(1)} MB, after ${CALLS} ${rssEnd.toFixed(1)} MB` +
      ` (${(((rssEnd - rssFirst) / rssFirst) * 100).toFixed(1)}%), highest sample ${peak.toFixed(1)} MB` +
      ` (+${(((peak - rssFirst) / rssFirst) * 100).toFixed(1)}%); JS heap in use ${heap.map((m) => m.toFixed(1)).join(" ")} MB`);
    console.log(`  peak RSS of the process, garbage awaiting collection included (VmHWM): ${peakRssMb().toFixed(1)} MB`);
    check(failed === 0, `no failed call after retries (${failed} failed${firstErrors.length ? `: ${firstErrors.join("; ")}` : ""})`);
    check(mismatched === 0, `every answer matched its request (${mismatched} did not; ${distinct} distinct answers)`);
    check(requests > CALLS, `the sandbox injected failures that were retried (${requests - CALLS})`);
    check(peak <= rssFirst * 1.1, "RSS (after a GC) after the run, and at every 1,000 calls, within 10% of RSS after the first 1,000");
  } finally {
    await sandbox.stop();
  }
}

async function stream() {
  console.log(`streamTable: ${STREAM_ROWS.toLocaleString("en")} rows of sales_invoice in a child process`);
  const sandbox = await startSandbox(["--rows", String(STREAM_ROWS)]);
  try {
    const out = await new Promise((resolve, reject) => {
      execFile(process.execPath, [fileURLToPath(import.meta.url), "--stream-child", sandbox.url], {
        timeout: 600_000, maxBuffer: MB,
      }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    const result = JSON.parse(out);
    console.log(`  ${result.rows.toLocaleString("en")} rows in ${result.seconds.toFixed(1)} s` +
      ` (${(result.rows / result.seconds / 1e6).toFixed(2)} M rows/s), peak RSS ${result.peakMb.toFixed(1)} MB (VmHWM)`);
    check(result.rows === STREAM_ROWS, `every row arrived (${result.rows})`);
    check(result.last?.invoice_no !== undefined, `the last row is whole (${result.last?.invoice_no})`);
    check(result.peakMb < STREAM_PEAK_LIMIT_MB, `peak RSS under ${STREAM_PEAK_LIMIT_MB} MB`);
  } finally {
    await sandbox.stop();
  }
}

async function cuts() {
  console.log(`cut bodies: a ${CUT_ROWS.toLocaleString("en")}-row answer cut at ${CUTS} random points`);
  const sandbox = await startSandbox(["--rows", String(CUT_ROWS)]);
  try {
    const c = client(sandbox.url, { timeoutMs: 120_000 });
    const whole = await c.table("sales_invoice");
    check(whole.length === CUT_ROWS, `the uncut answer has every row (${whole.length})`);
    const res = await fetch(`${sandbox.url}/apis/dataapi.php`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `req=getdata&project=demo&accesstoken=${TOKEN}&yearid=2025&compid=1&table=sales_invoice`,
    });
    const length = (await res.arrayBuffer()).byteLength;
    let errors = 0;
    const started = performance.now();
    for (let i = 0; i < CUTS; i += 1) {
      const at = 1 + Math.floor(Math.random() * (length - 1));
      const fault = `${i % 2 === 0 ? "truncate" : "short"}-${at}`;
      const cut = client(`${sandbox.url}/_faults/${fault}/jsload-cut-${process.pid}-${i}/`, { timeoutMs: 120_000, maxRetries: 0 });
      // Alternately the whole table and the stream (which hands out the
      // rows before the cut, then must throw).
      const op = i % 4 < 2 ? "table" : "streamTable";
      let rows = 0;
      try {
        if (op === "table") {
          rows = (await cut.table("sales_invoice")).length;
        } else {
          for await (const batch of cut.streamTable("sales_invoice", { batchRows: 50_000 })) rows += batch.length;
        }
        console.log(`  FAIL ${op} cut at byte ${at} of ${length} (${fault}): ${rows} rows returned as complete`);
      } catch (err) {
        errors += 1;
        console.log(`  ${op} ${fault}: ${err.name}${err.rowsReceived !== undefined ? `, ${err.rowsReceived} complete rows before it` : ""}`);
      }
    }
    console.log(`  ${CUTS} cuts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    check(errors === CUTS, `${errors} errors of ${CUTS} cuts, no short result`);
  } finally {
    await sandbox.stop();
  }
}

const only = process.env.JS_LOAD_PARTS?.split(",");
for (const part of [load, stream, cuts].filter((p) => !only || only.includes(p.name))) {
  try {
    await part();
  } catch (err) {
    check(false, `${part.name}: ${err.stack ?? err}`);
  }
}
if (failures.length > 0) {
  console.log(`reliability-js: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("reliability-js: every check passed");
