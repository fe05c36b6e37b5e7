// sales_invoice tables through the JS client against what users would
// write instead (`fetch` + `res.json()`), at several sizes, in one run.
//
//   node --expose-gc bench/js/table.mjs [--sizes 10000,100000,1000000]
//        [--growth 10000,1000000,5000000] [--runs 5] [--json FILE]
//
// Starts a sandbox ($ERPDATA_SANDBOX_BIN, else target/release, else
// target/debug) per size. Each case runs in a fresh Node process (so its
// peak RSS is its own), `--runs` times, the cases interleaved so that
// drift in the machine's load hits each alike:
//   json          fetch + res.json(), the rows under `data`
//   rows          (await client.table()).rows
//   columns       (await client.table()).columns()
//   columns read  the same, then every column's `values` (text columns
//                 make their strings when read: what reading them all costs)
//   streamTable   for await over client.streamTable(), counting rows
//   read          the client's transport in Node (node:http), the body
//                 read chunk by chunk and dropped: the transport floor
//                 (rows counted by their first key; no client made, so no
//                 wasm module either)
// and, at the largest size, with the body already in memory (a `fetch`
// that answers from a buffer), so the client's own cost shows:
//   memory json   JSON.parse of the text
//   memory rows / memory columns
// Printed: medians, min–max, this process's CPU, the JS heap the result
// keeps after a GC, peak RSS, and ratios to `json`. A growth table of
// streamTable follows.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { nodeFetch } from "../../js/src/fetch-node.js";
import { ErpClient } from "../../js/src/index.js";
import { startSandbox } from "../../tests/js/sandbox.js";

const TOKEN = "sandbox-token-not-secret";
const FORM = `req=getdata&project=demo&accesstoken=${TOKEN}&yearid=2025&compid=1&table=sales_invoice`;

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000,1000000" },
    growth: { type: "string", default: "10000,1000000,5000000" },
    runs: { type: "string", default: "5" },
    "growth-runs": { type: "string", default: "3" },
    json: { type: "string" },
    // One measurement in this process (used by the parent).
    child: { type: "string" },
    url: { type: "string" },
    body: { type: "string" },
    rows: { type: "string" },
  },
});

if (typeof globalThis.gc !== "function") {
  console.error("run with node --expose-gc (heap figures need it)");
  process.exit(2);
}

const client = (url, fetchImpl) =>
  new ErpClient({
    baseUrl: url,
    project: "demo",
    accessToken: TOKEN,
    companyId: 1,
    yearId: 2025,
    timeoutMs: 600_000,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });

/**
 * A `fetch` answering every request with `body`, as the service would, in
 * 64 KiB views of the buffer as a socket delivers it. Not `new
 * Response(body)`: that copies the whole buffer first (a quarter of a
 * second for a million rows), which is no work of the client's.
 */
const fromMemory = (body) => async () => {
  let at = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (at >= body.length) {
        controller.close();
        return;
      }
      controller.enqueue(body.subarray(at, at + 65536));
      at += 65536;
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
};

const CASES = {
  async json(url) {
    const res = await fetch(`${url}/apis/dataapi.php`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: FORM,
    });
    const parsed = await res.json();
    if (parsed.status !== "success") throw new Error("not success");
    return parsed.data;
  },
  async rows(url) {
    return (await client(url).table("sales_invoice")).rows;
  },
  async columns(url) {
    return (await client(url).table("sales_invoice")).columns();
  },
  async "columns read"(url) {
    const columns = (await client(url).table("sales_invoice")).columns();
    for (const column of Object.values(columns)) column.values;
    return columns;
  },
  async streamTable(url) {
    let n = 0;
    for await (const batch of client(url).streamTable("sales_invoice")) n += batch.length;
    return n;
  },
  async read(url) {
    const res = await nodeFetch(`${url}/apis/dataapi.php`, {
      method: "POST",
      headers: [["content-type", "application/x-www-form-urlencoded"]],
      body: FORM,
    });
    // A key cut by a chunk's end is found in the last bytes of one chunk
    // joined to the first of the next.
    const cut = ROW_KEY.length - 1;
    let n = 0;
    let tail = Buffer.alloc(0);
    const reader = res.body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const seam = Buffer.concat([tail, bytes.subarray(0, cut)]);
      for (let at = seam.indexOf(ROW_KEY); at !== -1; at = seam.indexOf(ROW_KEY, at + 1)) {
        if (at < tail.length) n++;
      }
      for (let at = bytes.indexOf(ROW_KEY); at !== -1; at = bytes.indexOf(ROW_KEY, at + 1)) n++;
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - cut)));
    }
    return n;
  },
  async "memory json"(_url, body) {
    const parsed = JSON.parse(new TextDecoder().decode(body));
    return parsed.data;
  },
  async "memory rows"(url, body) {
    return (await client(url, fromMemory(body)).table("sales_invoice")).rows;
  },
  async "memory columns"(url, body) {
    return (await client(url, fromMemory(body)).table("sales_invoice")).columns();
  },
};
// What `read` counts rows by: every row's first key (the table's own
// compid, as a PHP service's SELECT * sends it), and nothing else holds it.
const ROW_KEY = Buffer.from('{"compid"');
const IN_MEMORY = Object.keys(CASES).filter((k) => k.startsWith("memory"));
const END_TO_END = Object.keys(CASES).filter((k) => !k.startsWith("memory"));

function count(result) {
  if (typeof result === "number") return result;
  return Array.isArray(result) ? result.length : Object.values(result)[0].length;
}

function peakRssMB() {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : process.memoryUsage().rss / 2 ** 20;
}

/** Heap in use after a full GC, on a fresh task (the awaiting frame can
 * otherwise keep the last result alive). */
async function heapMB() {
  await new Promise((resolve) => setTimeout(resolve, 0));
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function child() {
  const body = args.body ? readFileSync(args.body) : null;
  const fn = CASES[args.child];
  // The wasm module is compiled when the first client is made: before the
  // clock, as the Python figures import their libraries first.
  if (args.child !== "read") client(args.url);
  const before = await heapMB();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await fn(args.url, body);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const heap = (await heapMB()) - before;
  const n = count(result);
  if (n !== Number(args.rows)) throw new Error(`${args.child}: ${n} rows, expected ${args.rows}`);
  console.log(
    JSON.stringify({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      heapMB: heap,
      peakMB: peakRssMB(),
    }),
  );
}

function measureOnce(name, url, rows, bodyFile) {
  const argv = [
    "--expose-gc",
    fileURLToPath(import.meta.url),
    "--child",
    name,
    "--url",
    url,
    "--rows",
    String(rows),
  ];
  if (bodyFile) argv.push("--body", bodyFile);
  const done = spawnSync(process.execPath, argv, {
    encoding: "utf8",
    maxBuffer: 1 << 20,
    timeout: 900_000,
  });
  if (done.status !== 0) throw new Error(`${name} failed:\n${done.stderr}`);
  return JSON.parse(done.stdout.trim().split("\n").pop());
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function summarize(samples) {
  const ms = samples.map((s) => s.ms);
  return {
    ms: median(ms),
    min: Math.min(...ms),
    max: Math.max(...ms),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    heapMB: median(samples.map((s) => s.heapMB)),
    peakMB: median(samples.map((s) => s.peakMB)),
    runs: samples.length,
  };
}

async function measure(rows, names, runs) {
  const sandbox = await startSandbox(["--rows", String(rows), "--cache-answers"]);
  try {
    // Asked for once before the clock: the sandbox keeps the answer it made
    // (--cache-answers) and sends it again to every case, as a service
    // elsewhere would, without making it on the cores measured. The cases
    // that start from the body in memory read it from a file.
    const res = await fetch(`${sandbox.url}/apis/dataapi.php`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: FORM,
    });
    let bodyFile = null;
    if (names.some((n) => IN_MEMORY.includes(n))) {
      bodyFile = fileURLToPath(new URL(`../../target/bench/js-body-${rows}.json`, import.meta.url));
      mkdirSync(dirname(bodyFile), { recursive: true });
      writeFileSync(bodyFile, Buffer.from(await res.arrayBuffer()));
    } else {
      for await (const _ of res.body);
    }
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        samples[name].push(
          measureOnce(name, sandbox.url, rows, IN_MEMORY.includes(name) ? bodyFile : null),
        );
      }
    }
    return Object.fromEntries(names.map((n) => [n, summarize(samples[n])]));
  } finally {
    await sandbox.stop();
  }
}

function print(rows, results, runs) {
  const base = results.json;
  const memBase = results["memory json"];
  console.log(
    `\nsales_invoice, ${rows.toLocaleString("en")} rows, medians of ${runs}, each in a fresh process (Node ${process.version})`,
  );
  console.log(
    `${"case".padEnd(16)} ${"wall ms".padStart(8)} ${"min–max ms".padStart(15)} ${"x json".padStart(7)}` +
      ` ${"cpu ms".padStart(8)} ${"heap MB".padStart(8)} ${"peak MB".padStart(8)}`,
  );
  for (const [name, r] of Object.entries(results)) {
    const against = name.startsWith("memory") ? memBase : base;
    console.log(
      `${name.padEnd(16)} ${r.ms.toFixed(0).padStart(8)} ${`${r.min.toFixed(0)}–${r.max.toFixed(0)}`.padStart(15)}` +
        ` ${(against.ms / r.ms).toFixed(2).padStart(7)} ${r.cpuMs.toFixed(0).padStart(8)}` +
        ` ${r.heapMB.toFixed(1).padStart(8)} ${r.peakMB.toFixed(0).padStart(8)}`,
    );
  }
  console.log(
    "x json: times faster than fetch + res.json() (memory cases: than JSON.parse); heap: kept by the result",
  );
}

async function main() {
  if (!process.env.ERPDATA_SANDBOX_BIN) {
    const bin = (profile) =>
      fileURLToPath(new URL(`../../target/${profile}/erpdata-sandbox`, import.meta.url));
    process.env.ERPDATA_SANDBOX_BIN = existsSync(bin("release")) ? bin("release") : bin("debug");
  }
  const sizes = args.sizes.split(",").filter(Boolean).map(Number);
  const runs = Number(args.runs);
  const report = { node: process.version, runs, sizes: {}, growth: {}, growthFloor: {} };
  for (const rows of sizes) {
    const names = rows === Math.max(...sizes) ? [...END_TO_END, ...IN_MEMORY] : END_TO_END;
    report.sizes[rows] = await measure(rows, names, runs);
    print(rows, report.sizes[rows], runs);
  }
  const growth = args.growth.split(",").filter(Boolean).map(Number);
  if (growth.length) {
    const growthRuns = Number(args["growth-runs"]);
    console.log(`\ngrowth of streamTable, medians of ${growthRuns}`);
    console.log(
      `${"rows".padStart(10)} ${"wall ms".padStart(8)} ${"µs/row".padStart(8)} ${"peak MB".padStart(8)}` +
        ` ${"read peak MB".padStart(12)}`,
    );
    for (const rows of growth) {
      const { streamTable: g, read } = await measure(rows, ["streamTable", "read"], growthRuns);
      report.growth[rows] = g;
      report.growthFloor[rows] = read;
      console.log(
        `${rows.toLocaleString("en").padStart(10)} ${g.ms.toFixed(0).padStart(8)}` +
          ` ${((g.ms * 1000) / rows).toFixed(2).padStart(8)} ${g.peakMB.toFixed(0).padStart(8)}` +
          ` ${read.peakMB.toFixed(0).padStart(12)}`,
      );
    }
  }
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, JSON.stringify(report, null, 1));
  }
}

if (args.child) await child();
else await main();
