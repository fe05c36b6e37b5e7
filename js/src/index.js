// The package's entry for Node >= 18 (and Bun): the wasm module is read
// from the file next to it, and Node sends with node:http (src/fetch-node.js)
// unless a client is given a `fetch`. Fetch-only runtimes get src/edge.js
// instead.
import { useFetch, useWasm } from "./client.js";
import { nodeFetch } from "./fetch-node.js";
import { loadWasm } from "./wasm-node.js";

useWasm(loadWasm);
// Node only: Bun and Deno have a fetch of their own making.
if (globalThis.process?.release?.name === "node" && !process.versions.bun && !globalThis.Deno) {
  useFetch(nodeFetch);
}

export * from "./public.js";
