// The package's entry for Node >= 18 (and Bun): the wasm module is read
// from the file next to it. Fetch-only runtimes get src/edge.js instead.
import { useWasm } from "./client.js";
import { loadWasm } from "./wasm-node.js";

useWasm(loadWasm);

export * from "./public.js";
