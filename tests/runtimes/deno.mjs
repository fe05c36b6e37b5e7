// Deno's entry: the package by its name from the scratch project's
// node_modules (Deno reads its package.json), both entry points, with no
// permission beyond the network to loopback and the package's ERPDATA_*
// variables (run.mjs says why those).
import * as root from "erpdata";
import * as edge from "erpdata/edge";
import { smokeEntries } from "./smoke.mjs";

const [baseUrl, token] = Deno.args;
console.log(JSON.stringify(await smokeEntries({ erpdata: root, "erpdata/edge": edge }, { baseUrl, token })));
