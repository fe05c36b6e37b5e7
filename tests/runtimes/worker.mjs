// workerd's entry: a Worker using `erpdata/edge`, handed the wasm module as
// a module import (workerd compiles no wasm from bytes: a client made
// before must say how to hand it over), that runs the
// smoke test against the sandbox (env.ERPDATA_BASE_URL) on each request and
// answers with the result as JSON. `erpdata` is imported too: under the
// `workerd` condition it must be the same module as `erpdata/edge`.
// GET /stream instead streams the large sales_invoice of a second sandbox
// (env.ERPDATA_STREAM_URL) with streamTable's defaults, counting its rows,
// while run.mjs watches the process's memory.
import * as root from "erpdata";
import * as edge from "erpdata/edge";
import wasm from "erpdata/erpdata_wasm_bg.wasm";
import { smokeEntries } from "./smoke.mjs";

// The wasm instances' memories, for /stream to report how large the module's
// memory grew (it never shrinks: its size now is its peak).
const memories = [];
WebAssembly.Instance = class extends WebAssembly.Instance {
  constructor(module, imports) {
    super(module, imports);
    if (this.exports.memory) memories.push(this.exports.memory);
  }
};

/**
 * What the first client says before `initWasm`: workerd compiles no wasm
 * from bytes, so the package cannot load its module itself, and must say
 * how to hand it over.
 */
function beforeInitWasm() {
  try {
    new edge.ErpClient({ baseUrl: "http://127.0.0.1:8787" });
  } catch (err) {
    if (String(err?.message).includes("initWasm(wasm)")) return;
    throw new Error(`a client made before initWasm: ${err?.stack ?? err}`);
  }
  throw new Error("a client made before initWasm compiled the embedded wasm, which workerd forbids");
}

let initialised = false;

export default {
  async fetch(request, env) {
    try {
      if (!(wasm instanceof WebAssembly.Module)) throw new Error(`the .wasm import is not a WebAssembly.Module: ${wasm}`);
      if (!initialised) beforeInitWasm();
      edge.initWasm(wasm);
      initialised = true;
      if (new URL(request.url).pathname === "/stream") return Response.json(await streamAll(env));
      if (root.ErpClient !== edge.ErpClient) throw new Error("erpdata under the workerd condition is not erpdata/edge");
      const sandbox = { baseUrl: env.ERPDATA_BASE_URL, token: env.ERPDATA_ACCESS_TOKEN };
      return Response.json(await smokeEntries({ "erpdata/edge": edge }, sandbox));
    } catch (err) {
      return Response.json({ ok: false, error: String(err?.stack ?? err) }, { status: 500 });
    }
  },
};

/** Every row of the large table through streamTable, batches at its default size. */
async function streamAll(env) {
  const client = new edge.ErpClient({
    baseUrl: env.ERPDATA_STREAM_URL,
    project: "demo",
    accessToken: env.ERPDATA_ACCESS_TOKEN,
    companyId: 1,
    yearId: 2025,
  });
  const started = Date.now();
  let rows = 0;
  let batches = 0;
  let largest = 0;
  for await (const batch of client.streamTable("sales_invoice")) {
    rows += batch.length;
    batches += 1;
    largest = Math.max(largest, batch.length);
  }
  const limit = edge.ErpClient.limits.defaults.streamBatchRows;
  if (largest > limit) return { ok: false, error: `a batch of ${largest} rows, above the default ${limit}` };
  const wasmMB = memories.reduce((sum, m) => sum + m.buffer.byteLength, 0) / 2 ** 20;
  return { ok: true, rows, batches, ms: Date.now() - started, wasmMB };
}
