// A table answer read from `response.body` chunk by chunk into the core's
// streaming decoder, and the Table users get.
import { batchRows, tableColumns } from "./columns.js";
import { fromCore } from "./errors.js";

/** Rows per batch of the streaming decoder. */
export const DEFAULT_BATCH_ROWS = 65_536;

/** Calls the wasm core; its plain error objects become ErpError subclasses. */
export function core(call) {
  try {
    return call();
  } catch (raw) {
    throw fromCore(raw);
  }
}

/**
 * Adds to a decode error how much had arrived: a body cut short must not
 * look like a smaller table.
 */
export function withRowCount(err, rows) {
  if (err && typeof err === "object" && err.kind === "decode") {
    err.rowsReceived = rows;
    err.message = `${err.message} (${rows} complete rows arrived before the error)`;
  }
  return err;
}

/**
 * Every row of an ERP table, decoded by the core. `rows` are plain objects
 * (built on first use); `columns()` gives typed columns.
 */
export class Table {
  /** The whole table as one batch of the core's unified column types. */
  #batch;
  #numbers;
  #exactRows;
  #rows;
  #columns;

  /** @internal */
  constructor({ batch, notices, totalRows, numbers, exactRows }) {
    this.#batch = batch;
    this.#numbers = numbers;
    this.#exactRows = exactRows;
    /** Every key seen in any row, in first-seen order. */
    this.columnNames = batch.columns.map((c) => c.name);
    /** Each column's type, decided over the whole table by the core (or declared). */
    this.schema = Object.fromEntries(batch.columns.map((c) => [c.name, c.dataType]));
    /** PHP notices or warnings that preceded the JSON. */
    this.notices = notices;
    /** The number of rows. */
    this.length = totalRows;
  }

  /** The rows as plain objects, fields in the order sent. */
  get rows() {
    if (this.#rows === undefined) {
      if (this.#exactRows) {
        this.#rows = this.#exactRows();
      } else {
        this.#rows = batchRows(this.#batch, this.#numbers, []);
      }
      this.#exactRows = undefined;
    }
    return this.#rows;
  }

  /**
   * Typed columns by name: `Float64Array` for decimals, `Int32Array` or
   * `BigInt64Array` for integers, `Int32Array` of days for dates,
   * `BigInt64Array` of microseconds for timestamps, string arrays (with
   * `dictionary`/`indices` when values repeat).
   */
  columns() {
    this.#columns ??= tableColumns(this.#batch, this.#numbers);
    return this.#columns;
  }

  [Symbol.iterator]() {
    return this.rows[Symbol.iterator]();
  }

  toJSON() {
    return { columns: this.columnNames, rows: this.rows, notices: this.notices };
  }
}

/**
 * Reads a whole table from `response.body` into the decoder, which keeps
 * its batches and, once the body is complete, gives the table as one batch
 * whose column types it decided over all rows (`typing`: the call's
 * `{schema, inferStrings}`). With `keepBody`, the body's chunks too.
 */
export async function readTable(
  wasmCore,
  response,
  { numbers, typing, batchRows: size, keepBody },
) {
  const stream = core(() => wasmCore.tableStream(response.status, size, numbers, typing, true));
  const chunks = keepBody ? [] : null;
  try {
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks?.push(value);
        core(() => stream.feed(value));
      }
    }
    const end = core(() => stream.finish());
    const [batch] = end.batches;
    return {
      batch,
      notices: end.notices,
      totalRows: end.totalRows,
      regular: stream.regular,
      chunks,
    };
  } catch (err) {
    throw withRowCount(err, stream.rows);
  } finally {
    stream.free();
  }
}

/** The chunks back to back. */
export function concat(chunks) {
  const length = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
