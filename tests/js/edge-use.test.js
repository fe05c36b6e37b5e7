// The package as a backend developer uses it outside Node: in a Worker, a
// Deno or a Bun server, over loopback against the sandbox. What only the
// runtimes themselves can show runs in tests/runtimes; here, what their
// fetch and their environment do to the client, imitated in Node.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { ErpClient, InvalidInputError, TransportError } from "../../js/src/index.js";
import { readmeServer } from "./readme.js";
import { faultUrl, freshKey, SANDBOX_TOKEN, seenBySandbox, startSandbox } from "./sandbox.js";

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

function client(baseUrl, options = {}) {
  return new ErpClient({
    baseUrl,
    project: "demo",
    accessToken: SANDBOX_TOKEN,
    companyId: 1,
    yearId: 2025,
    ...options,
  });
}

/** What Deno's fetch rejects with: a TypeError whose cause says what happened, with no code. */
function denoFetchFailed(url, what) {
  return new TypeError("fetch failed", {
    cause: new Error(`error sending request for url (${url}): client error (Connect): ${what}`),
  });
}

/**
 * A fetch that fails its first call as `fail(url)` says (an error to
 * reject with, or a Response to answer with), then sends for real;
 * `calls` counts them.
 */
function failingOnce(fail) {
  const state = { calls: 0 };
  state.fetch = async (url, init) => {
    state.calls += 1;
    if (state.calls === 1) {
      const failure = fail(url);
      if (failure instanceof Response) return failure;
      throw failure;
    }
    return fetch(url, init);
  };
  return state;
}

/** An answer whose body breaks off after its first bytes with `error`. */
function brokenBody(error) {
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"status":"success","data":[{"a":'));
    },
    pull(controller) {
      controller.error(error);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

// Deno's and workerd's fetch give their failures no `code`: only their
// words say a connection was refused or broken. Each must be retried as
// Node's ECONNREFUSED and ECONNRESET are.
const HOST_FAILURES = {
  "Deno, a connection refused": {
    fail: (url) => denoFetchFailed(url, "tcp connect error: Connection refused (os error 111)"),
    kind: "connect",
  },
  "Deno, a host that does not resolve": {
    fail: (url) =>
      denoFetchFailed(
        url,
        "dns error: failed to lookup address information: Name or service not known",
      ),
    kind: "connect",
  },
  "Deno, a connection reset before the answer": {
    fail: () =>
      new TypeError("fetch failed", {
        cause: new Error("Connection reset by peer (os error 104)"),
      }),
    kind: "reset",
  },
  "Deno, a body broken off": {
    fail: () => brokenBody(new TypeError("error reading a body from connection")),
    kind: "reset",
  },
  "workerd, a connection refused or lost": {
    fail: () => Object.assign(new Error("Network connection lost."), { retryable: true }),
    kind: "reset",
  },
  "workerd, a body broken off": {
    fail: () =>
      brokenBody(Object.assign(new Error("Network connection lost."), { retryable: true })),
    kind: "reset",
  },
};

describe("fetch failures as Deno and workerd report them", () => {
  for (const [name, { fail, kind }] of Object.entries(HOST_FAILURES)) {
    test(`${name}: ${kind}, retried`, async () => {
      const key = freshKey("edgefail");
      const host = failingOnce(fail);
      const c = client(faultUrl(sandbox.url, "pass", key), { fetch: host.fetch });
      const table = await c.table("sales_invoice");
      assert.equal(table.length, 40);
      assert.equal(host.calls, 2, "sent again after the failure");
      assert.equal(await seenBySandbox(sandbox.url, key), 1);
    });

    test(`${name}: a TransportError of kind ${kind} once no retry is left`, async () => {
      const host = failingOnce(fail);
      const c = client(sandbox.url, { fetch: host.fetch, maxRetries: 0 });
      const err = await c.table("sales_invoice").then(
        () => assert.fail("resolved"),
        (e) => e,
      );
      assert.ok(err instanceof TransportError, String(err));
      assert.equal(err.transportKind, kind, err.message);
      assert.equal(err.attempts, 1);
    });
  }

  test("Deno, a certificate refused: tls, not retried", async () => {
    const host = failingOnce((url) =>
      denoFetchFailed(url, "invalid peer certificate: UnknownIssuer"),
    );
    const c = client(sandbox.url, { fetch: host.fetch });
    const err = await c.table("sales_invoice").then(
      () => assert.fail("resolved"),
      (e) => e,
    );
    assert.ok(err instanceof TransportError, String(err));
    assert.equal(err.transportKind, "tls", err.message);
    assert.equal(host.calls, 1);
  });
});

/** A NotCapable as Deno throws it for a variable read without leave. */
class NotCapable extends Error {
  name = "NotCapable";
}

/**
 * Runs `body` as under Deno with leave to read only the variables
 * `allowed`: `Deno.permissions.querySync` says "prompt" for the others,
 * and reading one of them from `process.env` throws NotCapable (as it
 * does under --no-prompt or without a terminal). `vars` are set meanwhile.
 */
async function asOnDeno(allowed, vars, body) {
  const env = process.env;
  const reads = [];
  const had = Object.hasOwn(globalThis, "Deno");
  const before = globalThis.Deno;
  globalThis.Deno = {
    permissions: {
      querySync: ({ name, variable }) => ({
        state: name === "env" && allowed.includes(variable) ? "granted" : "prompt",
      }),
    },
  };
  process.env = new Proxy(
    { ...env, ...vars },
    {
      get(target, key) {
        if (typeof key === "string" && key.startsWith("ERPDATA_")) {
          reads.push(key);
          if (!allowed.includes(key)) {
            throw new NotCapable(
              `Requires env access to "${key}", run again with the --allow-env flag`,
            );
          }
        }
        return target[key];
      },
    },
  );
  try {
    return await body(reads);
  } finally {
    process.env = env;
    if (had) globalThis.Deno = before;
    else delete globalThis.Deno;
  }
}

describe("Deno without --allow-env", () => {
  test("a client given its settings reads no variable, and works", async () => {
    await asOnDeno([], {}, async (reads) => {
      // The README's settings: projectFolder left to default to the project.
      const c = client(sandbox.url);
      assert.equal((await c.table("sales_invoice")).length, 40);
      assert.ok((await c.receivables("C001")).rows.length > 0);
      // Company and year given with each call instead.
      const perCall = new ErpClient({
        baseUrl: sandbox.url,
        project: "demo",
        accessToken: SANDBOX_TOKEN,
      });
      const table = await perCall.table("sales_invoice", { companyId: 1, yearId: 2025 });
      assert.equal(table.length, 40);
      assert.deepEqual(reads, []);
    });
  });

  test("a setting left to a variable it may not read says so, and how to allow it", async () => {
    await asOnDeno([], { ERPDATA_BASE_URL: sandbox.url }, async () => {
      assert.throws(
        () => new ErpClient({ project: "demo", accessToken: SANDBOX_TOKEN }),
        (err) =>
          err instanceof InvalidInputError &&
          err.field === "baseUrl" &&
          err.message.includes("ERPDATA_BASE_URL was not read") &&
          err.message.includes("--allow-env=ERPDATA_BASE_URL"),
      );
      const c = new ErpClient({
        baseUrl: sandbox.url,
        project: "demo",
        companyId: 1,
        yearId: 2025,
      });
      await assert.rejects(
        c.table("sales_invoice"),
        (err) =>
          err instanceof InvalidInputError &&
          err.field === "accessToken" &&
          err.message.includes("--allow-env=ERPDATA_ACCESS_TOKEN"),
      );
    });
  });

  test("the variables it may read are read", async () => {
    const allowed = ["ERPDATA_BASE_URL", "ERPDATA_ACCESS_TOKEN"];
    const vars = { ERPDATA_BASE_URL: sandbox.url, ERPDATA_ACCESS_TOKEN: SANDBOX_TOKEN };
    await asOnDeno(allowed, vars, async (reads) => {
      const c = new ErpClient({ project: "demo", companyId: 1, yearId: 2025 });
      assert.equal((await c.table("sales_invoice")).length, 40);
      assert.deepEqual(reads.sort(), [...allowed].sort());
    });
  });
});

const JS_DIR = fileURLToPath(new URL("../../js/", import.meta.url));
const TSC = join(JS_DIR, "node_modules/typescript/bin/tsc");

/** A Worker in TypeScript, as the README's edge section has one write it. */
const WORKER_TS = `
import { ErpClient, ErpError, InvalidInputError, TransportError, initWasm, type Row } from "erpdata/edge";
import wasm from "erpdata/erpdata_wasm_bg.wasm";

initWasm(wasm);

interface Env {
  ERPDATA_BASE_URL: string;
  ERPDATA_PROJECT: string;
  ERPDATA_ACCESS_TOKEN: string;
}

let client: ErpClient | undefined;

function failed(err: unknown): Response {
  if (err instanceof InvalidInputError) return Response.json({ field: err.field }, { status: 400 });
  if (err instanceof TransportError && err.transportKind === "timeout") return new Response(null, { status: 504 });
  if (err instanceof ErpError) return Response.json({ kind: err.kind }, { status: 502 });
  throw err;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    client ??= new ErpClient({
      baseUrl: env.ERPDATA_BASE_URL,
      project: env.ERPDATA_PROJECT,
      accessToken: env.ERPDATA_ACCESS_TOKEN,
      companyId: 1,
      yearId: 2025,
    });
    try {
      if (new URL(request.url).pathname === "/aging") {
        const aged = await client.aging("receipt", { asOf: "2025-12-31", signal: request.signal });
        return Response.json(aged.rows);
      }
      // A table passed on as it arrives (js/README.md, in a server).
      const batches = client.streamTable("sales_invoice", { signal: request.signal })[Symbol.asyncIterator]();
      let step: IteratorResult<Row[]> | undefined = await batches.next();
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          step ??= await batches.next();
          if (step.done) return controller.close();
          controller.enqueue(encoder.encode(JSON.stringify(step.value)));
          step = undefined;
        },
        async cancel() {
          await batches.return();
        },
      });
      return new Response(body);
    } catch (err) {
      return failed(err);
    }
  },
};
`;

describe("TypeScript", () => {
  test("a Worker importing the wasm module compiles under --strict without casts", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "erpdata-worker-ts-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // The package as installed: node_modules/erpdata is js/ itself.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(JS_DIR, join(dir, "node_modules", "erpdata"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(dir, "worker.ts"), WORKER_TS);
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module: "es2022",
      moduleResolution: "bundler",
      target: "es2022",
      lib: ["es2022", "dom", "dom.iterable", "dom.asynciterable"],
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["worker.ts"] }),
    );
    const r = spawnSync(process.execPath, [TSC, "-p", dir], { encoding: "utf8", timeout: 120_000 });
    assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
  });
});

/**
 * Runs `source` (an ES module) in a child Node where compiling wasm from
 * bytes fails as in workerd; `EDGE` and `WASM` name the edge entry and the
 * wasm file. Returns what it printed.
 */
function withoutWasmFromBytes(source) {
  const prelude = `
    const Module = WebAssembly.Module;
    const EDGE = ${JSON.stringify(new URL("../../js/src/edge.js", import.meta.url).href)};
    const WASM = ${JSON.stringify(join(JS_DIR, "pkg/erpdata_wasm_bg.wasm"))};
    // workerd's refusal, as V8 words it for an embedder that forbids it.
    WebAssembly.Module = function (bytes) {
      if (bytes instanceof Module) return bytes;
      throw new WebAssembly.CompileError("WebAssembly.Module(): Wasm code generation disallowed by embedder");
    };
    WebAssembly.Module.prototype = Module.prototype;
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", prelude + source], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe("erpdata/edge where wasm is not compiled from bytes (workerd)", () => {
  test("a client made before initWasm says to import the wasm module and hand it over", () => {
    const out = withoutWasmFromBytes(`
      import { readFileSync } from "node:fs";
      const { ErpClient, initWasm } = await import(EDGE);
      const settings = { baseUrl: "http://127.0.0.1:8787", accessToken: "fake-edge-token" };
      try {
        new ErpClient(settings);
        console.log("constructed");
      } catch (err) {
        console.log(JSON.stringify({ message: err.message, cause: String(err.cause) }));
      }
      // Handed over afterwards, the module is used.
      initWasm(new Module(readFileSync(WASM)));
      console.log(new ErpClient(settings).toJSON().accessToken);
    `);
    const [first, second] = out.split("\n");
    const { message, cause } = JSON.parse(first);
    assert.match(message, /does not compile WebAssembly from bytes/);
    assert.ok(message.includes('import wasm from "erpdata/erpdata_wasm_bg.wasm"'), message);
    assert.ok(message.includes("initWasm(wasm)"), message);
    assert.match(cause, /code generation disallowed/);
    assert.equal(second, "[REDACTED]");
  });
});

describe("js/README.md: in a server", () => {
  test("a table passed on as CSV, and each failure as its status", async (t) => {
    const { erpFailed, tableCsv } = await readmeServer(t);
    const c = client(sandbox.url);
    const answer = async (name, signal, on = c) => {
      try {
        return await tableCsv(on, name, signal);
      } catch (err) {
        return erpFailed(err);
      }
    };

    const ok = await answer("sales_invoice");
    assert.equal(ok.status, 200);
    const lines = (await ok.text()).trimEnd().split("\n");
    assert.equal(lines.length, 41);
    assert.ok(lines[0].startsWith("compid,yearid,invoice_no,"), lines[0]);
    // Text with a comma is quoted.
    assert.ok(lines.some((l) => l.includes('"Net 30 / Müller"') || l.includes("Net 30 / Müller")));

    assert.equal((await answer("no_such_table")).status, 502);
    const bad = await answer("");
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).field, "table");
    assert.equal((await answer("sales_invoice", AbortSignal.abort())).status, 499);
    const slow = client(faultUrl(sandbox.url, "hang", freshKey("readmehang")), {
      timeoutMs: 300,
      maxRetries: 0,
    });
    assert.equal((await answer("sales_invoice", undefined, slow)).status, 504);
  });

  test("a client that goes away ends the stream's call", async (t) => {
    const { tableCsv } = await readmeServer(t);
    const large = await startSandbox(["--rows", "20000"]);
    t.after(() => large.stop());
    // The ERP's answer as the client reads it, to see it let go.
    const upstream = { cancelled: false, done: false };
    const watched = async (url, init) => {
      const res = await fetch(url, init);
      const reader = res.body.getReader();
      const body = new ReadableStream({
        async pull(controller) {
          const part = await reader.read();
          if (part.done) {
            upstream.done = true;
            controller.close();
          } else controller.enqueue(part.value);
        },
        cancel(reason) {
          upstream.cancelled = true;
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const c = client(large.url, { fetch: watched });
    const res = await tableCsv(c, "sales_invoice", undefined);
    const reader = res.body.getReader();
    const first = await reader.read();
    assert.equal(first.value.length > 0, true);
    await reader.cancel();
    assert.equal(upstream.cancelled, true, "the ERP's answer was let go");
    assert.equal(upstream.done, false, "before it was all read");
  });
});

describe("a deadline in the call's signal", () => {
  const rejected = (promise) =>
    promise.then(
      () => assert.fail("resolved"),
      (err) => err,
    );

  test("AbortSignal.timeout ends a call as a timeout, aborted", async () => {
    const c = client(faultUrl(sandbox.url, "hang", freshKey("deadline")));
    const err = await rejected(c.table("sales_invoice", { signal: AbortSignal.timeout(200) }));
    assert.ok(err instanceof TransportError, String(err));
    assert.equal(err.aborted, true);
    assert.equal(err.transportKind, "timeout", err.message);
    assert.match(err.message, /timed out/);
    assert.equal(err.cause?.name, "TimeoutError");
  });

  test("in AbortSignal.any with the request's signal, over the many calls of duesTable", async () => {
    const c = client(faultUrl(sandbox.url, "latency-3000", freshKey("deadline")));
    const request = new AbortController();
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(200)]);
    const started = performance.now();
    const err = await rejected(c.duesTable(["C001", "C002", "C003"], "RECEIPT", { signal }));
    assert.ok(performance.now() - started < 2000, "ended at the deadline");
    assert.equal(err.aborted, true);
    assert.equal(err.transportKind, "timeout", err.message);
  });

  test("a stream's deadline too", async () => {
    const c = client(faultUrl(sandbox.url, "hang", freshKey("deadline")));
    const batches = c.streamTable("sales_invoice", { signal: AbortSignal.timeout(200) });
    const err = await rejected(
      (async () => {
        for await (const _ of batches);
      })(),
    );
    assert.equal(err.aborted, true);
    assert.equal(err.transportKind, "timeout", err.message);
  });

  test("any other abort (the HTTP client gone) stays other", async () => {
    const c = client(faultUrl(sandbox.url, "hang", freshKey("deadline")));
    const request = new AbortController();
    setTimeout(() => request.abort(), 100);
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(60_000)]);
    const err = await rejected(c.table("sales_invoice", { signal }));
    assert.equal(err.aborted, true);
    assert.equal(err.transportKind, "other", err.message);
    assert.match(err.message, /aborted by its signal$/);
  });
});

describe("an answer broken off says how far it got", () => {
  test("a whole table: the rows that had arrived, and no batches it never handed out", async () => {
    const c = client(faultUrl(sandbox.url, "reset-5000", freshKey("cut")), { maxRetries: 0 });
    const err = await c.table("sales_invoice").then(
      () => assert.fail("resolved"),
      (e) => e,
    );
    assert.ok(err instanceof TransportError, String(err));
    assert.ok(err.rowsReceived > 0);
    assert.equal(err.rowsDelivered, undefined);
    assert.ok(err.message.endsWith(`(${err.rowsReceived} rows had arrived)`), err.message);
  });

  test("a stream: also the rows it handed out in complete batches", async () => {
    const c = client(faultUrl(sandbox.url, "reset-5000", freshKey("cut")), { maxRetries: 0 });
    let handed = 0;
    const err = await (async () => {
      for await (const batch of c.streamTable("sales_invoice", { batchRows: 5 }))
        handed += batch.length;
    })().then(
      () => assert.fail("resolved"),
      (e) => e,
    );
    assert.equal(err.rowsDelivered, handed);
    assert.match(
      err.message,
      new RegExp(`had arrived, ${handed} of them delivered in complete batches\\)$`),
    );
  });
});

describe("a stream ended while it waits for the service", () => {
  test("return() ends the read in progress and lets go of the answer", async () => {
    // The ERP's answer: its first 6,000 bytes (some batches), then nothing,
    // as from a service that stalls mid-table.
    const upstream = { cancelled: false };
    const stalling = async (url, init) => {
      const res = await fetch(url, init);
      const reader = res.body.getReader();
      let sent = 0;
      const body = new ReadableStream({
        async pull(controller) {
          if (sent >= 6000) return new Promise(() => {});
          const part = await reader.read();
          if (part.done) return controller.close();
          const chunk = part.value.subarray(0, 6000 - sent);
          sent += chunk.length;
          controller.enqueue(chunk);
        },
        cancel(reason) {
          upstream.cancelled = true;
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const c = client(sandbox.url, { fetch: stalling, readTimeoutMs: 20_000 });
    const batches = c.streamTable("sales_invoice", { batchRows: 5 })[Symbol.asyncIterator]();
    let step = await batches.next();
    while (!step.done) {
      // The batches the bytes held, then a next() that waits on the service.
      const next = batches.next();
      const waited = await Promise.race([
        next.then(() => false),
        new Promise((resolve) => setTimeout(() => resolve(true), 300)),
      ]);
      if (!waited) {
        step = await next;
        continue;
      }
      const started = performance.now();
      const ended = await batches.return();
      assert.ok(performance.now() - started < 2000, "return() did not wait for the read");
      assert.deepEqual(ended, { done: true, value: undefined });
      await assert.rejects(next, (err) => err instanceof TransportError && err.aborted === true);
      assert.equal(upstream.cancelled, true, "the ERP's answer was let go");
      return;
    }
    assert.fail("the stream ended without waiting on the service");
  });
});
