// The package as users get it: `npm pack`, the tarball installed into a
// temporary project (offline: the package has no dependencies), then used
// from JavaScript (Node entry and edge entry), from TypeScript
// (`tsc --noEmit`), and by the README's JavaScript examples, all against a
// sandbox over loopback.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { SANDBOX_TOKEN, startSandbox } from "./sandbox.js";

const JS_DIR = fileURLToPath(new URL("../../js/", import.meta.url));
const README = fileURLToPath(new URL("../../README.md", import.meta.url));
const TSC = join(JS_DIR, "node_modules/typescript/bin/tsc");
const QUICKSTART_URL = "http://127.0.0.1:8787";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 120_000, ...options });
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

/** Runs an ES module file in the project; returns what it printed. */
function node(dir, file, source, env = {}) {
  writeFileSync(join(dir, file), source);
  return run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env } });
}

let sandbox;
let dir;
before(async () => {
  sandbox = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), "erpdata-consumer-"));
  const packed = JSON.parse(
    run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: JS_DIR }),
  );
  const tarball = join(dir, packed[0].filename);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
    cwd: dir,
  });
});
after(async () => {
  await sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const settings = () =>
  `{ baseUrl: ${JSON.stringify(sandbox.url)}, project: "demo", accessToken: ${JSON.stringify(SANDBOX_TOKEN)}, companyId: 1, yearId: 2025 }`;

describe("the installed package", () => {
  test("ships only what it needs", () => {
    const files = JSON.parse(
      run("npm", ["pack", "--dry-run", "--json"], { cwd: JS_DIR }),
    )[0].files.map((f) => f.path);
    for (const needed of [
      "src/index.js",
      "src/edge.js",
      "src/index.d.ts",
      "src/edge.d.ts",
      "pkg/erpdata_wasm.js",
      "pkg/erpdata_wasm_bg.wasm",
      "pkg/erpdata_wasm_bytes.js",
      "package.json",
    ]) {
      assert.ok(files.includes(needed), `${needed} missing from ${files}`);
    }
    assert.ok(
      files.every((f) => !f.includes("node_modules") && !f.startsWith("scripts/")),
      String(files),
    );
  });

  test("import { ErpClient } from 'erpdata' in Node", () => {
    const out = node(
      dir,
      "node-use.mjs",
      `
      import { ErpClient, ErpError, Table } from "erpdata";
      const client = new ErpClient(${settings()});
      const dues = await client.receivables("C001");
      const table = await client.table("sales_invoice");
      console.log(dues.rows.length > 0, table instanceof Table, table.columns().amount.type, new ErpError("x") instanceof Error);
    `,
    );
    assert.equal(out.trim(), "true true float64 true");
  });

  test("erpdata/edge works without Node built-ins", () => {
    const out = node(
      dir,
      "edge-use.mjs",
      `
      import { ErpClient, initWasm } from "erpdata/edge";
      const client = new ErpClient(${settings()});
      const rows = [];
      for await (const batch of client.streamTable("account", { batchRows: 8 })) rows.push(...batch);
      console.log(typeof initWasm, rows.length);
    `,
    );
    assert.equal(out.trim(), "function 20");
    // Nothing the edge entry loads names a Node built-in.
    const root = join(dir, "node_modules/erpdata/");
    const seen = new Set();
    const visit = (file) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      assert.ok(
        !/\bfrom\s+["']node:|require\(|import\(["']node:/.test(text),
        `${file} uses Node built-ins`,
      );
      for (const [, spec] of text.matchAll(/(?:from|import)\s+["'](\.[^"']+)["']/g)) {
        visit(fileURLToPath(new URL(spec, `file://${file}`)));
      }
    };
    visit(join(root, "src/edge.js"));
    assert.ok(seen.size >= 5, `followed ${seen.size} files`);
  });

  test("require('erpdata') from CommonJS, where Node can require ES modules", () => {
    writeFileSync(
      join(dir, "cjs-use.cjs"),
      `
      const { ErpClient } = require("erpdata");
      console.log(new ErpClient(${settings()}).toJSON().accessToken);
    `,
    );
    const result = spawnSync(process.execPath, ["cjs-use.cjs"], { cwd: dir, encoding: "utf8" });
    if (process.features.require_module) {
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), "[REDACTED]");
    } else {
      // Node before 20.19 / 22.12: the package is ES modules only.
      assert.match(result.stderr, /ERR_REQUIRE_ESM/);
    }
  });

  test("a bundle that left the wasm module behind says so, ES module or CommonJS", () => {
    // esbuild --platform=node writes CommonJS by default, where import.meta
    // is {}: the first ErpClient failed with a bare "TypeError: Invalid URL".
    const esbuild = join(JS_DIR, "node_modules/.bin/esbuild");
    writeFileSync(
      join(dir, "bundled.mjs"),
      `import { ErpClient } from "erpdata";\nnew ErpClient(${settings()});\n`,
    );
    for (const [format, said] of [
      ["esm", /its WebAssembly module is not at .*erpdata_wasm_bg\.wasm/],
      ["cjs", /its WebAssembly module is not found, next to its code/],
    ]) {
      const out = join(dir, `bundle-${format}.${format === "esm" ? "mjs" : "cjs"}`);
      run(
        esbuild,
        [
          "bundled.mjs",
          "--bundle",
          "--platform=node",
          `--format=${format}`,
          "--log-level=error",
          `--outfile=${out}`,
        ],
        {
          cwd: dir,
        },
      );
      const result = spawnSync(process.execPath, [out], { cwd: dir, encoding: "utf8" });
      assert.notEqual(result.status, 0, `${format}: ${result.stdout}`);
      assert.match(result.stderr, said, format);
      assert.match(result.stderr, /esbuild --external:erpdata/, format);
    }
  });

  test("the wasm file is exported for runtimes that import wasm modules", () => {
    const out = node(
      dir,
      "wasm-use.mjs",
      `
      import { createRequire } from "node:module";
      import { readFileSync } from "node:fs";
      const path = createRequire(import.meta.url).resolve("erpdata/erpdata_wasm_bg.wasm");
      const { ErpClient, initWasm } = await import("erpdata/edge");
      initWasm(new WebAssembly.Module(readFileSync(path)));
      console.log(new ErpClient(${settings()}).toJSON().accessToken);
    `,
    );
    assert.equal(out.trim(), "[REDACTED]");
  });

  test("TypeScript: a consumer file type-checks against the declarations (tsc --noEmit)", () => {
    writeFileSync(
      join(dir, "consumer.ts"),
      `
      import { ErpClient, HttpStatusError, type Column, type Row, type Table } from "erpdata";
      import { initWasm } from "erpdata/edge";
      const client = new ErpClient({ baseUrl: "https://erp.example.com/", maxRetries: 1, timeoutMs: 5000 });
      export async function main(signal: AbortSignal): Promise<number> {
        const table: Table = await client.table("sales_invoice", { numbers: "string", signal });
        const amount: Column | undefined = table.columns()["amount"];
        const first: Row | undefined = table.rows[0];
        let n = 0;
        for await (const batch of client.streamTable("account", { batchRows: 100 })) n += batch.length;
        try {
          await client.payables("S001");
        } catch (err) {
          if (err instanceof HttpStatusError) return err.status;
        }
        return n + (amount?.length ?? 0) + Object.keys(first ?? {}).length;
      }
      initWasm(new Uint8Array(0));
      // @ts-expect-error: numbers is "number" or "string"
      client.table("x", { numbers: "decimal" });
    `,
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2022", "dom", "dom.asynciterable"],
          types: [],
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir });
  });

  test("the README's JavaScript examples run as written", async () => {
    const blocks = [...readFileSync(README, "utf8").matchAll(/```js\n(.*?)```/gs)].map((m) => m[1]);
    assert.equal(blocks.length, 2, "a Node example and an edge function");
    const [nodeExample, edgeExample] = blocks;
    assert.ok(nodeExample.includes(QUICKSTART_URL));
    const out = node(dir, "readme-node.mjs", nodeExample.replaceAll(QUICKSTART_URL, sandbox.url));
    for (const expected of [
      "INV-2025-",
      "40 invoices",
      "true ",
      "customers",
      '"44243.33"'.slice(1, -1),
      "40 rows streamed",
    ]) {
      assert.ok(out.includes(expected), `${expected} not in:\n${out}`);
    }
    assert.ok(!out.includes(SANDBOX_TOKEN));
    writeFileSync(join(dir, "readme-edge.mjs"), edgeExample);
    const handler = (await import(join(dir, "readme-edge.mjs"))).default;
    const env = {
      ERPDATA_BASE_URL: sandbox.url,
      ERPDATA_PROJECT: "demo",
      ERPDATA_ACCESS_TOKEN: SANDBOX_TOKEN,
    };
    const res = await handler.fetch(new Request("https://dashboard.example/dues?acid=C001"), env);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.acid, "C001");
    assert.ok(body.rows.length > 0 && body.open > 0);
  });
});
