// A Table as Apache Arrow (apache-arrow, an optional peer dependency,
// loaded on first use): each column in the Arrow type of the core's type,
// so a Node backend can hand the data to DuckDB, Perspective or Arrow
// Flight. Conversion only: the types were decided by the core.
import { chunkSlices, setField } from "./columns.js";
import { fromCore } from "./errors.js";
import { loadWasm } from "./wasm.js";

/** apache-arrow, or an error saying how to get it. */
async function arrowModule() {
  try {
    return await import("apache-arrow");
  } catch (err) {
    const error = new Error(
      "Table.toArrow() and toArrowIPC() need apache-arrow: npm install apache-arrow",
    );
    error.cause = err;
    throw error;
  }
}

/**
 * A decimal column's values as Decimal128 holds them (four little-endian
 * 32-bit words a value), read by the core from the texts sent: a text JSON
 * wrote with an exponent (`1.0e-5`) is as exact as a plain one.
 */
function decimalWords(raw, length) {
  try {
    return loadWasm().decimalWords(raw, length);
  } catch (err) {
    throw fromCore(err);
  }
}

/**
 * The field metadata the core's Arrow gives a json column (Rust's and
 * Python's, erpdata::TYPE_METADATA_KEY = JSON_TYPE), so that a reader can
 * tell its JSON texts from plain strings.
 */
const JSON_METADATA = [["erpdata.type", "json"]];

/** `column` (a Column) as an Arrow vector; `raw` is its column of the core's batch. */
function vectorOf(arrow, column, raw) {
  const { type, length, validity } = column;
  const nullBitmap = validity ?? undefined;
  const nullCount = validity ? length - countValid(validity, length) : 0;
  const make = (dataType, data) =>
    arrow.makeVector(arrow.makeData({ type: dataType, length, nullCount, nullBitmap, data }));
  switch (type) {
    case "null":
      return arrow.makeVector(arrow.makeData({ type: new arrow.Null(), length }));
    case "bool": {
      const bits = new Uint8Array(Math.ceil(length / 8));
      for (let i = 0; i < length; i++) if (column.values[i]) bits[i >> 3] |= 1 << (i & 7);
      return make(new arrow.Bool(), bits);
    }
    case "int32":
      return make(
        new arrow.Int64(),
        BigInt64Array.from(column.values, (v) => BigInt(v)),
      );
    case "int64":
      return make(new arrow.Int64(), column.values);
    case "float64":
      return make(new arrow.Float64(), column.values);
    case "date":
      return make(new arrow.DateDay(), column.values);
    case "timestamp":
      return make(new arrow.TimestampMicrosecond(), column.values);
    case "decimal":
      return make(
        new arrow.Decimal(column.scale, column.precision, 128),
        decimalWords(raw, length),
      );
    case "json": {
      // Each value's JSON text as the core holds it: the Column's values
      // are the parsed values, which String() would make "[object Object]".
      const texts = chunkSlices(raw.chunks).map((t, i) => (column.isValid(i) ? t : null));
      return arrow.vectorFromArray(texts, new arrow.Utf8());
    }
    default: {
      // string: text values.
      const texts = column.values.map((t, i) => (column.isValid(i) ? t : null));
      return arrow.vectorFromArray(texts, new arrow.Utf8());
    }
  }
}

function countValid(bitmap, length) {
  let n = 0;
  for (let i = 0; i < length; i++) n += (bitmap[i >> 3] >> (i & 7)) & 1;
  return n;
}

/** The columns (a table's Columns, and the core's `batch` they were made of) as an apache-arrow Table. */
export async function toArrow(columns, batch) {
  const arrow = await arrowModule();
  const vectors = {};
  for (const raw of batch.columns) {
    setField(vectors, raw.name, vectorOf(arrow, columns[raw.name], raw));
  }
  const table = new arrow.Table(vectors);
  const json = new Set(batch.columns.filter((c) => c.type === "json").map((c) => c.name));
  if (json.size === 0) return table;
  const fields = table.schema.fields.map((f) =>
    json.has(f.name) ? new arrow.Field(f.name, f.type, f.nullable, new Map(JSON_METADATA)) : f,
  );
  const schema = new arrow.Schema(fields, table.schema.metadata);
  return new arrow.Table(
    schema,
    table.batches.map((b) => new arrow.RecordBatch(schema, b.data)),
  );
}

/** The columns as Arrow IPC stream bytes. */
export async function toArrowIPC(columns, batch) {
  const arrow = await arrowModule();
  return arrow.tableToIPC(await toArrow(columns, batch), "stream");
}
