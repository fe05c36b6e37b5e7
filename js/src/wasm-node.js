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
    let file;
    let bytes;
    try {
      // In a CommonJS bundle import.meta is {}: no URL to resolve against.
      file = new URL("../pkg/erpdata_wasm_bg.wasm", import.meta.url);
      bytes = readFileSync(file);
    } catch (err) {
      if (file !== undefined && err?.code !== "ENOENT") throw err;
      // The package's code moved without its module: a bundler (esbuild,
      // for one) copied src/ into one file and left pkg/ behind, or made
      // it CommonJS, where its place cannot be known.
      const where = file === undefined ? "not found" : `not at ${fileURLToPath(file)}`;
      throw new Error(
        `erpdata: its WebAssembly module is ${where}, next to its code: ` +
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
