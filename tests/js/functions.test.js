// The other functions of ajax.php through ErpClient against the sandbox:
// each answer's shape and types, the generic call, dues as one table, and
// the access token sent only when asked.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  AjaxAnswer,
  ErpClient,
  InvalidInputError,
  ServiceError,
  Table,
} from "../../js/src/index.js";
import { SANDBOX_TOKEN, startSandbox } from "./sandbox.js";

let sandbox;
let guarded;
before(async () => {
  sandbox = await startSandbox();
  guarded = await startSandbox(["--ajax-token"]);
});
after(() => {
  sandbox?.stop();
  guarded?.stop();
});

function client(url, options = {}) {
  return new ErpClient({ baseUrl: url, project: "demo", accessToken: SANDBOX_TOKEN, ...options });
}

test("each function answers in its shape, typed", async () => {
  const c = client(sandbox.url);
  const summary = await c.duesSummary();
  assert.ok(summary instanceof AjaxAnswer);
  assert.equal(summary.shape, "rows");
  assert.equal(summary.func, "getduesSumm");
  assert.equal(summary.schema.documents, "int");
  assert.equal(summary.schema.oldest_due_date, "date");
  assert.ok(summary.rows.every((r) => typeof r.balance === "number"));
  const { balance } = summary.columns();
  assert.ok(balance.values instanceof Float64Array);

  const avg = await c.avgPayDays("C001");
  assert.equal(avg.shape, "object");
  assert.equal(typeof avg.fields.payments, "number");
  assert.equal(avg.value, avg.fields);

  const net = await c.netProfit(new Date(Date.UTC(2025, 0, 1)), "2025-12-31");
  assert.equal(net.fields.sdate, "2025-01-01");
  const exact = await c.netProfit("2025-01-01", "2025-12-31", { numbers: "string" });
  assert.match(exact.fields.net_profit, /^-?\d+\.\d\d$/);
  const gross = await c.grossProfit("2025-01-01", "2025-06-30", { numbers: "string" });
  const cents = (t) => BigInt(t.replace(".", ""));
  assert.equal(
    cents(gross.fields.sales) - cents(gross.fields.cost_of_sales),
    cents(gross.fields.gross_profit),
  );
  const creditors = await c.scheduleAccounts("Sundry Creditors", "2025-01-01", "2025-12-31");
  assert.ok(creditors.rows.length > 0 && creditors.rows.every((r) => r.acid.startsWith("S")));

  const generic = await c.ajax("avgPayDays", { acid: "C001" });
  assert.deepEqual(generic.value, avg.value);
});

test("the summary equals the dues of its accounts as one table", async () => {
  const c = client(sandbox.url);
  const summary = await c.duesSummary({ numbers: "string" });
  const acids = summary.rows.map((r) => r.acid);
  const table = await c.duesTable(acids, "RECEIPT", { concurrency: 3, numbers: "string" });
  assert.ok(table instanceof Table);
  assert.equal(table.columnNames[0], "acid");
  const cents = (t) => BigInt(t.replace(".", ""));
  for (const row of summary.rows) {
    const owed = table.rows
      .filter((r) => r.acid === row.acid)
      .reduce((sum, r) => sum + cents(r.balance), 0n);
    assert.equal(owed, cents(row.balance), row.acid);
  }
});

test("input is refused before anything is sent", async () => {
  let sent = 0;
  const c = client(sandbox.url, {
    fetch: (...args) => {
      sent += 1;
      return globalThis.fetch(...args);
    },
  });
  for (const [call, field] of [
    [() => c.netProfit("2025-02-30", "2025-03-01"), "start"],
    [() => c.grossProfit("2025-03-02", "2025-03-01"), "end"],
    [() => c.netProfit(new Date(2025, 0, 1, 5), "2025-03-01"), "start"],
    [() => c.scheduleAccounts("", "2025-01-01", "2025-01-31"), "schedule"],
    [() => c.avgPayDays(""), "acid"],
    [() => c.ajax("get dues"), "func"],
    [() => c.ajax("f", { accesstoken: "x" }), "params"],
    [() => c.duesTable(["C001"], "RECEIPT", { concurrency: 0 }), "concurrency"],
    [() => c.duesTable(["C001", ""], "RECEIPT"), "acids"],
  ]) {
    await assert.rejects(call, (err) => err instanceof InvalidInputError && err.field === field);
  }
  assert.equal(sent, 0);
  await assert.rejects(
    () => c.scheduleAccounts("Fixed Assets", "2025-01-01", "2025-01-31"),
    (err) => err instanceof ServiceError && err.serviceMessage === "Unknown schedule: Fixed Assets",
  );
});

test("the token goes to ajax.php only when asked", async () => {
  const plain = client(guarded.url);
  await assert.rejects(() => plain.duesSummary(), ServiceError);
  await assert.rejects(() => plain.receivables("C001"), ServiceError);
  assert.ok((await plain.duesSummary({ sendToken: true })).rows.length > 0);
  assert.ok((await plain.duesSummary({ sendToken: true, method: "GET" })).rows.length > 0);
  assert.ok((await plain.receivables("C001", { sendToken: true })).rows.length > 0);
  const everywhere = client(guarded.url, { ajaxToken: true });
  assert.ok((await everywhere.duesSummary()).rows.length > 0);
  assert.ok((await everywhere.receivables("C001")).rows.length > 0);
  await assert.rejects(() => everywhere.duesSummary({ sendToken: false }), ServiceError);
  assert.throws(
    () => new ErpClient({ baseUrl: guarded.url, project: "demo", ajaxToken: true }),
    (err) => err instanceof InvalidInputError && err.field === "ajaxToken",
  );
});

test("a dues answer has typed columns too", async () => {
  const dues = await client(sandbox.url).receivables("C001");
  const { balance, due_date } = dues.columns();
  assert.equal(balance.length, dues.rows.length);
  assert.ok(balance.values instanceof Float64Array);
  assert.ok(due_date.values instanceof Int32Array);
  assert.deepEqual(JSON.parse(JSON.stringify(dues)).rows, JSON.parse(JSON.stringify(dues.rows)));
});

/**
 * A fetch that answers `C001` with a 500 when `failFirst`, and holds every
 * other call open until its request is aborted; `started` and `aborted`
 * count the calls.
 */
function holding({ failFirst = false } = {}) {
  const calls = { started: 0, aborted: 0 };
  calls.fetch = (url, init) => {
    calls.started += 1;
    if (failFirst && String(url).includes("acid=C001")) {
      return Promise.resolve(new Response("down", { status: 500 }));
    }
    return new Promise((_, reject) => {
      init.signal.addEventListener("abort", () => {
        calls.aborted += 1;
        reject(init.signal.reason);
      });
    });
  };
  return calls;
}

test("a plan's calls: at most its concurrency, all ended by the caller's signal", async () => {
  const calls = holding();
  const c = client("https://erp.example.com/", { fetch: calls.fetch, maxRetries: 0 });
  const controller = new AbortController();
  const pending = c.duesTable(["C001", "C002", "C003"], "RECEIPT", {
    concurrency: 2,
    signal: controller.signal,
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(calls.started, 2, "the third waits for a free slot");
  controller.abort();
  await assert.rejects(pending, (err) => err.aborted === true);
  assert.equal(calls.aborted, 2);
  assert.equal(calls.started, 2);
});

test("a plan's first failure is thrown and the calls still running are abandoned", async () => {
  const calls = holding({ failFirst: true });
  const c = client("https://erp.example.com/", { fetch: calls.fetch, maxRetries: 0 });
  await assert.rejects(
    c.duesTable(["C002", "C001", "C003"], "RECEIPT", { concurrency: 2 }),
    (err) => err.kind === "http_status" && err.status === 500,
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(calls.started, 2, "nothing started after the failure");
  assert.equal(calls.aborted, 1, "the other call was abandoned");
});

test("a plan of more than ten calls at a time makes Node warn of no listener leak", async () => {
  const warnings = [];
  const onWarning = (warning) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    const acids = Array.from({ length: 12 }, (_, i) => `C${String(i + 1).padStart(3, "0")}`);
    const controller = new AbortController();
    const table = await client(sandbox.url).duesTable(acids, "RECEIPT", {
      concurrency: 12,
      signal: controller.signal,
    });
    assert.ok(table.rows.length > 0);
    // Node emits its warnings on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings, []);
});
