// node scripts/wasi-run.mjs FILE.wasm [ARGS...]: runs a wasm32-wasip1
// program (a `cargo test` binary) in Node's WASI, with its arguments and
// environment and no file system, and exits with its exit code. Cargo's
// runner for that target in `make test-wasm32`, which runs the core's unit
// tests in V8 with the scanner's simd128 code, as the npm package runs it.
import { readFile } from "node:fs/promises";
import { argv, env, exit } from "node:process";
import { WASI } from "node:wasi";

const [file, ...args] = argv.slice(2);
if (!file) {
  console.error("usage: node scripts/wasi-run.mjs FILE.wasm [ARGS...]");
  exit(2);
}
const wasi = new WASI({ version: "preview1", args: [file, ...args], env, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
try {
  exit(wasi.start(instance));
} catch (error) {
  // A panic aborts the program (wasm32-wasip1 cannot unwind): a trap, after
  // the panic's message (which libtest shows only with --nocapture).
  console.error(`\n${file}: stopped by a trap (${error.message}), a panic or an abort`);
  exit(101);
}
