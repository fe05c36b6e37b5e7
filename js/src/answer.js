// AjaxAnswer: what a function of ajax.php answered, as the core read it.
import { invalidInput } from "./errors.js";
import { Table } from "./table.js";

/**
 * The answer of a function of ajax.php. Their shapes are not published:
 * `shape` says what came back — `"rows"` (a list of objects, in `rows`,
 * also as typed `columns()`), `"object"` (one object, in `fields`) or
 * `"value"` (one value, in `value`). `value` is the answer whatever its
 * shape; `schema` maps each column or field to its type; `raw` is the
 * JSON text sent (the token redacted); `notices` are PHP notices before it.
 */
export class AjaxAnswer {
  #table;

  /** @internal */
  constructor(answer, numbers) {
    this.func = answer.func;
    this.shape = answer.shape;
    this.rows = answer.rows;
    this.fields = answer.fields;
    this.value = answer.value;
    this.schema = answer.schema;
    this.raw = answer.raw;
    this.notices = answer.notices;
    if (answer.shape === "rows") {
      // Its rows are the answer's, each with its own keys in the order
      // sent: rebuilt from the columns, a row lacking a key got it as null.
      const rows = answer.rows;
      this.#table = new Table({
        batch: answer.batch,
        notices: answer.notices,
        totalRows: answer.totalRows,
        numbers,
        exactRows: () => rows,
      });
    }
  }

  /** The rows as a Table (typed columns); only for `shape: "rows"`. */
  toTable() {
    if (this.#table === undefined) {
      throw invalidInput("shape", `is "${this.shape}": only rows convert to a table`);
    }
    return this.#table;
  }

  /** Typed columns of the rows, as `Table.columns()` gives them. */
  columns() {
    return this.toTable().columns();
  }

  toJSON() {
    return {
      func: this.func,
      shape: this.shape,
      value: this.value,
      schema: this.schema,
      notices: this.notices,
    };
  }
}
