// The package's entry for Node >= 18, Deno and Bun: the wasm module is read
// from the file next to it, and Node sends with node:http
// (src/fetch-node.js) unless a client is given a `fetch`; Deno and Bun do
// too to a loopback base URL. Fetch-only runtimes get src/edge.js instead.
import { useFetch, useWasm } from "./client.js";
import { directFetch, nodeFetch } from "./fetch-node.js";
import { loadWasm } from "./wasm-node.js";

useWasm(loadWasm);
// node:http for every base URL in Node only: Bun and Deno have a fetch of
// their own making. In all three, node:http with an agent of its own for a
// loopback base URL, which their fetch would send through HTTP_PROXY.
const isNode =
  globalThis.process?.release?.name === "node" && !process.versions.bun && !globalThis.Deno;
useFetch(isNode ? nodeFetch : undefined, directFetch);

export * from "./public.js";
