// streamTable and the typed columns of table(), against a sandbox serving a
// large sales_invoice (streamed by the sandbox in 64 KiB chunks).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Column, DecodeError, ErpClient, Table, TransportError } from "../../js/src/index.js";
import {
  faultUrl,
  freshKey,
  rawServer,
  SANDBOX_TOKEN,
  seenBySandbox,
  startSandbox,
} from "./sandbox.js";

const ROWS = 30_000;
let sandbox;
before(async () => {
  sandbox = await startSandbox(["--rows", String(ROWS)]);
});
after(() => sandbox?.stop());

function client(baseUrl = sandbox.url, options = {}) {
  return new ErpClient({
    baseUrl,
    project: "demo",
    accessToken: SANDBOX_TOKEN,
    companyId: 1,
    yearId: 2025,
    ...options,
  });
}

async function collect(iterable) {
  const batches = [];
  for await (const batch of iterable) batches.push(batch);
  return batches;
}

describe("streamTable", () => {
  test("batches of batchRows rows that add up to the table", async () => {
    const c = client();
    const batches = await collect(c.streamTable("sales_invoice", { batchRows: 4096 }));
    assert.equal(batches.length, Math.ceil(ROWS / 4096));
    assert.ok(batches.slice(0, -1).every((b) => b.length === 4096));
    const rows = batches.flat();
    assert.equal(rows.length, ROWS);
    const whole = await c.table("sales_invoice");
    assert.deepEqual(rows, whole.rows);
  });

  test("by default a batch holds the core's stream batch of rows, not table()'s", async () => {
    const { batchRows, streamBatchRows } = ErpClient.limits.defaults;
    assert.equal(streamBatchRows, 4096);
    assert.ok(streamBatchRows < batchRows);
    const batches = await collect(client().streamTable("sales_invoice"));
    assert.deepEqual(
      batches.map((b) => b.length),
      [...Array(Math.floor(ROWS / streamBatchRows)).fill(streamBatchRows), ROWS % streamBatchRows],
    );
  });

  test("a batch arrives before the body is complete", async () => {
    // The server sends 5 rows and then waits until the test has seen them
    // as a batch: a client that waited for the whole body would hang.
    let release;
    const released = new Promise((resolve) => {
      release = resolve;
    });
    const row = (i) => `{"id":${i},"name":"row ${i}"}`;
    const server = await rawServer((socket) => {
      socket.once("data", async () => {
        socket.write(
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
        );
        socket.write(`{"status":"success","data":[${[0, 1, 2, 3, 4].map(row).join(",")},`);
        await released;
        socket.end(`${[5, 6, 7].map(row).join(",")}]}`);
      });
    });
    try {
      const batches = [];
      for await (const batch of client(server.url, { timeoutMs: 5000 }).streamTable("t", {
        batchRows: 5,
      })) {
        batches.push(batch);
        release();
      }
      assert.deepEqual(
        batches.map((b) => b.length),
        [5, 3],
      );
      assert.deepEqual(batches[0][4], { id: 4, name: "row 4" });
    } finally {
      await server.close();
    }
  });

  test("breaking out of the loop ends the download", async () => {
    let seen = 0;
    for await (const batch of client().streamTable("sales_invoice", { batchRows: 1000 })) {
      seen += batch.length;
      if (seen >= 2000) break;
    }
    assert.equal(seen, 2000);
  });

  test("a body cut short (clean end) throws after the last complete batch, with the row count", async () => {
    const key = freshKey("cut");
    const c = client(faultUrl(sandbox.url, "truncate-500000", key));
    const got = [];
    await assert.rejects(
      (async () => {
        for await (const batch of c.streamTable("sales_invoice", { batchRows: 1000 }))
          got.push(...batch);
      })(),
      (err) => {
        assert.ok(err instanceof DecodeError, `${err.name}: ${err.message}`);
        assert.match(err.message, /truncated/);
        assert.ok(
          err.rowsReceived >= got.length && err.rowsReceived < ROWS,
          String(err.rowsReceived),
        );
        assert.match(err.message, new RegExp(`${err.rowsReceived} complete rows`));
        return true;
      },
    );
    assert.ok(got.length > 0 && got.length % 1000 === 0, `${got.length} rows delivered`);
    assert.equal(await seenBySandbox(sandbox.url, key, "truncate-1"), 1);
  });

  test("a connection broken mid-body throws a TransportError with the row count", async () => {
    const c = client(faultUrl(sandbox.url, "reset-400000", freshKey("reset")));
    let delivered = 0;
    await assert.rejects(
      (async () => {
        for await (const batch of c.streamTable("sales_invoice", { batchRows: 1000 }))
          delivered += batch.length;
      })(),
      (err) => {
        assert.ok(err instanceof TransportError, `${err.name}: ${err.message}`);
        assert.equal(err.transportKind, "reset");
        assert.ok(err.rowsReceived >= delivered && err.rowsReceived < ROWS);
        return true;
      },
    );
    assert.ok(delivered > 0);
  });

  test("table() on a body cut short is a DecodeError, never fewer rows", async () => {
    const c = client(faultUrl(sandbox.url, "truncate-500000", freshKey("cut")));
    await assert.rejects(
      c.table("sales_invoice"),
      (err) => err instanceof DecodeError && /truncated/.test(err.message),
    );
  });

  test("the stream is retried like a call until its answer starts", async () => {
    const key = freshKey("s503");
    const c = client(faultUrl(sandbox.url, "status-503x1", key));
    const rows = (await collect(c.streamTable("account"))).flat();
    assert.equal(rows.length, 20);
    assert.equal(await seenBySandbox(sandbox.url, key), 2);
  });

  test("numbers: 'string' in streamed rows", async () => {
    const [batch] = await collect(client().streamTable("account", { numbers: "string" }));
    for (const row of batch) assert.match(row.credit_limit, /^\d+\.\d{2}$/);
  });

  test("invalid options throw before sending", () => {
    assert.throws(
      () => client().streamTable("sales_invoice", { batchRows: 0 }),
      (err) => err.field === "batchRows",
    );
    assert.throws(
      () => client().streamTable("sales_invoice", { batchRows: 1_048_577 }),
      (err) => err.field === "batchRows" && /1 to 1048576/.test(err.message),
    );
    assert.throws(
      () => client().streamTable("sales_invoice", { timeoutMs: -1 }),
      (err) => err.field === "timeoutMs",
    );
    assert.throws(
      () => client().streamTable("a b"),
      (err) => err.field === "table",
    );
  });
});

describe("table().columns()", () => {
  let table;
  before(async () => {
    table = await client().table("sales_invoice");
  });

  test("a Table: rows, columnNames, length, notices, iteration", () => {
    assert.ok(table instanceof Table);
    assert.equal(table.length, ROWS);
    assert.equal(table.rows.length, ROWS);
    assert.deepEqual(table.columnNames, [
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
    assert.deepEqual(table.notices, []);
    assert.equal([...table].length, ROWS);
    assert.equal(table.rows, table.rows, "built once");
  });

  test("typed columns agree with the rows", () => {
    const cols = table.columns();
    assert.deepEqual(Object.keys(cols), table.columnNames);
    for (const col of Object.values(cols)) {
      assert.ok(col instanceof Column);
      assert.equal(col.length, ROWS);
    }
    assert.equal(cols.amount.type, "float64");
    assert.ok(cols.amount.values instanceof Float64Array);
    assert.equal(cols.date.type, "date");
    assert.ok(cols.date.values instanceof Int32Array);
    assert.equal(cols.invoice_no.type, "string");
    assert.equal(cols.invoice_no.dictionary, undefined, "unique values are not a dictionary");
    assert.ok(Array.isArray(cols.currency.dictionary), "repeated values are");
    assert.ok(cols.currency.indices instanceof Int32Array);
    assert.ok(cols.customer.dictionary.length <= 12);
    table.rows.forEach((row, i) => {
      for (const name of table.columnNames) {
        assert.equal(cols[name].get(i), row[name], `${name} of row ${i}`);
      }
    });
    assert.equal(cols.currency.dictionary[cols.currency.indices[7]], table.rows[7].currency);
    assert.equal(table.columns(), cols, "built once");
  });

  test("text columns read in any order, and `values` made once", async () => {
    // Exact decimals are text too.
    const exact = await client().table("sales_invoice", { numbers: "string" });
    const cols = exact.columns();
    const rows = exact.rows;
    assert.equal(cols.amount.type, "decimal");
    assert.equal(cols.invoice_no.dictionary, undefined);
    assert.ok(Array.isArray(cols.currency.dictionary));
    const names = ["invoice_no", "amount", "currency", "customer_name", "remarks"];
    for (const name of names) {
      for (let i = ROWS - 1; i >= 0; i -= 1) assert.equal(cols[name].get(i), rows[i][name]);
      const values = cols[name].values;
      assert.deepEqual(
        values,
        rows.map((r) => r[name]),
        name,
      );
      assert.equal(cols[name].values, values, `${name}: made once`);
    }
    assert.ok(Object.keys(cols.invoice_no).includes("values"), "an own, enumerable property");
    assert.ok(
      rows.some((r) => r.remarks === null) && rows.some((r) => r.remarks !== null),
      "remarks has nulls and values",
    );
  });

  test("the same rows as a plain JSON.parse of the body, each value typed by its column", async () => {
    const res = await fetch(`${sandbox.url}/apis/dataapi.php`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `req=getdata&project=demo&accesstoken=${SANDBOX_TOKEN}&yearid=2025&compid=1&table=sales_invoice`,
    });
    const parsed = await res.json();
    // Money sent as "1500.00" is a number; a zero date is null; the rest
    // is what JSON.parse gives.
    const typed = (type, value) => {
      if (value === null) return null;
      if (type === "int" || type.startsWith("decimal")) return Number(value);
      if ((type === "date" || type === "timestamp") && value.startsWith("0000-00-00")) return null;
      return value;
    };
    assert.ok(
      parsed.data.some((r) => typeof r.amount === "string"),
      "money was sent as strings",
    );
    const expected = parsed.data.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typed(table.schema[k], v)])),
    );
    assert.deepEqual(table.rows, expected);
  });
});

describe("streamTable timing", () => {
  test("timeoutMs bounds each wait for the server, not the caller's time per batch", async () => {
    // A limit of a second: the service's own pauses stay well under it
    // even on a loaded machine (300 ms was not always enough there).
    const c = client(undefined, { timeoutMs: 1000 });
    let batches = 0;
    for await (const batch of c.streamTable("sales_invoice", { batchRows: 10_000 })) {
      batches += 1;
      assert.ok(batch.length > 0);
      // A slow consumer: longer than timeoutMs on each batch.
      await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    assert.equal(batches, Math.ceil(ROWS / 10_000));
  });

  test("a server that stalls mid-body still times out", async () => {
    const c = client(faultUrl(sandbox.url, "stall-3000", freshKey("stall")), {
      timeoutMs: 300,
      maxRetries: 0,
    });
    await assert.rejects(
      (async () => {
        for await (const batch of c.streamTable("account")) assert.ok(batch);
      })(),
      (err) => err instanceof TransportError && err.transportKind === "timeout",
    );
  });
});
