// tests/vectors/plans.json: the core's plans (dues_table, aging,
// credit_status) through the wasm `Plan`, with no I/O: each call the plan
// asks for must be one the case lists; pending calls are answered last
// started first (any order must work), never more running than the plan's
// concurrency; the answer or the first error is compared.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Table } from "../../js/src/table.js";
import { asVector, checkError, load, makeCore, thrown } from "./vectors.js";

const CASES = load("plans");
const MAKE = { dues_table: "duesTable", aging: "aging", credit_status: "creditStatus" };

/** Runs a case's plan to its answer (a Table) or its error (thrown). */
function runPlan(c) {
  const plan = makeCore(c.config)[MAKE[c.plan]](c.args, { numbers: "string" });
  const encoder = new TextEncoder();
  const pending = [];
  const used = new Set();
  try {
    for (;;) {
      const step = plan.next();
      if (step.call) {
        const { id, request } = step.call;
        const body = request.body === null ? "" : new TextDecoder().decode(request.body);
        const i = c.calls.findIndex(
          (listed, at) =>
            !used.has(at) &&
            listed.request.method === request.method &&
            listed.request.url === request.url &&
            listed.request.body === body,
        );
        assert.ok(i >= 0, `unlisted request ${request.method} ${request.url} ${body}`);
        used.add(i);
        pending.push([id, c.calls[i].response]);
        assert.ok(plan.running <= plan.concurrency, `${plan.running} running`);
      } else if (step.wait) {
        const [id, response] = pending.pop();
        plan.answer(id, response.status, encoder.encode(response.body));
      } else {
        return new Table({ ...step.done, numbers: "string" });
      }
    }
  } finally {
    plan.free();
  }
}

test("plan vectors exist", () => assert.ok(CASES.length > 0));

describe("plan vectors", () => {
  for (const c of CASES) {
    test(`${c.file}: ${c.name}`, () => {
      if (c.expect_error) {
        checkError(
          thrown(() => runPlan(c)),
          c.expect_error,
        );
        return;
      }
      const table = runPlan(c);
      asVector(table, c.expect);
      assert.deepEqual(table.notices, c.expect.notices ?? []);
    });
  }
});
