// Builds js/pkg/ from crates/erpdata-wasm: cargo (release, wasm32), then the
// wasm-bindgen CLI. wasm-pack is not used: it downloads tools at run time.
//
//   WASM_BINDGEN=/path/to/wasm-bindgen node scripts/build-wasm.mjs
//
// `--target web` gives one ES module that runs anywhere with WebAssembly:
// Node initialises it from bytes read with `fs` (src/wasm-node.js), a
// fetch-only edge runtime from an imported or fetched module, with no Node
// built-ins in the generated code.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const outDir = fileURLToPath(new URL("../pkg/", import.meta.url));
const bindgen = process.env.WASM_BINDGEN || "wasm-bindgen";

function run(command, args, options = {}) {
  console.error(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.error) {
    throw new Error(`could not run ${command}: ${result.error.message}`);
  }
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
  return result;
}

// Cargo's JSON messages name the artifact, wherever CARGO_TARGET_DIR is.
const cargo = run(
  "cargo",
  ["build", "--release", "--target", "wasm32-unknown-unknown", "-p", "erpdata-wasm",
   "--message-format=json-render-diagnostics"],
  { stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
);
const wasm = cargo.stdout
  .split("\n")
  .filter((line) => line.startsWith("{"))
  .map((line) => JSON.parse(line))
  .filter((m) => m.reason === "compiler-artifact" && m.target?.name === "erpdata_wasm")
  .flatMap((m) => m.filenames)
  .find((f) => f.endsWith(".wasm"));
if (!wasm) {
  throw new Error("cargo built no erpdata_wasm.wasm");
}

// A stale file from an older build must not linger next to the new ones.
rmSync(outDir, { recursive: true, force: true });
run(bindgen, ["--target", "web", "--no-typescript", "--out-dir", outDir,
              "--out-name", "erpdata_wasm", wasm]);
console.error(`built ${outDir}`);
