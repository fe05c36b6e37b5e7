// Numbers as JS numbers (as JSON.parse gives them) or as their exact text,
// and rows that do not all have the same keys, through the whole client
// over loopback.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { ErpClient } from "../../js/src/index.js";

const TOKEN = "fake-token-for-tests";
let server;
let url;
let body;

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

function client() {
  return new ErpClient({
    baseUrl: url,
    project: "demo",
    accessToken: TOKEN,
    companyId: 1,
    yearId: 2025,
  });
}

const BIG = "9007199254740993"; // 2^53 + 1: no double holds it

describe("numbers", () => {
  const ROWS = [
    `{"id":${BIG},"small":7,"amount":1234.50,"rate":0.1,"tiny":1e-7,"neg":-0.0,"huge":123456789012345678901234567890}`,
    `{"id":1,"small":-8,"amount":0.00,"rate":2.5E+3,"tiny":3,"neg":1.5,"huge":1}`,
  ];
  const BODY = `{"status":"success","data":[${ROWS.join(",")}]}`;

  test("default: exactly what JSON.parse gives, large integers rounded the same way", async () => {
    body = BODY;
    const table = await client().table("t");
    const expected = JSON.parse(BODY).data;
    assert.equal(table.rows.length, 2);
    table.rows.forEach((row, i) => {
      assert.deepEqual(Object.keys(row), Object.keys(expected[i]));
      for (const key of Object.keys(row)) {
        assert.ok(
          Object.is(row[key], expected[i][key]),
          `${key}: ${row[key]} vs ${expected[i][key]}`,
        );
      }
    });
    assert.equal(table.rows[0].id, 9007199254740992, "rounded like JSON.parse");
    assert.ok(Object.is(table.rows[0].neg, -0), "-0 keeps its sign");
  });

  test("numbers: 'string' keeps every number's exact text", async () => {
    body = BODY;
    const table = await client().table("t", { numbers: "string" });
    assert.deepEqual(table.rows[0], {
      id: BIG,
      small: "7",
      amount: "1234.50",
      rate: "0.1",
      tiny: "1e-7",
      neg: "-0.0",
      huge: "123456789012345678901234567890",
    });
    assert.equal(table.rows[1].rate, "2.5E+3");
  });

  test("columns(): integers beyond 32 bits are an exact BigInt64Array", async () => {
    body = BODY;
    const cols = (await client().table("t")).columns();
    assert.equal(cols.id.type, "int64");
    assert.ok(cols.id.values instanceof BigInt64Array);
    assert.equal(cols.id.values[0], BigInt(BIG));
    assert.equal(cols.small.type, "int32");
    assert.deepEqual([...cols.small.values], [7, -8]);
    assert.equal(cols.amount.type, "float64");
    assert.deepEqual([...cols.amount.values], [1234.5, 0]);
  });

  test("columns(): get() and toArray() give decimals as rows do, integers as their column holds them", async () => {
    body = BODY;
    for (const numbers of ["number", "string"]) {
      const table = await client().table("t", { numbers });
      const cols = table.columns();
      assert.deepEqual(
        cols.amount.toArray(),
        table.rows.map((r) => r.amount),
        numbers,
      );
      assert.deepEqual(cols.small.toArray(), [7, -8], numbers);
      assert.deepEqual(cols.id.toArray(), [BigInt(BIG), 1n], numbers);
      assert.equal(cols.id.get(0), BigInt(BIG), numbers);
    }
  });

  test("dues: numbers too", async () => {
    body = `{"status":"success","data":[{"doc_no":"INV-1","balance":1034.50,"n":${BIG}}]}`;
    const dues = await client().receivables("C001");
    assert.equal(dues.rows[0].balance, 1034.5);
    const exact = await client().receivables("C001", { numbers: "string" });
    assert.deepEqual(exact.rows[0], { doc_no: "INV-1", balance: "1034.50", n: BIG });
  });
});

describe("rows that differ in their keys", () => {
  test("table() rows keep each row's own keys and order (not the union)", async () => {
    body =
      '{"status":"success","data":[{"a":1,"b":"x"},{"b":"y","c":null},{"d":[1,{"e":2}]},{"a":2,"a":3}]}';
    const table = await client().table("t");
    assert.deepEqual(table.rows, JSON.parse(body).data);
    assert.deepEqual(Object.keys(table.rows[1]), ["b", "c"]);
    assert.deepEqual(table.columnNames, ["a", "b", "c", "d"]);
    const cols = table.columns();
    assert.deepEqual(cols.a.toArray(), [1, null, null, 3]);
    assert.deepEqual(cols.d.toArray(), [null, null, [1, { e: 2 }], null]);
  });

  test("an ajax.php answer's toTable() has its rows, each with its own keys", async () => {
    body = '{"status":"success","data":[{"a":"1.50","b":1},{"b":2,"a":"2.25","c":"x"}]}';
    for (const numbers of ["number", "string"]) {
      const answer = await client().ajax("getduesSumm", {}, { numbers });
      const table = answer.toTable();
      assert.deepEqual(table.rows, answer.rows, numbers);
      assert.deepEqual(Object.keys(table.rows[0]), ["a", "b"]);
      assert.deepEqual(Object.keys(table.rows[1]), ["b", "a", "c"]);
      assert.deepEqual(JSON.parse(JSON.stringify(table)).rows, answer.rows);
      assert.deepEqual(table.columns().c.toArray(), [null, "x"]);
    }
  });

  test("a body of many megabytes whose last row differs: every row exactly as sent", async () => {
    // The client keeps such a body in segments (8 MiB each) until it knows
    // whether the rows had one shape; these rows span several segments.
    const rows = Array.from({ length: 120_000 }, (_, i) => ({
      id: i,
      name: `customer ${i} ${"x".repeat(i % 50)}`,
      amount: i / 4,
    }));
    rows.push({ amount: -1, id: 120_000 });
    body = JSON.stringify({ status: "success", data: rows });
    assert.ok(body.length > 8 * 2 ** 20, "more than one segment");
    const table = await client().table("t");
    assert.equal(table.length, rows.length);
    assert.deepEqual(table.rows, rows);
    assert.deepEqual(Object.keys(table.rows.at(-1)), ["amount", "id"]);
  });

  test("rows that stop being alike deep in a body: every row as sent, however the body ends", async () => {
    // The client keeps of a body only what it may read again: while the
    // rows are alike, the last one begun. These bodies turn irregular far
    // past the first chunk, in each way a row can differ, and end in each
    // way an envelope can go on after its rows.
    const alike = (from, n) =>
      Array.from({ length: n }, (_, k) => ({
        id: from + k,
        name: `n${from + k}`,
        amount: (from + k) / 4,
      }));
    const odd = [
      { name: "reordered", id: -1, amount: 1 },
      { id: -2, name: "no amount" },
      { id: -3, name: "extra", amount: 2, extra: "x" },
      { id: -4, name: "negative zero", amount: "-0" },
      { 2: "two", 1: "one", id: -5, name: "integer keys", amount: 3 },
      { id: -6, name: "own __proto__", amount: 4, ["__proto__"]: { x: 1 } },
    ];
    const rows = [...alike(0, 6_000), ...odd.slice(0, 3), ...alike(6_000, 3_000), ...odd.slice(3)];
    const text = (data) => JSON.stringify(data).replace('"amount":"-0"', '"amount":-0.0');
    const cases = {
      "the envelope ends": `{"status":"success","data":${text(rows)}}`,
      "status and a message follow": `{"data":${text(rows)},"status":"success","message":"ok"}`,
      "data keyed by row number": `{"status":"success","data":{${rows.map((r, i) => `"${i}":${text(r)}`).join(",")}}}`,
    };
    for (const [name, sent] of Object.entries(cases)) {
      body = sent;
      const parsed = JSON.parse(sent).data;
      const expected = Array.isArray(parsed) ? parsed : Object.values(parsed);
      const table = await client().table("t");
      assert.equal(table.length, expected.length, name);
      table.rows.forEach((row, i) => {
        assert.deepEqual(Object.keys(row), Object.keys(expected[i]), `${name}: row ${i}'s keys`);
        for (const key of Object.keys(row)) {
          assert.ok(
            Object.is(row[key], expected[i][key]) ||
              (typeof row[key] === "object" &&
                JSON.stringify(row[key]) === JSON.stringify(expected[i][key])),
            `${name}: row ${i}, ${key}`,
          );
        }
      });
    }
    // A second `data` field after them fails the answer, whichever holds
    // more rows: none of them is taken.
    body = `{"status":"success","data":${text(rows)},"data":[{"a":1},{"b":2,"a":null}]}`;
    await assert.rejects(
      client().table("t"),
      (e) => e.kind === "decode" && e.message.includes("two `data` fields"),
    );
  });

  test("a key named __proto__ is an own property, as with JSON.parse", async () => {
    body = '{"status":"success","data":[{"__proto__":{"x":1},"b":2},{"__proto__":{"x":2},"b":3}]}';
    const table = await client().table("t");
    assert.deepEqual(table.rows, JSON.parse(body).data);
    assert.equal(Object.getPrototypeOf(table.rows[0]), Object.prototype);
    assert.ok(Object.hasOwn(table.rows[1], "__proto__"));
    // The columns too (a plain assignment set the object's prototype and
    // dropped the column), and so the Arrow table made from them.
    const columns = table.columns();
    assert.deepEqual(Object.keys(columns), ["__proto__", "b"]);
    assert.equal(Object.getPrototypeOf(columns), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(columns, "__proto__").value.toArray(), [
      { x: 1 },
      { x: 2 },
    ]);
    assert.deepEqual(
      (await table.toArrow()).schema.fields.map((f) => f.name),
      ["__proto__", "b"],
    );
  });

  test("values of mixed types in one column: a string column of each value's text as sent", async () => {
    body = '{"status":"success","data":[{"v":1},{"v":"two"},{"v":true},{"v":null},{"v":2.50}]}';
    const expected = ["1", "two", "true", null, "2.50"];
    for (const numbers of ["number", "string"]) {
      const table = await client().table("t", { numbers });
      assert.deepEqual(
        table.rows.map((r) => r.v),
        expected,
      );
      assert.equal(table.columns().v.dataType, "string");
      assert.deepEqual(table.columns().v.toArray(), expected);
    }
    const streamed = [];
    for await (const batch of client().streamTable("t", { batchRows: 10 })) streamed.push(...batch);
    assert.deepEqual(
      streamed.map((r) => r.v),
      expected,
    );
  });

  test("with a nested value among them: a JSON column, each value as JSON.parse gives it", async () => {
    body = '{"status":"success","data":[{"v":{"a":1}},{"v":"two"},{"v":[3]},{"v":2.5},{"v":null}]}';
    const table = await client().table("t");
    assert.deepEqual(table.rows, JSON.parse(body).data);
    assert.equal(table.columns().v.dataType, "json");
    assert.deepEqual(table.columns().v.toArray(), [{ a: 1 }, "two", [3], 2.5, null]);
    const text = await client().table("t", { numbers: "string" });
    assert.equal(text.rows[3].v, "2.5", "a number in a JSON column as its text");
  });
});

describe("runtimes that forbid code generation (edge workers)", () => {
  test("rows are built without new Function, the same as JSON.parse gives", async () => {
    body =
      '{"status":"success","data":[{"a":1,"__proto__":{"x":1},"b":"x","d":"2025-01-02"},{"a":2.5,"__proto__":null,"b":null,"d":"2025-01-03"}]}';
    const script = `
      import { ErpClient } from ${JSON.stringify(new URL("../../js/src/index.js", import.meta.url).href)};
      let generated = true;
      try { new Function("return 1"); } catch { generated = false; }
      const client = new ErpClient({ baseUrl: ${JSON.stringify(url)}, project: "demo",
        accessToken: "fake-token-for-tests", companyId: 1, yearId: 2025 });
      const table = await client.table("t");
      console.log(JSON.stringify({ generated, rows: table.rows, proto: Object.getPrototypeOf(table.rows[0]) === Object.prototype }));
    `;
    // The child runs while this process serves it, so spawn asynchronously.
    const child = spawn(process.execPath, [
      "--disallow-code-generation-from-strings",
      "--input-type=module",
      "-e",
      script,
    ]);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(code, 0, err);
    const result = JSON.parse(out);
    assert.equal(result.generated, false, "code generation was not disallowed");
    assert.deepEqual(result.rows, JSON.parse(body).data);
    assert.ok(result.proto);
  });
});
