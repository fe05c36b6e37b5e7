// Bad input, generated: arbitrary Unicode, huge strings, NUL and control
// characters, lone surrogates and values of every wrong type, at every
// parameter of every public method and of the constructor. Each value is
// either refused with an InvalidInputError naming the parameter, and then
// the sandbox saw nothing (`/_faults/total` unchanged), or it is one the
// documentation accepts, and then exactly one request went out carrying it
// as documented (an id as its text, a kind in capitals, ...).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";

import { ErpClient, InvalidInputError } from "../../js/src/index.js";
import {
  clearClientEnv,
  demoClient,
  faultsBase,
  freshKey,
  requestLog,
  SANDBOX_TOKEN,
  startSandbox,
  totalSeen,
} from "./sandbox.js";

// The suite lives outside js/, whose node_modules holds the dev dependencies.
const fc = createRequire(new URL("../../js/package.json", import.meta.url))("fast-check");

const RUNS = 50;
const MAX_TEXT = 1024;

let sandbox;
before(async () => {
  // Options left out must not be filled from the environment here.
  clearClientEnv();
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

// --- the values thrown ----------------------------------------------------

const controlChar = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((c) => String.fromCharCode(c));

/** Strings a caller might pass by mistake or an attacker on purpose. */
const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary-ascii", maxLength: 20 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), controlChar, fc.string({ maxLength: 10 }))
    .map((p) => p.join("")),
  fc
    .tuple(fc.string({ maxLength: 5 }), fc.integer({ min: 0xd800, max: 0xdfff }))
    .map(([s, u]) => s + String.fromCharCode(u)),
  // Huge: beyond the 1024-character limit, up to a few megabytes.
  fc
    .tuple(fc.integer({ min: MAX_TEXT + 1, max: 1_500_000 }), fc.constantFrom("x", "é", "😀", " "))
    .map(([n, c]) => c.repeat(n)),
  fc.constantFrom(
    "",
    " ",
    "\t\n",
    "\u3000",
    "\u0000",
    "C001\u0000",
    "a&b=c",
    "%00",
    "../../etc",
    "RECEIPT",
    "payment",
    "GET",
    "post",
  ),
);

/** Everything that is not a string. */
const wrongType = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    NaN,
    Infinity,
    -Infinity,
    true,
    false,
    -0,
    0.5,
    2 ** 60,
    Number.MAX_SAFE_INTEGER + 2,
    Symbol("s"),
    Symbol.iterator,
    // A Date at midnight UTC is taken by shape as a day where ids are.
    new Date(0),
  ),
  fc.double(),
  fc.integer(),
  fc.bigInt(),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
  fc.func(fc.anything({ maxDepth: 0 })),
  fc.date(),
);

const anyValue = fc.oneof(hostileString, wrongType);

// --- what the documentation accepts -----------------------------------------

const isNullish = (v) => v === undefined || v === null;
// The core's text rule: not empty or only white space, at most 1024
// characters, no control character, valid Unicode. What is plainly outside
// it must be refused; the rest may be refused (for finer rules) or sent.
const plainlyBadText = (s) =>
  s.trim() === "" || [...s].length > MAX_TEXT || /\p{Cc}/u.test(s) || !s.isWellFormed();

/**
 * How an id (acid, company id, year id) must be handled: `"refuse"`, or the
 * text it goes on the wire as, or `"either"`.
 */
/**
 * A Date at midnight UTC reaches the core as its day's text, whatever the
 * parameter: arguments are converted by shape, and the core sends a text id
 * as given.
 */
const midnightDate = (v) => v instanceof Date && v.getTime() % 86_400_000 === 0;
// A Date at midnight UTC is taken by shape as its day's text, and sent so:
// its ISO text without the time, whose year has six digits and a sign
// outside 0000-9999 (`-000169-01-05`).
const dayOf = (v) => v.toISOString().slice(0, -"T00:00:00.000Z".length);

function idRule(v) {
  if (midnightDate(v)) return dayOf(v);
  if (typeof v === "string") return plainlyBadText(v) ? "refuse" : "either";
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v === 0 ? 0 : v) : "refuse";
  if (typeof v === "bigint") return v.toString();
  return "refuse";
}

const textRule = (v) =>
  midnightDate(v) ? dayOf(v) : typeof v === "string" && !plainlyBadText(v) ? "either" : "refuse";
const oneOf =
  (...allowed) =>
  (v) =>
    isNullish(v) || allowed.includes(v) ? "accept" : "refuse";

// --- running one value --------------------------------------------------------

/** What a call returns when, by design, it sent nothing (checked). */
const NOT_SENT = Symbol("not sent");

/**
 * Calls `call(value)`; asserts a refusal named `field` (or `field(value)`)
 * with nothing sent, or (when `rule` allows) an accepted call whose
 * requests `sent(log)` checks.
 */
async function check({ value, rule, field: fieldOf, call, sent }) {
  const field = typeof fieldOf === "function" ? fieldOf(value) : fieldOf;
  const verdict = rule(value);
  const totalBefore = await totalSeen(sandbox.url);
  const key = freshKey("jsbad");
  let error;
  let result;
  try {
    result = await call(value, faultsBase(sandbox.url, "pass", key));
  } catch (err) {
    error = err;
  }
  const label = `${field} = ${show(value)}`;
  if (error instanceof InvalidInputError) {
    assert.ok(
      verdict === "refuse" || verdict === "either",
      `${label} was refused: ${error.message}`,
    );
    if (field instanceof RegExp) {
      // A field with a part: `schema["amount"]`.
      assert.match(error.field, field, `${label}: ${error.message}`);
      assert.ok(error.message.includes(error.field), error.message);
    } else {
      assert.equal(error.field, field, `${label}: ${error.message}`);
      assert.ok(error.message.includes(field), error.message);
    }
    assert.equal(await totalSeen(sandbox.url), totalBefore, `${label}: something was sent`);
    return;
  }
  // Not refused: only a service-level answer (an unknown table...) may fail.
  assert.ok(
    error === undefined || ["ServiceError", "HttpStatusError"].includes(error.name),
    `${label}: ${error?.name}: ${error?.message}`,
  );
  assert.notEqual(verdict, "refuse", `${label} was not refused`);
  if (result === NOT_SENT) {
    assert.equal(await totalSeen(sandbox.url), totalBefore, `${label}: something was sent`);
  } else if (sent) {
    const log = await requestLog(sandbox.url, key);
    assert.equal(log.length, 1, `${label}: ${log.length} requests`);
    sent(log[0], verdict, value);
  }
}

function show(value) {
  if (typeof value === "string")
    return value.length > 60 ? `${value.length} chars` : JSON.stringify(value);
  if (typeof value === "symbol" || typeof value === "bigint")
    return `${String(value)} (${typeof value})`;
  try {
    return `${JSON.stringify(value)} (${typeof value})`;
  } catch {
    return typeof value;
  }
}

const property = (arb, fields, examples = []) =>
  fc.assert(
    fc.asyncProperty(arb, (value) => check({ value, ...fields })),
    { numRuns: RUNS, examples: examples.map((v) => [v]) },
  );

// Dates at midnight UTC whose year ISO writes with six digits and a sign
// (fast-check found the first).
const FAR_DAYS = [new Date("-000169-01-05T00:00:00.000Z"), new Date("+020000-02-29T00:00:00.000Z")];

function client(baseUrl, options = {}) {
  return demoClient(baseUrl, { timeoutMs: 10_000, ...options });
}

const query = (req) => new URLSearchParams(req.query);
const form = (req) => new URLSearchParams(req.method === "GET" ? req.query : req.body);
/** The request carried `name` = the id's text (when the rule knew it). */
const carries = (read, name) => (req, verdict, value) => {
  const got = read(req).get(name);
  assert.equal(got, verdict === "either" ? value : verdict, `${name} on the wire`);
};

async function drain(iterable) {
  for await (const batch of iterable) assert.ok(Array.isArray(batch));
}

// --- the properties -----------------------------------------------------------

describe("every parameter refuses what it cannot send", () => {
  test("dues({acid})", () =>
    property(anyValue, {
      field: "acid",
      rule: idRule,
      call: (v, url) => client(url).dues({ acid: v, kind: "RECEIPT" }),
      sent: carries(query, "acid"),
    }));

  test("receivables(acid) and payables(acid)", async () => {
    for (const method of ["receivables", "payables"]) {
      await property(anyValue, {
        field: "acid",
        rule: idRule,
        call: (v, url) => client(url)[method](v),
        sent: carries(query, "acid"),
      });
    }
  });

  test("dues({kind})", () =>
    property(anyValue, {
      field: "kind",
      rule: (v) => (typeof v === "string" ? "either" : "refuse"),
      call: (v, url) => client(url).dues({ acid: "C001", kind: v }),
      sent: (req, _, v) => {
        const sentKind = query(req).get("type");
        assert.ok(
          ["RECEIPT", "PAYMENT"].includes(sentKind) && sentKind === v.trim().toUpperCase(),
          `${sentKind} for ${v}`,
        );
      },
    }));

  test("numbers of every call", async () => {
    const calls = {
      dues: (c, v) => c.dues({ acid: "C001", kind: "RECEIPT", numbers: v }),
      receivables: (c, v) => c.receivables("C001", { numbers: v }),
      table: (c, v) => c.table("account", { numbers: v }),
      streamTable: (c, v) => drain(c.streamTable("account", { numbers: v })),
    };
    for (const call of Object.values(calls)) {
      await property(fc.oneof(anyValue, fc.constantFrom("number", "string")), {
        field: "numbers",
        rule: oneOf("number", "string"),
        call: (v, url) => call(client(url), v),
      });
    }
  });

  test("signal of every call", async () => {
    const calls = [
      (c, v) => c.payables("S001", { signal: v }),
      (c, v) => c.dues({ acid: "S001", kind: "PAYMENT", signal: v }),
      (c, v) => c.table("account", { signal: v }),
      (c, v) => drain(c.streamTable("account", { signal: v })),
    ];
    const live = new AbortController().signal;
    for (const call of calls) {
      await property(fc.oneof(anyValue, fc.constant(live)), {
        field: "signal",
        rule: (v) => (isNullish(v) || v === live ? "accept" : "refuse"),
        call: (v, url) => call(client(url), v),
      });
    }
  });

  test("the options argument of every call", async () => {
    const calls = {
      // dues has no defaults for acid and kind: an options object without
      // them is refused for the acid.
      dues: [(c, v) => c.dues(v), "acid"],
      receivables: [(c, v) => c.receivables("C001", v), null],
      payables: [(c, v) => c.payables("S001", v), null],
      table: [(c, v) => c.table("account", v), null],
      streamTable: [(c, v) => drain(c.streamTable("account", v)), null],
    };
    // Strings, numbers, symbols, arrays... are not options; null and
    // undefined mean none; an object without members means defaults, and
    // one with members the call does not take (all of those generated here)
    // is refused for the first of them.
    const notAnObject = (v) =>
      !isNullish(v) && ((typeof v !== "object" && typeof v !== "function") || Array.isArray(v));
    const keys = (v) => (isNullish(v) ? [] : Object.keys(v));
    for (const [call, missing] of Object.values(calls)) {
      await property(
        anyValue.filter((v) => typeof v !== "function"),
        {
          field: (v) => (notAnObject(v) ? "options" : keys(v)[0]),
          rule: (v) => (notAnObject(v) || keys(v).length > 0 ? "refuse" : "accept"),
          call: async (v, url) => {
            try {
              await call(client(url), v);
            } catch (err) {
              // The member that has no default is what an empty options lacks.
              if (missing && !notAnObject(v) && err.field === missing) return NOT_SENT;
              throw err;
            }
          },
        },
      );
    }
  });

  test("table(name) and streamTable(name)", async () => {
    const names = fc.oneof(anyValue, fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,70}$/));
    const identifier = (v) =>
      typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(v) ? "either" : "refuse";
    await property(names, {
      field: "table",
      rule: identifier,
      call: (v, url) => client(url).table(v),
      sent: (req, _, v) => assert.equal(form(req).get("table"), v),
    });
    await property(names, {
      field: "table",
      rule: identifier,
      call: (v, url) => drain(client(url).streamTable(v)),
      sent: (req, _, v) => assert.equal(form(req).get("table"), v),
    });
  });

  test("companyId and yearId per call", async () => {
    for (const [option, field, param] of [
      ["companyId", "companyId", "compid"],
      ["yearId", "yearId", "yearid"],
    ]) {
      // undefined and null fall back to the configured default.
      const rule = (v) => (isNullish(v) ? (option === "companyId" ? "1" : "2025") : idRule(v));
      await property(
        anyValue,
        {
          field,
          rule,
          call: (v, url) => client(url).table("account", { [option]: v }),
          sent: carries(form, param),
        },
        FAR_DAYS,
      );
      await property(anyValue, {
        field,
        rule,
        call: (v, url) => drain(client(url).streamTable("account", { [option]: v })),
        sent: carries(form, param),
      });
    }
  });

  test("method", () =>
    property(anyValue, {
      field: "method",
      rule: (v) => (isNullish(v) ? "POST" : typeof v === "string" ? "either" : "refuse"),
      call: (v, url) => client(url).table("account", { method: v }),
      sent: (req, verdict, v) =>
        assert.equal(req.method, verdict === "either" ? v.trim().toUpperCase() : verdict),
    }));

  test("schema and inferStrings of every call", async () => {
    const calls = {
      dues: (c, o) => c.dues({ acid: "C001", kind: "RECEIPT", ...o }),
      receivables: (c, o) => c.receivables("C001", o),
      payables: (c, o) => c.payables("S001", o),
      table: (c, o) => c.table("account", o),
      streamTable: (c, o) => drain(c.streamTable("account", o)),
    };
    const typeName = fc.oneof(
      fc.constantFrom(
        "string",
        "int",
        "decimal",
        "decimal(14,2)",
        "DATE",
        " timestamp ",
        "bool",
        "json",
        "datetime",
      ),
      hostileString,
    );
    // Declarations of columns the tables do not have (a declared column
    // the answer lacks is all null), with good and bad type names.
    const declarations = fc.dictionary(
      fc.string({ maxLength: 12 }).map((k) => `zz_${k}`),
      typeName,
      { maxKeys: 4 },
    );
    const isPlain = (v) =>
      typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      [Object.prototype, null].includes(Object.getPrototypeOf(v));
    for (const call of Object.values(calls)) {
      await property(fc.oneof(anyValue, declarations), {
        // `schema`, or `schema["column"]` for a declaration of its own.
        field: /^schema(\[".*"\])?$/s,
        rule: (v) => {
          if (isNullish(v)) return "accept";
          return isPlain(v) && Object.values(v).every((t) => typeof t === "string")
            ? "either"
            : "refuse";
        },
        call: (v, url) => call(client(url), { schema: v }),
      });
      await property(fc.oneof(anyValue, fc.boolean()), {
        field: "inferStrings",
        rule: (v) => (isNullish(v) || typeof v === "boolean" ? "accept" : "refuse"),
        call: (v, url) => call(client(url), { inferStrings: v }),
      });
    }
  });

  test("batchRows", () =>
    property(
      fc.oneof(
        anyValue,
        fc.integer({ min: -5, max: 1_048_581 }),
        fc.integer({ min: 1_048_570, max: 2 ** 31 + 5 }),
      ),
      {
        // The core's range (ErpClient.limits.batchRows), named as JS spells it.
        field: "batchRows",
        rule: (v) =>
          isNullish(v) || (Number.isSafeInteger(v) && v >= 1 && v <= 1_048_576)
            ? "accept"
            : "refuse",
        call: (v, url) => drain(client(url).streamTable("account", { batchRows: v })),
      },
    ));
});

describe("the finance views check every input before fetching anything", () => {
  // The core's rules: asOf a real calendar day as YYYY-MM-DD (or a Date);
  // buckets positive whole day counts, strictly increasing; concurrency 1
  // to ErpClient.limits.concurrency.max.
  const day = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  const realDay = (s) => {
    if (!day.test(s)) return false;
    const [y, m, d] = s.split("-").map(Number);
    const t = new Date(Date.UTC(y, m - 1, d));
    return y >= 1 && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
  };
  const asOfRule = (v) => {
    if (isNullish(v)) return "accept";
    if (v instanceof Date) return "either";
    return typeof v === "string" && realDay(v) ? "accept" : "refuse";
  };
  const bucketsRule = (v) => {
    if (isNullish(v)) return "accept";
    if (!Array.isArray(v) || v.length === 0) return "refuse";
    const whole = v.every((b) => Number.isInteger(b) && b >= 1 && b <= 2 ** 32 - 1);
    return whole && v.every((b, i) => i === 0 || v[i - 1] < b) ? "accept" : "refuse";
  };
  const maxConcurrency = ErpClient.limits.concurrency.max;
  const concurrencyRule = (v) =>
    v === undefined || (Number.isSafeInteger(v) && v >= 1 && v <= maxConcurrency)
      ? "accept"
      : "refuse";
  const dates = fc.oneof(
    anyValue,
    fc.constantFrom("2025-12-31", "2024-02-29", "2025-02-29", "2025-13-01", "31/12/2025"),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  );
  const bucketValues = fc.oneof(
    anyValue,
    fc.array(fc.integer({ min: -2, max: 120 }), { maxLength: 4 }),
    fc.array(fc.constantFrom(15, 30, 1.5, "30", true, 2 ** 32, 2 ** 32 - 1), { maxLength: 3 }),
  );
  const concurrencyValues = fc.oneof(anyValue, fc.integer({ min: -2, max: 300 }));
  const aging = (options) => (v, url) =>
    client(url).aging("receipt", { accounts: ["C001", "C002"], asOf: "2025-12-31", ...options(v) });
  const credit = (options) => (v, url) =>
    client(url).creditStatus({
      accounts: ["C002"],
      payDays: false,
      asOf: "2025-12-31",
      ...options(v),
    });

  test("asOf", async () => {
    await property(dates, { field: "asOf", rule: asOfRule, call: aging((v) => ({ asOf: v })) });
    await property(dates, { field: "asOf", rule: asOfRule, call: credit((v) => ({ asOf: v })) });
  });

  test("buckets", () =>
    property(bucketValues, {
      field: "buckets",
      rule: bucketsRule,
      call: aging((v) => ({ buckets: v })),
    }));

  test("concurrency of duesTable, aging and creditStatus", async () => {
    for (const call of [
      (v, url) => client(url).duesTable(["C001", "C002"], "receipt", { concurrency: v }),
      aging((v) => ({ concurrency: v })),
      credit((v) => ({ concurrency: v })),
    ]) {
      await property(concurrencyValues, { field: "concurrency", rule: concurrencyRule, call });
    }
  });

  test("accounts and kind", async () => {
    const accountsRule = (v) => {
      if (isNullish(v)) return "accept";
      if (typeof v === "string" || typeof v?.[Symbol.iterator] !== "function") return "refuse";
      return [...v].some((a) => idRule(a) === "refuse") ? "refuse" : "either";
    };
    for (const value of [
      "C001",
      42,
      { a: 1 },
      ["C001", ""],
      ["C001", "\u0000"],
      [Symbol("s")],
      [null],
    ]) {
      await check({
        value,
        field: "accounts", // the list, and in the message the item
        rule: accountsRule,
        call: aging((v) => ({ accounts: v })),
      });
      await check({
        value,
        field: "accounts", // the list, and in the message the item
        rule: accountsRule,
        call: credit((v) => ({ accounts: v })),
      });
    }
    await property(anyValue, {
      field: "kind",
      rule: (v) => (v === undefined ? "accept" : typeof v === "string" ? "either" : "refuse"),
      call: (v, url) => client(url).aging(v, { asOf: "2025-12-31" }),
    });
  });

  test("payDays and accountsTable", async () => {
    await property(anyValue, {
      field: "payDays",
      rule: (v) => (v === undefined || typeof v === "boolean" ? "accept" : "refuse"),
      call: credit((v) => ({ payDays: v })),
    });
    // A name the core takes may be a table of the sandbox without account
    // columns, refused only once read: the names thrown here are not.
    const tables = fc.oneof(
      wrongType,
      hostileString.filter((v) => plainlyBadText(v)),
      fc.constant("account"),
    );
    // Named as the option it is given by, not the table call's "table".
    await property(tables, {
      field: "accountsTable",
      rule: (v) => (v === undefined ? "accept" : typeof v === "string" ? "either" : "refuse"),
      call: (v, url) => client(url).aging("receipt", { accountsTable: v, asOf: "2025-12-31" }),
    });
  });
});

describe("the constructor refuses what it cannot use", () => {
  /** Constructs with one option set to `v`; then one call shows where it went. */
  const construct = (option, then) => async (v, url) => {
    const c = client(url, { [option]: v });
    return then ? then(c) : NOT_SENT;
  };

  test("baseUrl", () =>
    property(anyValue, {
      field: "baseUrl",
      // A URL the core takes is not called: it could point anywhere.
      rule: (v) => (typeof v === "string" && /^https?:\/\//i.test(v) ? "either" : "refuse"),
      call: (v) => {
        assert.ok(new ErpClient({ baseUrl: v, project: "demo", accessToken: SANDBOX_TOKEN }));
        return NOT_SENT;
      },
    }));

  test("project, projectFolder and accessToken", async () => {
    const texts = [
      ["project", "project", (c) => c.table("account"), (req) => form(req).get("project")],
      [
        "projectFolder",
        "projectFolder",
        (c) => c.receivables("C001"),
        (req) => query(req).get("sys_projectfolder"),
      ],
      [
        "accessToken",
        "accessToken",
        (c) => c.table("account"),
        (req) => form(req).get("accesstoken"),
      ],
    ];
    for (const [option, field, call, read] of texts) {
      await property(anyValue, {
        field,
        // Unset (undefined, null) is allowed at construction; the options
        // are text only (a Date is not taken by shape as a call's ids are).
        rule: (v) => (isNullish(v) ? "accept" : typeof v === "string" ? textRule(v) : "refuse"),
        call: construct(option, async (c) => {
          try {
            await call(c);
          } catch (err) {
            // Without a project or token the call itself is refused.
            if (err instanceof InvalidInputError && err.field === field) return NOT_SENT;
            throw err;
          }
        }),
        sent: (req, _verdict, v) => {
          if (!isNullish(v)) assert.equal(read(req), v);
        },
      });
    }
  });

  test("companyId and yearId", async () => {
    for (const [option, field, param] of [
      ["companyId", "companyId", "compid"],
      ["yearId", "yearId", "yearid"],
    ]) {
      await property(
        anyValue.filter((v) => !isNullish(v)),
        {
          field,
          rule: idRule,
          call: construct(option, (c) => c.table("account")),
          sent: carries(form, param),
        },
      );
    }
  });

  test("timeoutMs, connectTimeoutMs, readTimeoutMs, maxRetries, maxRetryAfterMs, fetch, logger, allowInsecureHttp", async () => {
    // The core's ranges (ErpClient.limits): a limit above 0 and at most a
    // day, 0 to 10 retries, a Retry-After waited out from 0 to a day; its
    // errors name the option.
    // (Checked in seconds, as the core has them: 5e-324 ms is 0 s.)
    const limit = (v) =>
      isNullish(v) || (typeof v === "number" && v / 1000 > 0 && v / 1000 <= 86_400);
    const options = {
      timeoutMs: limit,
      connectTimeoutMs: limit,
      readTimeoutMs: limit,
      maxRetries: (v) => isNullish(v) || (Number.isSafeInteger(v) && v >= 0 && v <= 10),
      maxRetryAfterMs: (v) =>
        isNullish(v) || (typeof v === "number" && v / 1000 >= 0 && v / 1000 <= 86_400),
      fetch: (v) => isNullish(v) || typeof v === "function",
      logger: (v) =>
        isNullish(v) || (typeof v?.debug === "function" && typeof v?.info === "function"),
      allowInsecureHttp: (v) => isNullish(v) || typeof v === "boolean",
    };
    // What a logger is, and near misses, each tried.
    const loggers = [undefined, null, console, { debug() {}, info() {} }, { debug() {} }, {}];
    for (const [option, valid] of Object.entries(options)) {
      const near = fc.oneof(fc.double({ min: 1, max: 2 ** 31 }), fc.integer({ min: -2, max: 12 }));
      await property(
        fc.oneof(anyValue, near),
        {
          field: option,
          rule: (v) => (valid(v) ? "accept" : "refuse"),
          call: construct(option),
        },
        option === "logger" ? loggers : [],
      );
    }
  });

  test("the options argument itself", async () => {
    await property(
      anyValue.filter((v) => typeof v !== "object" && v !== undefined),
      {
        field: "options",
        rule: () => "refuse",
        call: (v) => new ErpClient(v),
      },
    );
    // None at all: the base URL is missing (the environment is cleared above).
    for (const v of [undefined, null]) {
      assert.throws(
        () => new ErpClient(v),
        (err) => err instanceof InvalidInputError && err.field === "baseUrl",
      );
    }
  });

  test("dangerouslyAllowBrowser is read only in a browser", () =>
    property(anyValue, {
      field: "dangerouslyAllowBrowser",
      rule: () => "accept",
      call: construct("dangerouslyAllowBrowser"),
    }));
});
