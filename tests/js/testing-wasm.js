// The tests' wasm module (js/pkg-testing, built by `make wasm`): the same
// glue crate as the package's with its `testing` feature, which adds the
// exports only these tests use (the core's retry and redirect decisions one
// at a time, a bare table decoder, account ids of a table, dues answers
// joined). The package users install never has them. Not a test file.
import { readFileSync } from "node:fs";
import * as wasm from "../../js/pkg-testing/erpdata_wasm.js";

let loaded = false;

/** The initialised test module. */
export function loadTestingWasm() {
  if (!loaded) {
    const bytes = readFileSync(
      new URL("../../js/pkg-testing/erpdata_wasm_bg.wasm", import.meta.url),
    );
    wasm.initSync({ module: bytes });
    loaded = true;
  }
  return wasm;
}
