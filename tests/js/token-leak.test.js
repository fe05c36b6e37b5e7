// The token-leak scan: every operation of the client, on success and on
// every failure path (service error, HTTP 500, redirect refused, timeout,
// abort, decode error, cut body, reset, connection refused), printed every
// way a program prints things, in a child `node` whose entire stdout and
// stderr is scanned for the token, exact and URL-encoded. The client logs
// each request, answer and wait to `console` (its `logger` option), and
// the host stack's logging is turned to its most verbose (NODE_DEBUG) for
// the POST form. The sandbox's request log then shows
// where the token travelled: in the form body of a POST, in the URL only
// when the GET form was chosen, never in a header or a dues query.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { assertNoToken, tokenForms } from "./leaks.js";
import { closedPortUrl, requestLog, startSandbox } from "./sandbox.js";

// Obviously fake, and with characters URL encoding changes.
const TOKEN = "fake-leak-token/+=4711";
const SCAN = fileURLToPath(new URL("fixtures/leak-scan.mjs", import.meta.url));
/** The host stack's debug output: http, sockets, TLS, and undici's fetch. */
const NODE_DEBUG = "fetch,undici,net,tls,http,http2,stream";

let sandbox;
let other;
let closedUrl;
before(async () => {
  const args = ["--token", TOKEN];
  [sandbox, other, closedUrl] = await Promise.all([
    startSandbox(args),
    startSandbox(args),
    closedPortUrl(),
  ]);
});
after(() => Promise.all([sandbox?.stop(), other?.stop()]));

function scan(method, env) {
  const config = {
    sandboxUrl: sandbox.url,
    otherUrl: other.url,
    closedUrl,
    token: TOKEN,
    method,
    prefix: `jsleak${process.pid}${method}`,
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SCAN, JSON.stringify(config)],
      {
        env: { ...process.env, ...env },
        timeout: 120_000,
        maxBuffer: 256 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr.slice(-4000)}`));
        const last = stdout.trimEnd().split("\n").pop();
        assert.match(last, /^RESULT /, "the scan ran to its end");
        resolve({ stdout, stderr, ...JSON.parse(last.slice("RESULT ".length)) });
      },
    );
  });
}

const OPERATIONS = [
  "receivables",
  "payables",
  "dues",
  "avgPayDays",
  "ajaxDues",
  "table",
  "streamTable",
];
const TABLE_OPS = new Set(["table", "streamTable"]);

/** The class each path must end in, per operation. */
function expected(fault, op) {
  if (fault === "pass") return "ok";
  if (fault === "unknown-table") return TABLE_OPS.has(op) ? "ServiceError" : "ok";
  if (fault === "unknown-account") return TABLE_OPS.has(op) ? "ok" : "ServiceError";
  if (["status-500x1", "status-503x5"].includes(fault) || fault.startsWith("redirect-"))
    return "HttpStatusError";
  if (fault === "service-error") return "ServiceError";
  // avgPayDays' answer is shorter than the cut: it arrives whole.
  if (fault === "truncate-200" && op === "avgPayDays") return "ok";
  if (["html200", "truncate-200"].includes(fault)) return "DecodeError";
  return "TransportError";
}

function checkOutcomes(outcomes) {
  const faults = new Set(Object.keys(outcomes).map((k) => k.split(" ")[0]));
  assert.ok(faults.size >= 14, [...faults].join(", "));
  for (const [name, got] of Object.entries(outcomes)) {
    const [fault, op] = name.split(" ");
    assert.ok(OPERATIONS.includes(op), name);
    const want = expected(fault, op);
    if (want === "ok") assert.ok(got.ok, `${name}: ${got.name}`);
    else assert.equal(got.name, want, name);
    if (fault.startsWith("abort")) assert.ok(got.aborted, `${name} is marked aborted`);
  }
  assert.equal(Object.keys(outcomes).length, faults.size * OPERATIONS.length);
}

/** Where the token went, per request the sandbox recorded. */
async function checkRequests(keys, method) {
  let tableRequests = 0;
  let duesRequests = 0;
  for (const key of keys) {
    for (const req of await requestLog(sandbox.url, key)) {
      const inUrl = tokenForms(TOKEN).some((form) => `${req.path}?${req.query}`.includes(form));
      assertNoToken([JSON.stringify(req.headers)], TOKEN, `headers of ${req.method} ${req.path}`);
      if (req.path.endsWith("apis/ajax.php")) {
        duesRequests += 1;
        assert.ok(!inUrl, `an ajax.php call carried the token in its URL: ${req.path}`);
        if (req.method === "POST") {
          // Asked to send it: in the form body, and only there.
          assert.equal(new URLSearchParams(req.body).get("accesstoken"), TOKEN);
        } else {
          assertNoToken([req.body], TOKEN, "dues body");
        }
      } else {
        tableRequests += 1;
        assert.equal(req.method, method);
        if (method === "POST") {
          assert.ok(!inUrl, `POST table fetch put the token in its URL: ${req.path}?${req.query}`);
          assert.equal(
            new URLSearchParams(req.body).get("accesstoken"),
            TOKEN,
            "the token travels in the form body",
          );
        } else {
          assert.equal(
            new URLSearchParams(req.query).get("accesstoken"),
            TOKEN,
            "the GET form was chosen",
          );
        }
      }
    }
  }
  assert.ok(
    duesRequests > 20 && tableRequests > 10,
    `${duesRequests} dues and ${tableRequests} table requests recorded`,
  );
  // Whatever was redirected to the other origin never reached it.
  const redirected = keys.filter((k) => k.includes("-redirect-"));
  assert.equal(redirected.length, OPERATIONS.length);
  return (await Promise.all(redirected.map((k) => requestLog(other.url, k)))).flat();
}

/**
 * That the client's log lines were in the scanned output: the table
 * fetch's requests with the token as [REDACTED] (in the form, or in the
 * GET form's URL), answers, and waits before another attempt.
 */
function assertLogged(stdout, method) {
  // Without the number of the call each line starts with.
  const lines = stdout.split("\n").map((l) => l.replace(/^call \d+: /, ""));
  const tables = lines.filter(
    (l) => l.startsWith(`request 1: ${method} `) && l.includes("/apis/dataapi.php"),
  );
  assert.ok(tables.length > 10, `${tables.length} table requests logged`);
  for (const line of tables) {
    assert.ok(line.includes("accesstoken=[REDACTED]"), line);
    assert.equal(line.includes(" form: "), method === "POST", line);
  }
  assert.ok(lines.includes("answer 503"));
  assert.ok(lines.some((l) => /^waiting \d+\.\d\d s before request 2 /.test(l)));
}

describe("token-leak scan", () => {
  test("POST form (default) with NODE_DEBUG at its most verbose: token in no output, no URL", async () => {
    const { stdout, stderr, outcomes, keys } = await scan("POST", { NODE_DEBUG });
    // Node's client sends with node:http (src/fetch-node.js).
    assert.match(stderr, /HTTP \d+: createConnection /, "the host stack's debug output was on");
    assertNoToken([stdout, stderr], TOKEN, "scan output");
    assertLogged(stdout, "POST");
    checkOutcomes(outcomes);
    assert.deepEqual(await checkRequests(keys, "POST"), [], "the other origin was reached");
  });

  test("GET form: the token is in its URLs only, never in what the client prints", async () => {
    // Without NODE_DEBUG: the host stack's debug lines print request URLs,
    // which carry the token in the GET form the caller chose.
    const { stdout, stderr, outcomes, keys } = await scan("GET", { NODE_DEBUG: "" });
    assertNoToken([stdout, stderr], TOKEN, "scan output");
    assertLogged(stdout, "GET");
    checkOutcomes(outcomes);
    assert.deepEqual(await checkRequests(keys, "GET"), [], "the other origin was reached");
  });
});
