// ErpClient against a real sandbox ERP over loopback.
import assert from "node:assert/strict";
import http from "node:http";
import { PassThrough, Readable } from "node:stream";
import { after, before, describe, test } from "node:test";

import {
  ErpClient,
  ErpError,
  InvalidInputError,
  ServiceError,
  TransportError,
} from "../../js/src/index.js";
import {
  demoClient,
  faultUrl,
  freshKey,
  SANDBOX_TOKEN,
  seenBySandbox,
  startSandbox,
} from "./sandbox.js";

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

function client(options = {}) {
  return demoClient(sandbox.url, options);
}

/** A fetch that counts calls and passes them to the real one. */
function recordingFetch() {
  const calls = [];
  const fetch = (url, init) => {
    calls.push({ url, init });
    return globalThis.fetch(url, init);
  };
  return { calls, fetch };
}

const DUES_FIELDS = ["doc_no", "date", "due_date", "amount", "paid", "balance"];

describe("dues", () => {
  test("C001's receivables", async () => {
    const dues = await client().receivables("C001");
    assert.equal(dues.acid, "C001");
    assert.equal(dues.kind, "RECEIPT");
    assert.ok(dues.rows.length > 0);
    assert.deepEqual(dues.notices, []);
    for (const row of dues.rows) {
      assert.deepEqual(Object.keys(row), DUES_FIELDS);
      assert.equal(typeof row.balance, "number");
      assert.ok(row.balance > 0);
      assert.ok(Math.abs(row.amount - row.paid - row.balance) < 0.005);
    }
    const raw = JSON.parse(dues.raw);
    assert.equal(raw.status, "success");
    assert.equal(raw.data.length, dues.rows.length);
  });

  test("S001's payables", async () => {
    const dues = await client().payables("S001");
    assert.equal(dues.acid, "S001");
    assert.equal(dues.kind, "PAYMENT");
    assert.ok(dues.rows.length > 0);
    assert.ok(dues.rows.every((r) => r.doc_no.startsWith("BILL-")));
  });

  test("dues({acid, kind}) equals the shorthand; kind in any case", async () => {
    const c = client();
    const expected = (await c.receivables("C001")).rows;
    for (const kind of ["RECEIPT", "receipt", "Receipt"]) {
      assert.deepEqual((await c.dues({ acid: "C001", kind })).rows, expected);
    }
  });

  test("two accounts' dues of different sizes have one balance type", async () => {
    const c = client();
    const acids = Array.from({ length: 12 }, (_, i) => `C${String(i + 1).padStart(3, "0")}`);
    const owing = (await Promise.all(acids.map((acid) => c.receivables(acid)))).filter(
      (d) => d.rows.length > 0,
    );
    const digits = (d) => String(Math.trunc(Math.max(...d.rows.map((r) => r.balance)))).length;
    owing.sort((a, b) => digits(a) - digits(b));
    const [small, large] = [owing[0], owing.at(-1)];
    assert.ok(digits(small) < digits(large), "the sandbox has dues of different sizes");
    assert.equal(small.schema.balance, "decimal(38,2)");
    assert.deepEqual(small.schema, large.schema);
  });

  test("a customer with no payables has no dues rows", async () => {
    const dues = await client().payables("C001");
    assert.deepEqual(dues.rows, []);
    assert.equal(dues.kind, "PAYMENT");
  });

  test("numbers: 'string' keeps the amounts' exact text", async () => {
    const c = client();
    const asNumbers = await c.receivables("C001");
    const asText = await c.receivables("C001", { numbers: "string" });
    asText.rows.forEach((row, i) => {
      assert.match(row.balance, /^\d+\.\d{2}$/);
      assert.equal(Number(row.balance), asNumbers.rows[i].balance);
    });
  });

  test("an unknown account is a ServiceError", async () => {
    await assert.rejects(client().receivables("C999"), (err) => {
      assert.ok(err instanceof ServiceError && err instanceof ErpError && err instanceof Error);
      assert.equal(err.status, "error");
      assert.match(err.serviceMessage, /Unknown account/);
      return true;
    });
  });

  test("the dues query needs no token", async () => {
    const dues = await client({ accessToken: undefined }).receivables("C001");
    assert.ok(dues.rows.length > 0);
  });
});

describe("table", () => {
  test("POST (default) and GET give the same rows", async () => {
    const { calls, fetch } = recordingFetch();
    const c = client({ fetch });
    const post = await c.table("sales_invoice");
    const get = await c.table("sales_invoice", { method: "GET" });
    assert.deepEqual(
      calls.map((call) => call.init.method),
      ["POST", "GET"],
    );
    assert.ok(!calls[0].url.includes(SANDBOX_TOKEN), "POST keeps the token out of the URL");
    assert.ok(post.rows.length > 0);
    assert.deepEqual(get.toJSON(), post.toJSON());
    assert.deepEqual(post.columnNames, [
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
    assert.deepEqual(Object.keys(post.rows[0]), post.columnNames);
  });

  test("numbers: JS numbers by default, exact text with numbers: 'string'", async () => {
    const c = client();
    const numbers = await c.table("sales_invoice");
    const text = await c.table("sales_invoice", { numbers: "string" });
    assert.equal(numbers.rows.length, text.rows.length);
    numbers.rows.forEach((row, i) => {
      const exact = text.rows[i];
      for (const key of ["amount", "tax", "total"]) {
        assert.equal(typeof row[key], "number");
        assert.equal(typeof exact[key], "string");
        assert.match(exact[key], /^-?\d+\.\d{2}$/, "two decimals, as sent");
        assert.equal(Number(exact[key]), row[key]);
      }
      assert.equal(exact.invoice_no, row.invoice_no);
    });
  });

  test("an unknown numbers option is refused before sending", async () => {
    const { calls, fetch } = recordingFetch();
    const isNumbersError = (err) => err instanceof InvalidInputError && err.field === "numbers";
    await assert.rejects(
      client({ fetch }).table("account", { numbers: "decimal" }),
      isNumbersError,
    );
    await assert.rejects(client({ fetch }).receivables("C001", { numbers: 1 }), isNumbersError);
    assert.equal(calls.length, 0);
  });

  test("default company and year, and a per-call override", async () => {
    const defaults = await client().table("sales_invoice");
    const other = await client().table("sales_invoice", { companyId: 2, yearId: "2024" });
    const configured = await client({ companyId: "2", yearId: 2024n }).table("sales_invoice");
    assert.notDeepEqual(other.rows, defaults.rows);
    assert.deepEqual(other.toJSON(), configured.toJSON());
    const overridden = await client({ companyId: 2, yearId: 2024 }).table("sales_invoice", {
      companyId: 1,
      yearId: 2025,
    });
    assert.deepEqual(overridden.toJSON(), defaults.toJSON());
  });

  test("no company anywhere is an InvalidInputError, and nothing is sent", async () => {
    const { calls, fetch } = recordingFetch();
    const c = client({ companyId: undefined, fetch });
    await assert.rejects(c.table("account"), (err) => {
      assert.ok(err instanceof InvalidInputError && err instanceof ErpError);
      assert.equal(err.field, "companyId");
      return true;
    });
    assert.equal(calls.length, 0);
    const rows = await c.table("account", { companyId: 1 });
    assert.ok(rows.rows.length > 0);
  });

  test("a wrong token is a ServiceError", async () => {
    await assert.rejects(client({ accessToken: "not-the-token" }).table("account"), (err) => {
      assert.ok(err instanceof ServiceError && err instanceof ErpError && err instanceof Error);
      assert.equal(err.kind, "service");
      assert.equal(err.name, "ServiceError");
      assert.equal(err.status, "error");
      assert.equal(err.serviceMessage, "Invalid access token");
      assert.ok(!String(err).includes("not-the-token"));
      return true;
    });
  });

  test("an unknown table is a ServiceError from the service", async () => {
    await assert.rejects(client().table("no_such_table"), ServiceError);
  });
});

test("a fetch that is not a function is refused as given", () => {
  for (const [fetch, got] of [
    ["https://proxy.example.com/", "a string"],
    [{}, "an object"],
    [42, "a number"],
  ]) {
    assert.throws(
      () => client({ fetch }),
      (err) => {
        assert.ok(err instanceof InvalidInputError);
        assert.equal(err.field, "fetch");
        assert.equal(err.message, `invalid fetch: must be a function, got ${got}`);
        return true;
      },
    );
  }
});

describe("a fetch whose body is a Node stream, as node-fetch and cross-fetch give it", () => {
  /**
   * Node's fetch, its response bodies handed over as Node Readables (as
   * node-fetch's are, a web ReadableStream's getReader() missing), each
   * kept in `bodies`.
   */
  function nodeStreamFetch() {
    const bodies = [];
    const fetch = async (url, init) => {
      const res = await globalThis.fetch(url, init);
      const body = res.body === null ? null : Readable.fromWeb(res.body);
      if (body !== null) bodies.push(body);
      return { status: res.status, headers: res.headers, body };
    };
    return { bodies, fetch };
  }

  test("rows, dues and batches as through fetch", async () => {
    const { fetch } = nodeStreamFetch();
    const c = client({ fetch });
    assert.deepEqual(
      (await c.table("sales_invoice")).rows,
      (await client().table("sales_invoice")).rows,
    );
    assert.deepEqual((await c.receivables("C001")).rows, (await client().receivables("C001")).rows);
    let rows = 0;
    for await (const batch of c.streamTable("sales_invoice", { batchRows: 7 })) {
      rows += batch.length;
    }
    assert.equal(rows, 40);
  });

  test("a stream is read once; a second loop throws and sends nothing", async () => {
    const { calls, fetch } = recordingFetch();
    const stream = client({ fetch }).streamTable("sales_invoice", { batchRows: 7 });
    let rows = 0;
    for await (const batch of stream) rows += batch.length;
    assert.equal(rows, 40);
    assert.equal(stream.totalRows, 40);
    assert.throws(
      () => stream[Symbol.asyncIterator](),
      (e) => e instanceof TypeError && /read once: call streamTable\(\) again/.test(e.message),
    );
    assert.equal(calls.length, 1);
  });

  test("a column's value outside its rows is a RangeError, whatever its type", async () => {
    const columns = (await client().table("sales_invoice", { numbers: "string" })).columns();
    for (const [name, column] of Object.entries(columns)) {
      assert.notEqual(column.get(39), undefined, name);
      for (const i of [40, 41, -1, 2.5, Number.NaN]) {
        assert.throws(() => column.get(i), RangeError, `${name}.get(${i})`);
      }
    }
  });

  test("a 503's body and a stream left early are let go", async () => {
    const key = freshKey("nodebody");
    const { bodies, fetch } = nodeStreamFetch();
    const c = demoClient(faultUrl(sandbox.url, "status-503x1", key), { fetch });
    assert.equal((await c.table("sales_invoice")).length, 40);
    assert.equal(await seenBySandbox(sandbox.url, key, "status-503x1"), 2);
    assert.ok(bodies[0].destroyed, "the 503's body is let go");
    for await (const _ of c.streamTable("sales_invoice", { batchRows: 5 })) break;
    assert.equal(bodies.length, 3);
    assert.ok(bodies[2].destroyed, "the stream's body is let go");
  });

  test("a body broken off is a reset, retried, as through fetch", async () => {
    // node-fetch's body is a stream the response is piped into, closed
    // without an error when the connection breaks: read on, it ends with
    // Node's ERR_STREAM_PREMATURE_CLOSE.
    const fetch = (url, init) =>
      new Promise((resolve, reject) => {
        const headers = Object.fromEntries(init.headers);
        const req = http.request(
          url,
          { method: init.method, headers, signal: init.signal },
          (res) => {
            const body = res.pipe(new PassThrough());
            res.on("close", () => {
              if (!res.complete) body.destroy();
            });
            resolve({ status: res.statusCode, headers: new Headers(res.headers), body });
          },
        );
        req.on("error", reject);
        req.end(init.body);
      });
    const key = freshKey("nodereset");
    const c = demoClient(faultUrl(sandbox.url, "reset-3000", key), { fetch, maxRetries: 1 });
    await assert.rejects(c.table("sales_invoice"), (err) => {
      assert.ok(err instanceof TransportError, String(err));
      assert.equal(err.transportKind, "reset", err.message);
      assert.equal(err.retryable, true);
      assert.equal(err.attempts, 2);
      return true;
    });
    assert.equal(await seenBySandbox(sandbox.url, key, "reset-3000"), 2);
  });
});

describe("configuration from the environment", () => {
  const NAMES = [
    "ERPDATA_BASE_URL",
    "ERPDATA_PROJECT",
    "ERPDATA_ACCESS_TOKEN",
    "ERPDATA_PROJECT_FOLDER",
    "ERPDATA_COMPANY_ID",
    "ERPDATA_YEAR_ID",
  ];
  let saved;
  before(() => {
    saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  });
  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test("ERPDATA_* fill unset options; options win", async () => {
    Object.assign(process.env, {
      ERPDATA_BASE_URL: sandbox.url,
      ERPDATA_PROJECT: "demo",
      ERPDATA_ACCESS_TOKEN: SANDBOX_TOKEN,
      ERPDATA_COMPANY_ID: "2",
      ERPDATA_YEAR_ID: "2024",
    });
    delete process.env.ERPDATA_PROJECT_FOLDER;
    const fromEnv = new ErpClient();
    assert.deepEqual(fromEnv.toJSON(), {
      baseUrl: `${sandbox.url}/`,
      project: "demo",
      projectFolder: "demo",
      accessToken: "[REDACTED]",
      companyId: "2",
      yearId: "2024",
      timeoutMs: 300000,
      connectTimeoutMs: 10000,
      readTimeoutMs: 30000,
      maxRetries: 2,
      maxRetryAfterMs: 30000,
    });
    const expected = await client({ companyId: 2, yearId: 2024 }).table("receipt");
    assert.deepEqual((await fromEnv.table("receipt")).toJSON(), expected.toJSON());
    assert.ok((await fromEnv.receivables("C001")).rows.length > 0);
    const explicit = new ErpClient({ companyId: 1, yearId: 2025 });
    assert.deepEqual(
      (await explicit.table("receipt")).toJSON(),
      (await client().table("receipt")).toJSON(),
    );
  });

  test("a bad value from a variable names the variable; one given in code, the option", () => {
    const refused = (options, field, text) =>
      assert.throws(
        () => new ErpClient(options),
        (err) => {
          assert.ok(err instanceof InvalidInputError, String(err));
          assert.equal(err.field, field);
          assert.ok(err.message.startsWith(`invalid ${field}: `), err.message);
          if (text) assert.ok(err.message.includes(text), err.message);
          assert.ok(!err.message.includes("abc123"), "never the token");
          return true;
        },
      );
    for (const name of NAMES) delete process.env[name];
    process.env.ERPDATA_BASE_URL = "erp.example.com";
    refused({}, "ERPDATA_BASE_URL", "not an absolute URL");
    refused({ baseUrl: "erp.example.com" }, "baseUrl", "not an absolute URL");
    process.env.ERPDATA_BASE_URL = "http://127.0.0.1:1";
    process.env.ERPDATA_ACCESS_TOKEN = "abc123\n";
    refused({}, "ERPDATA_ACCESS_TOKEN", "U+000A");
    refused({ accessToken: "abc123\n" }, "accessToken", "U+000A");
    // An option given wins: its variable is not read at all.
    new ErpClient({ accessToken: "abc123" });
    delete process.env.ERPDATA_ACCESS_TOKEN;
    for (const [name, option] of [
      ["ERPDATA_PROJECT", "project"],
      ["ERPDATA_PROJECT_FOLDER", "projectFolder"],
      ["ERPDATA_COMPANY_ID", "companyId"],
      ["ERPDATA_YEAR_ID", "yearId"],
    ]) {
      process.env[name] = "";
      refused({}, name, "empty");
      new ErpClient({ [option]: "1" });
      delete process.env[name];
    }
    // The base URL from its variable, the token from code: the plain-http
    // refusal names the variable, and the option that allows it as JS
    // spells it.
    process.env.ERPDATA_BASE_URL = "http://erp.example.com";
    refused({ accessToken: "abc123" }, "ERPDATA_BASE_URL", "set allowInsecureHttp");
    new ErpClient({ accessToken: "abc123", allowInsecureHttp: true });
  });

  test("no base URL anywhere is an InvalidInputError", () => {
    delete process.env.ERPDATA_BASE_URL;
    assert.throws(
      () => new ErpClient({ project: "demo" }),
      (err) => {
        assert.ok(err instanceof InvalidInputError);
        assert.equal(err.field, "baseUrl");
        assert.match(err.message, /ERPDATA_BASE_URL/);
        return true;
      },
    );
  });
});
