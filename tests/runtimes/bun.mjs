// Bun's entry: the package by its name from the scratch project's
// node_modules, both entry points.
import * as root from "erpdata";
import * as edge from "erpdata/edge";
import { smokeEntries } from "./smoke.mjs";

const [baseUrl, token] = process.argv.slice(2);
console.log(JSON.stringify(await smokeEntries({ erpdata: root, "erpdata/edge": edge }, { baseUrl, token })));
