// A Table as Apache Arrow (apache-arrow, an optional peer dependency,
// loaded on first use): each column in the Arrow type of the core's type,
// so a Node backend can hand the data to DuckDB, Perspective or Arrow
// Flight. Conversion only: the types were decided by the core.

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

/** Unscaled BigInt of a plain decimal text at `scale` (the core's canonical text). */
function unscaled(text, scale) {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
  const digits = BigInt(whole + fraction.padEnd(scale, "0"));
  return negative ? -digits : digits;
}

/** 128-bit little-endian words of `values` (BigInts), as Arrow's Decimal128 stores them. */
function decimalWords(values) {
  const words = new Uint32Array(values.length * 4);
  const mask = 0xffffffffn;
  for (let i = 0; i < values.length; i++) {
    let v = BigInt.asUintN(128, values[i]);
    for (let w = 0; w < 4; w++) {
      words[i * 4 + w] = Number(v & mask);
      v >>= 32n;
    }
  }
  return words;
}

function vectorOf(arrow, column) {
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
    case "decimal": {
      const values = column.values.map((t, i) =>
        column.isValid(i) && t !== null ? unscaled(t, column.scale) : 0n,
      );
      return make(new arrow.Decimal(column.scale, column.precision, 128), decimalWords(values));
    }
    default: {
      // string and json: text values.
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

/** The columns as an apache-arrow Table. */
export async function toArrow(columns) {
  const arrow = await arrowModule();
  const vectors = {};
  for (const column of Object.values(columns)) vectors[column.name] = vectorOf(arrow, column);
  return new arrow.Table(vectors);
}

/** The columns as Arrow IPC stream bytes. */
export async function toArrowIPC(columns) {
  const arrow = await arrowModule();
  return arrow.tableToIPC(await toArrow(columns), "stream");
}
