// Deno's entry: `deno run deno.mjs ENTRY BASE_URL TOKEN` imports the
// package's ENTRY ("erpdata" or "erpdata/edge") by name from the scratch
// project's node_modules (Deno reads its package.json). One entry a
// process: the two share src/client.js, whose wasm loader is the last
// entry's to load. Permissions: run.mjs.
import { smokeEntries } from "./smoke.mjs";

const [entry, baseUrl, token] = Deno.args;
const erpdata = entry === "erpdata/edge" ? await import("erpdata/edge") : await import("erpdata");
console.log(JSON.stringify(await smokeEntries({ [entry]: erpdata }, { baseUrl, token })));
