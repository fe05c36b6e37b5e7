// Runs every shared vector (tests/vectors/requests*.json, responses*.json,
// retry.json, redirects.json) through the wasm module, as
// tests/vectors/README.md specifies.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { inspect } from "node:util";
import { after, describe, test } from "node:test";

import {
  DecodeError, ErpError, HttpStatusError, InvalidInputError, ServiceError, TransportError,
} from "../../js/src/index.js";
import { batchRows } from "../../js/src/columns.js";
import { fromCore } from "../../js/src/errors.js";
import { loadWasm } from "../../js/src/wasm-node.js";

const VECTORS = new URL("../vectors/", import.meta.url);
const DEFAULT_RESPONSE_CONFIG = {
  base_url: "https://erp.example.com/",
  project: "demo",
  access_token: "fake-token-for-tests",
};
const OPTION_NAMES = {
  base_url: "baseUrl",
  project: "project",
  project_folder: "projectFolder",
  access_token: "accessToken",
  company_id: "companyId",
  year_id: "yearId",
  allow_insecure_http: "allowInsecureHttp",
};
const ERRORS = {
  invalid_input: InvalidInputError,
  transport: TransportError,
  http_status: HttpStatusError,
  service: ServiceError,
  decode: DecodeError,
};

const { Core, RetryPolicy } = loadWasm();

function load(prefix) {
  const files = readdirSync(VECTORS).filter((f) => f.startsWith(prefix) && f.endsWith(".json")).sort();
  return files.flatMap((file) => {
    const { cases } = JSON.parse(readFileSync(new URL(file, VECTORS), "utf8"));
    return cases.map((c) => ({ ...c, file }));
  });
}

const REQUEST_CASES = load("requests");
const RESPONSE_CASES = load("responses");
const RETRY_CASES = load("retry");
const REDIRECT_CASES = load("redirects");

test("vectors exist", () => {
  // An empty loop would pass; missing vectors must fail.
  assert.ok(REQUEST_CASES.length > 0, `no request cases in ${VECTORS}`);
  assert.ok(RESPONSE_CASES.length > 0, `no response cases in ${VECTORS}`);
  assert.ok(RETRY_CASES.length > 0, `no retry cases in ${VECTORS}`);
  assert.ok(REDIRECT_CASES.length > 0, `no redirect cases in ${VECTORS}`);
});

function makeCore(settings) {
  const options = {};
  for (const [key, value] of Object.entries(settings)) {
    assert.ok(key in OPTION_NAMES, `unknown config key ${key}`);
    options[OPTION_NAMES[key]] = value;
  }
  return new Core(options);
}

/** Runs `fn` and returns the ErpError it throws (the core's object, made a class). */
function thrown(fn) {
  try {
    fn();
  } catch (raw) {
    return fromCore(raw);
  }
  assert.fail("expected an error");
}

function checkError(err, expected) {
  const cls = ERRORS[expected.kind];
  assert.ok(cls, `unknown kind ${expected.kind}`);
  assert.ok(err instanceof cls, `expected ${cls.name}, got ${err?.name}: ${err?.message}`);
  assert.ok(err instanceof ErpError && err instanceof Error);
  assert.equal(err.kind, expected.kind);
  if ("field" in expected) assert.equal(err.field, expected.field, err.message);
  if ("status" in expected) assert.equal(err.status, expected.status, err.message);
  if ("message_contains" in expected) {
    assert.ok(err.message.includes(expected.message_contains), `${JSON.stringify(expected.message_contains)} not in ${err.message}`);
  }
  const everything = [String(err), err.stack, inspect(err), JSON.stringify({ ...err })].join("\n");
  for (const secret of expected.not_contains ?? []) {
    assert.ok(!everything.includes(secret), `${JSON.stringify(secret)} in ${everything}`);
  }
}

describe("request vectors", () => {
  for (const c of REQUEST_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const args = c.args;
      const build = () => {
        const core = makeCore(c.config);
        if (c.call === "dues") return core.duesRequest(args.acid, args.kind);
        assert.equal(c.call, "table");
        return core.tableRequest(args.table, args.company_id, args.year_id, args.method);
      };
      if (c.expect_error) {
        checkError(thrown(build), c.expect_error);
        return;
      }
      const request = build();
      const { expect } = c;
      assert.equal(request.method, expect.method);
      assert.equal(request.url, expect.url);
      const body = request.body === null ? "" : new TextDecoder().decode(request.body);
      assert.equal(body, expect.body);
      const contentTypes = request.headers.filter(([k]) => k.toLowerCase() === "content-type").map(([, v]) => v);
      assert.deepEqual(contentTypes, expect.content_type === null ? [] : [expect.content_type]);
      const token = c.config.access_token;
      if (token) assert.ok(!request.displayUrl.includes(token), request.displayUrl);
    });
  }
});

const isMarker = (v, key) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && key in v;

/** One expected row value against what JS users get with each `numbers` mode. */
function checkValue(actual, textual, expected, where) {
  if (isMarker(expected, "$number")) {
    const text = expected.$number;
    assert.equal(typeof actual, "number", where);
    // As JSON.parse would give it, -0 included.
    assert.ok(Object.is(actual, Number(text)), `${where}: ${actual} is not Number(${text})`);
    assert.equal(textual, text, `${where}: exact text with numbers: "string"`);
  } else if (isMarker(expected, "$json")) {
    const value = JSON.parse(expected.$json);
    assert.deepEqual(actual, value, where);
    assert.equal(JSON.stringify(actual), JSON.stringify(value), `${where}: key order`);
    assert.deepEqual(textual, value, where);
  } else {
    assert.equal(actual, expected, where);
    assert.equal(textual, expected, where);
  }
}

function checkRows(rows, textRows, expected) {
  assert.equal(rows.length, expected.length, "row count");
  expected.forEach((want, i) => {
    // JS objects list integer-like keys first whatever the order sent.
    assert.deepEqual(Object.keys(rows[i]), Object.keys(want), `row ${i} keys`);
    for (const key of Object.keys(want)) {
      checkValue(rows[i][key], textRows[i][key], want[key], `row ${i}, ${key}`);
    }
  });
}

/** A response case's body: `body` as UTF-8 text, or `body_hex` bytes. */
function caseBody(c) {
  return "body_hex" in c.response
    ? Uint8Array.from(Buffer.from(c.response.body_hex, "hex"))
    : new TextEncoder().encode(c.response.body);
}

describe("response vectors", () => {
  for (const c of RESPONSE_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(c.config ?? DEFAULT_RESPONSE_CONFIG);
      const { status } = c.response;
      const body = caseBody(c);
      const parse = (numbers) => {
        if (c.call === "dues") return core.parseDues(c.dues.acid, c.dues.kind, status, body, numbers);
        assert.equal(c.call, "table");
        return core.parseTable(status, body, numbers);
      };
      if (c.expect_error) {
        checkError(thrown(() => parse()), c.expect_error);
        checkError(thrown(() => parse("string")), c.expect_error);
        return;
      }
      const result = parse();
      const text = parse("string");
      const { expect } = c;
      checkRows(result.rows, text.rows, expect.rows);
      if (c.call === "dues") {
        assert.equal(result.acid, String(c.dues.acid));
        assert.equal(result.kind, c.dues.kind.toUpperCase());
        if ("raw" in expect) assert.equal(result.raw, expect.raw);
      } else if ("columns" in expect) {
        assert.deepEqual(result.columns, expect.columns);
      }
      if ("notices" in expect) assert.deepEqual(result.notices, expect.notices);
    });
  }
});

describe("retry vectors", () => {
  for (const c of RETRY_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const policy = new RetryPolicy(c.max_retries ?? 2);
      const { outcome } = c;
      const now = "now" in c ? Date.parse(c.now) : undefined;
      if ("now" in c) assert.ok(Number.isFinite(now), `unparseable now: ${c.now}`);
      const delay = "transport" in outcome
        ? policy.afterTransport(c.retries_done, outcome.transport, c.random)
        : policy.afterStatus(c.retries_done, outcome.status, outcome.retry_after, c.random, now);
      if (c.expect.stop) {
        assert.equal(delay, undefined);
      } else {
        assert.equal(typeof delay, "number", `expected a delay, got ${delay}`);
        assert.equal(Math.round(delay), c.expect.retry_after_ms);
      }
    });
  }
});

describe("redirect vectors", () => {
  for (const c of REDIRECT_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(c.config);
      const { args, response } = c;
      const sent = c.call === "dues"
        ? core.duesRequest(args.acid, args.kind)
        : core.tableRequest(args.table, args.company_id, args.year_id, args.method);
      const follow = () => core.followRedirect(sent, response.status, response.location, c.hops_done);
      if (c.expect_error) {
        checkError(thrown(follow), c.expect_error);
        return;
      }
      const next = follow();
      const want = c.expect.follow;
      if (want === null) {
        assert.equal(next, undefined);
        return;
      }
      assert.ok(next, "expected a request to follow");
      const body = next.body === null ? "" : new TextDecoder().decode(next.body);
      assert.deepEqual({ method: next.method, url: next.url, body }, want);
      const token = c.config.access_token;
      if (token) assert.ok(!next.displayUrl.includes(token), next.displayUrl);
    });
  }
});

/**
 * A table answer through the path ErpClient.table() and streamTable() take:
 * the streaming decoder fed in small chunks, rows rebuilt from its batches.
 */
function streamed(core, status, body, numbers) {
  const stream = core.tableStream(status, 2, numbers);
  try {
    const batches = [];
    for (let at = 0; at < body.length; at += 7) batches.push(...stream.feed(body.subarray(at, at + 7)));
    const end = stream.finish();
    batches.push(...end.batches);
    const rows = [];
    for (const b of batches) batchRows(b, numbers, rows);
    const last = batches[batches.length - 1];
    return { rows, regular: stream.regular, columns: last ? last.columns.map((c) => c.name) : [], notices: end.notices };
  } finally {
    stream.free();
  }
}

let regular = 0;
let irregular = 0;
describe("response vectors through the streaming decoder", () => {
  after(() => {
    // Both paths of the client were exercised.
    assert.ok(regular >= 10, `${regular} regular cases`);
    assert.ok(irregular >= 1, `${irregular} cases with rows of different keys`);
  });
  for (const c of RESPONSE_CASES.filter((v) => v.call === "table")) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(c.config ?? DEFAULT_RESPONSE_CONFIG);
      const { status } = c.response;
      const body = caseBody(c);
      if (c.expect_error) {
        checkError(thrown(() => streamed(core, status, body)), c.expect_error);
        return;
      }
      const result = streamed(core, status, body);
      const { expect } = c;
      if ("columns" in expect) assert.deepEqual(result.columns, expect.columns);
      if ("notices" in expect) assert.deepEqual(result.notices, expect.notices);
      if (!result.regular) {
        // The client then reads rows with the row decoder (checked above).
        // Down when some row differs in its keys (or repeats one, or sends
        // -0); it may be down needlessly, never up wrongly.
        const keys = (r) => JSON.stringify(Object.keys(r));
        const differ = expect.rows.some((r) => keys(r) !== JSON.stringify(result.columns));
        if (differ) irregular += 1;
        return;
      }
      regular += 1;
      assert.equal(result.rows.length, expect.rows.length, "row count");
      expect.rows.forEach((want, i) => {
        assert.deepEqual(Object.keys(result.rows[i]), Object.keys(want), `row ${i} keys`);
        for (const key of Object.keys(want)) {
          const actual = result.rows[i][key];
          const value = want[key];
          if (isMarker(value, "$number")) assert.ok(Object.is(actual, Number(value.$number)), `row ${i}, ${key}: ${actual}`);
          else if (isMarker(value, "$json")) assert.deepEqual(actual, JSON.parse(value.$json), `row ${i}, ${key}`);
          else assert.equal(actual, value, `row ${i}, ${key}`);
        }
      });
    });
  }
});
