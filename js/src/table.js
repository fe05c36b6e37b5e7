// The Table users get: the whole table as the core's Call decoded it.
import { toArrow, toArrowIPC } from "./arrow.js";
import { batchRows, tableColumns } from "./columns.js";
import { fromCore } from "./errors.js";

/** Calls the wasm core; its plain error objects become ErpError subclasses. */
export function core(call) {
  try {
    return call();
  } catch (raw) {
    throw fromCore(raw);
  }
}

/** How the finance views reach a table's typed batch (not public API). */
export const tableBatch = Symbol("erpdata.tableBatch");

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

  /**
   * The table as an apache-arrow Table (apache-arrow must be installed):
   * int64, decimal128 (exact with `numbers: "string"`, float64 with JS
   * numbers), date32 (days), timestamp[us], bool, utf8 (a json column's
   * JSON texts, marked as the core's Arrow marks them).
   */
  toArrow() {
    return toArrow(this.columns(), this.#batch);
  }

  /** The table as Arrow IPC stream bytes (a `Uint8Array`; needs apache-arrow). */
  toArrowIPC() {
    return toArrowIPC(this.columns(), this.#batch);
  }

  /** @internal The core's batch and the numbers mode it was read with. */
  [tableBatch]() {
    return { batch: this.#batch, numbers: this.#numbers };
  }

  toJSON() {
    return { columns: this.columnNames, rows: this.rows, notices: this.notices };
  }
}
