// The package's entry for fetch-only runtimes (edge functions, workers,
// Deno): no Node built-ins. The wasm module is compiled on first use from
// bytes embedded in the package. Runtimes that forbid compiling wasm from
// bytes (Cloudflare Workers, Vercel Edge) import the .wasm file as a
// module instead and pass it to `initWasm` before the first client.
import * as wasm from "../pkg/erpdata_wasm.js";
import { wasmBytes } from "../pkg/erpdata_wasm_bytes.js";
import { useWasm } from "./client.js";
import { initModule } from "./wasm.js";

let loaded = false;

/**
 * Initialises the wasm module from a `WebAssembly.Module` (or its bytes);
 * optional: without it the embedded bytes are compiled on first use.
 */
export function initWasm(module) {
  if (!loaded) {
    initModule(wasm, module);
    loaded = true;
  }
}

useWasm(() => {
  if (!loaded) initWasm(wasmBytes());
  return wasm;
});

export * from "./public.js";
