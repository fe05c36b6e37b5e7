// Builds js/pkg/ from crates/erpdata-wasm: cargo (release, wasm32), the
// JS glue by wasm-bindgen's generator (tools/wasm-bindgen, built here by
// cargo: the version Cargo.lock pins for the wasm-bindgen crate, as it
// must be), then wasm-opt from npm's binaryen (pinned in package.json;
// Debian's makes modules Node cannot load). wasm-pack is not used: it
// downloads tools at run time. ERPDATA_WASM_OPT=0 skips wasm-opt.
//
//   node scripts/build-wasm.mjs [--testing]
//
// `--testing` builds the tests' module instead, js/pkg-testing/: the same
// crate with its `testing` feature (exports only the JS tests use: the
// core's retry and redirect decisions one at a time, a bare table decoder,
// account ids of a table, dues answers joined), never in the package, and
// without wasm-opt. It shares every artifact but the glue crate's with the
// package's build.
//
// `--target web` gives one ES module that runs anywhere with WebAssembly:
// Node initialises it from bytes read with `fs` (src/wasm-node.js), a
// fetch-only edge runtime from an imported or fetched module, with no Node
// built-ins in the generated code.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const testing = process.argv.includes("--testing");
const outDir = fileURLToPath(new URL(testing ? "../pkg-testing/" : "../pkg/", import.meta.url));

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

/**
 * Runs `cargo build -p crate` with `args`; the artifact of its target
 * `name` (cargo's JSON messages say where, whatever CARGO_TARGET_DIR is).
 */
function cargoBuild(crate, name, args, env = process.env) {
  const cargo = run(
    "cargo",
    ["build", "--locked", "-p", crate, "--message-format=json-render-diagnostics", ...args],
    { stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024, encoding: "utf8", env },
  );
  const artifact = cargo.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .find((m) => m.reason === "compiler-artifact" && m.target?.name === name);
  if (!artifact) {
    throw new Error(`cargo built no ${name}`);
  }
  return artifact;
}

// The generator first: a debug build, which compiles much faster than a
// release build and writes the same bytes (in about a second).
const bindgen = cargoBuild("erpdata-wasm-bindgen", "erpdata-wasm-bindgen", []).executable;

// SIMD128 (every runtime with a current V8, SpiderMonkey or JavaScriptCore
// has it) lets memchr scan strings 16 bytes at a time; one codegen unit and
// fat LTO for the wasm only (the workspace's release profile is shared).
const wasm = cargoBuild(
  "erpdata-wasm",
  "erpdata_wasm",
  [
    "--release",
    "--target",
    "wasm32-unknown-unknown",
    ...(testing ? ["--features", "testing"] : []),
  ],
  {
    ...process.env,
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:
      process.env.CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS ?? "-C target-feature=+simd128",
    CARGO_PROFILE_RELEASE_LTO: "fat",
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "1",
  },
).filenames.find((f) => f.endsWith(".wasm"));
if (!wasm || !bindgen) {
  throw new Error("cargo built no erpdata_wasm.wasm, or no erpdata-wasm-bindgen program");
}

// A stale file from an older build must not linger next to the new ones.
rmSync(outDir, { recursive: true, force: true });
run(bindgen, [wasm, outDir, "erpdata_wasm"]);

const module = `${outDir}erpdata_wasm_bg.wasm`;
if (!testing && process.env.ERPDATA_WASM_OPT !== "0") {
  const before = statSync(module).size;
  const wasmOpt = fileURLToPath(new URL("../node_modules/binaryen/bin/wasm-opt", import.meta.url));
  run(process.execPath, [
    wasmOpt,
    "-O3",
    // Binaryen inlines a function with one caller whatever its size, which
    // put the decoder's general path (`fast::field`, kept out of line so
    // that the loop over a row's fields stays small) back into that loop:
    // one 25 KB function, V8's largest optimizing compile (13 MB of
    // compiler memory). Up to this size only, they stay apart, and decoding
    // is a little faster for it.
    "--one-caller-inline-max-function-size",
    "2000",
    // The features rustc enables by default for wasm32-unknown-unknown.
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
    "--enable-simd",
    module,
    "-o",
    module,
  ]);
  console.error(`wasm-opt: ${before} -> ${statSync(module).size} bytes`);
}

if (testing) {
  console.error(`built ${outDir}`);
  process.exit(0);
}

// The module's bytes as an ES module, for runtimes without a file system
// (edge functions): no Node built-ins, no fetch of a URL.
const base64 = readFileSync(module).toString("base64");
writeFileSync(
  `${outDir}erpdata_wasm_bytes.js`,
  "// Generated by scripts/build-wasm.mjs: the wasm module's bytes.\n" +
    `const base64 = "${base64}";\n` +
    "export function wasmBytes() {\n" +
    "  const text = atob(base64);\n" +
    "  const bytes = new Uint8Array(text.length);\n" +
    "  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);\n" +
    "  return bytes;\n" +
    "}\n",
);
console.error(`built ${outDir}`);
