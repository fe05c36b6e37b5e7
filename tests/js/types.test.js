// The TypeScript declarations compile, and describe real usage
// (tests/js/types/usage.ts), under `strict`. Needs js/node_modules
// (`make wasm` installs typescript there).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const tsc = fileURLToPath(new URL("../../js/node_modules/typescript/bin/tsc", import.meta.url));
const project = fileURLToPath(new URL("types/tsconfig.json", import.meta.url));

test("index.d.ts type-checks real usage", () => {
  // A missing compiler is a broken install, not a reason to pass.
  assert.ok(
    existsSync(tsc),
    `typescript is not installed in js/node_modules (${tsc}); run make wasm`,
  );
  const result = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});
