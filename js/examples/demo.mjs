// The JavaScript half of `make demo`: configuration comes from ERPDATA_*.
import { ErpClient } from "erpdata";

const client = new ErpClient();

function show(title, rows, columns) {
  console.log(`\n${title}`);
  if (rows.length === 0) {
    console.log("  (none)");
    return;
  }
  const cells = rows.map((r) => columns.map((c) => (r[c] ?? "").toString()));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  // Numbers (given as their exact text) line up on the right, as in Python's
  // half; an empty cell (null) does not stop a column being one of numbers.
  const numeric = columns.map((_, i) => cells.every((row) => /^(-?\d+(\.\d+)?)?$/.test(row[i])));
  const pad = (v, i) => (numeric[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]));
  const line = (values) => `  ${values.map(pad).join("  ")}`.trimEnd();
  console.log(line(columns));
  console.log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of cells) console.log(line(row));
}

const receivables = await client.receivables("C001", { numbers: "string" });
show("Receivables of customer C001", receivables.rows, Object.keys(receivables.rows[0] ?? {}));
const payables = await client.payables("S001", { numbers: "string" });
show("Payables to supplier S001", payables.rows, Object.keys(payables.rows[0] ?? {}));
const table = await client.table("sales_invoice", { numbers: "string" });
show(
  `sales_invoice: first 5 of ${table.rows.length} rows`,
  table.rows.slice(0, 5),
  table.columnNames,
);
// Each column's type, decided by the core over the whole table: money sent
// as "1500.00" is a decimal, a DATETIME a timestamp, a zero date null.
console.log(
  `\n  types: ${Object.entries(table.schema)
    .map(([name, type]) => `${name} ${type}`)
    .join(", ")}`,
);

// The core's aging and credit status, to the cent as in Python and Rust.
const aged = await client.aging("receipt", { asOf: "2025-12-31", numbers: "string" });
show("Receivables aging as of 2025-12-31 (client.aging)", aged.rows, aged.columnNames);
const standing = await client.creditStatus({ asOf: "2025-12-31", numbers: "string" });
const over = standing.rows.filter((r) => r.over_limit);
show(
  `Customers over their credit limit: ${over.length} of ${standing.rows.length} (client.creditStatus)`,
  over,
  ["acid", "name", "credit_limit", "outstanding", "overdue", "oldest_overdue_days"],
);
