// The shared vectors' plumbing for the JS suites (tests/vectors/*.json, as
// tests/vectors/README.md specifies): loading cases, a wasm Core (of the
// tests' module, see testing-wasm.js) from a case's config, and checking an
// error against `expect_error`. Not a test
// file (node --test picks up *.test.js only).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { inspect } from "node:util";
import { fromCore } from "../../js/src/errors.js";
import {
  DecodeError,
  ErpError,
  HttpStatusError,
  InvalidInputError,
  ServiceError,
  TransportError,
} from "../../js/src/index.js";
import { loadTestingWasm } from "./testing-wasm.js";

export const VECTORS = new URL("../vectors/", import.meta.url);
export const DEFAULT_RESPONSE_CONFIG = {
  base_url: "https://erp.example.com/",
  project: "demo",
  access_token: "fake-token-for-tests",
};
const OPTION_NAMES = {
  base_url: "baseUrl",
  project: "project",
  project_folder: "projectFolder",
  access_token: "accessToken",
  company_id: "companyId",
  year_id: "yearId",
  allow_insecure_http: "allowInsecureHttp",
  ajax_token: "ajaxToken",
};
export const ERRORS = {
  invalid_input: InvalidInputError,
  transport: TransportError,
  http_status: HttpStatusError,
  service: ServiceError,
  decode: DecodeError,
};

export const { Core, RetryPolicy } = loadTestingWasm();

/** Every case of the vector files whose names start with `prefix`. */
export function load(prefix) {
  const files = readdirSync(VECTORS)
    .filter((f) => f.startsWith(prefix) && f.endsWith(".json"))
    .sort();
  return files.flatMap((file) => {
    const { cases } = JSON.parse(readFileSync(new URL(file, VECTORS), "utf8"));
    return cases.map((c) => ({ ...c, file }));
  });
}

/** A wasm Core from a case's config (the core's key names). */
export function makeCore(settings = DEFAULT_RESPONSE_CONFIG) {
  const options = {};
  for (const [key, value] of Object.entries(settings)) {
    assert.ok(key in OPTION_NAMES, `unknown config key ${key}`);
    options[OPTION_NAMES[key]] = value;
  }
  return new Core(options);
}

/**
 * Operation `operation` of the core's catalogue through the binding's one
 * entry point, `core.invoke`; `args` by snake name (a table's `table` is
 * the operation's `name`).
 */
export function invoke(core, operation, args = {}, reading = undefined) {
  const { table, ...rest } = args;
  const all = operation === "table" && table !== undefined ? { ...rest, name: table } : rest;
  return core.invoke(operation, all, reading);
}

/** A table fetch's arguments for reading an answer (which table is asked for does not matter). */
export const ANY_TABLE = { table: "account", company_id: 1, year_id: 1 };

/** A whole answer read as `operation` reads it (`numbers` as a call takes it). */
export function parsed(core, operation, args, status, body, numbers) {
  const invocation = invoke(core, operation, args, { numbers });
  try {
    return invocation.parse(status, body);
  } finally {
    invocation.free();
  }
}

/** A report's rows as the vectors write them: numbers as {$number}. */
export function asVector(report, expect) {
  assert.deepEqual(Object.entries(report.schema), expect.schema);
  const numeric = (type) => type === "int" || type.startsWith("decimal");
  const rows = report.rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        v !== null && numeric(report.schema[k]) ? { $number: String(v) } : v,
      ]),
    ),
  );
  assert.deepEqual(rows, expect.rows);
}

/** Runs `fn` and returns the ErpError it throws (the core's object, made a class). */
export function thrown(fn) {
  try {
    fn();
  } catch (raw) {
    return fromCore(raw);
  }
  assert.fail("expected an error");
}

/**
 * An `expect_error` as JavaScript shows it: its `js` members, where a
 * vector gives them (JS spells the core's field names its own way:
 * `companyId`), over the language-neutral ones.
 */
export function forJs(expected) {
  return { ...expected, ...expected.js };
}

/**
 * `err` against an `expect_error` (see `forJs`): its class and kind,
 * `field`, `status`, `message_contains` (one string or a list),
 * `not_contains`.
 */
export function checkError(err, expectError) {
  const expected = forJs(expectError);
  const cls = ERRORS[expected.kind];
  assert.ok(cls, `unknown kind ${expected.kind}`);
  assert.ok(err instanceof cls, `expected ${cls.name}, got ${err?.name}: ${err?.message}`);
  assert.ok(err instanceof ErpError && err instanceof Error);
  assert.equal(err.kind, expected.kind);
  if ("field" in expected) assert.equal(err.field, expected.field, err.message);
  if ("status" in expected) assert.equal(err.status, expected.status, err.message);
  if ("message_contains" in expected) {
    const parts = [expected.message_contains].flat();
    for (const part of parts) {
      assert.ok(err.message.includes(part), `${JSON.stringify(part)} not in ${err.message}`);
    }
  }
  const everything = [String(err), err.stack, inspect(err), JSON.stringify({ ...err })].join("\n");
  for (const secret of expected.not_contains ?? []) {
    assert.ok(!everything.includes(secret), `${JSON.stringify(secret)} in ${everything}`);
  }
}

/**
 * A body through the wasm `TableStream` (the decoder ErpClient.table() and
 * streamTable() read with), fed `chunk` bytes at a time: `whole` true is
 * table()'s mode (one batch of types unified over the table), false
 * streamTable()'s (one schema, a batch every `batchRows` rows). Returns the
 * JS batches, the notices, and whether the rows were regular.
 */
export function decodeBody(
  core,
  { status = 200, body, batchRows = 2, numbers, typing, whole, chunk = 7 },
) {
  const stream = core.tableStream(status, batchRows, numbers, typing, whole);
  try {
    const batches = [];
    for (let at = 0; at < body.length; at += chunk)
      batches.push(...stream.feed(body.subarray(at, at + chunk)));
    const end = stream.finish();
    batches.push(...end.batches);
    return { batches, notices: end.notices, totalRows: end.totalRows, regular: stream.regular };
  } finally {
    stream.free();
  }
}
