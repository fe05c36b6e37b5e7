// Runs every shared vector (tests/vectors/requests*.json, responses*.json,
// retry.json, redirects.json, dues-tables.json) through the wasm module, as
// tests/vectors/README.md specifies: requests and answers through the one
// entry point, `core.invoke`.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { batchRows } from "../../js/src/columns.js";
import {
  ANY_TABLE,
  checkError,
  DEFAULT_RESPONSE_CONFIG,
  decodeBody,
  invoke,
  load,
  makeCore,
  parsed,
  RetryPolicy,
  thrown,
  VECTORS,
} from "./vectors.js";

const REQUEST_CASES = load("requests");
const RESPONSE_CASES = load("responses");
const RETRY_CASES = load("retry");
const REDIRECT_CASES = load("redirects");
const DUES_TABLE_CASES = load("dues-tables");

/**
 * A request case's arguments as the catalogue takes them: an `ajax`
 * call's `params` (`[name, value]` pairs) as pairs, none when empty.
 */
function requestArgs(args) {
  const { params, ...rest } = args;
  return params?.length ? { ...rest, params } : rest;
}

test("vectors exist", () => {
  // An empty loop would pass; missing vectors must fail.
  assert.ok(REQUEST_CASES.length > 0, `no request cases in ${VECTORS}`);
  assert.ok(RESPONSE_CASES.length > 0, `no response cases in ${VECTORS}`);
  assert.ok(RETRY_CASES.length > 0, `no retry cases in ${VECTORS}`);
  assert.ok(REDIRECT_CASES.length > 0, `no redirect cases in ${VECTORS}`);
  assert.ok(DUES_TABLE_CASES.length > 0, `no dues table cases in ${VECTORS}`);
});

describe("request vectors", () => {
  for (const c of REQUEST_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const args = c.args;
      const build = () => invoke(makeCore(c.config), c.call, requestArgs(args)).request();
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
      const contentTypes = request.headers
        .filter(([k]) => k.toLowerCase() === "content-type")
        .map(([, v]) => v);
      assert.deepEqual(contentTypes, expect.content_type === null ? [] : [expect.content_type]);
      const token = c.config.access_token;
      if (token) assert.ok(!request.displayUrl.includes(token), request.displayUrl);
    });
  }
});

const isMarker = (v, key) =>
  v !== null &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  key in v;

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

/** A value of a column or field of type `type` against the vectors' form. */
function checkTyped(actual, textual, expected, type, where) {
  if (isMarker(expected, "$number") && type.startsWith("decimal")) {
    // A decimal is a number by default, its exact text with numbers: "string".
    assert.equal(typeof actual, "number", where);
    assert.equal(actual, Number(expected.$number), where);
    assert.equal(Number(textual), Number(expected.$number), where);
    return;
  }
  checkValue(actual, textual, expected, where);
}

function checkAjax(c, core, status, body) {
  const parse = (numbers) => parsed(core, "ajax", { func: c.func }, status, body, numbers);
  if (c.expect_error) {
    checkError(
      thrown(() => parse()),
      c.expect_error,
    );
    return;
  }
  const answer = parse();
  const text = parse("string");
  const { expect } = c;
  assert.equal(answer.func, c.func);
  assert.equal(answer.shape, expect.shape);
  if (expect.schema) assert.deepEqual(Object.entries(answer.schema), expect.schema);
  if (expect.shape === "rows") {
    assert.equal(answer.rows.length, expect.rows.length);
    expect.rows.forEach((want, i) => {
      for (const key of Object.keys(want)) {
        const type = answer.schema[key];
        checkTyped(answer.rows[i][key], text.rows[i][key], want[key], type, `row ${i}, ${key}`);
      }
    });
    assert.equal(answer.totalRows, expect.rows.length);
  } else if (expect.shape === "object") {
    assert.deepEqual(Object.keys(answer.fields).sort(), Object.keys(expect.fields).sort());
    for (const [key, want] of Object.entries(expect.fields)) {
      checkTyped(answer.fields[key], text.fields[key], want, answer.schema[key], key);
    }
  } else {
    checkTyped(answer.value, text.value, expect.value, expect.type, "value");
  }
  assert.deepEqual(answer.notices, expect.notices);
  if ("raw" in expect) assert.equal(answer.raw, expect.raw);
}

describe("dues table vectors", () => {
  for (const c of DUES_TABLE_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(DEFAULT_RESPONSE_CONFIG);
      const build = () => core.duesTableOf(c.dues);
      if (c.expect_error) {
        checkError(thrown(build), c.expect_error);
        return;
      }
      const table = build();
      const { schema, rows } = c.expect;
      if (c.expect.dues_schemas) {
        // Each account's dues typed alone: the same types whatever its values.
        const each = c.dues.map(({ acid, kind, body }) => {
          const dues = parsed(core, "dues", { acid, kind }, 200, new TextEncoder().encode(body));
          return Object.entries(dues.schema);
        });
        assert.deepEqual(each, c.expect.dues_schemas);
      }
      assert.deepEqual(
        table.batch.columns.map((col) => [col.name, col.dataType]),
        schema,
      );
      assert.equal(table.totalRows, rows.length);
      const got = batchRows(table.batch, undefined, []);
      rows.forEach((want, i) => {
        for (const [key, type] of schema) {
          const value = want[key] ?? null;
          const actual = got[i][key];
          if (isMarker(value, "$number")) assert.equal(actual, Number(value.$number), key);
          else assert.equal(actual, value, `row ${i}, ${key} (${type})`);
        }
      });
    });
  }
});

describe("response vectors", () => {
  for (const c of RESPONSE_CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(c.config ?? DEFAULT_RESPONSE_CONFIG);
      const { status } = c.response;
      const body = caseBody(c);
      if (c.call === "ajax") {
        checkAjax(c, core, status, body);
        return;
      }
      const parse = (numbers) => {
        const args = c.call === "dues" ? c.dues : ANY_TABLE;
        assert.ok(c.call === "dues" || c.call === "table", c.call);
        return parsed(core, c.call, args, status, body, numbers);
      };
      if (c.expect_error) {
        checkError(
          thrown(() => parse()),
          c.expect_error,
        );
        checkError(
          thrown(() => parse("string")),
          c.expect_error,
        );
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
      const policy = new RetryPolicy(c.max_retries ?? 2, c.max_retry_after_ms);
      const { outcome } = c;
      const now = "now" in c ? Date.parse(c.now) : undefined;
      if ("now" in c) assert.ok(Number.isFinite(now), `unparseable now: ${c.now}`);
      const delay =
        "transport" in outcome
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
      const sent = invoke(core, c.call, args).request();
      const follow = () =>
        core.followRedirect(sent, response.status, response.location, c.hops_done);
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
 * A table answer through the path ErpClient.table() takes (`whole`) or
 * streamTable()'s: the streaming decoder fed in small chunks, rows rebuilt
 * from its batches.
 */
function streamed(core, status, body, numbers, whole = true) {
  const { batches, notices, regular } = decodeBody(core, { status, body, numbers, whole });
  const rows = [];
  for (const b of batches) batchRows(b, numbers, rows);
  const last = batches[batches.length - 1];
  return { rows, regular, columns: last ? last.columns.map((c) => c.name) : [], notices };
}

function checkStreamedValue(actual, value, where) {
  if (isMarker(value, "$number"))
    assert.ok(Object.is(actual, Number(value.$number)), `${where}: ${actual}`);
  else if (isMarker(value, "$json")) assert.deepEqual(actual, JSON.parse(value.$json), where);
  else assert.equal(actual, value, where);
}

let regular = 0;
let irregular = 0;
describe("response vectors through the streaming decoder (table())", () => {
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
        checkError(
          thrown(() => streamed(core, status, body)),
          c.expect_error,
        );
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
      // With exact number text too: rows rebuilt from the columns are the
      // core's row path's rows, which table() then needs not read.
      const text = streamed(core, status, body, "string");
      const exact = parsed(core, "table", ANY_TABLE, status, body, "string").rows;
      assert.deepEqual(text.rows, exact, "numbers: 'string'");
      expect.rows.forEach((want, i) => {
        assert.deepEqual(Object.keys(result.rows[i]), Object.keys(want), `row ${i} keys`);
        for (const key of Object.keys(want))
          checkStreamedValue(result.rows[i][key], want[key], `row ${i}, ${key}`);
      });
    });
  }
});

describe("response vectors through streamTable()'s decoder (one schema)", () => {
  for (const c of RESPONSE_CASES.filter((v) => v.call === "table")) {
    test(`${c.file}: ${c.name}`, () => {
      const core = makeCore(c.config ?? DEFAULT_RESPONSE_CONFIG);
      const { status } = c.response;
      const body = caseBody(c);
      if (c.expect_error) {
        checkError(
          thrown(() => streamed(core, status, body, undefined, false)),
          c.expect_error,
        );
        return;
      }
      let result;
      try {
        result = streamed(core, status, body, undefined, false);
      } catch (raw) {
        // A column first seen, or a value of another type, after the first
        // batch (of 2 rows here): refused, naming the column and the row.
        const err = thrown(() => {
          throw raw;
        });
        checkError(err, { kind: "decode", message_contains: ["column `", "row ", "declare"] });
        return;
      }
      const batches = decodeBody(core, { status, body, whole: false }).batches;
      const types = (b) => JSON.stringify(b.columns.map((col) => [col.name, col.dataType]));
      for (const b of batches) assert.equal(types(b), types(batches[0]), "one schema");
      if (!result.regular) return;
      c.expect.rows.forEach((want, i) => {
        for (const key of Object.keys(want))
          checkStreamedValue(result.rows[i][key], want[key], `row ${i}, ${key}`);
      });
    });
  }
});
