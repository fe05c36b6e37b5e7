// The client's retry budget, shared by its calls (tests/vectors/budget.json):
// each case run by ErpClient against the sandbox's faults.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { ErpError } from "../../js/src/index.js";
import { attempts, demoClient, faultsBase, freshKey, startSandbox } from "./sandbox.js";

const { cases } = JSON.parse(
  readFileSync(new URL("../vectors/budget.json", import.meta.url), "utf8"),
);

let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

describe("budget.json: one client's calls share its retry budget", () => {
  for (const c of cases) {
    test(c.name, async () => {
      const key = freshKey("budget");
      const client = demoClient(faultsBase(sandbox.url, c.fault, key), { maxRetries: 2 });
      for (const [i, want] of c.calls.entries()) {
        const where = `call ${i + 1}`;
        const before = await attempts(sandbox.url, key);
        let error;
        try {
          await client.receivables("C001");
        } catch (err) {
          error = err;
        }
        const seen = (await attempts(sandbox.url, key)) - before;
        assert.equal(seen, want.attempts, `${where}: the sandbox saw ${seen} requests`);
        if (want.outcome === "ok") {
          assert.equal(error, undefined, `${where}: ${error}`);
          continue;
        }
        assert.ok(error instanceof ErpError, `${where}: ${error}`);
        assert.equal(error.attempts, want.attempts, `${where}: attempts reported`);
        const withheld = error.message.includes("not retried: recent requests");
        assert.equal(withheld, want.withheld, `${where}: ${error.message}`);
      }
    });
  }
});
