// The wasm module, loaded the way the entry point chose (src/index.js for
// Node, src/edge.js for fetch-only runtimes).

let loader = () => {
  throw new Error("erpdata: no wasm loader; import the package's entry point, not a file of src/");
};

/** Sets how the wasm module is loaded (each entry point has its own way). */
export function useWasm(load) {
  loader = load;
}

/** The initialised wasm module. */
export function loadWasm() {
  return loader();
}

// The smallest module holding a 128-bit SIMD instruction (i8x16.splat).
// The package's module is built with SIMD (its scanner reads 16 bytes at a
// time), and a runtime without it cannot compile the module at all.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15,
  11,
]);

/**
 * Initialises the generated bindings `wasm` from `module` (bytes or a
 * `WebAssembly.Module`); where the runtime has no WebAssembly SIMD, says
 * so instead of WebAssembly's own compile error (which stays the cause).
 */
export function initModule(wasm, module) {
  try {
    wasm.initSync({ module });
  } catch (err) {
    // V8's words where the embedder forbids compiling wasm from bytes
    // (Cloudflare's workerd, Vercel Edge): the first `new ErpClient()` of
    // `erpdata/edge` without `initWasm` said only that.
    if (/code generation disallowed/i.test(String(err?.message))) {
      throw new Error(
        "erpdata: this runtime does not compile WebAssembly from bytes (Cloudflare Workers and " +
          "Vercel Edge do not), so the package cannot load its wasm module itself: import it and " +
          'hand it to initWasm before the first client: import wasm from "erpdata/erpdata_wasm_bg.wasm"; ' +
          'import { initWasm } from "erpdata/edge"; initWasm(wasm);',
        { cause: err },
      );
    }
    if (err instanceof WebAssembly.CompileError && !WebAssembly.validate(SIMD_PROBE)) {
      throw new Error(
        "erpdata: this JavaScript runtime has no WebAssembly SIMD, which the package's wasm " +
          "module needs: Node 16.4 or later, Deno, Bun, Cloudflare workerd and browsers since " +
          "2021 (Chrome 91, Firefox 89, Safari 16.4) have it; on x86-64 the CPU needs SSE4.1",
        { cause: err },
      );
    }
    throw err;
  }
}
