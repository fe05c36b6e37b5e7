// The package as a backend developer uses it outside Node: in a Worker, a
// Deno or a Bun server, over loopback against the sandbox. What only the
// runtimes themselves can show runs in tests/runtimes; here, what their
// fetch and their environment do to the client, imitated in Node.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { ErpClient, TransportError } from "../../js/src/index.js";
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
