// Type-checked (tsc --noEmit), not run: the installed package's
// declarations (index.d.ts, edge.d.ts) describe what users write.
import {
  type Column,
  type Dues,
  ErpClient,
  ErpError,
  HttpStatusError,
  type Row,
  type Table,
} from "erpdata";
import { initWasm } from "erpdata/edge";

const client = new ErpClient({
  baseUrl: "https://erp.example.com/",
  project: "demo",
  accessToken: "not-a-real-token",
  companyId: 1,
  yearId: 2025,
  maxRetries: 1,
  timeoutMs: 5000,
});

export async function main(signal: AbortSignal): Promise<number> {
  const dues: Dues = await client.receivables("C001");
  const table: Table = await client.table("sales_invoice", { numbers: "string", signal });
  const amount: Column | undefined = table.columns().amount;
  const first: Row | undefined = table.rows[0];
  let n = dues.rows.length;
  for await (const batch of client.streamTable("account", { batchRows: 100 })) n += batch.length;
  try {
    await client.payables("S001");
  } catch (err) {
    if (err instanceof HttpStatusError) return err.status;
    if (err instanceof ErpError) return -1;
  }
  return n + (amount?.length ?? 0) + Object.keys(first ?? {}).length;
}

initWasm(new Uint8Array(0));
// @ts-expect-error: numbers is "number" or "string"
client.table("x", { numbers: "decimal" });
