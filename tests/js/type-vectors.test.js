// Runs every case of tests/vectors/types.json (column typing: the type and
// canonical values each column gets) through the wasm module, and through
// the public client with an in-memory `fetch`: a whole table as table()
// reads it (types unified over the table), a `stream_batch_rows` case as
// streamTable() does (one schema for every batch).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { batchRows, cellReader } from "../../js/src/columns.js";
import { ErpClient } from "../../js/src/index.js";
import {
  ANY_TABLE,
  checkError,
  decodeBody,
  ERRORS,
  load,
  makeCore,
  parsed,
  thrown,
} from "./vectors.js";

const CASES = load("types");

test("type vectors exist", () => {
  assert.ok(CASES.length >= 30, `${CASES.length} cases`);
  assert.ok(
    CASES.some((c) => "stream_batch_rows" in (c.options ?? {})),
    "stream cases",
  );
  assert.ok(
    CASES.some((c) => "batch_rows" in (c.options ?? {})),
    "whole-table cases in batches",
  );
  assert.ok(
    CASES.some((c) => c.expect_error),
    "error cases",
  );
});

/** A case's options: the typing the client takes, and how it is read. */
function optionsOf(c) {
  const o = c.options ?? {};
  const typing = {};
  if ("schema" in o) typing.schema = o.schema;
  if ("infer_strings" in o) typing.inferStrings = o.infer_strings;
  const stream = "stream_batch_rows" in o;
  return { typing, stream, batchRows: stream ? o.stream_batch_rows : (o.batch_rows ?? 65_536) };
}

const bodyOf = (c) => `{"status":"success","data":${c.data}}`;

/**
 * `text`, a decimal's text as sent (`1.5`, `-20.50`, `1e3`), at `scale`
 * digits after the point, exactly.
 */
function atScale(text, scale) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  assert.ok(m, `not a decimal's text: ${text}`);
  const [, sign, int, frac = "", exp = "0"] = m;
  const shift = Number(exp) - frac.length + scale;
  let unscaled = BigInt(int + frac);
  if (shift >= 0) {
    unscaled *= 10n ** BigInt(shift);
  } else {
    const k = 10n ** BigInt(-shift);
    assert.equal(unscaled % k, 0n, `${text} has more than ${scale} digits after the point`);
    unscaled /= k;
  }
  const digits = unscaled.toString().padStart(scale + 1, "0");
  const shown = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return unscaled === 0n ? shown : sign + shown;
}

/** Row i's value of a wasm batch column as rows have it with `numbers: "string"`. */
function reader(col) {
  const { array, get } = cellReader(col, "string");
  return { get: get ?? ((i) => array[i]) };
}

/** One wasm batch column's rows as the vectors write them (canonical text, null for none). */
function canonical(col, numRows) {
  if (col.type === "json") {
    // The exact JSON text each row was kept as.
    const texts = [];
    for (const { text, offsets } of col.chunks) {
      for (let i = 0; i + 1 < offsets.length; i++)
        texts.push(text.slice(offsets[i], offsets[i + 1]));
    }
    const { get } = reader(col);
    return texts.map((t, i) => (get(i) === null ? null : t));
  }
  const { get } = reader(col);
  const out = [];
  for (let i = 0; i < numRows; i++) {
    const v = get(i);
    if (v === null) out.push(null);
    else if (col.type === "decimal") out.push(atScale(v, col.scale));
    else out.push(String(v));
  }
  return out;
}

/** The columns of a case as `{name: {type, values}}`, from the wasm decoder. */
function decodeCase(c) {
  const { typing, stream, batchRows } = optionsOf(c);
  const core = makeCore();
  const body = new TextEncoder().encode(bodyOf(c));
  const { batches } = decodeBody(core, {
    body,
    batchRows,
    numbers: "string",
    typing,
    whole: !stream,
    chunk: 5,
  });
  if (stream) {
    // One schema: every batch has the same columns of the same types.
    const schema = (b) => b.columns.map((col) => `${col.name}: ${col.dataType}`);
    for (const b of batches)
      assert.deepEqual(schema(b), schema(batches[0]), "one schema for every batch");
  } else {
    assert.equal(batches.length, 1, "a whole table is one batch");
  }
  const out = {};
  for (const [j, first] of (batches[0]?.columns ?? []).entries()) {
    const values = batches.flatMap((b) => canonical(b.columns[j], b.numRows));
    out[first.name] = { type: first.dataType, values };
    if (first.type === "decimal") {
      assert.equal(first.dataType, `decimal(${first.precision},${first.scale})`);
    }
  }
  return out;
}

describe("type vectors through the wasm decoder", () => {
  for (const c of CASES) {
    test(c.name, () => {
      if (c.expect_error) {
        checkError(
          thrown(() => decodeCase(c)),
          c.expect_error,
        );
        return;
      }
      const got = decodeCase(c);
      assert.deepEqual(Object.keys(got).sort(), Object.keys(c.expect.columns).sort(), "columns");
      for (const [name, want] of Object.entries(c.expect.columns)) {
        assert.equal(got[name].type, want.type, `${name}: type`);
        assert.deepEqual(got[name].values, want.values, `${name}: values`);
      }
    });
  }
});

// --- the same cases through ErpClient ----------------------------------------

/** A client whose `fetch` answers every request with `body`, counting them. */
function clientFor(body) {
  const sent = [];
  const client = new ErpClient({
    baseUrl: "https://erp.example.com/",
    project: "demo",
    accessToken: "fake-token-for-tests",
    companyId: 1,
    yearId: 2025,
    maxRetries: 0,
    fetch: async (url) => {
      sent.push(url);
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  return { client, sent };
}

/** What a row holds for a canonical value of a column of `type` (default `numbers`). */
function rowValue(type, text) {
  if (text === null) return null;
  if (type === "int" || type.startsWith("decimal")) return Number(text);
  if (type === "bool") return text === "true";
  if (type === "json") return JSON.parse(text);
  return text;
}

/** Rows of a case through the public client, default numbers and exact text. */
async function clientRows(c, numbers) {
  const { typing, stream, batchRows } = optionsOf(c);
  const { client, sent } = clientFor(bodyOf(c));
  try {
    if (stream) {
      const rows = [];
      for await (const batch of client.streamTable("t", { ...typing, numbers, batchRows }))
        rows.push(...batch);
      return { rows, sent };
    }
    const table = await client.table("t", { ...typing, numbers });
    return { rows: table.rows, table, sent };
  } catch (err) {
    err.sent = sent.length;
    throw err;
  }
}

describe("type vectors through ErpClient (table() and streamTable())", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      if (c.expect_error) {
        const want = c.expect_error;
        await assert.rejects(clientRows(c), (err) => {
          assert.ok(err instanceof ERRORS[want.kind], `${err.name}: ${err.message}`);
          for (const part of want.message_contains)
            assert.ok(err.message.includes(part), `${part} in ${err.message}`);
          // Invalid options are refused before anything is sent.
          if (want.kind === "invalid_input") assert.equal(err.sent, 0, "nothing sent");
          return true;
        });
        return;
      }
      const columns = Object.entries(c.expect.columns);
      const { rows, table } = await clientRows(c);
      const { rows: texts } = await clientRows(c, "string");
      const n = columns[0][1].values.length;
      assert.equal(rows.length, n);
      for (const [name, want] of columns) {
        want.values.forEach((text, i) => {
          const where = `${name}, row ${i}`;
          const actual = rows[i][name] ?? null;
          const expected = rowValue(want.type, text);
          if (want.type === "json") assert.deepEqual(actual, expected, where);
          else assert.ok(Object.is(actual, expected), `${where}: ${actual} vs ${expected}`);
          const exact = texts[i][name] ?? null;
          if (want.type.startsWith("decimal") && text !== null) {
            // The text as sent, the same value as the canonical text.
            const scale = Number(/,(\d+)\)$/.exec(want.type)[1]);
            assert.equal(atScale(exact, scale), text, where);
          } else if (want.type === "int" && text !== null) {
            assert.equal(exact, text, where);
          }
        });
      }
      if (table) {
        const cols = table.columns();
        // table() reads in batches of 65,536 rows: a case decoded in
        // smaller batches may unify to a wider decimal (checked above).
        const sameBatches = !("batch_rows" in (c.options ?? {}));
        for (const [name, want] of columns) {
          if (sameBatches) assert.equal(cols[name].dataType, want.type, `${name}: dataType`);
          want.values.forEach((text, i) => {
            const v = cols[name].get(i);
            if (want.type === "json") assert.deepEqual(v, rowValue("json", text));
            else if (want.type === "int" && typeof v === "bigint") assert.equal(String(v), text);
            else assert.ok(Object.is(v, rowValue(want.type, text)), `${name}[${i}]: ${v}`);
          });
        }
      }
    });
  }
});

test("timestamps and dates read in JS as the core writes them, over the whole range", () => {
  const texts = [
    "0001-01-01 00:00:00",
    "0001-01-01 00:00:00.000001",
    "1600-02-29 12:00:00.5",
    "1684-12-31 23:59:59.999999",
    "1969-12-31 23:59:59.999999",
    "1970-01-01 00:00:00",
    "1970-01-01 00:00:00.000001",
    "2000-02-29 23:59:59",
    "2255-06-05 23:47:34.740992",
    "2262-04-12 00:00:00.25",
    "9999-12-31 23:59:59.999999",
  ];
  const data = texts.map((t) => ({ t, d: t.slice(0, 10) }));
  const body = new TextEncoder().encode(JSON.stringify({ status: "success", data }));
  const core = makeCore();
  const exact = parsed(core, "table", ANY_TABLE, 200, body).rows;
  for (const whole of [true, false]) {
    const { batches } = decodeBody(core, { body, batchRows: 3, whole });
    const rows = batches.flatMap((b) => batchRows(b, undefined, []));
    assert.deepEqual(rows, exact, whole ? "table()" : "streamTable()");
  }
  // The core's canonical text: six digits of fraction unless whole seconds.
  assert.deepEqual(
    exact.map((r) => r.t),
    texts.map((t) => {
      const [whole, frac] = t.split(".");
      return frac === undefined || /^0+$/.test(frac) ? whole : `${whole}.${frac.padEnd(6, "0")}`;
    }),
  );
});
