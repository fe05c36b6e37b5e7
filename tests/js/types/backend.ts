// Compiled (not run) by types.test.js in a project of its own, where the
// package is installed as node_modules/erpdata and @types/node is present:
// a Node backend as one is written, under `strict` with the flags stricter
// projects add (exactOptionalPropertyTypes, noUncheckedIndexedAccess), by
// Node's module resolution and by a bundler's.
import { once } from "node:events";
import http from "node:http";
import {
  ErpClient,
  ErpError,
  HttpStatusError,
  InvalidInputError,
  type Logger,
  type Row,
  type TableStream,
  TransportError,
} from "erpdata";

// Settings from the environment are `string | undefined`: left out when
// unset, as the client reads them.
const client = new ErpClient({
  baseUrl: process.env.ERP_URL,
  project: process.env.ERP_PROJECT,
  accessToken: process.env.ERP_TOKEN,
  companyId: process.env.ERP_COMPANY ?? 1,
  yearId: 2025,
  logger: process.env.DEBUG ? console : undefined,
  timeoutMs: process.env.ERP_TIMEOUT_MS ? Number(process.env.ERP_TIMEOUT_MS) : undefined,
});

// A pino-like logger: more methods and overloads than erpdata calls.
const pinoLike = {
  level: "info",
  debug(msg: string, ...args: unknown[]): void {
    console.debug(msg, ...args);
  },
  info(objOrMsg: object | string, msg?: string): void {
    console.info(objOrMsg, msg);
  },
  warn(msg: string): void {
    console.warn(msg);
  },
};
const logger: Logger = pinoLike;
new ErpClient({ logger });

/** An ERP failure as the status (and headers) of the answer (docs/errors.md). */
function statusOf(err: unknown): [number, Record<string, string>] {
  if (err instanceof TransportError && err.transportKind === "timeout") return [504, {}];
  if (err instanceof TransportError && err.aborted) return [499, {}];
  if (err instanceof InvalidInputError) return [400, { "x-field": err.field }];
  if (err instanceof ErpError && err.retryable) {
    const wait = err instanceof HttpStatusError ? err.retryAfterMs : undefined;
    return [503, wait === undefined ? {} : { "retry-after": String(Math.ceil(wait / 1000)) }];
  }
  if (err instanceof HttpStatusError) return [502, { "x-erp-status": String(err.status) }];
  if (err instanceof ErpError) return [502, { "x-erp-kind": err.kind }];
  throw err;
}

http
  .createServer(async (req, res) => {
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    const name = new URL(req.url ?? "/", "http://localhost").searchParams.get("table");
    const stream: TableStream = client.streamTable(name ?? "sales_invoice", {
      signal: AbortSignal.any([gone.signal, AbortSignal.timeout(60_000)]),
      batchRows: 1000,
      numbers: "string",
      companyId: req.headers["x-company"] as string | undefined,
    });
    const batches = stream[Symbol.asyncIterator]();
    let step: IteratorResult<Row[], void>;
    try {
      step = await batches.next();
    } catch (err) {
      const [status, headers] = statusOf(err);
      res.writeHead(status, headers).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    try {
      while (!step.done) {
        for (const row of step.value) {
          const total: string | null = typeof row.total === "string" ? row.total : null;
          if (!res.write(`${JSON.stringify({ ...row, total })}\n`)) {
            await once(res, "drain", { signal: gone.signal });
          }
        }
        step = await batches.next();
      }
      res.end(`${JSON.stringify({ rows: stream.totalRows, notices: stream.notices?.length })}\n`);
    } catch {
      res.destroy();
    } finally {
      await batches.return();
    }
  })
  .listen(0);

export async function wrong(signal: AbortSignal): Promise<void> {
  // @ts-expect-error: batchRows, not batch_rows
  client.streamTable("account", { batch_rows: 10 });
  // @ts-expect-error: timeoutMs, not timeout
  await client.table("account", { timeout: 10 });
  // @ts-expect-error: signal, not abortSignal
  await client.receivables("C001", { abortSignal: signal });
  // @ts-expect-error: an AbortController is not its signal
  await client.table("account", { signal: new AbortController() });
  // @ts-expect-error: accessToken, not access_token
  new ErpClient({ access_token: "x" });
  const table = await client.table("account", { signal });
  const first = table.rows[0];
  // @ts-expect-error: a row may be missing (noUncheckedIndexedAccess)
  console.log(first.acid);
  const balance = table.columns().balance;
  if (balance?.values instanceof Float64Array) console.log(balance.values[0]);
  try {
    await client.table("account");
  } catch (err) {
    // @ts-expect-error: an unknown error has no retryable
    console.log(err.retryable);
    if (err instanceof ErpError) {
      const retryable: boolean = err.retryable;
      // @ts-expect-error: only an HttpStatusError has a status
      console.log(retryable, err.status);
    }
  }
}
