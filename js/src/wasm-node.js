// Loads the wasm module in Node (and Deno, Bun): compiled synchronously from
// the bytes next to it, once, on first use, so importing the package costs
// nothing and `new ErpClient()` stays synchronous. Node built-ins live only
// here and in fetch-node.js, which only the Node entry imports.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as wasm from "../pkg/erpdata_wasm.js";
import { initModule } from "./wasm.js";

let loaded = false;

/** The initialised wasm module (its `Core` class). */
export function loadWasm() {
  if (!loaded) {
    const file = new URL("../pkg/erpdata_wasm_bg.wasm", import.meta.url);
    let bytes;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      if (err?.code !== "ENOENT") throw err;
      // The package's code moved without its module: a bundler (esbuild,
      // for one) copied src/ into one file and left pkg/ behind.
      throw new Error(
        `erpdata: its WebAssembly module is not at ${fileURLToPath(file)}, next to its code: ` +
          "a bundler moved the code without it. Leave erpdata out of the bundle " +
          '(esbuild --external:erpdata), or import "erpdata/edge", which carries the module in its code',
        { cause: err },
      );
    }
    initModule(wasm, bytes);
    loaded = true;
  }
  return wasm;
}
