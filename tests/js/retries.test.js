// The core's retry and redirect policies as the client follows them, over
// loopback against the sandbox's fault routes; attempts are counted by the
// sandbox, not by the client.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";

import { ErpClient, ErpError, HttpStatusError, TransportError } from "../../js/src/index.js";
import {
  closedPortUrl,
  faultUrl,
  freshKey,
  rawServer,
  SANDBOX_TOKEN,
  seenBySandbox,
  startSandbox,
} from "./sandbox.js";

let sandbox;
/** A second sandbox: another origin (another port) for redirects. */
let other;
before(async () => {
  [sandbox, other] = await Promise.all([startSandbox(), startSandbox()]);
});
after(() => Promise.all([sandbox?.stop(), other?.stop()]));

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

/**
 * A client against the sandbox under `fault`, the key it is counted as,
 * and `seen()`, the count.
 */
function faulty(fault, options) {
  const key = freshKey(fault.replace(/\W/g, ""));
  return {
    c: client(faultUrl(sandbox.url, fault, key), options),
    key,
    seen: () => seenBySandbox(sandbox.url, key, fault),
  };
}

const port = (url) => new URL(url).port;

describe("retries", () => {
  test("503 twice, then the answer: three attempts, one result", async () => {
    const { c, key } = faulty("status-503x2");
    const table = await c.table("sales_invoice");
    assert.equal(table.length, 40);
    assert.equal(await seenBySandbox(sandbox.url, key), 3);
  });

  test("each retryable status is retried (429, 502, 504), the dues query too", async () => {
    for (const code of [429, 502, 504]) {
      const { c, key } = faulty(`status-${code}x1`);
      assert.ok((await c.receivables("C001")).rows.length > 0);
      assert.equal(await seenBySandbox(sandbox.url, key), 2, `HTTP ${code}`);
    }
  });

  test("retries stop at maxRetries; the last status is the error", async () => {
    const { c, key } = faulty("status-503x5", { maxRetries: 1 });
    await assert.rejects(c.table("account"), (err) => {
      assert.ok(err instanceof HttpStatusError && err instanceof ErpError);
      assert.equal(err.status, 503);
      assert.match(err.excerpt, /503/);
      return true;
    });
    assert.equal(await seenBySandbox(sandbox.url, key), 2);
  });

  test("maxRetries: 0 makes one attempt", async () => {
    const { c, key } = faulty("status-503x5", { maxRetries: 0 });
    await assert.rejects(c.table("account"), HttpStatusError);
    assert.equal(await seenBySandbox(sandbox.url, key), 1);
  });

  test("a call's own maxRetries overrides the client's, for that call only", async () => {
    const { c, seen } = faulty("status-503x9", { maxRetries: 0 });
    for (const [call, expected] of [
      [() => c.table("account", { maxRetries: 2 }), 3],
      [() => c.receivables("C001", { maxRetries: 1 }), 5],
      [() => c.payables("S001"), 6],
    ]) {
      await assert.rejects(call(), (err) => err instanceof HttpStatusError && err.status === 503);
      assert.equal(await seen(), expected);
    }
    const { c: s, seen: streamSeen } = faulty("status-503x9", { maxRetries: 0 });
    await assert.rejects(
      async () => {
        for await (const _ of s.streamTable("account", { maxRetries: 1 })) break;
      },
      (err) => err instanceof HttpStatusError && err.attempts === 2,
    );
    assert.equal(await streamSeen(), 2);
  });

  test("the error says where the call stood: attempts and the redacted URL", async () => {
    const { c } = faulty("status-503x5", { maxRetries: 2 });
    await assert.rejects(c.table("account", { method: "GET" }), (err) => {
      assert.equal(err.attempts, 3);
      assert.match(err.url, /apis\/dataapi\.php/);
      assert.ok(!err.url.includes(SANDBOX_TOKEN), err.url);
      assert.equal(err.rowsDelivered, undefined);
      return true;
    });
  });

  test("a Retry-After longer than the client waits: one attempt, retryable, the wait kept and said", async () => {
    const { c, seen } = faulty("status-503x9-ra120");
    const started = performance.now();
    await assert.rejects(c.table("account"), (err) => {
      assert.ok(err instanceof HttpStatusError, String(err));
      assert.equal(err.status, 503);
      assert.equal(err.retryable, true);
      assert.equal(err.retryAfterMs, 120_000);
      assert.match(
        err.message,
        /asked to wait 120 s, longer than the longest wait a client retries after \(30 s\)/,
      );
      assert.equal(err.attempts, 1);
      return true;
    });
    assert.ok(performance.now() - started < 2000, "it did not wait");
    assert.equal(await seen(), 1);
  });

  test("what would fail again is not retryable: a 404, a service error", async () => {
    const { c } = faulty("status-404x1");
    await assert.rejects(c.table("account"), (err) => {
      assert.ok(err instanceof HttpStatusError && err.status === 404, String(err));
      assert.equal(err.retryable, false);
      // The sandbox sends Retry-After: 0 with it: no wait to keep.
      assert.equal(err.retryAfterMs, undefined);
      return true;
    });
    const { c: failing } = faulty("service-error");
    await assert.rejects(failing.table("account"), (err) => {
      assert.ok(err instanceof ErpError && err.kind === "service", String(err));
      assert.equal(err.retryable, false);
      assert.equal("retryAfterMs" in err, false);
      return true;
    });
  });

  test("500 and other 4xx are not retried", async () => {
    for (const code of [500, 400, 404]) {
      const { c, key } = faulty(`status-${code}x5`);
      await assert.rejects(
        c.table("account"),
        (err) => err instanceof HttpStatusError && err.status === code,
      );
      assert.equal(await seenBySandbox(sandbox.url, key), 1, `HTTP ${code}`);
    }
  });

  test("without Retry-After the core's backoff is slept (0.25-0.5 s the first time)", async () => {
    const { c, seen } = faulty("backoff-502x1");
    const started = performance.now();
    await c.table("account");
    const took = performance.now() - started;
    assert.ok(took >= 240 && took < 3000, `took ${took} ms`);
    assert.equal(await seen(), 2);
  });

  test("a connection refused is retried, then a TransportError with the cause", async () => {
    const url = await closedPortUrl();
    const started = performance.now();
    await assert.rejects(client(url, { maxRetries: 1 }).table("account"), (err) => {
      assert.ok(err instanceof TransportError);
      assert.equal(err.transportKind, "connect");
      assert.ok(err.cause instanceof Error, "fetch's own error is the cause");
      return true;
    });
    assert.ok(performance.now() - started >= 240, "one backoff was slept");
  });

  test("a body broken off is retried", async () => {
    let attempts = 0;
    const server = await rawServer((socket) => {
      socket.once("data", () => {
        attempts += 1;
        if (attempts === 1) {
          socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"status":');
        } else {
          const body = '{"status":"success","data":[{"a":1}]}';
          socket.end(
            `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
        }
      });
    });
    try {
      const table = await client(server.url).table("account");
      assert.deepEqual(table.rows, [{ a: 1 }]);
      assert.equal(attempts, 2);
    } finally {
      await server.close();
    }
  });
});

describe("redirects", () => {
  test("a same-origin 307 is followed with the form body (token included)", async () => {
    const { c, key } = faulty(`redirect-307-${port(sandbox.url)}`);
    const table = await c.table("sales_invoice");
    assert.equal(table.length, 40);
    // The first request and the followed one, both seen by the sandbox.
    assert.equal(await seenBySandbox(sandbox.url, key), 2);
  });

  test("301, 302, 303, 308 within the origin, for both operations", async () => {
    for (const code of [301, 302, 303, 308]) {
      const { c, key } = faulty(`redirect-${code}-${port(sandbox.url)}`);
      assert.ok((await c.receivables("C001")).rows.length > 0);
      assert.equal(await seenBySandbox(sandbox.url, key), 2, `HTTP ${code}`);
      if (code !== 303) {
        const { c: t, key: k } = faulty(`redirect-${code}-${port(sandbox.url)}`);
        assert.equal((await t.table("account")).length, 20);
        assert.equal(await seenBySandbox(sandbox.url, k), 2, `HTTP ${code}`);
      }
    }
  });

  test("to another origin: refused, and the other origin gets nothing", async () => {
    for (const method of ["POST", "GET"]) {
      for (const code of [301, 302, 303, 307, 308]) {
        const { c, key } = faulty(`redirect-${code}-${port(other.url)}`);
        await assert.rejects(c.table("account", { method }), (err) => {
          assert.ok(err instanceof HttpStatusError);
          assert.equal(err.status, code);
          assert.match(err.message, /refused/);
          assert.ok(err.message.includes(other.url), err.message);
          const printed = [String(err), err.stack, inspect(err), JSON.stringify(err)].join("\n");
          assert.ok(!printed.includes(SANDBOX_TOKEN), printed);
          return true;
        });
        assert.equal(await seenBySandbox(sandbox.url, key), 1);
        assert.equal(
          await seenBySandbox(other.url, key),
          0,
          `${method} ${code} reached the other origin`,
        );
      }
    }
  });

  test("fetch is asked not to follow redirects itself", async () => {
    const inits = [];
    const fetch = (url, init) => {
      inits.push(init);
      return globalThis.fetch(url, init);
    };
    const fault = `redirect-302-${port(sandbox.url)}`;
    const { key } = faulty(fault);
    await client(faultUrl(sandbox.url, fault, key), { fetch }).table("account");
    assert.equal(inits.length, 2);
    assert.ok(inits.every((i) => i.redirect === "manual"));
  });
});

describe("signal and timeout", () => {
  test("a per-call signal aborts the call; nothing is retried after it", async () => {
    const { c, seen } = faulty("stall-5000", { timeoutMs: 20_000 });
    const controller = new AbortController();
    const started = performance.now();
    const call = c.table("account", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user went away")), 200);
    await assert.rejects(call, (err) => {
      assert.ok(err instanceof TransportError);
      assert.equal(err.aborted, true);
      assert.equal(err.cause?.message, "user went away");
      return true;
    });
    assert.ok(performance.now() - started < 3000);
    assert.equal(await seen(), 1);
  });

  test("an already aborted signal sends nothing", async () => {
    const { c, key } = faulty("pass");
    await assert.rejects(
      c.receivables("C001", { signal: AbortSignal.abort() }),
      (err) => err.aborted === true,
    );
    assert.equal(await seenBySandbox(sandbox.url, key), 0);
  });

  test("a signal aborts a backoff sleep too", async () => {
    const { c, seen } = faulty("backoff-503x5", { maxRetries: 5 });
    const started = performance.now();
    await assert.rejects(
      c.table("account", { signal: AbortSignal.timeout(150) }),
      (err) => err.aborted === true,
    );
    assert.ok(performance.now() - started < 1000);
    assert.equal(await seen(), 1);
  });

  test("the read timeout bounds each wait for the body: the sandbox stalls mid-body", async () => {
    const { c, seen } = faulty("stall-3000", { readTimeoutMs: 400, maxRetries: 1 });
    const started = performance.now();
    await assert.rejects(c.table("account"), (err) => {
      assert.ok(err instanceof TransportError);
      assert.equal(err.transportKind, "timeout");
      assert.match(err.message, /read timeout of 0\.4 s/);
      assert.equal(err.attempts, 2);
      return true;
    });
    // Each attempt timed out after 400 ms; nothing reached the caller, so
    // the core retried.
    assert.equal(await seen(), 2);
    assert.ok(performance.now() - started < 2800);
  });

  test("timeoutMs bounds the whole call: no time is left to retry", async () => {
    const { c, seen } = faulty("stall-3000", { maxRetries: 1 });
    const started = performance.now();
    await assert.rejects(c.table("account", { timeoutMs: 400 }), (err) => {
      assert.ok(err instanceof TransportError);
      assert.equal(err.transportKind, "timeout");
      assert.match(err.message, /call's timeout of 0\.4 s/);
      // The wait left is fractional; its cause names whole milliseconds.
      assert.match(err.cause?.message ?? "", /^nothing within \d+ ms$/);
      assert.equal(err.attempts, 1);
      return true;
    });
    assert.equal(await seen(), 1);
    const took = performance.now() - started;
    assert.ok(took >= 380 && took < 1500, `${took} ms`);
  });

  test("a signal that is not an AbortSignal is refused before sending", async () => {
    const { c, key } = faulty("pass");
    await assert.rejects(c.table("account", { signal: "soon" }), (err) => err.field === "signal");
    assert.equal(await seenBySandbox(sandbox.url, key), 0);
  });
});
