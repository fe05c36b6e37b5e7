// tests/vectors/catalogue.json: each operation of the core's catalogue by
// name (snake or JS spelling) with arguments of plain shapes, through the
// binding's one entry point (`core.invoke`), checked against the request it
// builds or the error it refuses them with.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { checkError, load, makeCore, thrown } from "./vectors.js";

const CASES = load("catalogue");

/** A case's JSON value as JS gives it: `$date` a Date at midnight UTC, `$datetime` a Date. */
function value(v) {
  if (Array.isArray(v)) return v.map(value);
  if (v === null || typeof v !== "object") return v;
  if ("$date" in v) return new Date(`${v.$date}T00:00:00Z`);
  if ("$datetime" in v) return new Date(`${v.$datetime}Z`);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)]));
}

test("catalogue vectors exist", () => assert.ok(CASES.length > 0));

describe("catalogue vectors", () => {
  for (const c of CASES) {
    test(`${c.file}: ${c.name}`, () => {
      const build = () => {
        const invocation = makeCore(c.config).invoke(c.operation, value(c.args));
        try {
          return invocation.request();
        } finally {
          invocation.free();
        }
      };
      if (c.expect_error) {
        checkError(thrown(build), c.expect_error);
        return;
      }
      const request = build();
      const { expect } = c;
      const body = request.body === null ? "" : new TextDecoder().decode(request.body);
      assert.deepEqual(
        { method: request.method, url: request.url, body },
        { method: expect.method, url: expect.url, body: expect.body },
      );
      const contentTypes = request.headers
        .filter(([k]) => k.toLowerCase() === "content-type")
        .map(([, v]) => v);
      assert.deepEqual(contentTypes, expect.content_type === null ? [] : [expect.content_type]);
      const token = c.config.access_token;
      if (token) assert.ok(!request.displayUrl.includes(token), request.displayUrl);
    });
  }
});
