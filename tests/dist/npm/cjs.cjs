// The installed npm tarball from CommonJS (require of the package's ES
// modules: Node >= 20.19 / 22.12), against the sandbox (ERPDATA_BASE_URL).
const assert = require("node:assert/strict");
const { ErpClient, ErpError, InvalidInputError } = require("erpdata");

async function main() {
  const client = new ErpClient({
    baseUrl: process.env.ERPDATA_BASE_URL,
    project: "demo",
    accessToken: "sandbox-token-not-secret",
    companyId: 1,
    yearId: 2025,
  });
  const dues = await client.payables("S001");
  assert.ok(dues.rows.length > 0);
  const table = await client.table("sales_invoice");
  assert.equal(table.rows.length, 40);
  await assert.rejects(client.table("no such table"), (err) => {
    assert.ok(err instanceof InvalidInputError && err instanceof ErpError, String(err));
    return true;
  });
  console.log(`CommonJS consumer passed: ${dues.rows.length} dues, ${table.rows.length} rows`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
