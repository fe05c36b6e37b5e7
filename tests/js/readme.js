// js/README.md's code, as the tests run it.
// Not a test file (node --test picks up *.test.js only).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The js blocks of js/README.md's "In a server" section as one module
 * exporting `erpFailed`, `tableCsv` and `sendTable`, importing the
 * package from the checkout; removed when test `t` ends.
 */
export async function readmeServer(t) {
  const readme = readFileSync(
    fileURLToPath(new URL("../../js/README.md", import.meta.url)),
    "utf8",
  );
  const section = readme.split("\n## In a server\n")[1].split("\n## ")[0];
  const blocks = [...section.matchAll(/```js\n(.*?)```/gs)].map((m) => m[1]);
  const entry = new URL("../../js/src/index.js", import.meta.url).href;
  const source = `${blocks.join("\n").replaceAll('from "erpdata"', `from ${JSON.stringify(entry)}`)}
export { erpFailed, sendTable, tableCsv };
`;
  const dir = mkdtempSync(join(tmpdir(), "erpdata-readme-server-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "server.mjs");
  writeFileSync(file, source);
  return import(file);
}
