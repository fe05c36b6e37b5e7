// aging() and creditStatus(): a row for every account asked for (zeros where
// nothing is owed, in the order asked), and balances read as JS numbers,
// integers or exact text all summed exactly.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { aging, creditStatus, Table } from "../../js/src/index.js";
import { demoClient, startSandbox } from "./sandbox.js";
import { decodeBody, makeCore } from "./vectors.js";

const core = makeCore();

/** Rows as a Table read with `numbers` ("number" by default, or "string"). */
function table(rows, numbers) {
  const body = new TextEncoder().encode(JSON.stringify({ status: "success", data: rows }));
  const { batches, notices, totalRows } = decodeBody(core, {
    body,
    whole: true,
    numbers,
    chunk: 1 << 20,
  });
  return new Table({ batch: batches[0], notices, totalRows, numbers });
}

const DUES = (balances) =>
  balances.map((balance, i) => ({
    acid: "C1",
    due_date: i === 0 ? "2025-06-01" : "2025-06-30",
    balance,
  }));

test("balances as JS numbers, integers or exact text age alike", () => {
  for (const [balances, numbers, total] of [
    [["1500.10", "20.25"], undefined, 1520.35],
    [["1500.10", "20.25"], "string", "1520.35"],
    [[1500, 20], undefined, 1520],
    [[1500, 20], "string", "1520"],
    [["0.10", "0.20"], undefined, 0.3],
  ]) {
    // The report reads numbers as its table was read.
    const report = aging(table(DUES(balances), numbers), { asOf: "2025-06-30" });
    assert.equal(report.rows[0].total, total, `${balances} ${numbers}`);
  }
});

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

function client() {
  return demoClient(sandbox.url);
}

test("every account asked for gets its row, in the order asked, zeros where nothing is owed", async () => {
  const c = client();
  const owes = await c.duesTable(["C008", "C001"], "receipt");
  assert.deepEqual([...new Set(owes.rows.map((r) => r.acid))], ["C001"], "C008 owes nothing");
  const report = await c.aging("receipt", {
    accounts: ["C008", "C001"],
    asOf: "2025-12-31",
    numbers: "string",
  });
  assert.deepEqual(
    report.rows.map((r) => [r.acid, r.total === "0.00"]),
    [
      ["C008", true],
      ["C001", false],
    ],
  );
  assert.equal(report.schema["91+"], "decimal(38,2)");
  const status = await c.creditStatus({
    accounts: ["C008", "C001"],
    asOf: "2025-12-31",
    payDays: false,
    numbers: "string",
  });
  assert.deepEqual(
    status.rows.map((r) => r.acid),
    ["C008", "C001"],
  );
  const [none] = status.rows;
  assert.equal(none.outstanding, "0.00");
  assert.equal(none.overdue, "0.00");
  assert.equal(none.oldest_overdue_due_date, null);
  assert.equal(none.oldest_overdue_days, null);
  assert.equal(none.available, none.credit_limit);
  assert.equal(none.over_limit, false);
  // Every customer when none is named: as many aging rows as credit rows.
  const all = await c.aging("receipt", { asOf: "2025-12-31" });
  const credit = await c.creditStatus({ asOf: "2025-12-31", payDays: false });
  assert.deepEqual(
    all.rows.map((r) => r.acid),
    credit.rows.map((r) => r.acid),
  );
});

test("creditStatus() of tables JS holds: the customers asked for, in that order", () => {
  const accounts = table([
    { acid: "C1", kind: "customer", credit_limit: "100.50" },
    { acid: "C2", kind: "customer", credit_limit: "10.00" },
  ]);
  const dues = table([{ acid: "C1", due_date: "2025-06-01", balance: "120.25" }]);
  const report = creditStatus(accounts, dues, { asOf: "2025-06-30", acids: ["C2", "C1"] });
  assert.deepEqual(
    report.rows.map((r) => [r.acid, r.outstanding, r.over_limit]),
    [
      ["C2", 0, false],
      ["C1", 120.25, true],
    ],
  );
});
