// The JS client against the real PHP service over MariaDB (tests/php).
// Run by tests/php/run.sh (make test-php), which starts the service and
// sets ERPDATA_PHP_URL. Every test runs against both code paths of the
// service: project "modern" (mysqlnd prepared statements: INT native,
// DECIMAL and dates as strings) and "legacy" (mysqli_query: every value a
// string).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { DecodeError, ErpClient, ServiceError } from "../../js/src/index.js";

const URL_VAR = "ERPDATA_PHP_URL";
const PHP_URL = process.env[URL_VAR];
// Never a silent skip: without the service nothing here was tested.
if (!PHP_URL) {
  throw new Error(
    `${URL_VAR} is not set: run \`make test-php\` (tests/php/run.sh starts the PHP service)`,
  );
}
const TOKEN = "php-test-token-not-secret";
const PROJECTS = ["modern", "legacy"];
/** The tables whose script echoes half the rows, then stops with PHP's error. */
const ECHOED = [
  ["echoed_fatal", "PHP Fatal error: Uncaught Error: Call to undefined function erp_format_row()"],
  ["echoed_memory", "PHP Fatal error: Allowed memory size of 4194304 bytes exhausted"],
  ["echoed_timeout", "PHP Fatal error: Maximum execution time of 1 second exceeded"],
];

function client(project, options = {}) {
  return new ErpClient({
    baseUrl: PHP_URL,
    project,
    accessToken: TOKEN,
    companyId: 1,
    yearId: 2025,
    maxRetries: 0,
    timeoutMs: 20_000,
    ...options,
  });
}

/** What MariaDB itself says: the row count and the exact SUM(column). */
async function expected(table, column, compid = 1, yearid = 2025) {
  const q = new URLSearchParams({ table, column, compid, yearid });
  const res = await fetch(`${PHP_URL}/_test/expected.php?${q}`);
  assert.equal(res.status, 200);
  return res.json();
}

function byAcid(rows) {
  return Object.fromEntries(rows.map((r) => [r.acid, r]));
}

const DAY_MS = 86_400_000;
const days = (text) => Date.parse(`${text}T00:00:00Z`) / DAY_MS;

for (const project of PROJECTS) {
  describe(`project ${project}: the wire`, () => {
    test("GET and POST table fetches give the same rows", async () => {
      const c = client(project);
      const posted = await c.table("sales_invoice");
      const fetched = await c.table("sales_invoice", { method: "GET" });
      const { rows } = await expected("sales_invoice", "amount");
      assert.equal(posted.length, Number(rows));
      assert.equal(posted.length, 40);
      assert.deepEqual(posted.rows, fetched.rows);
      assert.deepEqual(posted.notices, []);
      assert.equal(posted.rows[0].invoice_no, "INV-2025-0001");
      const other = await c.table("sales_invoice", { companyId: 2, yearId: 2024 });
      assert.equal(other.length, 22);
    });

    test("json_encode escapes are decoded", async () => {
      const c = client(project);
      const accounts = byAcid((await c.table("account")).rows);
      assert.equal(accounts.C001.name, "Müller GmbH");
      assert.equal(accounts.C002.name, "A/B Traders");
      assert.equal(accounts.C003.name, 'Café "Zum Löwen"');
      assert.equal(accounts.C007.name, "Tokyo 商事");
      assert.equal(accounts.C010.name, "Emoji Shop \u{1F6D2}");
      const invoices = await c.table("sales_invoice");
      assert.equal(invoices.rows[1].remarks, "Delivered \u2713 \u{1F44D}");
    });

    test("a PHP warning before the JSON is kept as a notice, and the rows parse", async () => {
      const table = await client(project).table("noisy");
      assert.equal(table.notices.length, 1, JSON.stringify(table.notices));
      assert.match(table.notices[0], /Undefined variable \$debug_where/);
      assert.deepEqual(
        table.rows.map((r) => r.label),
        ["first", "zweite Zeile", "third"],
      );
    });

    test("a PHP fatal error page is a DecodeError", async () => {
      await assert.rejects(client(project).table("broken"), (err) => {
        assert.ok(err instanceof DecodeError, `${err?.name}: ${err?.message}`);
        return true;
      });
    });

    test("a PHP error after rows echoed one by one leads the message", async () => {
      const half = Math.floor((await client(project).table("sales_invoice")).rows.length / 2);
      for (const [table, said] of ECHOED) {
        await assert.rejects(client(project).table(table), (err) => {
          assert.ok(err instanceof DecodeError, `${err?.name}: ${err?.message}`);
          // Out of memory, PHP drops what its output buffer held: fewer rows arrive.
          const found = /the service failed after (\d+) complete rows: (.*)/.exec(err.message);
          assert.ok(found?.[2].startsWith(said), err.message);
          const rows = Number(found[1]);
          assert.ok(rows === err.rowsReceived && rows > 0 && rows <= half, err.message);
          assert.ok(rows === half || table === "echoed_memory", err.message);
          assert.ok(err.excerptAt > 1000 && err.excerpt.includes("Fatal error"), err.excerpt);
          return true;
        });
      }
    });

    test("an empty answer names json_encode", async () => {
      await assert.rejects(client(project).table("latin1"), (err) => {
        assert.ok(err instanceof DecodeError, `${err?.name}: ${err?.message}`);
        assert.match(err.message, /the body is empty.*json_encode/);
        return true;
      });
    });

    test("a wrong token, an unknown table and an unknown account are ServiceErrors", async () => {
      await assert.rejects(
        client(project, { accessToken: "wrong-token" }).table("account"),
        (err) => {
          assert.ok(err instanceof ServiceError, `${err?.name}: ${err?.message}`);
          assert.match(err.message, /Invalid access token/);
          return true;
        },
      );
      await assert.rejects(client(project).table("users"), ServiceError);
      await assert.rejects(client(project).receivables("NOPE"), /Unknown account: NOPE/);
    });

    test("dues of an account", async () => {
      const c = client(project);
      const dues = await c.receivables("C001");
      assert.deepEqual(
        dues.rows.map((r) => r.doc_no),
        ["INV-2025-0001", "INV-2025-0014", "INV-2025-0040"],
      );
      assert.equal(Number(dues.rows[0].balance), 1650);
      assert.deepEqual(
        (await c.payables("S001")).rows.map((r) => r.doc_no),
        ["BILL-2025-0001", "BILL-2025-0009", "BILL-2025-0017"],
      );
      assert.deepEqual((await c.receivables("C012")).rows, []);
    });

    test("the id '007' stays the string \"007\"", async () => {
      const c = client(project);
      const bond = (await c.table("account")).rows.filter((r) => r.name === "Bond Supplies");
      assert.deepEqual(
        bond.map((r) => r.acid),
        ["007"],
      );
      const dues = await c.receivables("007");
      assert.equal(dues.acid, "007");
      assert.deepEqual(
        dues.rows.map((r) => r.doc_no),
        ["INV-2025-0013", "INV-2025-0026"],
      );
      const customers = new Set((await c.table("sales_invoice")).rows.map((r) => r.customer));
      assert.ok(customers.has("007"));
    });
  });

  describe(`project ${project}: typing`, () => {
    test("rows: money a number (exact text on request), dates as sent, zero dates null", async () => {
      const c = client(project);
      const t = await c.table("sales_invoice");
      const first = t.rows[0];
      assert.equal(first.amount, 1500);
      assert.equal(first.items, 8);
      assert.equal(first.id, 1);
      assert.equal(first.date, "2025-01-01");
      assert.equal(first.posted_at, "2025-01-01 09:22:53");
      assert.equal(t.rows[3].cleared_on, null); // '0000-00-00'
      assert.equal(t.rows[39].posted_at, null); // '0000-00-00 00:00:00'
      assert.equal(t.rows[5].remarks, null); // NULL
      assert.equal(t.rows[4].remarks, ""); // an empty string stays one
      const exact = await c.table("sales_invoice", { numbers: "string" });
      assert.equal(exact.rows[0].amount, "1500.00");
      assert.equal(exact.rows[9].amount, "-250.00");
    });

    test("rows: the SQL sum from the exact texts", async () => {
      const exact = await client(project).table("sales_invoice", { numbers: "string" });
      const cents = exact.rows.reduce(
        (sum, r) => sum + BigInt(String(r.amount).replace(".", "")),
        0n,
      );
      const { sum } = await expected("sales_invoice", "amount");
      assert.equal(cents, BigInt(sum.replace(".", "")));
    });

    test("columns(): ints typed arrays, dates Int32Array of days", async () => {
      const cols = (await client(project).table("sales_invoice")).columns();
      assert.ok(
        cols.items.values instanceof Int32Array || cols.items.values instanceof BigInt64Array,
        `items: ${cols.items.type}`,
      );
      assert.equal(Number(cols.items.values[0]), 8);
      assert.equal(cols.date.type, "date");
      assert.ok(cols.date.values instanceof Int32Array);
      assert.equal(cols.date.values[0], days("2025-01-01"));
      assert.equal(cols.cleared_on.type, "date", `cleared_on: ${cols.cleared_on.type}`);
      assert.equal(cols.cleared_on.isValid(3), false);
      assert.ok(
        cols.posted_at.values instanceof BigInt64Array,
        `posted_at: ${cols.posted_at.type}`,
      );
      const seconds = days("2025-01-01") * 86_400 + 9 * 3600 + 22 * 60 + 53;
      assert.equal(cols.posted_at.values[0], BigInt(seconds) * 1_000_000n);
      assert.equal(cols.posted_at.isValid(39), false);
      assert.equal(cols.amount.type, "float64", `amount: ${cols.amount.type}`);
      assert.equal(cols.amount.values[0], 1500);
    });

    test("account: leading-zero id a string, ints numbers, zero datetime null", async () => {
      const t = await client(project).table("account");
      const cols = t.columns();
      assert.equal(cols.acid.type, "string");
      assert.ok(
        cols.active.type === "int32" || cols.active.type === "int64",
        `active: ${cols.active.type}`,
      );
      const accounts = byAcid(t.rows);
      assert.equal(accounts["007"].acid, "007");
      assert.equal(accounts.C005.active, 0);
      assert.equal(accounts.C001.credit_days, 30);
      assert.equal(accounts.C001.updated_at, "2025-04-01 13:45:00.123456");
      // A whole second of DATETIME(6): the fraction's six zeros are not kept.
      assert.equal(accounts.C011.updated_at, "2025-01-01 00:00:00");
      assert.equal(accounts.C005.updated_at, null); // '0000-00-00 00:00:00.000000'
      assert.equal(accounts.C005.created_at, null); // '0000-00-00 00:00:00'
      assert.equal(accounts.C007.updated_at, null); // NULL
      assert.equal(accounts.C003.city, null);
    });

    test("schema and inferStrings options", async () => {
      const c = client(project);
      const declared = await c.table("account", {
        schema: { acid: "string", credit_days: "string" },
      });
      assert.equal(declared.columns().acid.type, "string");
      assert.equal(declared.columns().credit_days.type, "string");
      assert.equal(byAcid(declared.rows).C001.credit_days, "30");
      // Declared types win over inferStrings: false; every other string stays one.
      const untyped = await c.table("account", {
        schema: { acid: "string", credit_limit: "decimal" },
        inferStrings: false,
      });
      const cols = untyped.columns();
      const accounts = byAcid(untyped.rows);
      assert.equal(cols.credit_limit.type, "float64", `credit_limit: ${cols.credit_limit.type}`);
      assert.equal(accounts.C001.credit_limit, 50000);
      assert.equal(accounts.C001.updated_at, "2025-04-01 13:45:00.123456");
      assert.equal(accounts.C005.created_at, "0000-00-00 00:00:00");
      if (project === "legacy") {
        for (const [name, col] of Object.entries(cols)) {
          if (name === "credit_limit") continue;
          assert.ok(col.type === "string" || col.type === "null", `${name}: ${col.type}`);
        }
        assert.equal(accounts.C001.credit_days, "30");
      } else {
        assert.equal(accounts.C001.credit_days, 30);
        assert.equal(cols.updated_at.type, "string");
      }
    });
  });
}

for (const project of PROJECTS) {
  describe(`${project}: the other functions of ajax.php`, () => {
    test("each function in its own shape, typed alike on both code paths", async () => {
      const c = client(project);
      const summary = await c.duesSummary({ numbers: "string" });
      assert.equal(summary.shape, "rows");
      assert.equal(summary.schema.documents, "int");
      const avg = await c.avgPayDays("C001");
      assert.equal(avg.shape, "object");
      assert.equal(typeof avg.fields.payments, "number");
      const net = await c.netProfit("2025-01-01", "2025-12-31", { numbers: "string" });
      assert.equal(net.shape, "value");
      assert.match(net.value, /^-?\d+\.\d\d$/);
      const table = await c.duesTable(
        summary.rows.map((r) => r.acid),
        "RECEIPT",
        { numbers: "string" },
      );
      const cents = (t) => BigInt(t.replace(".", ""));
      for (const row of summary.rows) {
        const owed = table.rows
          .filter((r) => r.acid === row.acid)
          .reduce((sum, r) => sum + cents(r.balance), 0n);
        assert.equal(owed, cents(row.balance), row.acid);
      }
    });
  });
}
