// Failures: input refused before sending, transport failures, statuses, the
// browser guard, and the token never showing in anything printable.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { inspect } from "node:util";

import {
  DecodeError,
  ErpClient,
  ErpError,
  HttpStatusError,
  InvalidInputError,
  TransportError,
} from "../../js/src/index.js";
import { closedPortUrl, rawServer, startSandbox } from "./sandbox.js";

const TOKEN = "tok-/+=-secret-4711";

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

/** Asserts the error's class chain and that the token shows nowhere in it. */
function check(err, cls, token = TOKEN) {
  assert.ok(err instanceof cls, `${err?.name}: ${err?.message} is not a ${cls.name}`);
  assert.ok(err instanceof ErpError);
  assert.ok(err instanceof Error);
  assert.equal(err.name, cls.name);
  const printed = [
    String(err),
    err.message,
    err.stack,
    inspect(err, { depth: 5 }),
    JSON.stringify(err),
  ];
  for (const text of printed) {
    assert.ok(!text.includes(token), `token in: ${text}`);
    assert.ok(!text.includes(encodeURIComponent(token)), `encoded token in: ${text}`);
  }
  return true;
}

/**
 * The errors of a table read at `url` with three retries allowed, through
 * Node's own transport and through the global fetch (undici), each checked
 * to be a TransportError of kind tls after one attempt: what would fail
 * the same way again is not retried.
 */
async function tlsFailuresRetried(url) {
  const errors = [];
  for (const transport of [{}, { fetch: globalThis.fetch }]) {
    await assert.rejects(client(url, { ...transport, maxRetries: 3 }).table("account"), (err) => {
      check(err, TransportError);
      assert.equal(err.transportKind, "tls", err.message);
      assert.equal(err.attempts, 1, err.message);
      errors.push(err);
      return true;
    });
  }
  return errors;
}

/** A fetch that must never be called. */
function forbiddenFetch() {
  throw new Error("fetch was called");
}

describe("nothing is sent for invalid input", () => {
  let url;
  before(async () => {
    url = await closedPortUrl();
  });

  test("an invalid table name, even with nothing listening", async () => {
    for (const name of ["sales;drop", "a b", "../x", "", "1abc"]) {
      await assert.rejects(client(url).table(name), (err) => {
        check(err, InvalidInputError);
        assert.equal(err.field, "table");
        assert.equal(err.kind, "invalid_input");
        return true;
      });
      await assert.rejects(client(url, { fetch: forbiddenFetch }).table(name), InvalidInputError);
    }
  });

  test("ids of the wrong type name their field", async () => {
    const c = client(url, { fetch: forbiddenFetch });
    for (const acid of [
      1.5,
      NaN,
      Infinity,
      {},
      [],
      true,
      null,
      undefined,
      2 ** 60,
      Symbol.iterator,
    ]) {
      await assert.rejects(
        c.receivables(acid),
        (err) => check(err, InvalidInputError) && err.field === "acid",
      );
    }
    await assert.rejects(
      c.table("account", { companyId: 0.5 }),
      (err) => err.field === "companyId",
    );
    await assert.rejects(c.table("account", { yearId: false }), (err) => err.field === "yearId");
    assert.throws(
      () => client(url, { companyId: {} }),
      (err) => err.field === "companyId",
    );
    assert.throws(
      () => client(url, { yearId: 20.25 }),
      (err) => err.field === "yearId",
    );
  });

  test("a token pasted into a schema is not repeated, whatever its case", async () => {
    // The type name was repeated lowered, and neither it nor a column's
    // name went through the client's redaction.
    const token = "Tok-SECRET-4711-mixed";
    const c = client(url, { fetch: forbiddenFetch, accessToken: token });
    const calls = [
      () => c.table("account", { schema: { amount: token } }),
      () => c.table("account", { schema: { [token]: "nope" } }),
      () => c.duesTable(["C001"], "receipt", { schema: { amount: token } }),
      async () => {
        for await (const _ of c.streamTable("account", { schema: { amount: token } }));
      },
    ];
    for (const call of calls) {
      await assert.rejects(
        call(),
        (err) => check(err, InvalidInputError, token) && err.message.includes("[REDACTED]"),
      );
    }
  });

  test("bad kinds, methods and strings", async () => {
    const c = client(url, { fetch: forbiddenFetch });
    await assert.rejects(c.dues({ acid: "C001", kind: "REFUND" }), (err) => err.field === "kind");
    await assert.rejects(c.dues({ acid: "C001" }), (err) => err.field === "kind");
    await assert.rejects(c.table("account", { method: "PUT" }), (err) => err.field === "method");
    await assert.rejects(c.receivables("C\u0000"), (err) => err.field === "acid");
    await assert.rejects(c.receivables("C\ud800"), (err) => /surrogate/.test(err.message));
    await assert.rejects(c.table(42), (err) => err.field === "table");
  });

  test("ids as numbers and bigints are sent as their digits", async () => {
    const urls = [];
    const fetch = async (u) => {
      urls.push(u);
      return new Response('{"status":"success","data":[]}');
    };
    const c = client(url, { fetch });
    await c.receivables(7);
    await c.receivables(12345678901234567890n);
    await c.receivables(-0);
    await c.receivables("007");
    assert.deepEqual(
      urls.map((u) => new URL(u).searchParams.get("acid")),
      ["7", "12345678901234567890", "0", "007"],
    );
  });

  test("bad options", () => {
    assert.throws(
      () => client(url, { timeoutMs: 0 }),
      (err) => err.field === "timeoutMs" && /^invalid timeoutMs: .*milliseconds/.test(err.message),
    );
    assert.throws(
      () => client(url, { timeoutMs: Infinity }),
      (err) => err.field === "timeoutMs",
    );
    assert.throws(
      () => client(url, { readTimeoutMs: -5 }),
      (err) => err.field === "readTimeoutMs" && /got -5$/.test(err.message),
    );
    assert.throws(
      () => client(url, { maxRetries: -1 }),
      (err) => err.field === "maxRetries",
    );
    assert.throws(
      () => client(url, { maxRetries: 11 }),
      (err) => err.field === "maxRetries" && /0 to 10/.test(err.message),
    );
    assert.throws(
      () => client(url, { maxRetryAfterMs: -1 }),
      (err) =>
        err.field === "maxRetryAfterMs" &&
        err.message ===
          "invalid maxRetryAfterMs: must be a number of milliseconds from 0 to 86400000, got -1",
    );
    assert.throws(
      () => client(url, { maxRetryAfterMs: "30s" }),
      (err) =>
        err.field === "maxRetryAfterMs" &&
        err.message === "invalid maxRetryAfterMs: must be a number, got a string",
    );
    assert.throws(
      () => client("ftp://x/"),
      (err) => check(err, InvalidInputError) && err.field === "baseUrl",
    );
    assert.throws(
      () => client("http://erp.example.com/"),
      (err) =>
        err.field === "baseUrl" &&
        /unencrypted/.test(err.message) &&
        err.message.includes("set allowInsecureHttp to allow it"),
    );
    assert.ok(client("http://erp.example.com/", { allowInsecureHttp: true }));
    assert.throws(
      () => client(url, { accessToken: "a b" }),
      (err) => err.field === "accessToken",
    );
  });
});

describe("transport failures", () => {
  test("connection refused", async () => {
    const url = await closedPortUrl();
    await assert.rejects(client(url).table("account", { method: "GET" }), (err) => {
      check(err, TransportError);
      assert.equal(err.kind, "transport");
      assert.equal(err.transportKind, "connect");
      assert.match(err.message, /ECONNREFUSED/);
      assert.ok(err.cause instanceof Error, "undici's error is kept: it has no token in it");
      return true;
    });
  });

  test("a certificate the client does not trust: kind tls, sent once", async () => {
    // The sandbox's certificate is self-signed: neither Node's own
    // transport (the default) nor its global fetch (undici) trusts it.
    // Retrying would meet the same certificate.
    const tls = await startSandbox(["--tls"]);
    try {
      for (const err of await tlsFailuresRetried(tls.url)) {
        assert.match(err.message, /TLS certificate of https:\/\/127\.0\.0\.1:\d+ was not accepted/);
      }
    } finally {
      await tls.stop();
    }
  });

  test("https:// to a server of plain HTTP: kind tls, says so, sent once", async () => {
    // OpenSSL reads the sandbox's HTTP answer as a TLS record ("wrong
    // version number"), in Node's own transport and in undici's fetch.
    const plain = await startSandbox([]);
    const url = plain.url.replace("http://", "https://");
    const origin = url.replace(/\/$/, "");
    try {
      for (const err of await tlsFailuresRetried(url)) {
        assert.ok(err.message.includes(`${origin} answered in plain HTTP, not TLS`), err.message);
        assert.match(err.message, /begins http:\/\//);
      }
    } finally {
      await plain.stop();
    }
  });

  test("a server that accepts and never answers times out", async () => {
    const server = await rawServer(() => {});
    try {
      const started = Date.now();
      await assert.rejects(client(server.url, { timeoutMs: 300 }).receivables("C001"), (err) => {
        check(err, TransportError);
        assert.equal(err.transportKind, "timeout");
        assert.match(err.message, /call's timeout of 0\.3 s/);
        assert.equal(err.attempts, 1);
        return true;
      });
      assert.ok(Date.now() - started < 5000);
    } finally {
      await server.close();
    }
  });

  test("the timeout covers the body: headers, then silence", async () => {
    const server = await rawServer((socket) => {
      socket.once("data", () => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"status":',
        );
      });
    });
    try {
      await assert.rejects(
        client(server.url, { timeoutMs: 300 }).table("account"),
        (err) => check(err, TransportError) && err.transportKind === "timeout",
      );
    } finally {
      await server.close();
    }
  });

  test("a connection closed mid-body", async () => {
    const server = await rawServer((socket) => {
      socket.once("data", () => {
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"status":');
      });
    });
    try {
      await assert.rejects(
        client(server.url).table("account"),
        (err) => check(err, TransportError) && err.transportKind === "reset",
      );
    } finally {
      await server.close();
    }
  });

  test("a host stack error that quotes the token is redacted and not kept", async () => {
    const fetch = async (url) => {
      throw new TypeError(`request to ${url} failed, reason: socket hang up`);
    };
    await assert.rejects(
      client("http://127.0.0.1:9/", { fetch }).table("account", { method: "GET" }),
      (err) => {
        check(err, TransportError);
        assert.match(err.message, /\[REDACTED\]/);
        assert.equal(err.cause, undefined);
        return true;
      },
    );
  });

  test("a host stack error that cuts the URL inside the token shows none of it", async () => {
    // The part of the token before the cut matches none of its spellings.
    const fetch = async (url) => {
      const text = String(url);
      const token = text.indexOf("accesstoken=") + "accesstoken=".length;
      throw new TypeError(`request to ${text.slice(0, token + 8)}… failed`);
    };
    await assert.rejects(
      client("http://127.0.0.1:9/", { fetch }).table("account", { method: "GET" }),
      (err) => {
        check(err, TransportError, TOKEN.slice(0, 8));
        assert.match(err.message, /accesstoken=\[REDACTED\]/);
        assert.ok(!err.message.includes("tok-%2F"), err.message);
        return true;
      },
    );
  });

  test("a fetch error that keeps the request anywhere inside is not kept", async () => {
    // A custom fetch's error whose own message is clean, holding what was
    // sent where util.inspect still prints it: kept as the cause, it
    // printed the form with the token.
    const form = (init) =>
      typeof init.body === "string" ? init.body : new TextDecoder().decode(init.body);
    const hidden = {
      nested: (init) =>
        Object.assign(new Error("socket hang up"), { config: { data: form(init) } }),
      array: (init) => Object.assign(new Error("socket hang up"), { attempts: [[form(init)]] }),
      symbol: (init) =>
        Object.assign(new Error("socket hang up"), { [Symbol("body")]: form(init) }),
      hiddenKey: (init) =>
        Object.defineProperty(new Error("socket hang up"), "body", { value: form(init) }),
      aggregate: (init) => new AggregateError([new Error(`sent ${form(init)}`)], "socket hang up"),
      deepCause: (init) => {
        let err = new Error(`sent ${form(init)}`);
        for (let i = 0; i < 12; i++) err = new Error("socket hang up", { cause: err });
        return err;
      },
      bytes: (init) =>
        Object.assign(new Error("socket hang up"), { body: new TextEncoder().encode(form(init)) }),
    };
    for (const [shape, make] of Object.entries(hidden)) {
      const fetch = async (_url, init) => {
        throw make(init);
      };
      await assert.rejects(client("http://127.0.0.1:9/", { fetch }).table("account"), (err) => {
        check(err, TransportError);
        assert.equal(err.cause, undefined, shape);
        assert.ok(!inspect(err, { depth: null }).includes("accesstoken="), shape);
        return true;
      });
    }
    // What carries no token is kept, nested or not.
    const fetch = async () => {
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET", info: { port: 9 } });
    };
    await assert.rejects(client("http://127.0.0.1:9/", { fetch }).table("account"), (err) => {
      assert.equal(err.cause?.info?.port, 9);
      return true;
    });
  });

  test("an abort reason that holds the token is not kept as the cause", async () => {
    // abort() takes any value: the request the caller gave up on, say.
    // It was the cause as given, and util.inspect printed it.
    const pending = () => new Promise(() => {});
    for (const reason of [
      { request: { url: `http://127.0.0.1:9/apis/ajax.php?accesstoken=${TOKEN}` } },
      new Error("gave up", { cause: { token: TOKEN } }),
      `gave up on ${TOKEN}`,
    ]) {
      const controller = new AbortController();
      const call = client("http://127.0.0.1:9/", { fetch: pending }).table("account", {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(reason), 20);
      await assert.rejects(call, (err) => {
        check(err, TransportError);
        assert.equal(err.aborted, true);
        assert.equal(err.cause, undefined, inspect(reason));
        assert.ok(!inspect(err, { depth: null }).includes(TOKEN));
        return true;
      });
    }
    // A clean reason is kept.
    const controller = new AbortController();
    const call = client("http://127.0.0.1:9/", { fetch: pending }).table("account", {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user went away")), 20);
    await assert.rejects(call, (err) => err.cause?.message === "user went away");
  });

  test("the client's inspect and toJSON redact a token put in the base URL", () => {
    const made = client(`http://127.0.0.1:9/gateway/${TOKEN}/`);
    const shown = [inspect(made, { depth: null }), JSON.stringify(made)];
    for (const text of shown) {
      assert.ok(!text.includes(TOKEN), text);
      assert.ok(!text.includes(encodeURIComponent(TOKEN)), text);
    }
    assert.equal(made.toJSON().baseUrl, "http://127.0.0.1:9/gateway/[REDACTED]/");
  });
});

describe("statuses", () => {
  test("a redirect to another origin is refused: HttpStatusError, nothing sent there", async () => {
    let followed = false;
    const target = await rawServer((socket) => {
      followed = true;
      socket.destroy();
    });
    const server = await rawServer((socket) => {
      socket.once("data", () => {
        socket.end(
          `HTTP/1.1 302 Found\r\nLocation: ${target.url}/steal\r\nContent-Length: 5\r\nConnection: close\r\n\r\nmoved`,
        );
      });
    });
    try {
      await assert.rejects(client(server.url).table("account"), (err) => {
        check(err, HttpStatusError);
        assert.equal(err.status, 302);
        assert.match(err.excerpt, /another origin/);
        assert.ok(err.message.includes(`${target.url}/steal`), err.message);
        return true;
      });
      assert.equal(followed, false);
    } finally {
      await server.close();
      await target.close();
    }
  });

  test("an HTML page with status 200 is a DecodeError with an excerpt", async () => {
    const server = await rawServer((socket) => {
      socket.once("data", () => {
        const body = "<html><body>Login required</body></html>";
        socket.end(
          `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    });
    try {
      await assert.rejects(client(server.url).receivables("C001"), (err) => {
        check(err, DecodeError);
        assert.match(err.excerpt, /Login required/);
        return true;
      });
    } finally {
      await server.close();
    }
  });
});

describe("the browser guard", () => {
  const GLOBALS = ["window", "document", "navigator"];

  function asBrowser(fn) {
    const added = GLOBALS.filter((name) => !(name in globalThis));
    for (const name of added) globalThis[name] = {};
    try {
      return fn();
    } finally {
      for (const name of added) delete globalThis[name];
    }
  }

  test("refuses to construct in a browser", () => {
    asBrowser(() => {
      assert.throws(
        () => client("https://erp.example.com/"),
        (err) => {
          check(err, InvalidInputError);
          assert.equal(err.field, "dangerouslyAllowBrowser");
          assert.match(err.message, /server/);
          return true;
        },
      );
    });
  });

  test("dangerouslyAllowBrowser: true lets it", () => {
    asBrowser(() => {
      assert.ok(client("https://erp.example.com/", { dangerouslyAllowBrowser: true }));
    });
  });

  test("outside a browser no flag is needed", () => {
    assert.ok(client("https://erp.example.com/"));
  });
});

// Every operation and failure path is scanned in token-leak.test.js.
describe("the token stays hidden", () => {
  test("not in util.inspect, console output, JSON or keys", () => {
    const c = client("https://erp.example.com/");
    for (const text of [
      inspect(c),
      inspect(c, { showHidden: true, depth: 10 }),
      JSON.stringify(c),
      String(c),
    ]) {
      assert.ok(!text.includes(TOKEN), text);
    }
    assert.match(inspect(c), /\[REDACTED\]/);
    assert.deepEqual(Object.keys(c), []);
    assert.equal(c.toJSON().accessToken, "[REDACTED]");
  });
});
