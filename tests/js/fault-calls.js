// The three calls of the fault matrix (tests/vectors/faults.json), run the
// same way in the test's process and in the child that trusts the https
// sandbox (fixtures/fault-cells.mjs). Not a test file.
import { ErpClient, ErpError } from "../../js/src/index.js";
import { printable } from "./leaks.js";

/** A client of `base` with a case's settings (`timeout` in seconds). */
export function matrixClient(base, token, settings) {
  const { timeout, max_retries: maxRetries, max_retry_after: maxRetryAfter } = settings;
  return new ErpClient({
    baseUrl: base,
    project: "demo",
    accessToken: token,
    companyId: 1,
    yearId: 2025,
    timeoutMs: timeout.total * 1000,
    connectTimeoutMs: timeout.connect * 1000,
    readTimeoutMs: timeout.read * 1000,
    maxRetries,
    maxRetryAfterMs: maxRetryAfter * 1000,
  });
}

/**
 * Runs one call (`dues`, `ajax`, `table` or `stream`) and says what it gave, as a
 * plain object: rows, notices, rows handed out, time taken, and the error
 * with everything it prints.
 */
export async function runCall(client, what, settings) {
  const began = performance.now();
  const got = { rows: 0, notices: 0, delivered: 0 };
  try {
    if (what === "dues") {
      const dues = await client.receivables("C001");
      got.rows = dues.rows.length;
      got.notices = dues.notices.length;
    } else if (what === "ajax") {
      // The dues of C001 through the generic ajax.php call, the token by POST.
      const answer = await client.ajax(
        "getduesDet",
        { acid: "C001", type: "RECEIPT" },
        { sendToken: true },
      );
      got.rows = answer.rows.length;
      got.notices = answer.notices.length;
    } else if (what === "table") {
      const table = await client.table("sales_invoice");
      got.rows = table.rows.length;
      got.notices = table.notices.length;
      // Whole or nothing: every column has every row.
      for (const column of Object.values(table.columns())) {
        if (column.length !== table.length) throw new Error(`column ${column.name} is short`);
      }
    } else {
      const stream = client.streamTable("sales_invoice", { batchRows: settings.batch_rows });
      for await (const batch of stream) got.delivered += batch.length;
      got.rows = got.delivered;
      got.notices = stream.notices.length;
    }
  } catch (err) {
    got.error = {
      erp: err instanceof ErpError,
      name: err?.name,
      kind: err?.kind,
      transportKind: err?.transportKind,
      status: err?.status,
      retryable: err?.retryable,
      retryAfterMs: err?.retryAfterMs,
      message: String(err?.message),
      attempts: err?.attempts,
      url: err?.url,
      rowsReceived: err?.rowsReceived,
      rowsDelivered: err?.rowsDelivered,
      printed: printable(err),
    };
  }
  got.took = (performance.now() - began) / 1000;
  return got;
}
