// workerd's entry: a Worker using `erpdata/edge`, handed the wasm module as
// a module import (workerd compiles no wasm from bytes), that runs the
// smoke test against the sandbox (env.ERPDATA_BASE_URL) on each request and
// answers with the result as JSON. `erpdata` is imported too: under the
// `workerd` condition it must be the same module as `erpdata/edge`.
import * as root from "erpdata";
import * as edge from "erpdata/edge";
import wasm from "erpdata/erpdata_wasm_bg.wasm";
import { smokeEntries } from "./smoke.mjs";

export default {
  async fetch(request, env) {
    try {
      if (!(wasm instanceof WebAssembly.Module)) throw new Error(`the .wasm import is not a WebAssembly.Module: ${wasm}`);
      edge.initWasm(wasm);
      if (root.ErpClient !== edge.ErpClient) throw new Error("erpdata under the workerd condition is not erpdata/edge");
      const sandbox = { baseUrl: env.ERPDATA_BASE_URL, token: env.ERPDATA_ACCESS_TOKEN };
      return Response.json(await smokeEntries({ "erpdata/edge": edge }, sandbox));
    } catch (err) {
      return Response.json({ ok: false, error: String(err?.stack ?? err) }, { status: 500 });
    }
  },
};
