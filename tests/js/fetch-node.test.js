// What Node's client sends with when given no `fetch` (js/src/fetch-node.js,
// node:http): the same rows as fetch, compressed bodies decoded as fetch
// decodes them, a broken one an error and never fewer rows. The sandbox's
// answers pass through a compressing proxy on loopback (the sandbox itself
// never compresses).
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import zlib from "node:zlib";

import { ErpError } from "../../js/src/index.js";
import { demoClient, rawServer, startSandbox } from "./sandbox.js";

const ENCODERS = {
  gzip: () => zlib.createGzip(),
  deflate: () => zlib.createDeflate(),
  br: () => zlib.createBrotliCompress(),
  // Labelled deflate, sent as raw deflate data without zlib's header, as
  // some servers (IIS, old PHP setups) send it.
  "deflate-raw": () => zlib.createDeflateRaw(),
};
const LABELS = { "deflate-raw": "deflate" };

let sandbox;
let proxy;
/** What each request to the proxy asked for (its Accept-Encoding). */
const asked = [];

/**
 * Forwards `/<coding>/...` to the sandbox's `/...` and answers with its
 * body in that coding: `gzip`, `deflate`, `br`, `gzip,br` (both, in that
 * order), `x-unknown` (labelled so, sent as it is), `broken` (gzip cut short).
 */
function startProxy(target) {
  const server = http.createServer((req, res) => {
    asked.push(req.headers["accept-encoding"]);
    const [, coding, ...rest] = req.url.split("/");
    const upstream = http.request(
      `${target}/${rest.join("/")}`,
      { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
      (answer) => {
        const headers = { ...answer.headers };
        delete headers["content-length"];
        if (coding === "broken") {
          const chunks = [];
          const gzip = answer.pipe(zlib.createGzip());
          gzip.on("data", (c) => chunks.push(c));
          gzip.on("end", () => {
            const whole = Buffer.concat(chunks);
            res.writeHead(answer.statusCode, { ...headers, "content-encoding": "gzip" });
            res.end(whole.subarray(0, Math.floor(whole.length / 2)));
          });
          return;
        }
        const codings = coding.split(",");
        const label = codings.map((c) => LABELS[c] ?? c).join(",");
        res.writeHead(answer.statusCode, { ...headers, "content-encoding": label });
        let body = answer;
        for (const c of codings) body = ENCODERS[c] ? body.pipe(ENCODERS[c]()) : body;
        body.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

before(async () => {
  sandbox = await startSandbox(["--rows", "3000"]);
  proxy = await startProxy(sandbox.url);
});
after(() => {
  proxy?.close();
  return sandbox?.stop();
});

const through = (coding) => `http://127.0.0.1:${proxy.address().port}/${coding}/`;

describe("Node's own transport", () => {
  test("asks for what fetch asks for, and decodes each coding to the same rows", async () => {
    const direct = (await demoClient(sandbox.url).table("sales_invoice")).rows;
    assert.equal(direct.length, 3000);
    for (const coding of ["gzip", "deflate", "br", "gzip,br"]) {
      asked.length = 0;
      const table = await demoClient(through(coding)).table("sales_invoice");
      assert.deepEqual(table.rows, direct, coding);
      // Loopback http: gzip and deflate, as undici's fetch asks.
      assert.deepEqual(asked, ["gzip, deflate"], coding);
    }
  });

  test("raw deflate data labelled deflate decodes as fetch decodes it", async () => {
    const direct = (await demoClient(sandbox.url).table("sales_invoice")).rows;
    const url = through("deflate-raw");
    const viaFetch = await demoClient(url, { fetch: globalThis.fetch }).table("sales_invoice");
    assert.deepEqual(viaFetch.rows, direct);
    assert.deepEqual((await demoClient(url).table("sales_invoice")).rows, direct);
  });

  test("a stream reads a compressed body batch by batch", async () => {
    let rows = 0;
    for await (const batch of demoClient(through("gzip")).streamTable("sales_invoice", {
      batchRows: 500,
    })) {
      rows += batch.length;
    }
    assert.equal(rows, 3000);
  });

  test("a body in a coding it does not know is read as sent, as fetch reads it", async () => {
    const direct = (await demoClient(sandbox.url).table("sales_invoice")).rows;
    const table = await demoClient(through("x-unknown")).table("sales_invoice");
    assert.deepEqual(table.rows, direct);
  });

  test("a compressed body cut short is the error fetch gives, never fewer rows", async () => {
    // fetch decodes as curl does, ending with what arrived: the JSON is cut
    // short, a DecodeError, which is not asked for again (the default
    // retries are left on to show it).
    const seen = [];
    for (const fetch of [undefined, globalThis.fetch]) {
      const client = demoClient(through("broken"), { fetch });
      const table = await caught(client.table("sales_invoice"));
      const stream = await caught(
        (async () => {
          for await (const _ of client.streamTable("sales_invoice", { batchRows: 500 }));
        })(),
      );
      seen.push([shown(table), shown(stream)]);
    }
    assert.equal(seen[0][0].name, "DecodeError", seen[0][0].message);
    assert.equal(seen[0][0].attempts, 1);
    assert.deepEqual(seen[0], seen[1]);
  });

  test("an empty compressed body is read as fetch reads it", async () => {
    for (const [status, name] of [
      [500, "HttpStatusError"],
      [404, "HttpStatusError"],
      [200, "DecodeError"],
    ]) {
      // As some proxies answer: gzip named, nothing sent.
      const server = await rawServer((socket) => {
        socket.once("data", () => {
          socket.end(
            `HTTP/1.1 ${status} X\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
          );
        });
      });
      try {
        const seen = [];
        for (const fetch of [undefined, globalThis.fetch]) {
          const client = demoClient(server.url, { fetch, maxRetries: 0 });
          seen.push(shown(await caught(client.table("sales_invoice"))));
        }
        assert.equal(seen[0].name, name, `${status}: ${seen[0].message}`);
        assert.match(seen[0].message, /empty body/);
        assert.deepEqual(seen[0], seen[1], String(status));
      } finally {
        await server.close();
      }
    }
  });
});

/** What `promise` rejects with (an ErpError), or a failure if it resolves. */
async function caught(promise) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ErpError, String(err));
    return err;
  }
  assert.fail("expected an error");
}

/** What a user sees of an error. */
const shown = (err) => ({
  name: err.name,
  message: err.message,
  attempts: err.attempts,
  rowsReceived: err.rowsReceived,
});
