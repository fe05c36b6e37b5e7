#!/usr/bin/env -S node --no-warnings --no-turbo-fast-api-calls
// scripts/wasi-run.mjs [--dir DIR]... FILE.wasm [ARGS...]: runs a
// wasm32-wasip1 program in Node's WASI, with its arguments and environment,
// and exits with its exit code. It sees no file system but each DIR given,
// under its own absolute path. Cargo's runner for that target in `make
// test-wasm32`, which runs the core's unit tests in V8 with the scanner's
// simd128 code, as the npm package runs it; fuzz/run.sh runs the fuzz
// targets with it in the same way.
//
// Node runs it without V8's fast API calls (the first line). With them,
// Node's WASI functions can start a garbage collection where V8 cannot
// take one (nodejs/node#46777): Node 20.20.2 crashed, with a segmentation
// fault or a fatal error in the collector, in 6 of 10 runs of the core's
// unit tests (after they passed) and in a long fuzz run; without fast
// calls (or without incremental marking), never in the runs tried.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { argv, env, exit } from "node:process";
import { WASI } from "node:wasi";

const preopens = {};
let rest = argv.slice(2);
while (rest[0] === "--dir" && rest.length > 1) {
  const dir = resolve(rest[1]);
  preopens[dir] = dir;
  rest = rest.slice(2);
}
const [file, ...args] = rest;
if (!file) {
  console.error("usage: scripts/wasi-run.mjs [--dir DIR]... FILE.wasm [ARGS...]");
  exit(2);
}
const wasi = new WASI({
  version: "preview1",
  args: [file, ...args],
  env,
  preopens,
  returnOnExit: true,
});
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
