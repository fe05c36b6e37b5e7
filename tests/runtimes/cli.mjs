// Bun's and Node's entry: `bun run cli.mjs ENTRY BASE_URL TOKEN` or `node
// cli.mjs ENTRY BASE_URL TOKEN` imports the package's ENTRY ("erpdata" or
// "erpdata/edge") by name from the scratch project's node_modules. One
// entry a process, as for Deno.
import { smokeEntries } from "./smoke.mjs";

const [entry, baseUrl, token] = process.argv.slice(2);
const erpdata = entry === "erpdata/edge" ? await import("erpdata/edge") : await import("erpdata");
console.log(JSON.stringify(await smokeEntries({ [entry]: erpdata }, { baseUrl, token })));
