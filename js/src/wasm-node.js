// Loads the wasm module in Node (and Deno, Bun): compiled synchronously from
// the bytes next to it, once, on first use, so importing the package costs
// nothing and `new ErpClient()` stays synchronous. Node built-ins live only
// here and in fetch-node.js, which only the Node entry imports.
import { readFileSync } from "node:fs";
import * as wasm from "../pkg/erpdata_wasm.js";
import { initModule } from "./wasm.js";

let loaded = false;

/** The initialised wasm module (its `Core` class). */
export function loadWasm() {
  if (!loaded) {
    const bytes = readFileSync(new URL("../pkg/erpdata_wasm_bg.wasm", import.meta.url));
    initModule(wasm, bytes);
    loaded = true;
  }
  return wasm;
}
