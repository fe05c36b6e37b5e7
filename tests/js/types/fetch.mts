// Compiled (not run) by types.test.js, with @types/node and without the
// DOM lib, then with it: the fetch of each library a Node backend passes as
// `fetch` (for a proxy's or a private CA's agent, docs/security.md) is one
// ErpClient takes, as the library's own published types declare it.
// tsconfig.fetch.json maps each name to those types in js/node_modules:
// node-fetch 3 (its own), node-fetch-2 (@types/node-fetch) and undici
// (undici-types, which also types Node's global fetch).
import https from "node:https";
import nodeFetch from "node-fetch";
import nodeFetch2 from "node-fetch-2";
import { Agent, fetch as undiciFetch } from "undici";
import { ErpClient } from "../../../js/src/index.js";

const agent = new https.Agent({ ca: process.env.ERP_CA_PEM });
new ErpClient({ fetch: nodeFetch });
new ErpClient({ fetch: (url, init) => nodeFetch(url, { ...init, agent }) });
new ErpClient({ fetch: nodeFetch2 });
new ErpClient({ fetch: (url, init) => nodeFetch2(url, { ...init, agent }) });
const dispatcher = new Agent({ connect: { ca: process.env.ERP_CA_PEM } });
new ErpClient({ fetch: undiciFetch });
new ErpClient({ fetch: (url, init) => undiciFetch(url, { ...init, dispatcher }) });
new ErpClient({ fetch: globalThis.fetch });
// @ts-expect-error: a fetch resolves to a response, not its text
new ErpClient({ fetch: (url: string) => nodeFetch(url).then((r) => r.text()) });
