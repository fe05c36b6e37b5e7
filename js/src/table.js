// A table answer read from `response.body` chunk by chunk into the core's
// streaming decoder, and the Table users get.
import { batchRows, mergeColumns } from "./columns.js";
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

/** Column names of a batch list: the last batch has every column seen. */
function namesOf(batches) {
  const last = batches[batches.length - 1];
  return last ? last.columns.map((c) => c.name) : [];
}

/**
 * Every row of an ERP table, decoded by the core. `rows` are plain objects
 * (built on first use); `columns()` gives typed columns.
 */
export class Table {
  #batches;
  #numbers;
  #exactRows;
  #rows;
  #columns;

  /** @internal */
  constructor({ batches, notices, totalRows, numbers, exactRows }) {
    this.#batches = batches;
    this.#numbers = numbers;
    this.#exactRows = exactRows;
    /** Every key seen in any row, in first-seen order. */
    this.columnNames = namesOf(batches);
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
        const out = [];
        for (const b of this.#batches) batchRows(b, this.#numbers, out);
        this.#rows = out;
      }
      this.#exactRows = undefined;
    }
    return this.#rows;
  }

  /**
   * Typed columns by name: `Float64Array` for decimals, `Int32Array` or
   * `BigInt64Array` for integers, `Int32Array` of days for dates, string
   * arrays (with `dictionary`/`indices` when values repeat).
   */
  columns() {
    this.#columns ??= mergeColumns(this.#batches, this.columnNames, this.#numbers);
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
 * Reads `response.body` into the decoder; returns the batches (or, with
 * `onBatch`, hands each on and keeps none).
 */
export async function readTable(wasmCore, response, { numbers, batchRows: size, keepBody }) {
  const stream = core(() => wasmCore.tableStream(response.status, size, numbers));
  const batches = [];
  const chunks = keepBody ? [] : null;
  try {
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks?.push(value);
        batches.push(...core(() => stream.feed(value)));
      }
    }
    const end = core(() => stream.finish());
    batches.push(...end.batches);
    return { batches, notices: end.notices, totalRows: end.totalRows, regular: stream.regular, chunks };
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
