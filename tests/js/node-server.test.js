// The package in a node:http server that passes a table on as it arrives:
// when the server's HTTP client goes away, the ERP's answer is let go at
// once, however the handler was waiting. Over loopback, against the
// sandbox, through a TCP relay that shows when the client's connection to
// the ERP closes (the client sends with its own node:http transport).
import assert from "node:assert/strict";
import { getEventListeners, once } from "node:events";
import http from "node:http";
import { connect, createServer } from "node:net";
import { pipeline, Readable, Transform } from "node:stream";
import { after, before, describe, test } from "node:test";

import { TransportError } from "../../js/src/index.js";
import { readmeServer } from "./readme.js";
import { demoClient, faultUrl, freshKey, startSandbox } from "./sandbox.js";

let sandbox;
before(async () => {
  sandbox = await startSandbox(["--rows", "50000"]);
});
after(() => sandbox?.stop());

/**
 * A TCP relay to `target` (a URL): `url` is the same URL through it, `open`
 * the connections to it still open, `closed()` resolves once none is.
 */
async function relay(target) {
  const to = new URL(target);
  const open = new Set();
  let waiting = [];
  const server = createServer((socket) => {
    open.add(socket);
    const upstream = connect(Number(to.port), to.hostname);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
      open.delete(socket);
      if (open.size === 0) for (const resolve of waiting.splice(0)) resolve();
    };
    for (const s of [socket, upstream]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = new URL(target);
  base.port = String(server.address().port);
  return {
    url: base.href,
    open,
    closed: () =>
      open.size === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        waiting = [];
        server.close(() => resolve());
      }),
  };
}

/** Milliseconds until `promise` settles, or `limit` if it has not by then. */
async function within(promise, limit) {
  const started = performance.now();
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(limit), limit);
  });
  const took = await Promise.race([promise.then(() => performance.now() - started), late]);
  clearTimeout(timer);
  return took;
}

/** A node:http server running `handler`; resolves with its URL and `close()`. */
async function serve(handler) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GETs `url`, reads `bytes` of the body, then goes away; resolves once it has. */
function readThenLeave(url, bytes) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let read = 0;
      res.on("data", (chunk) => {
        read += chunk.length;
        if (read >= bytes) {
          req.destroy();
          resolve(read);
        }
      });
      res.on("end", () => reject(new Error(`the whole body came (${read} bytes)`)));
    });
    req.on("error", () => {});
  });
}

describe("a node:http server passing a stream on", () => {
  test("an abort while the handler holds a batch lets go of the ERP's answer at once", async (t) => {
    // A handler that waits for its response to drain, which never comes
    // once its client has gone, holds the stream at a batch: its signal,
    // aborted from the response's 'close', is all that can end the call.
    const erp = await relay(sandbox.url);
    t.after(() => erp.close());
    const request = new AbortController();
    const batches = demoClient(erp.url)
      .streamTable("sales_invoice", { batchRows: 100, signal: request.signal })
      [Symbol.asyncIterator]();
    assert.equal((await batches.next()).value.length, 100);
    assert.equal(erp.open.size, 1, "the answer is being read");
    request.abort();
    const took = await within(erp.closed(), 5000);
    assert.ok(took < 1000, `the ERP's answer was let go after ${Math.round(took)} ms`);
    await assert.rejects(
      batches.next(),
      (err) => err instanceof TransportError && err.aborted === true,
    );
    assert.deepEqual(await batches.return(), { done: true, value: undefined });
  });

  test("pipeline(Readable.from(stream), ..., res) ends the call when the response closes early", async (t) => {
    // The ERP sends its answer slowly (20 kB every 3 s): the source's
    // next() waits on it while pipeline() destroys the source, which
    // Readable.from() passes on as throw(), not return().
    const erp = await relay(faultUrl(sandbox.url, "trickle-20000x3000", freshKey("pipe")));
    t.after(() => erp.close());
    const client = demoClient(erp.url, { maxRetries: 0 });
    const unhandled = [];
    const onUnhandled = (err) => unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    t.after(() => process.off("unhandledRejection", onUnhandled));
    let ended;
    const piped = new Promise((resolve) => {
      ended = resolve;
    });
    const server = await serve((_req, res) => {
      const ndjson = new Transform({
        writableObjectMode: true,
        transform(batch, _encoding, done) {
          done(null, batch.map((row) => `${JSON.stringify(row)}\n`).join(""));
        },
      });
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      const stream = client.streamTable("sales_invoice", { batchRows: 20 });
      pipeline(Readable.from(stream), ndjson, res, ended);
    });
    t.after(() => server.close());
    await readThenLeave(server.url, 1000);
    const took = await within(erp.closed(), 10_000);
    assert.ok(took < 1500, `the ERP's answer was let go after ${Math.round(took)} ms`);
    const err = await piped;
    assert.equal(err?.code, "ERR_STREAM_PREMATURE_CLOSE");
    // What the source's pending next() rejected with went nowhere else.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(unhandled, []);
  });

  test("a handler that writes with back-pressure and aborts on 'close'", async (t) => {
    // The shape of a handler that checks each write: the first batch taken
    // before the head (its errors become the status), each later write
    // waiting for 'drain' or 'close', the signal aborted on 'close'.
    const erp = await relay(sandbox.url);
    t.after(() => erp.close());
    const client = demoClient(erp.url);
    const outcome = {};
    let handled;
    const done = new Promise((resolve) => {
      handled = resolve;
    });
    const server = await serve(async (_req, res) => {
      const request = new AbortController();
      res.on("close", () => request.abort());
      const batches = client
        .streamTable("sales_invoice", { batchRows: 500, signal: request.signal })
        [Symbol.asyncIterator]();
      try {
        let step = await batches.next();
        res.writeHead(200, { "content-type": "application/x-ndjson" });
        while (!step.done) {
          const text = step.value.map((row) => `${JSON.stringify(row)}\n`).join("");
          if (!res.write(text)) await Promise.race([once(res, "drain"), once(res, "close")]);
          step = await batches.next();
        }
        res.end();
      } catch (err) {
        outcome.error = err;
        res.destroy();
      } finally {
        await batches.return();
        handled();
      }
    });
    t.after(() => server.close());
    await readThenLeave(server.url, 200_000);
    const took = await within(erp.closed(), 5000);
    assert.ok(took < 1000, `the ERP's answer was let go after ${Math.round(took)} ms`);
    await done;
    assert.ok(outcome.error instanceof TransportError, String(outcome.error));
    assert.equal(outcome.error.aborted, true);
    assert.equal(outcome.error.transportKind, "other");
  });
});

describe("many calls at once under one signal (a server's shutdown)", () => {
  test("hang one listener on it, warn of no leak, and all end when it aborts", async (t) => {
    const warnings = [];
    const onWarning = (warning) => warnings.push(warning);
    process.on("warning", onWarning);
    t.after(() => process.off("warning", onWarning));
    const shutdown = new AbortController();
    const { signal } = shutdown;
    const slow = demoClient(faultUrl(sandbox.url, "latency-300", freshKey("shared")));
    const drain = async (stream) => {
      let rows = 0;
      for await (const batch of stream) rows += batch.length;
      return rows;
    };
    const calls = () => [
      ...Array.from({ length: 20 }, () => slow.table("account", { signal })),
      ...Array.from({ length: 20 }, () => drain(slow.streamTable("account", { signal }))),
      ...Array.from({ length: 10 }, () => slow.receivables("C001", { signal })),
      slow.duesTable(["C001", "C002", "C003"], "RECEIPT", { signal }),
    ];
    const running = calls();
    // Let every call reach its request.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(getEventListeners(signal, "abort").length <= 1);
    await Promise.all(running);
    assert.equal(getEventListeners(signal, "abort").length, 0, "every call let go of it");
    // Node warns on the next tick after an eleventh listener.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      warnings.filter((w) => w.name === "MaxListenersExceededWarning"),
      [],
    );
    // Aborted, it ends every call in flight.
    const aborted = calls().map((p) =>
      p.then(
        () => "resolved",
        (err) => err,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    shutdown.abort();
    for (const outcome of await Promise.all(aborted)) {
      assert.ok(outcome instanceof TransportError && outcome.aborted === true, String(outcome));
    }
    assert.equal(getEventListeners(signal, "abort").length, 0);
  });
});

/** GETs `url` whole: its status, headers and body. */
function getWhole(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

describe("js/README.md: in a node:http server", () => {
  test("sendTable: the rows as NDJSON, each failure as its status", async (t) => {
    const { sendTable } = await readmeServer(t);
    const client = demoClient(sandbox.url, { maxRetries: 0 });
    const unavailable = demoClient(
      faultUrl(sandbox.url, "status-503x1000-ra7", freshKey("readme503")),
      { maxRetries: 0 },
    );
    const server = await serve((req, res) => {
      const name = new URL(req.url, "http://x").searchParams.get("table");
      sendTable(req.headers["x-down"] ? unavailable : client, name, res);
    });
    t.after(() => server.close());
    const ok = await getWhole(`${server.url}?table=account`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["content-type"], "application/x-ndjson");
    const rows = ok.body
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(rows, (await client.table("account", { numbers: "string" })).rows);
    assert.equal((await getWhole(`${server.url}?table=no_such_table`)).status, 502);
    const bad = await getWhole(`${server.url}?table=a%20b`);
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).field, "table");
    const down = await new Promise((resolve, reject) => {
      http
        .get(`${server.url}?table=account`, { agent: false, headers: { "x-down": "1" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res));
        })
        .on("error", reject);
    });
    assert.equal(down.statusCode, 503);
    assert.equal(down.headers["retry-after"], "7");
  });

  test("sendTable: a client that goes away ends the ERP's answer", async (t) => {
    const { sendTable } = await readmeServer(t);
    const erp = await relay(sandbox.url);
    t.after(() => erp.close());
    const client = demoClient(erp.url);
    let handled;
    const done = new Promise((resolve) => {
      handled = resolve;
    });
    const server = await serve((_req, res) => {
      sendTable(client, "sales_invoice", res).then(handled, handled);
    });
    t.after(() => server.close());
    await readThenLeave(server.url, 200_000);
    const took = await within(erp.closed(), 5000);
    assert.ok(took < 1000, `the ERP's answer was let go after ${Math.round(took)} ms`);
    assert.equal(await done, undefined, "the handler ended without throwing");
  });
});
