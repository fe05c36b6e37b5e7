// The TypeScript declarations compile, and describe real usage
// (tests/js/types/usage.ts), under `strict`; the fetch libraries' own
// types are ones the `fetch` option takes (types/fetch.mts); and a Node
// backend (types/backend.ts) compiles against the package as installed, by
// Node's module resolution and by a bundler's. Needs js/node_modules (`make
// wasm` installs typescript, @types/node and the fetch libraries there).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const JS_DIR = fileURLToPath(new URL("../../js", import.meta.url));
const tsc = join(JS_DIR, "node_modules/typescript/bin/tsc");
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

// Node's own types with the DOM lib too, as a project that names no `lib`
// has, or without it: the global fetch, Response and AbortSignal differ.
for (const lib of ["es2022", "es2022,dom"]) {
  test(`node-fetch 3 and 2 and undici's fetch type-check as \`fetch\` (lib ${lib})`, () => {
    const fetchProject = fileURLToPath(new URL("types/tsconfig.fetch.json", import.meta.url));
    const r = spawnSync(process.execPath, [tsc, "-p", fetchProject, "--lib", lib], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
  });
}

const BACKEND = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
  target: "es2022",
  types: ["node"],
  skipLibCheck: false,
};

for (const [label, resolution] of [
  ["node16", { module: "node16" }],
  ["bundler", { module: "esnext", moduleResolution: "bundler" }],
]) {
  test(`a Node backend compiles with "${label}" resolution, exactOptionalPropertyTypes on`, (t) => {
    const dir = mkdtempSync(join(tmpdir(), "erpdata-backend-ts-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // The package as installed, beside the @types/node a backend has.
    mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
    symlinkSync(JS_DIR, join(dir, "node_modules", "erpdata"), "dir");
    symlinkSync(
      join(JS_DIR, "node_modules", "@types", "node"),
      join(dir, "node_modules", "@types", "node"),
      "dir",
    );
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    copyFileSync(
      fileURLToPath(new URL("types/backend.ts", import.meta.url)),
      join(dir, "backend.ts"),
    );
    const compilerOptions = { ...BACKEND, ...resolution };
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["backend.ts"] }),
    );
    const r = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8", timeout: 120_000 });
    assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
  });
}
