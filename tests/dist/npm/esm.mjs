// The installed npm tarball from an ES module, against the sandbox
// (ERPDATA_BASE_URL): dues, a table and its columns, a stream, typed errors.
import assert from "node:assert/strict";
import { ErpClient, InvalidInputError, ServiceError, Table } from "erpdata";

const TOKEN = "sandbox-token-not-secret";
const settings = (accessToken) => ({
  baseUrl: process.env.ERPDATA_BASE_URL,
  project: "demo",
  accessToken,
  companyId: 1,
  yearId: 2025,
});
const client = new ErpClient(settings(TOKEN));

const dues = await client.receivables("C001");
assert.ok(dues.rows.length > 0 && dues.rows.every((row) => typeof row.doc_no === "string"));

const table = await client.table("sales_invoice");
assert.ok(table instanceof Table);
assert.equal(table.rows.length, 40);
assert.equal(table.rows[0].invoice_no, "INV-2025-0001");
assert.ok(table.columns().amount.values instanceof Float64Array);

let streamed = 0;
for await (const batch of client.streamTable("sales_invoice", { batchRows: 7 }))
  streamed += batch.length;
assert.equal(streamed, 40);

await assert.rejects(client.table("no such table"), InvalidInputError);
const wrong = "wrong-token-not-secret";
await assert.rejects(
  new ErpClient({ ...settings(wrong), maxRetries: 0 }).table("account"),
  (err) => {
    assert.ok(err instanceof ServiceError, String(err));
    assert.match(err.message, /Invalid access token/);
    assert.ok(!`${err.message} ${JSON.stringify(err)}`.includes(wrong));
    return true;
  },
);
console.log(`ESM consumer passed: ${dues.rows.length} dues, ${table.rows.length} rows`);
