// Options as JavaScript spells them. An InvalidInputError's `field` and
// message name the option or parameter as this package does (`companyId`,
// `timeoutMs`, `start`), environment variables as they are; an option a
// constructor or call does not take (a misspelt or snake_case one) is
// refused, naming the option it most likely meant. Either way nothing is
// sent: the sandbox's request total does not move.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";

import { aging, creditStatus, ErpClient, InvalidInputError } from "../../js/src/index.js";
import { clearClientEnv, demoClient, SANDBOX_TOKEN, startSandbox, totalSeen } from "./sandbox.js";

let sandbox;
before(async () => {
  // A missing option must not be filled from the environment here.
  clearClientEnv();
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

function client(options = {}) {
  return demoClient(sandbox.url, options);
}

/**
 * The InvalidInputError `call` throws or rejects with, after checking that
 * the sandbox saw no request meanwhile and that the message is
 * `invalid FIELD: REASON`.
 */
async function refused(call) {
  const seen = await totalSeen(sandbox.url);
  let error;
  try {
    await call();
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof InvalidInputError, `${error?.name}: ${error?.message}`);
  assert.equal(error.message, `invalid ${error.field}: ${error.reason}`);
  assert.equal(await totalSeen(sandbox.url), seen, `sent despite: ${error.message}`);
  return error;
}

describe("errors name options and parameters as JS spells them", () => {
  test("a missing companyId or yearId", async () => {
    const noCompany = await refused(() => client({ companyId: undefined }).table("account"));
    assert.equal(noCompany.field, "companyId");
    assert.equal(
      noCompany.message,
      "invalid companyId: is required: pass one with the call, give the client a default, " +
        "or set ERPDATA_COMPANY_ID",
    );
    const noYear = await refused(() => client({ yearId: null }).table("account"));
    assert.equal(noYear.field, "yearId");
    assert.match(noYear.message, /or set ERPDATA_YEAR_ID$/);
  });

  test("a missing baseUrl, project or accessToken, and what a reason names", async () => {
    const noUrl = await refused(() => new ErpClient({ project: "demo" }));
    assert.equal(
      noUrl.message,
      "invalid baseUrl: is required: pass the service's base URL (e.g. https://erp.example.com/) or set ERPDATA_BASE_URL",
    );
    const noToken = await refused(() => client({ accessToken: undefined }).table("account"));
    assert.equal(noToken.field, "accessToken");
    assert.match(noToken.message, /or set ERPDATA_ACCESS_TOKEN$/);
    // Options named inside a reason are spelled as JS spells them too.
    const noFolder = await refused(() => client({ project: undefined }).receivables("C001"));
    assert.equal(noFolder.field, "project");
    assert.match(noFolder.message, /a project or a projectFolder, or set ERPDATA_PROJECT or/);
    const toSend = await refused(() =>
      client({ accessToken: undefined }).receivables("C001", { sendToken: true }),
    );
    assert.equal(toSend.field, "accessToken");
    assert.match(toSend.message, /\(sendToken \/ ajaxToken\)$/);
  });

  test("a bad timeoutMs, connectTimeoutMs, readTimeoutMs or maxRetries", async () => {
    const total = await refused(() => client({ timeoutMs: -5 }));
    assert.equal(total.field, "timeoutMs");
    assert.equal(
      total.message,
      "invalid timeoutMs: must be a number of milliseconds above 0 and at most 86400000, got -5",
    );
    const perCall = await refused(() => client().table("account", { timeoutMs: 0 }));
    assert.equal(perCall.field, "timeoutMs");
    const tooLong = await refused(() => client().receivables("C001", { timeoutMs: 86_400_001 }));
    assert.match(tooLong.message, /^invalid timeoutMs: .* got 86400001$/);
    const connect = await refused(() => client({ connectTimeoutMs: "10" }));
    assert.equal(connect.message, "invalid connectTimeoutMs: must be a number, got a string");
    const read = await refused(() => client().table("account", { readTimeoutMs: NaN }));
    assert.equal(read.field, "readTimeoutMs");
    assert.match(read.message, /got NaN$/);
    const retries = await refused(() => client({ maxRetries: 11 }));
    assert.equal(
      retries.message,
      "invalid maxRetries: must be a whole number from 0 to 10, got 11",
    );
    const batch = await refused(() => client().streamTable("account", { batchRows: 0 }));
    assert.equal(batch.field, "batchRows");
  });

  test("a bad acid, date or flag of a function of ajax.php", async () => {
    const acid = await refused(() => client().avgPayDays(""));
    assert.equal(acid.message, "invalid acid: must not be empty");
    const start = await refused(() => client().netProfit("2025-13-01", "2025-12-31"));
    assert.equal(start.field, "start");
    assert.match(start.message, /^invalid start: must be a calendar date as YYYY-MM-DD/);
    const end = await refused(() => client().grossProfit("2025-12-31", "2025-01-01"));
    assert.equal(end.field, "end");
    const flag = await refused(() => client().duesSummary({ sendToken: "yes" }));
    assert.equal(flag.field, "sendToken");
    assert.equal(flag.message, 'invalid sendToken: must be true or false, got "yes"');
  });

  test("a bad asOf or payDays of a finance view", async () => {
    const asOf = await refused(() =>
      client().aging("receipt", { accounts: ["C001"], asOf: "2025-02-30" }),
    );
    assert.equal(asOf.field, "asOf");
    assert.match(asOf.message, /^invalid asOf: must be a calendar date/);
    const payDays = await refused(() =>
      client().creditStatus({ accounts: ["C001"], asOf: "2025-12-31", payDays: "yes" }),
    );
    assert.equal(payDays.field, "payDays");
  });
});

describe("an option a constructor or call does not take is refused", () => {
  test("a misspelt constructor option, with the one it meant", async () => {
    const typo = await refused(() => client({ accesToken: "x" }));
    assert.equal(typo.field, "accesToken");
    assert.equal(
      typo.message,
      "invalid accesToken: is not an option of ErpClient; did you mean accessToken?",
    );
    // Given as undefined, it is still a mistake.
    const unset = await refused(() => client({ compnyId: undefined }));
    assert.match(unset.message, /did you mean companyId\?$/);
  });

  test("another language's spelling finds the option, and its value is never shown", async () => {
    const secret = "secret-token-4711";
    for (const [given, meant] of [
      ["access_token", "accessToken"],
      ["base_url", "baseUrl"],
      ["timeout", "timeoutMs"],
      ["max_retries", "maxRetries"],
    ]) {
      const err = await refused(() => client({ [given]: secret }));
      assert.equal(err.field, given);
      assert.match(err.message, new RegExp(`did you mean ${meant}\\?$`));
      assert.ok(!`${err.message} ${inspect(err)} ${JSON.stringify(err)}`.includes(secret));
    }
  });

  test("an option like none: the error lists the options", async () => {
    const err = await refused(() => client({ colour: "red" }));
    assert.equal(err.field, "colour");
    assert.match(err.message, /^invalid colour: is not an option of ErpClient; it takes baseUrl, /);
    for (const option of ["accessToken", "companyId", "timeoutMs", "fetch", "ajaxToken"]) {
      assert.ok(err.message.includes(option), err.message);
    }
  });

  test("a call's misspelt option, with the one it meant", async () => {
    const c = client();
    const table = await refused(() => c.table("account", { compnyId: 1 }));
    assert.equal(table.field, "compnyId");
    assert.equal(
      table.message,
      "invalid compnyId: is not an option of table(); did you mean companyId?",
    );
    const stream = await refused(() => c.streamTable("account", { batch_rows: 10 }));
    assert.match(stream.message, /of streamTable\(\); did you mean batchRows\?$/);
    const fn = await refused(() => c.netProfit("2025-01-01", "2025-12-31", { send_token: true }));
    assert.match(fn.message, /of netProfit\(\); did you mean sendToken\?$/);
    const dues = await refused(() => c.dues({ acid: "C001", kind: "RECEIPT", numbrs: "string" }));
    assert.match(dues.message, /of dues\(\); did you mean numbers\?$/);
    const plan = await refused(() => c.aging("receipt", { as_of: "2025-12-31" }));
    assert.match(plan.message, /of aging\(\); did you mean asOf\?$/);
    const credit = await refused(() => c.creditStatus({ pay_days: false }));
    assert.match(credit.message, /of creditStatus\(\); did you mean payDays\?$/);
    const many = await refused(() => c.duesTable(["C001"], "receipt", { concurency: 2 }));
    assert.match(many.message, /of duesTable\(\); did you mean concurrency\?$/);
  });

  test("a call's option like none of its own: the error lists them", async () => {
    const c = client();
    // companyId is the table fetch's; a dues query has no company.
    const err = await refused(() => c.receivables("C001", { company_id: 1 }));
    assert.equal(err.field, "company_id");
    assert.match(
      err.message,
      /^invalid company_id: is not an option of receivables\(\); it takes /,
    );
    assert.ok(err.message.includes("sendToken") && err.message.includes("timeoutMs"));
    assert.ok(!err.message.includes("companyId"), err.message);
    // A parameter given as an argument is not an option as well.
    const kind = await refused(() => c.payables("S001", { kind: "RECEIPT" }));
    assert.equal(kind.field, "kind");
  });

  test("options given as something else: the error says what the call takes", async () => {
    const c = client();
    // The arguments of another language's call (Python's dues("C001", "RECEIPT")).
    const dues = await refused(() => c.dues("C001", "RECEIPT"));
    assert.equal(dues.field, "options");
    assert.match(
      dues.message,
      /^invalid options: dues\(\) takes its options as an object \(\{ acid, kind, .*\}\), got a string$/,
    );
    const receivables = await refused(() => c.receivables("C001", "RECEIPT"));
    assert.match(receivables.message, /^invalid options: receivables\(\) takes its options as an /);
    assert.ok(receivables.message.includes("timeoutMs"), receivables.message);
    assert.ok(!receivables.message.includes("RECEIPT"), receivables.message);
    const table = await refused(() => c.table("account", [1, 2025]));
    assert.match(table.message, /^invalid options: table\(\) takes .*companyId.*, got an array$/);
    const stream = await refused(() => c.streamTable("account", 500));
    assert.match(stream.message, /streamTable\(\) takes .*batchRows.*, got a number$/);
    const plan = await refused(() => c.duesTable(["C001"], "receipt", 4));
    assert.match(plan.message, /duesTable\(\) takes .*concurrency.*, got a number$/);
    const made = await refused(() => new ErpClient("http://127.0.0.1:1"));
    assert.match(made.message, /^invalid options: ErpClient takes .*baseUrl.*, got a string$/);
    const finance = await refused(() => aging(undefined, "2025-12-31"));
    assert.match(finance.message, /^invalid options: aging\(\) takes .*asOf.*, got a string$/);
  });

  test("the finance functions refuse theirs too", async () => {
    // Checked first: nothing else about the call matters yet.
    const agingErr = await refused(() => aging(undefined, { as_of: "2025-12-31" }));
    assert.match(agingErr.message, /of aging\(\); did you mean asOf\?$/);
    const creditErr = await refused(() => creditStatus(undefined, undefined, { acid: ["C001"] }));
    assert.match(creditErr.message, /of creditStatus\(\); did you mean acids\?$/);
  });

  test("every documented option is taken", async () => {
    const full = new ErpClient({
      baseUrl: sandbox.url,
      project: "demo",
      projectFolder: "demo",
      accessToken: SANDBOX_TOKEN,
      companyId: 1,
      yearId: 2025,
      fetch: (...args) => globalThis.fetch(...args),
      allowInsecureHttp: false,
      ajaxToken: false,
      dangerouslyAllowBrowser: false,
      timeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      readTimeoutMs: 10_000,
      maxRetries: 1,
    });
    const every = {
      numbers: "string",
      schema: {},
      inferStrings: true,
      signal: new AbortController().signal,
      timeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      readTimeoutMs: 10_000,
      maxRetries: 1,
    };
    const table = await full.table("account", {
      ...every,
      companyId: 1,
      yearId: 2025,
      method: "GET",
    });
    assert.ok(table.length > 0);
    for await (const batch of full.streamTable("account", {
      ...every,
      method: "POST",
      batchRows: 2,
    }))
      assert.ok(batch.length <= 2);
    const dues = await full.dues({ ...every, acid: "C001", kind: "RECEIPT", sendToken: false });
    assert.ok(dues.rows.length > 0);
    assert.ok(await full.receivables("C001", { ...every, method: "GET" }));
    assert.ok(await full.avgPayDays("C001", { ...every, sendToken: false, method: "GET" }));
    const report = await full.aging("receipt", {
      ...every,
      concurrency: 2,
      accounts: ["C001"],
      asOf: "2025-12-31",
      buckets: [30, 60],
      accountsTable: "account",
      companyId: 1,
      yearId: 2025,
    });
    assert.deepEqual(
      report.rows.map((r) => r.acid),
      ["C001"],
    );
    const credit = await full.creditStatus({
      ...every,
      concurrency: 2,
      accounts: ["C001"],
      asOf: "2025-12-31",
      payDays: false,
      accountsTable: "account",
      companyId: 1,
      yearId: 2025,
    });
    assert.equal(credit.rows.length, 1);
    const many = await full.duesTable(["C001"], "receipt", { ...every, concurrency: 1 });
    assert.ok(
      aging(many, {
        asOf: "2025-12-31",
        buckets: [30],
        dueDateColumn: "due_date",
        balanceColumn: "balance",
      }).length,
    );
    const accounts = await full.table("account", { numbers: "string" });
    const owed = await full.duesTable(["C001"], "receipt", { numbers: "string" });
    assert.equal(
      creditStatus(accounts, owed, { payDays: {}, asOf: "2025-12-31", acids: ["C001"] }).length,
      1,
    );
  });
});
