// A runtime without WebAssembly SIMD cannot compile the package's module
// (built with simd128): the first client says so and names the runtimes
// that have it, keeping WebAssembly's own error as the cause. Node is run
// with V8's SSE4.1 turned off, which is how V8 decides it cannot run wasm
// SIMD on x86-64 (a real runtime, not a stand-in for one).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

const ENTRIES = {
  node: new URL("../../js/src/index.js", import.meta.url).href,
  edge: new URL("../../js/src/edge.js", import.meta.url).href,
};

const NO_SIMD = ["--no-enable-sse4-1"];

function runModule(flags, source) {
  const result = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", source], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

function construct(entry) {
  return `
    import { ErpClient } from ${JSON.stringify(entry)};
    let outcome;
    try {
      new ErpClient({ baseUrl: "http://127.0.0.1:9/", project: "demo", accessToken: "fake-test-token" });
      outcome = { constructed: true };
    } catch (err) {
      outcome = { name: err.name, message: err.message, cause: err.cause?.name };
    }
    console.log(JSON.stringify(outcome));
  `;
}

const x64 = process.arch === "x64";

test("without WebAssembly SIMD the first client says what the runtime lacks", {
  skip: !x64 && "turning SIMD off through V8's SSE4.1 flag works on x86-64 only",
}, () => {
  // The premise: with the flag, this Node has no wasm SIMD.
  const probe = runModule(
    NO_SIMD,
    `console.log(JSON.stringify(WebAssembly.validate(new Uint8Array([
        0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11,
      ]))))`,
  );
  assert.equal(probe, false, "node --no-enable-sse4-1 still validates wasm SIMD");
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const outcome = runModule(NO_SIMD, construct(entry));
    assert.equal(outcome.name, "Error", `${name}: ${JSON.stringify(outcome)}`);
    assert.match(outcome.message, /this JavaScript runtime has no WebAssembly SIMD/, name);
    assert.match(outcome.message, /Node 16\.4 or later/, name);
    assert.equal(outcome.cause, "CompileError", name);
    assert.doesNotMatch(outcome.message, /fake-test-token/, name);
  }
});

test("with WebAssembly SIMD the same client is made", () => {
  for (const [name, entry] of Object.entries(ENTRIES)) {
    assert.deepEqual(runModule([], construct(entry)), { constructed: true }, name);
  }
});
