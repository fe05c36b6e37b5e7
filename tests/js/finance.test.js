// aging() and creditStatus(): the shared vectors (tests/vectors/aging.json,
// credit-status.json, pay-days.json, account-ids.json) through the wasm core,
// and ErpClient.aging() / creditStatus() against the sandbox.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  aging,
  creditStatus,
  DEFAULT_BUCKETS,
  InvalidInputError,
  Table,
} from "../../js/src/index.js";
import { tableBatch, core as thrownAs } from "../../js/src/table.js";
import { loadWasm } from "../../js/src/wasm.js";
import { demoClient, startSandbox } from "./sandbox.js";
import { loadTestingWasm } from "./testing-wasm.js";
import { asVector, checkError, decodeBody, forJs, load, makeCore } from "./vectors.js";

const core = makeCore();

/** The core's account ids of a table (a test-only export: plans use them inside the core). */
const accountIds = (accounts, kind) =>
  thrownAs(() => loadTestingWasm().accountIds(accounts[tableBatch]().batch, kind));

/** A case's rows as a Table, exact numbers (`numbers: "string"`), typed with its `schema`. */
function table(data, schema) {
  const body = new TextEncoder().encode(`{"status":"success","data":${data}}`);
  const { batches, notices, totalRows } = decodeBody(core, {
    body,
    whole: true,
    numbers: "string",
    typing: schema === undefined ? undefined : { schema },
    chunk: 1 << 20,
  });
  return new Table({ batch: batches[0], notices, totalRows, numbers: "string" });
}

function expectError(fn, expected) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, "expected an error");
  checkError(err, expected);
  if (expected.contains) assert.ok(err.message.includes(expected.contains), err.message);
}

const AGING = load("aging");
const CREDIT = load("credit-status");
const PAY_DAYS = load("pay-days");
const ACCOUNT_IDS = load("account-ids");

test("DEFAULT_BUCKETS are the core's", () => {
  assert.deepEqual(DEFAULT_BUCKETS, [...loadTestingWasm().defaultBuckets()]);
});

test("the finance vector files have cases", () => {
  for (const cases of [AGING, CREDIT, PAY_DAYS, ACCOUNT_IDS]) assert.ok(cases.length > 0);
});

for (const c of AGING) {
  test(`aging.json: ${c.name}`, () => {
    const o = c.options;
    const run = () =>
      aging(table(c.data, c.schema), {
        asOf: o.as_of,
        buckets: o.buckets,
        dueDateColumn: o.due_date_column,
        balanceColumn: o.balance_column,
      });
    if (c.expect_error) expectError(run, c.expect_error);
    else asVector(run(), c.expect);
  });
}

for (const c of CREDIT) {
  test(`credit-status.json: ${c.name}`, () => {
    const payDays = new Map(c.pay_days.map(([acid, d]) => [acid, d === null ? null : d.$number]));
    const run = () =>
      creditStatus(table(c.accounts), table(c.dues), { payDays, asOf: c.as_of, acids: c.acids });
    if (c.expect_error) expectError(run, c.expect_error);
    else asVector(run(), c.expect);
  });
}

for (const c of PAY_DAYS) {
  test(`pay-days.json: ${c.name}`, () => {
    const run = () => loadWasm().payDays(c.acid, c.answer);
    if (c.expect_error) {
      let err;
      try {
        run();
      } catch (raw) {
        err = raw;
      }
      const want = forJs(c.expect_error);
      assert.equal(err?.kind, want.kind);
      assert.equal(err?.field ?? null, want.field);
      assert.ok(err.message.includes(want.contains), err.message);
    } else {
      assert.equal(run(), c.expect === null ? null : c.expect.$number);
    }
  });
}

for (const c of ACCOUNT_IDS) {
  test(`account-ids.json: ${c.name}`, () => {
    const run = () => accountIds(table(c.accounts), c.kind);
    if (c.expect_error) expectError(run, c.expect_error);
    else assert.deepEqual(run(), c.expect);
  });
}

test("JS numbers come back exact, or the error says to read text", () => {
  const body = new TextEncoder().encode(
    '{"status":"success","data":[{"acid":"C1","due_date":"2025-06-01","balance":"0.10"},{"acid":"C1","due_date":"2025-06-02","balance":"0.20"}]}',
  );
  const { batches, notices, totalRows } = decodeBody(core, { body, whole: true, chunk: 1 << 20 });
  const floats = new Table({ batch: batches[0], notices, totalRows });
  // 0.1 + 0.2 in doubles is 0.30000000000000004; the core sums cents.
  assert.equal(aging(floats, { asOf: "2025-07-01" }).rows[0]["1-30"], 0.3);
  const huge = new TextEncoder().encode(
    '{"status":"success","data":[{"due_date":"2025-06-01","balance":"12345678901234567.89"}]}',
  );
  const big = decodeBody(core, { body: huge, whole: true, chunk: 1 << 20 });
  const lossy = new Table({ batch: big.batches[0], notices: [], totalRows: 1 });
  assert.throws(
    () => aging(lossy, { asOf: "2025-07-01" }),
    (e) =>
      e instanceof InvalidInputError && e.field === "dues" && /numbers: "string"/.test(e.message),
  );
  for (const bad of [[], {}, null, "dues"]) {
    assert.throws(
      () => aging(bad),
      (e) => e instanceof InvalidInputError && e.field === "dues",
    );
  }
  assert.throws(
    () => aging(floats, { asOf: new Date(2025, 6, 1, 12) }),
    (e) => e instanceof InvalidInputError && e.field === "asOf",
  );
  assert.throws(
    () => aging(floats, { buckets: [30, "60"] }),
    (e) => e instanceof InvalidInputError && e.field === "buckets",
  );
});

test("aging() of exact texts sent with an exponent", () => {
  const dues = table(
    '[{"acid":"C1","due_date":"2025-06-01","balance":1.0e-5},{"acid":"C1","due_date":"2025-06-02","balance":2.5E+1}]',
  );
  assert.equal(dues.schema.balance, "decimal(38,6)");
  assert.equal(aging(dues, { asOf: "2025-07-01" }).rows[0].total, "25.000010");
});

/** An account table of two customers, and C001's dues, for creditStatus(). */
function twoCustomers() {
  return [
    table(
      '[{"acid":"C001","name":"One","credit_limit":"100.00","kind":"customer"},{"acid":"C002","name":"Two","credit_limit":"50.00","kind":"customer"}]',
    ),
    table('[{"acid":"C001","due_date":"2025-01-01","balance":"10.00"}]'),
  ];
}

test("creditStatus() refuses acids given as one id; any list of ids is taken", () => {
  const [accounts, dues] = twoCustomers();
  const asOf = "2025-12-31";
  assert.throws(
    () => creditStatus(accounts, dues, { asOf, acids: "C001" }),
    (e) =>
      e instanceof InvalidInputError &&
      e.field === "acids" &&
      e.message.includes("not a single id") &&
      e.message.includes('"C001"'),
  );
  const report = creditStatus(accounts, dues, { asOf, acids: new Set(["C002", "C001"]) });
  assert.deepEqual(
    report.rows.map((r) => [r.acid, r.outstanding]),
    [
      ["C002", "0.00"],
      ["C001", "10.00"],
    ],
  );
});

test("creditStatus() refuses a payDays text that is no number, naming its account", () => {
  const [accounts, dues] = twoCustomers();
  const asOf = "2025-12-31";
  for (const days of ["n/a", "", " 12", "1,5", "NaN"]) {
    assert.throws(
      () => creditStatus(accounts, dues, { asOf, payDays: { C001: days } }),
      (e) =>
        e instanceof InvalidInputError &&
        e.field === "payDays" &&
        e.message.includes('"C001"') &&
        e.message.includes(JSON.stringify(days)),
      JSON.stringify(days),
    );
  }
  // Numbers in any form JSON writes them are taken, as given.
  const report = creditStatus(accounts, dues, { asOf, payDays: { C001: "12.5", C002: "1e1" } });
  assert.deepEqual(
    report.rows.map((r) => [r.acid, r.avg_pay_days]),
    [
      ["C001", "12.5"],
      ["C002", "1e1"],
    ],
  );
});

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

function client() {
  return demoClient(sandbox.url);
}

const cents = (t) => BigInt(t.replace(".", ""));

test("ErpClient.aging: every customer's dues, each total their balances", async () => {
  const c = client();
  const report = await c.aging("receipt", { asOf: "2025-12-31", numbers: "string" });
  const accounts = await c.table("account");
  const customers = accounts.rows.filter((r) => r.kind === "customer").map((r) => r.acid);
  const dues = await c.duesTable(customers, "receipt", { numbers: "string" });
  // Every customer, in the account table's order, whether or not it owes.
  assert.deepEqual(
    report.rows.map((r) => r.acid),
    customers,
  );
  assert.ok(customers.some((a) => !dues.rows.some((d) => d.acid === a)));
  for (const row of report.rows) {
    const owed = dues.rows
      .filter((d) => d.acid === row.acid)
      .reduce((sum, d) => sum + cents(d.balance), 0n);
    assert.equal(cents(row.total), owed);
    const buckets = ["current", "1-30", "31-60", "61-90", "91+", "undated"];
    assert.equal(
      buckets.reduce((s, b) => s + cents(row[b]), 0n),
      owed,
    );
  }
  const payables = await c.aging("payment", { asOf: "2025-12-31" });
  assert.ok(payables.rows.length > 0 && payables.rows.every((r) => r.acid.startsWith("S")));
});

test("aging() of a Dues names its account", async () => {
  const c = client();
  const dues = await c.receivables("C001", { numbers: "string" });
  assert.ok(!("acid" in dues.rows[0]));
  const report = aging(dues, { asOf: "2025-12-31" });
  assert.deepEqual(
    report.rows.map((r) => r.acid),
    ["C001"],
  );
  assert.equal(
    cents(report.rows[0].total),
    dues.rows.reduce((sum, d) => sum + cents(d.balance), 0n),
  );
  const same = await c.aging("receipt", {
    accounts: ["C001"],
    asOf: "2025-12-31",
    numbers: "string",
  });
  assert.deepEqual(report.rows, same.rows);
});

test("ErpClient.creditStatus: limits, outstanding and average payment days", async () => {
  const c = client();
  const report = await c.creditStatus({ asOf: "2025-12-31", numbers: "string" });
  const accounts = await c.table("account", { numbers: "string" });
  const byAcid = new Map(accounts.rows.map((r) => [r.acid, r]));
  assert.deepEqual(
    report.rows.map((r) => r.acid),
    accounts.rows.filter((r) => r.kind === "customer").map((r) => r.acid),
  );
  for (const row of report.rows) {
    assert.equal(row.credit_limit, byAcid.get(row.acid).credit_limit);
    assert.equal(cents(row.available), cents(row.credit_limit) - cents(row.outstanding));
    const avg = await c.avgPayDays(row.acid, { numbers: "string" });
    assert.equal(row.avg_pay_days, avg.fields.avg_pay_days);
  }
  assert.ok(report.rows.some((r) => r.over_limit) && !report.rows.every((r) => r.over_limit));
  const one = await c.creditStatus({ asOf: "2025-12-31", accounts: ["C002"], payDays: false });
  assert.deepEqual(
    one.rows.map((r) => [r.acid, r.avg_pay_days]),
    [["C002", null]],
  );
  await assert.rejects(
    c.creditStatus({ accounts: ["S001"] }),
    (e) => e instanceof InvalidInputError && e.field === "accounts" && e.message.includes("S001"),
  );
});

test("creditStatus() refuses a payDays value of another kind saying what it got", async () => {
  const [accounts, dues] = twoCustomers();
  const asOf = "2025-12-31";
  for (const [days, got] of [
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [true, "true"],
    [{}, "an object"],
    [[12], "an array"],
  ]) {
    assert.throws(
      () => creditStatus(accounts, dues, { asOf, payDays: { C001: days } }),
      (e) =>
        e instanceof InvalidInputError &&
        e.field === "payDays" &&
        e.message ===
          `invalid payDays: "C001": must be an avgPayDays answer, a finite number or decimal text, got ${got}`,
      got,
    );
  }
  // One answer given for the whole map: its fields are no accounts.
  const answer = await client().avgPayDays("C001", { numbers: "string" });
  assert.throws(
    () => creditStatus(accounts, dues, { asOf, payDays: answer }),
    (e) =>
      e instanceof InvalidInputError &&
      e.field === "payDays" &&
      /must map each account to its avgPayDays answer/.test(e.message) &&
      /got one avgPayDays answer$/.test(e.message),
  );
  const report = creditStatus(accounts, dues, { asOf, payDays: { C001: answer } });
  assert.equal(report.rows[0].avg_pay_days, answer.fields.avg_pay_days);
});
