// The installed npm tarball bundled as services bundle it, with esbuild (as
// wrangler, AWS CDK and Vercel do; ESBUILD names its binary), against the
// sandbox (ERPDATA_BASE_URL): an edge handler, a Node program through
// "erpdata/edge", and the Node entry bundled whole, which must say how to
// bundle it rather than fail without a word. The package's entries register
// its wasm loader and transport when imported: a bundler told that no file
// has side effects dropped them ("no wasm loader").
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";

const settings = `{
  baseUrl: ${JSON.stringify(process.env.ERPDATA_BASE_URL)},
  project: "demo",
  accessToken: "sandbox-token-not-secret",
  companyId: 1,
  yearId: 2025,
}`;
mkdirSync("bundled", { recursive: true });

/** `source` written to bundled/NAME.src.mjs, bundled into bundled/NAME.mjs and imported. */
async function bundled(name, source, options) {
  const entry = `bundled/${name}.src.mjs`;
  writeFileSync(entry, source);
  const out = `bundled/${name}.mjs`;
  execFileSync(process.env.ESBUILD, [
    entry,
    "--bundle",
    "--format=esm",
    "--log-level=warning",
    `--outfile=${out}`,
    ...options,
  ]);
  return import(`./${out}`);
}

// An edge handler, as wrangler bundles a Worker.
const worker = await bundled(
  "worker",
  `import { ErpClient } from "erpdata";
export default {
  async fetch() {
    const table = await new ErpClient(${settings}).table("sales_invoice");
    return new Response(String(table.length));
  },
};
`,
  ["--platform=browser", "--conditions=workerd,worker"],
);
const answer = await worker.default.fetch(new Request("http://localhost/"));
assert.equal(await answer.text(), "40");

// A Node program, bundled whole through the entry that carries the module.
const edge = await bundled(
  "node-edge",
  `import { ErpClient } from "erpdata/edge";
export const rows = (await new ErpClient(${settings}).table("sales_invoice")).length;
`,
  ["--platform=node"],
);
assert.equal(edge.rows, 40);

// The Node entry bundled whole: its module stays in node_modules.
const node = await bundled(
  "node",
  `import { ErpClient } from "erpdata";
export const make = () => new ErpClient(${settings});
`,
  ["--platform=node"],
);
assert.throws(node.make, (err) => {
  assert.match(err.message, /its WebAssembly module is not at .*erpdata_wasm_bg\.wasm/);
  assert.match(err.message, /esbuild --external:erpdata/);
  assert.match(err.message, /import "erpdata\/edge"/);
  return true;
});
console.log("npm tarball bundled by esbuild: an edge handler and Node programs passed");
