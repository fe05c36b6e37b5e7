// Wall time and JS heap of a large table fetch through the JS client against
// what users would write instead (`fetch` + `res.json()`), in one run.
//
//   node --expose-gc bench/js/table.mjs [--rows N] [--runs N]
//
// Starts a sandbox ($ERPDATA_SANDBOX_BIN, else target/release, else
// target/debug) serving `--rows` sales invoices (default 1,000,000), then
// for each run, in turn:
//   json     fetch + res.json(), then touch every row's data
//   rows     (await client.table()).rows
//   columns  (await client.table()).columns()
// and prints the medians (wall ms, this process's CPU ms, heap MB retained
// by the result after a GC) and the ratios to `json`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { ErpClient } from "../../js/src/index.js";
import { startSandbox } from "../../tests/js/sandbox.js";

const { values: args } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, runs: { type: "string", default: "5" } },
});
const ROWS = Number(args.rows);
const RUNS = Number(args.runs);
const TOKEN = "sandbox-token-not-secret";

if (typeof globalThis.gc !== "function") {
  console.error("run with node --expose-gc (heap figures need it)");
  process.exit(2);
}
if (!process.env.ERPDATA_SANDBOX_BIN) {
  const bin = (profile) => fileURLToPath(new URL(`../../target/${profile}/erpdata-sandbox`, import.meta.url));
  process.env.ERPDATA_SANDBOX_BIN = existsSync(bin("release")) ? bin("release") : bin("debug");
}

const sandbox = await startSandbox(["--rows", String(ROWS)]);
const client = new ErpClient({
  baseUrl: sandbox.url, project: "demo", accessToken: TOKEN, companyId: 1, yearId: 2025, timeoutMs: 600_000,
});

const CASES = {
  async json() {
    const res = await fetch(`${sandbox.url}/apis/dataapi.php`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `req=getdata&project=demo&accesstoken=${TOKEN}&yearid=2025&compid=1&table=sales_invoice`,
    });
    const parsed = await res.json();
    if (parsed.status !== "success") throw new Error("not success");
    return parsed.data;
  },
  async rows() {
    return (await client.table("sales_invoice")).rows;
  },
  async columns() {
    return (await client.table("sales_invoice")).columns();
  },
};

/** Heap in use after a full GC, measured on a fresh task: the awaiting
 * frame can otherwise keep the last result alive. */
async function heapMB() {
  await new Promise((resolve) => setTimeout(resolve, 0));
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed / 2 ** 20, buffers: m.arrayBuffers / 2 ** 20 };
}

function count(result) {
  return Array.isArray(result) ? result.length : Object.values(result)[0].length;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = Object.fromEntries(Object.keys(CASES).map((k) => [k, { ms: [], cpu: [], heap: [], buffers: [] }]));

// One warm-up of each (JIT, wasm compile, sandbox page cache), then the runs,
// interleaved so that drift hits every case alike.
for (let run = -1; run < RUNS; run++) {
  for (const [name, fn] of Object.entries(CASES)) {
    const before = await heapMB();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let result = await fn();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const after = await heapMB();
    if (count(result) !== ROWS) throw new Error(`${name}: ${count(result)} rows, expected ${ROWS}`);
    result = null;
    if (run >= 0) {
      samples[name].ms.push(ms);
      samples[name].cpu.push((cpu.user + cpu.system) / 1000);
      samples[name].heap.push(after.heap - before.heap);
      samples[name].buffers.push(after.buffers - before.buffers);
    }
    console.error(`run ${run < 0 ? "warm-up" : run + 1}: ${name.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms`);
  }
}
await sandbox.stop();

const base = { ms: median(samples.json.ms), cpu: median(samples.json.cpu), heap: median(samples.json.heap) };
console.log(`sales_invoice, ${ROWS} rows, medians of ${RUNS} (Node ${process.version})`);
console.log("case       wall ms   x json    cpu ms   x json   heap MB   x json   buffers MB");
for (const [name, s] of Object.entries(samples)) {
  const ms = median(s.ms);
  const cpu = median(s.cpu);
  const heap = median(s.heap);
  console.log(
    `${name.padEnd(8)} ${ms.toFixed(0).padStart(9)} ${(base.ms / ms).toFixed(2).padStart(8)}` +
      ` ${cpu.toFixed(0).padStart(9)} ${(base.cpu / cpu).toFixed(2).padStart(8)}` +
      ` ${heap.toFixed(1).padStart(9)} ${(base.heap / heap).toFixed(2).padStart(8)}` +
      ` ${median(s.buffers).toFixed(1).padStart(12)}`,
  );
}
console.log("cpu: this process only (the sandbox's work is the same for every case); heap: retained by the result");
console.log("x json: how many times faster / smaller than fetch + res.json() (higher is better)");
