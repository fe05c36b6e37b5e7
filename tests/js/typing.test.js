// Column typing through the whole client over loopback, against the
// sandbox answering as a PHP service over MySQL does (`mysqlnd`: money as
// strings "1500.00", INT native, dates and DATETIMEs as strings, zero
// dates): money reads as numbers (its exact text on request), DATETIMEs as
// timestamps, zero dates as null; the `schema` and `inferStrings` options
// of every call, refused before sending when bad; a stream's one schema;
// and the three answer styles giving the same table.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DecodeError, ErpClient, InvalidInputError } from "../../js/src/index.js";
import {
  faultsBase,
  freshKey,
  rawServer,
  SANDBOX_TOKEN,
  startSandbox,
  totalSeen,
} from "./sandbox.js";

const STYLES = ["native", "mysqlnd", "strings"];
const MONEY = /^-?\d+\.\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ZERO_DATE = "0000-00-00";

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

/** The base URL of the sandbox answering in `style`. */
const styled = (style) => `${sandbox.url}/_style/${style}`;

function client(baseUrl = styled("mysqlnd"), options = {}) {
  return new ErpClient({
    baseUrl,
    project: "demo",
    accessToken: SANDBOX_TOKEN,
    companyId: 1,
    yearId: 2025,
    maxRetries: 0,
    ...options,
  });
}

/** The `data` rows exactly as the service sent them (a plain JSON.parse). */
async function sent(baseUrl, table) {
  const res = await fetch(`${baseUrl}/apis/dataapi.php`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `req=getdata&project=demo&accesstoken=${SANDBOX_TOKEN}&yearid=2025&compid=1&table=${table}`,
  });
  const parsed = await res.json();
  assert.equal(parsed.status, "success");
  return parsed.data;
}

async function collect(iterable) {
  const rows = [];
  for await (const batch of iterable) rows.push(...batch);
  return rows;
}

/** Microseconds since 1970-01-01 of a `YYYY-MM-DD HH:MM:SS[.ffffff]` text (no time zone). */
function micros(text) {
  const [date, time] = text.split(" ");
  const [whole, frac = ""] = time.split(".");
  const ms = Date.parse(`${date}T${whole}Z`);
  return BigInt(ms) * 1000n + BigInt(frac.padEnd(6, "0") || "0");
}

describe("a mysqlnd answer (money as strings)", () => {
  let raw;
  let table;
  let text;
  before(async () => {
    raw = await sent(styled("mysqlnd"), "sales_invoice");
    table = await client().table("sales_invoice");
    text = await client().table("sales_invoice", { numbers: "string" });
  });

  test("the service really sent money as strings, dates and DATETIMEs as text, zero dates", () => {
    assert.ok(raw.length > 0);
    for (const row of raw) {
      assert.match(row.amount, MONEY);
      assert.equal(typeof row.items, "number");
      assert.match(row.posted_at, DATETIME);
      assert.match(row.cleared_on, DATE);
    }
    assert.ok(
      raw.some((r) => r.cleared_on === ZERO_DATE),
      "some zero dates",
    );
    assert.ok(
      raw.some((r) => r.cleared_on !== ZERO_DATE),
      "some dates",
    );
  });

  test("\"1500.00\" is a number in rows, its exact text with numbers: 'string'", () => {
    assert.equal(table.schema.amount, table.columns().amount.dataType);
    assert.match(table.schema.amount, /^decimal\(\d+,2\)$/);
    raw.forEach((want, i) => {
      for (const key of ["amount", "tax", "total"]) {
        assert.equal(table.rows[i][key], Number(want[key]), `${key} of row ${i}`);
        assert.equal(text.rows[i][key], want[key], `${key} of row ${i}, as sent`);
      }
      assert.equal(table.rows[i].items, want.items);
      assert.equal(text.rows[i].items, String(want.items));
    });
    const cols = table.columns();
    assert.equal(cols.amount.type, "float64");
    assert.equal(cols.amount.scale, 2);
    assert.deepEqual(
      [...cols.amount.values],
      raw.map((r) => Number(r.amount)),
    );
    assert.equal(text.columns().amount.type, "decimal");
    assert.deepEqual(
      text.columns().amount.values,
      raw.map((r) => r.amount),
    );
  });

  test("a DATETIME is a timestamp: its text in rows, microseconds in columns()", () => {
    assert.equal(table.schema.posted_at, "timestamp");
    const col = table.columns().posted_at;
    assert.equal(col.type, "timestamp");
    assert.ok(col.values instanceof BigInt64Array);
    raw.forEach((want, i) => {
      assert.equal(table.rows[i].posted_at, want.posted_at);
      assert.equal(col.get(i), want.posted_at);
      assert.equal(col.values[i], micros(want.posted_at));
    });
  });

  test("a zero date is null, in rows and columns()", () => {
    assert.equal(table.schema.cleared_on, "date");
    const col = table.columns().cleared_on;
    raw.forEach((want, i) => {
      const expected = want.cleared_on === ZERO_DATE ? null : want.cleared_on;
      assert.equal(table.rows[i].cleared_on, expected, `row ${i}`);
      assert.equal(col.get(i), expected);
      assert.equal(col.isValid(i), expected !== null);
    });
  });

  test("streamTable gives the same rows (one schema, batch after batch)", async () => {
    assert.deepEqual(
      await collect(client().streamTable("sales_invoice", { batchRows: 7 })),
      table.rows,
    );
    assert.deepEqual(
      await collect(client().streamTable("sales_invoice", { batchRows: 7, numbers: "string" })),
      text.rows,
    );
  });

  test("dues rows are typed too: balances are numbers, exact text on request", async () => {
    const dues = await client().receivables("C001");
    const exact = await client().receivables("C001", { numbers: "string" });
    const rawDues = JSON.parse(dues.raw).data;
    assert.ok(dues.rows.length > 0);
    assert.match(rawDues[0].balance, MONEY, "sent as a string");
    assert.match(dues.schema.balance, /^decimal\(\d+,2\)$/);
    assert.equal(dues.schema.date, "date");
    dues.rows.forEach((row, i) => {
      assert.equal(row.balance, Number(rawDues[i].balance));
      assert.equal(exact.rows[i].balance, rawDues[i].balance);
      assert.equal(row.date, rawDues[i].date);
    });
  });
});

describe("schema and inferStrings", () => {
  const SCHEMA = {
    amount: "string",
    items: "decimal(10,2)",
    posted_at: "string",
    cleared_on: "timestamp",
  };

  function checkDeclared(rows, raw) {
    raw.forEach((want, i) => {
      const row = rows[i];
      assert.equal(row.amount, want.amount, "declared string: the text as sent");
      assert.equal(row.items, want.items, "declared decimal: a number");
      assert.equal(row.posted_at, want.posted_at);
      assert.equal(
        row.cleared_on,
        want.cleared_on === ZERO_DATE ? null : `${want.cleared_on} 00:00:00`,
      );
      assert.equal(row.tax, Number(want.tax), "undeclared: typed by the rule");
    });
  }

  test("table(): declared types replace the rule for their columns", async () => {
    const raw = await sent(styled("mysqlnd"), "sales_invoice");
    const table = await client().table("sales_invoice", { schema: SCHEMA });
    assert.deepEqual(
      [table.schema.amount, table.schema.items, table.schema.posted_at, table.schema.cleared_on],
      ["string", "decimal(10,2)", "string", "timestamp"],
    );
    checkDeclared(table.rows, raw);
    const text = await client().table("sales_invoice", { schema: SCHEMA, numbers: "string" });
    raw.forEach((want, i) => {
      assert.equal(text.rows[i].items, String(want.items), "the text as sent");
    });
    const items = table.columns().items;
    assert.deepEqual([items.type, items.precision, items.scale], ["float64", 10, 2]);
  });

  test("streamTable(): the same, in every batch", async () => {
    const raw = await sent(styled("mysqlnd"), "sales_invoice");
    checkDeclared(
      await collect(client().streamTable("sales_invoice", { schema: SCHEMA, batchRows: 6 })),
      raw,
    );
  });

  test("inferStrings: false keeps every string a string; JSON numbers are still typed", async () => {
    const raw = await sent(styled("mysqlnd"), "sales_invoice");
    const table = await client().table("sales_invoice", { inferStrings: false });
    const streamed = await collect(
      client().streamTable("sales_invoice", { inferStrings: false, batchRows: 9 }),
    );
    for (const rows of [table.rows, streamed]) {
      raw.forEach((want, i) => {
        for (const key of ["amount", "date", "posted_at", "cleared_on"])
          assert.equal(rows[i][key], want[key]);
        assert.equal(rows[i].items, want.items);
      });
    }
    assert.equal(table.schema.amount, "string");
    assert.equal(table.schema.cleared_on, "string");
    assert.equal(table.schema.items, "int");
    // With a declaration, that column is typed all the same.
    const declared = await client().table("sales_invoice", {
      inferStrings: false,
      schema: { amount: "decimal" },
    });
    assert.match(declared.schema.amount, /^decimal\(\d+,2\)$/);
    raw.forEach((want, i) => {
      assert.equal(declared.rows[i].amount, Number(want.amount));
    });
  });

  test("dues(), receivables() and payables() take them", async () => {
    const c = client();
    const raw = JSON.parse((await c.receivables("C001")).raw).data;
    const untyped = await c.receivables("C001", { inferStrings: false });
    const declared = await c.dues({
      acid: "C001",
      kind: "RECEIPT",
      schema: { balance: "string", amount: "decimal(20,4)" },
    });
    raw.forEach((want, i) => {
      assert.equal(untyped.rows[i].balance, want.balance);
      assert.equal(declared.rows[i].balance, want.balance);
      assert.equal(declared.rows[i].amount, Number(want.amount));
    });
    assert.equal(declared.schema.amount, "decimal(20,4)");
    const payables = await c.payables("S001", { schema: { balance: "string" } });
    assert.ok(payables.rows.length > 0);
    for (const row of payables.rows) assert.match(row.balance, MONEY);
  });

  test("a value its declared type cannot take is a DecodeError naming the column and the row", async () => {
    await assert.rejects(
      client().table("sales_invoice", { schema: { customer: "int" } }),
      (err) => {
        assert.ok(err instanceof DecodeError, `${err.name}: ${err.message}`);
        assert.match(err.message, /`customer`/);
        assert.match(err.message, /row 1\b/);
        return true;
      },
    );
    await assert.rejects(
      collect(client().streamTable("account", { schema: { acid: "date" } })),
      (err) => {
        assert.ok(err instanceof DecodeError, `${err.name}: ${err.message}`);
        assert.match(err.message, /`acid`, row 1\b/);
        assert.equal(err.rowsReceived, 0);
        return true;
      },
    );
  });
});

describe("bad typing options are refused, and nothing is sent", () => {
  const CALLS = {
    table: (c, o) => c.table("sales_invoice", o),
    // (streamTable refuses its options when called, as it does batchRows.)
    streamTable: async (c, o) => collect(c.streamTable("sales_invoice", o)),
    dues: (c, o) => c.dues({ acid: "C001", kind: "RECEIPT", ...o }),
    receivables: (c, o) => c.receivables("C001", o),
    payables: (c, o) => c.payables("S001", o),
  };
  const BAD = [
    [{ schema: { amount: "money" } }, 'schema["amount"]', /unknown type "money"/],
    [{ schema: { amount: "decimal(39,2)" } }, 'schema["amount"]', /precision of 1 to 38/],
    [{ schema: { amount: "decimal(2,3)" } }, 'schema["amount"]', /scale/],
    [{ schema: { " ": "int" } }, "schema", /blank/],
    [{ schema: { "a\u0000": "int" } }, 'schema["a\\0"]', /control character/],
    [{ schema: { amount: 14 } }, "schema", /column "amount".*got a number/],
    [{ schema: { amount: null } }, "schema", /got null/],
    [{ schema: "decimal" }, "schema", /plain object/],
    [{ schema: ["amount"] }, "schema", /got an array/],
    [{ schema: new Map([["amount", "int"]]) }, "schema", /plain object/],
    [{ schema: 7 }, "schema", /got a number/],
    [{ inferStrings: "no" }, "inferStrings", /boolean, got a string/],
    [{ inferStrings: 0 }, "inferStrings", /boolean/],
  ];

  for (const [name, call] of Object.entries(CALLS)) {
    test(name, async () => {
      for (const [options, field, reason] of BAD) {
        const key = freshKey("typing");
        const before = await totalSeen(sandbox.url);
        const c = client(faultsBase(sandbox.url, "pass", key));
        if (name === "streamTable")
          assert.throws(() => c.streamTable("sales_invoice", options), InvalidInputError);
        await assert.rejects(call(c, options), (err) => {
          assert.ok(
            err instanceof InvalidInputError,
            `${JSON.stringify(options)}: ${err.name}: ${err.message}`,
          );
          assert.equal(err.field, field, err.message);
          assert.match(err.reason, reason);
          assert.ok(err.message.includes(field), err.message);
          return true;
        });
        assert.equal(
          await totalSeen(sandbox.url),
          before,
          `${name} ${JSON.stringify(options)}: something was sent`,
        );
      }
      // The same call with good options goes out (the check is not a blanket refusal).
      const before = await totalSeen(sandbox.url);
      await call(client(), {
        schema: { amount: "decimal(14,2)", acid: "string" },
        inferStrings: true,
      });
      assert.ok((await totalSeen(sandbox.url)) > before);
    });
  }

  test("null and undefined mean none", async () => {
    const plain = await client().table("account");
    for (const o of [
      { schema: null, inferStrings: null },
      { schema: undefined, inferStrings: undefined },
      { schema: {} },
    ]) {
      assert.deepEqual((await client().table("account", o)).rows, plain.rows);
    }
  });
});

describe("a stream's one schema", () => {
  /** A server that answers every request with `body`, over loopback. */
  async function serving(body) {
    return rawServer((socket) => {
      socket.once("data", () => {
        socket.end(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    });
  }

  test("a later value that does not fit the first batch's type: a DecodeError naming column and row", async () => {
    const rows = [
      ...Array.from({ length: 4 }, (_, i) => `{"no":"INV-${i}","amount":"${i + 1}00.50"}`),
      '{"no":"INV-4","amount":"n/a"}',
      '{"no":"INV-5","amount":"7.00"}',
    ];
    const server = await serving(`{"status":"success","data":[${rows.join(",")}]}`);
    try {
      const c = client(server.url, { timeoutMs: 5000 });
      const got = [];
      await assert.rejects(
        (async () => {
          for await (const batch of c.streamTable("t", { batchRows: 2 })) got.push(...batch);
        })(),
        (err) => {
          assert.ok(err instanceof DecodeError, `${err.name}: ${err.message}`);
          assert.match(err.message, /column `amount`, row 5\b/);
          assert.match(err.message, /"n\/a"/);
          assert.match(err.message, /decimal\(38,2\)/);
          assert.match(err.message, /declare/);
          assert.ok(err.rowsReceived >= 4, String(err.rowsReceived));
          return true;
        },
      );
      assert.deepEqual(
        got.map((r) => r.amount),
        [100.5, 200.5, 300.5, 400.5],
        "the batches before it",
      );
      // table() decides over the whole table instead: a string column.
      const table = await c.table("t");
      assert.equal(table.schema.amount, "string");
      assert.deepEqual(
        table.rows.map((r) => r.amount),
        ["100.50", "200.50", "300.50", "400.50", "n/a", "7.00"],
      );
      // Declared as a string, the stream takes it too.
      const declared = await collect(
        c.streamTable("t", { batchRows: 2, schema: { amount: "string" } }),
      );
      assert.deepEqual(
        declared.map((r) => r.amount),
        table.rows.map((r) => r.amount),
      );
    } finally {
      await server.close();
    }
  });

  test("a column first seen after the first batch: a DecodeError naming it and its row", async () => {
    const server = await serving('{"status":"success","data":[{"a":1},{"a":2},{"a":3,"b":"x"}]}');
    try {
      const c = client(server.url, { timeoutMs: 5000 });
      await assert.rejects(collect(c.streamTable("t", { batchRows: 2 })), (err) => {
        assert.ok(err instanceof DecodeError, `${err.name}: ${err.message}`);
        assert.match(err.message, /column `b` first appears in row 3/);
        return true;
      });
      const rows = await collect(c.streamTable("t", { batchRows: 2, schema: { b: "string" } }));
      assert.deepEqual(rows, [
        { a: 1, b: null },
        { a: 2, b: null },
        { a: 3, b: "x" },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("answer styles", () => {
  test("native, mysqlnd and strings give sales_invoice the same column types and values", async () => {
    const tables = {};
    for (const style of STYLES) {
      const c = client(styled(style));
      tables[style] = {
        raw: await sent(styled(style), "sales_invoice"),
        table: await c.table("sales_invoice"),
        text: await c.table("sales_invoice", { numbers: "string" }),
        streamed: await collect(c.streamTable("sales_invoice", { batchRows: 8 })),
      };
    }
    // The styles really differ on the wire.
    const first = (style) => tables[style].raw[0];
    assert.equal(typeof first("native").amount, "number");
    assert.equal(typeof first("mysqlnd").amount, "string");
    assert.equal(typeof first("mysqlnd").items, "number");
    assert.equal(typeof first("strings").items, "string");
    assert.equal(typeof first("mysqlnd").compid, "number");
    assert.equal(typeof first("strings").yearid, "string");
    const base = tables.mysqlnd;
    assert.deepEqual(base.table.columnNames, [
      "compid",
      "yearid",
      "invoice_no",
      "date",
      "due_date",
      "customer",
      "customer_name",
      "amount",
      "tax",
      "total",
      "currency",
      "items",
      "posted_at",
      "cleared_on",
      "remarks",
    ]);
    assert.deepEqual(Object.values(base.table.schema), [
      "int",
      "int",
      "string",
      "date",
      "date",
      "string",
      "string",
      "decimal(38,2)",
      "decimal(38,2)",
      "decimal(38,2)",
      "string",
      "int",
      "timestamp",
      "date",
      "string",
    ]);
    for (const style of ["native", "strings"]) {
      const t = tables[style];
      assert.deepEqual(t.table.schema, base.table.schema, `${style}: types`);
      assert.deepEqual(t.table.rows, base.table.rows, `${style}: rows`);
      assert.deepEqual(t.text.rows, base.text.rows, `${style}: exact text`);
      assert.deepEqual(t.streamed, base.table.rows, `${style}: streamed rows`);
      const cols = t.table.columns();
      for (const [name, col] of Object.entries(base.table.columns())) {
        assert.equal(cols[name].type, col.type, `${style}: ${name}`);
        assert.deepEqual(cols[name].values, col.values, `${style}: ${name} values`);
        assert.deepEqual(cols[name].validity, col.validity, `${style}: ${name} validity`);
      }
    }
  });
});
