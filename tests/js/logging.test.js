// The client's `logger` option: each request and answer at debug, each
// wait before another attempt at info, the lines the core writes for the
// Rust and Python clients too, the token redacted; against the sandbox
// over loopback. A logger that is not one is refused before anything is
// sent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { ErpClient as EdgeClient } from "../../js/src/edge.js";
import { ErpClient, InvalidInputError } from "../../js/src/index.js";
import {
  demoClient,
  faultUrl,
  freshKey,
  SANDBOX_TOKEN,
  seenBySandbox,
  startSandbox,
  totalSeen,
} from "./sandbox.js";

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

/** A logger keeping `[level, message]` pairs in `lines`. */
function recorder() {
  const lines = [];
  return {
    lines,
    logger: {
      debug: (message) => lines.push(["debug", message]),
      info: (message) => lines.push(["info", message]),
    },
  };
}

const CALL = /^call (\d+): /;

/**
 * `lines` checked for the token and for the call's number each starts
 * with, then as `level message` strings without that number.
 */
function shown(lines) {
  for (const [, message] of lines) {
    assert.equal(typeof message, "string");
    assert.match(message, CALL);
    assert.ok(!message.includes(SANDBOX_TOKEN), `the token in a log line: ${message}`);
    assert.ok(!message.includes(encodeURIComponent(SANDBOX_TOKEN)), message);
  }
  return lines.map(([level, message]) => `${level} ${message.replace(CALL, "")}`);
}

const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("a client's logger", () => {
  test("a 503 then the answer: request, answer 503, waiting, request 2, answer 200, in order", async () => {
    const key = freshKey("log503");
    const base = faultUrl(sandbox.url, "status-503x1", key);
    const { lines, logger } = recorder();
    const table = await demoClient(base, { logger }).table("sales_invoice");
    assert.equal(table.length, 40);
    assert.equal(await seenBySandbox(sandbox.url, key), 2);
    const got = shown(lines);
    assert.equal(got.length, 6, got.join("\n"));
    const request = (n) =>
      new RegExp(
        `^debug request ${n}: POST ${literal(base)}apis/dataapi\\.php form: .*accesstoken=\\[REDACTED\\]`,
      );
    assert.match(got[0], request(1));
    assert.equal(got[1], "debug answer 503");
    assert.match(got[2], /^info waiting \d+\.\d\d s before request 2 \(as the core's call asks\)$/);
    assert.match(got[3], request(2));
    assert.equal(got[4], "debug answer 200");
    assert.equal(got[5], "debug done after 2 requests");
    // The form as sent, only the token replaced.
    const form = new URLSearchParams(got[0].split(" form: ")[1]);
    assert.equal(form.get("req"), "getdata");
    assert.equal(form.get("accesstoken"), "[REDACTED]");
  });

  test('the GET form (method: "GET") logs its URL with the token as [REDACTED]', async () => {
    const { lines, logger } = recorder();
    await demoClient(sandbox.url, { logger }).table("sales_invoice", { method: "GET" });
    const got = shown(lines);
    assert.equal(got.length, 3, got.join("\n"));
    assert.match(
      got[0],
      new RegExp(`^debug request 1: GET ${literal(sandbox.url)}/apis/dataapi\\.php\\?`),
    );
    assert.ok(!got[0].includes(" form: "), got[0]);
    const url = new URL(got[0].split(" ")[4]);
    assert.equal(url.searchParams.get("accesstoken"), "[REDACTED]");
    assert.equal(url.searchParams.get("req"), "getdata");
    assert.equal(got[1], "debug answer 200");
    assert.equal(got[2], "debug done after 1 request");
  });

  test("streams, the dues query and plans log too; so does the edge entry's client", async () => {
    const { lines, logger } = recorder();
    const c = demoClient(sandbox.url, { logger });
    for await (const batch of c.streamTable("sales_invoice", { batchRows: 16 })) {
      assert.ok(batch.length > 0);
    }
    await c.receivables("C001");
    await c.duesTable(["C001", "C002"], "RECEIPT");
    const got = shown(lines);
    const requests = got.filter((line) => line.startsWith("debug request 1: "));
    assert.equal(requests.length, 4, got.join("\n"));
    assert.match(requests[0], /dataapi\.php form: /);
    assert.match(requests[1], /apis\/ajax\.php\?.*func=getduesDet&acid=C001&type=RECEIPT$/);
    assert.equal(got.filter((line) => line === "debug answer 200").length, 4);

    const edge = recorder();
    const client = new EdgeClient({
      baseUrl: sandbox.url,
      project: "demo",
      accessToken: SANDBOX_TOKEN,
      companyId: 1,
      yearId: 2025,
      logger: edge.logger,
    });
    await client.table("account");
    assert.deepEqual(
      shown(edge.lines).map((line) => line.split(":")[0]),
      ["debug request 1", "debug answer 200", "debug done after 1 request"],
    );
  });

  test("each line starts with its call's number, which tells calls made at once apart", async () => {
    const { lines, logger } = recorder();
    const c = demoClient(sandbox.url, { logger });
    await Promise.all([c.receivables("C001"), c.payables("S001"), c.table("account")]);
    const byCall = new Map();
    for (const [, message] of lines) {
      const [, number] = message.match(CALL);
      byCall.set(number, [...(byCall.get(number) ?? []), message.replace(CALL, "")]);
    }
    assert.equal(byCall.size, 3, [...byCall].join("\n"));
    for (const calls of byCall.values()) {
      assert.equal(calls.length, 3, calls.join("\n"));
      assert.match(calls[0], /^request 1: /);
      assert.equal(calls[1], "answer 200");
      assert.equal(calls[2], "done after 1 request");
    }
    // Numbered in the order the calls were made.
    const numbers = [...byCall.keys()].map(Number);
    assert.ok(
      numbers.every((n, i) => i === 0 || n > numbers[i - 1]),
      numbers.join(", "),
    );
  });

  test("a call that fails ends its lines with its error's message", async () => {
    const { lines, logger } = recorder();
    await assert.rejects(demoClient(sandbox.url, { logger }).table("nosuch"), /Unknown table/);
    const got = shown(lines);
    assert.equal(got.length, 3, got.join("\n"));
    assert.match(
      got[2],
      /^debug failed after 1 request: service error \(status "error"\) from .*Unknown table: nosuch/,
    );
  });

  test("a call its signal aborted ends its lines too, saying so", async () => {
    // A server's calls end this way whenever its HTTP client goes away or
    // its deadline passes: without a last line, their requests read as
    // never answered.
    const gone = () => {
      const request = new AbortController();
      setTimeout(() => request.abort(), 200);
      return request.signal;
    };
    for (const [signalOf, ending] of [
      [
        () => AbortSignal.timeout(200),
        "transport error (timeout): the call was aborted by its signal, which timed out",
      ],
      [gone, "transport error (other): the call was aborted by its signal"],
    ]) {
      const { lines, logger } = recorder();
      const c = demoClient(faultUrl(sandbox.url, "latency-5000", freshKey("logabort")), { logger });
      await assert.rejects(c.table("sales_invoice", { signal: signalOf() }), { aborted: true });
      const got = shown(lines);
      assert.equal(got.length, 2, got.join("\n"));
      assert.match(got[0], /^debug request 1: POST /);
      assert.equal(got[1], `debug failed after 1 request: ${ending}`);
    }
    // Aborted before anything was sent: no request, so no lines.
    const { lines, logger } = recorder();
    const c = demoClient(sandbox.url, { logger });
    await assert.rejects(c.table("sales_invoice", { signal: AbortSignal.abort() }), {
      aborted: true,
    });
    assert.deepEqual(lines, []);
  });

  test("so does a stream aborted while its consumer holds a batch", async () => {
    const { lines, logger } = recorder();
    const request = new AbortController();
    const batches = demoClient(sandbox.url, { logger })
      .streamTable("sales_invoice", { batchRows: 5, signal: request.signal })
      [Symbol.asyncIterator]();
    assert.equal((await batches.next()).value.length, 5);
    request.abort();
    await assert.rejects(batches.next(), { aborted: true });
    const got = shown(lines);
    assert.deepEqual(got.slice(1), [
      "debug answer 200",
      "debug failed after 1 request: transport error (other): the call was aborted by its signal",
    ]);
  });

  test("a stream its consumer ends early says so, with the rows it handed out", async () => {
    // A `break` out of `for await`, or a response closed early: without
    // a last line, its request read as never answered.
    const { lines, logger } = recorder();
    let rows = 0;
    for await (const batch of demoClient(sandbox.url, { logger }).streamTable("sales_invoice", {
      batchRows: 5,
    })) {
      rows += batch.length;
      if (rows === 10) break;
    }
    const got = shown(lines);
    assert.deepEqual(got.slice(1), ["debug answer 200", "debug ended by its caller after 10 rows"]);
    // Read to its end, it says done instead.
    const whole = recorder();
    for await (const batch of demoClient(sandbox.url, { logger: whole.logger }).streamTable(
      "sales_invoice",
      { batchRows: 5 },
    )) {
      assert.ok(batch.length > 0);
    }
    assert.equal(shown(whole.lines).at(-1), "debug done after 1 request");
  });

  test("console works; a logger that throws does not fail or retry the call", async () => {
    assert.ok(demoClient(sandbox.url, { logger: console }));
    const key = freshKey("logthrows");
    const throwing = {
      debug() {
        throw new Error("the log is full");
      },
      info() {
        throw new Error("the log is full");
      },
    };
    const c = demoClient(faultUrl(sandbox.url, "pass", key), { logger: throwing });
    assert.equal((await c.table("sales_invoice")).length, 40);
    assert.equal(await seenBySandbox(sandbox.url, key), 1);
  });

  test("a logger whose async methods reject leaves no unhandled rejection", async () => {
    // One writing to a remote sink that is down: its rejections, left
    // unhandled, ended the Node process that made the call.
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let lines = 0;
      const failing = {
        async debug() {
          lines++;
          throw new Error("the log sink is down");
        },
        async info() {
          lines++;
          throw new Error("the log sink is down");
        },
      };
      const key = freshKey("logasync");
      const c = demoClient(faultUrl(sandbox.url, "status-503x1", key), { logger: failing });
      assert.equal((await c.table("sales_invoice")).length, 40);
      assert.equal(await seenBySandbox(sandbox.url, key, "status-503x1"), 2);
      for await (const _ of c.streamTable("sales_invoice", { batchRows: 5 })) break;
      await assert.rejects(c.table("no_such_table"));
      // request, 503, waiting, request, 200, done; a stream's three; a failure's three
      assert.ok(lines >= 12, `${lines} lines`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.deepEqual(unhandled, []);
  });

  test("without a logger (undefined, null) nothing is logged, not even to console", async () => {
    const { lines, logger } = recorder();
    const saved = [console.debug, console.info];
    [console.debug, console.info] = [logger.debug, logger.info];
    try {
      for (const logger of [undefined, null]) {
        const key = freshKey("nolog");
        const c = demoClient(faultUrl(sandbox.url, "status-503x1", key), { logger });
        assert.equal((await c.table("sales_invoice")).length, 40);
        assert.equal(await seenBySandbox(sandbox.url, key), 2);
      }
    } finally {
      [console.debug, console.info] = saved;
    }
    assert.deepEqual(lines, []);
  });

  test("a logger that is not one is refused, naming logger, with nothing sent", async () => {
    const bad = [
      true,
      "debug",
      42,
      {},
      [],
      { debug() {} },
      { info() {} },
      { debug: "yes", info: "yes" },
      () => {},
    ];
    for (const logger of bad) {
      const seen = await totalSeen(sandbox.url);
      let error;
      try {
        await demoClient(sandbox.url, { logger }).table("sales_invoice");
      } catch (err) {
        error = err;
      }
      assert.ok(error instanceof InvalidInputError, `${String(logger)}: ${error}`);
      assert.equal(error.field, "logger");
      assert.match(
        error.reason,
        /^must be an object with debug\(message\) and info\(message\) methods \(console works\), got /,
      );
      assert.equal(error.message, `invalid logger: ${error.reason}`);
      assert.equal(await totalSeen(sandbox.url), seen, `sent despite: ${error.message}`);
    }
    // A near miss is named: `log` is not an option.
    assert.throws(
      () => new ErpClient({ baseUrl: sandbox.url, project: "demo", loger: console }),
      (err) => err instanceof InvalidInputError && /did you mean logger\?/.test(err.message),
    );
  });
});
