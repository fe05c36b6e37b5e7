// Type declarations of the erpdata package's fetch-only entry (`erpdata/edge`).
export * from "./index.js";

/**
 * Initialises the wasm module from a `WebAssembly.Module` (imported from
 * `erpdata/erpdata_wasm_bg.wasm` where the runtime forbids compiling wasm
 * from bytes) or its bytes. Optional elsewhere.
 */
export declare function initWasm(module: object | ArrayBuffer | ArrayBufferView): void;
