// Dues: the answer of one dues query, as the core read it.
import { Table, tableBatch } from "./table.js";

/**
 * The dues of one account: `rows` typed by column as a table's are,
 * `schema` each column's type, `raw` the JSON text sent (the dues fields
 * are not documented), `notices` PHP notices before it; `columns()` the
 * rows as typed columns.
 */
export class Dues {
  #table;

  /** @internal */
  constructor(dues, numbers) {
    this.acid = dues.acid;
    this.kind = dues.kind;
    this.rows = dues.rows;
    this.schema = dues.schema;
    this.raw = dues.raw;
    this.notices = dues.notices;
    this.#table = new Table({
      batch: dues.batch,
      notices: dues.notices,
      totalRows: dues.totalRows,
      numbers,
    });
  }

  /** Typed columns by name, as `Table.columns()` gives them. */
  columns() {
    return this.#table.columns();
  }

  /** @internal See Table. */
  [tableBatch]() {
    return { ...this.#table[tableBatch](), acid: this.acid };
  }

  toJSON() {
    const { acid, kind, rows, schema, raw, notices } = this;
    return { acid, kind, rows, schema, raw, notices };
  }
}
