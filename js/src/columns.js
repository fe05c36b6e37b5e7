// Typed columns from the batches the wasm core decodes (see
// crates/erpdata-wasm/src/columns.rs for their layout), and rows rebuilt
// from them. Conversion only: which type a column has, over a stream's
// batches or a whole table, was decided by the core.

const DAY_MS = 86_400_000;
const dayTexts = new Map();

/** `YYYY-MM-DD` of a day count since 1970-01-01 (cached: dates repeat). */
export function dayText(days) {
  let text = dayTexts.get(days);
  if (text === undefined) {
    text = new Date(days * DAY_MS).toISOString().slice(0, 10);
    if (dayTexts.size < 100_000) dayTexts.set(days, text);
  }
  return text;
}

const DAY_US = 86_400_000_000;
const DAY_US_BIG = 86_400_000_000n;
const two = (n) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `YYYY-MM-DD HH:MM:SS` of a count of microseconds since 1970-01-01
 * 00:00:00 (no time zone), with `.ffffff` unless it is whole seconds: the
 * core's canonical text of a timestamp.
 */
export function timestampText(micros) {
  let days;
  let rest;
  const n = Number(micros);
  if (Number.isSafeInteger(n)) {
    days = Math.floor(n / DAY_US);
    rest = n - days * DAY_US;
  } else {
    // Beyond 2^53 µs (before 1685 or after 2255) a double is not exact.
    const big = BigInt(micros);
    let d = big / DAY_US_BIG;
    if (big < d * DAY_US_BIG) d -= 1n;
    days = Number(d);
    rest = Number(big - d * DAY_US_BIG);
  }
  const secs = Math.floor(rest / 1e6);
  const frac = rest - secs * 1e6;
  const time = `${two(Math.floor(secs / 3600))}:${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}`;
  const text = `${dayText(days)} ${time}`;
  return frac === 0 ? text : `${text}.${String(frac).padStart(6, "0")}`;
}

/** The strings of a `{text, offsets}` pair: decoded once, then sliced. */
function slices({ text, offsets }, length = offsets.length - 1) {
  const out = new Array(length);
  for (let i = 0; i < length; i++) out[i] = text.slice(offsets[i], offsets[i + 1]);
  return out;
}

/** The strings of a column's `chunks` (one `{text, offsets}` per core batch), back to back. */
export function chunkSlices(chunks) {
  if (chunks.length === 1) return slices(chunks[0]);
  const out = [];
  for (const c of chunks) {
    const { text, offsets } = c;
    for (let i = 0; i + 1 < offsets.length; i++) out.push(text.slice(offsets[i], offsets[i + 1]));
  }
  return out;
}

/**
 * Row i's string of a column's `chunks`, sliced from the chunk's text when
 * asked for: a million strings made up front cost more than the decoding
 * (and their garbage collection), and most reads want a few columns.
 */
function textReader(chunks) {
  if (chunks.length === 1) {
    const { text, offsets } = chunks[0];
    return (i) => text.slice(offsets[i], offsets[i + 1]);
  }
  // starts[c]: the first row of chunk c; reads mostly go in order, so the
  // last chunk is tried before a search.
  const starts = new Float64Array(chunks.length + 1);
  for (let c = 0; c < chunks.length; c++) starts[c + 1] = starts[c] + chunks[c].offsets.length - 1;
  let c = 0;
  return (i) => {
    if (i < starts[c] || i >= starts[c + 1]) {
      let lo = 0;
      let hi = chunks.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= i) lo = mid;
        else hi = mid - 1;
      }
      c = lo;
    }
    const { text, offsets } = chunks[c];
    const k = i - starts[c];
    return text.slice(offsets[k], offsets[k + 1]);
  };
}

/** Whether a JSON text is a number (its first character says). */
const isNumberText = (t) => {
  const c = t.charCodeAt(0);
  return c === 45 || (c >= 48 && c <= 57);
};

function isValidIn(validity, i) {
  return validity === null || ((validity[i >> 3] >> (i & 7)) & 1) === 1;
}

/**
 * One batch column as what rows need: `array` when row i's value is
 * exactly `array[i]` (no nulls, a plain array or typed array), else `get`.
 * `numbers` decides ints: JS numbers, or their decimal text (the core's
 * row path gives a JSON column's numbers as text too).
 */
export function cellReader(col, numbers) {
  const { validity } = col;
  let array = null;
  let get;
  switch (col.type) {
    case "null":
      return { array: null, get: () => null };
    case "bool": {
      const v = col.values;
      get = (i) => v[i] === 1;
      break;
    }
    case "int32":
    case "float64": {
      const v = col.values;
      if (numbers === "string") get = (i) => String(v[i]);
      else array = v;
      break;
    }
    case "int64": {
      const v = col.values;
      // Number(bigint) rounds to nearest, as JSON.parse does the digits.
      get = numbers === "string" ? (i) => String(v[i]) : (i) => Number(v[i]);
      break;
    }
    case "date": {
      const v = col.values;
      get = (i) => dayText(v[i]);
      break;
    }
    case "timestamp": {
      const v = col.values;
      get = (i) => timestampText(v[i]);
      break;
    }
    case "string":
    case "decimal": {
      if (col.dictionary) {
        const dict = slices(col.dictionary);
        const idx = col.indices;
        get = (i) => dict[idx[i]];
      } else {
        array = chunkSlices(col.chunks);
      }
      break;
    }
    case "json": {
      const texts = chunkSlices(col.chunks);
      get =
        numbers === "string"
          ? (i) => (isNumberText(texts[i]) ? texts[i] : JSON.parse(texts[i]))
          : (i) => JSON.parse(texts[i]);
      break;
    }
    default:
      throw new Error(`erpdata: unknown column type ${col.type} from the wasm module`);
  }
  if (validity !== null) {
    const inner = getterOf({ array, get });
    return { array: null, get: (i) => (isValidIn(validity, i) ? inner(i) : null) };
  }
  return { array, get };
}

/** A reader's values as one function of the row, whether it reads an array or calls a getter. */
function getterOf({ array, get }) {
  return get ?? ((i) => array[i]);
}

/** Sets `row[key]`; `__proto__` as an own property, as JSON.parse makes it. */
export function setField(row, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(row, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    row[key] = value;
  }
}

let codegen;
/** Whether this runtime lets us compile a row maker (edge runtimes may not). */
function canGenerate() {
  if (codegen === undefined) {
    try {
      codegen = new Function("return 1")() === 1;
    } catch {
      codegen = false;
    }
  }
  return codegen;
}

// Compiled row makers by their columns' names and readers: a stream's
// batches share one, compiled once instead of once a batch.
const rowMakers = new Map();
const ROW_MAKERS_KEPT = 256;

/** The compiled row maker for `names`, each read from an array or a getter. */
function rowMaker(names, readers) {
  const key = JSON.stringify([names, readers.map((r) => (r.array ? 1 : 0))]);
  let factory = rowMakers.get(key);
  if (factory === undefined) {
    const fields = names.map((name, j) => {
      const field = name === "__proto__" ? '["__proto__"]' : JSON.stringify(name);
      return `${field}: ${readers[j].array ? `a${j}[i]` : `g${j}(i)`}`;
    });
    const params = readers.flatMap((_, j) => [`a${j}`, `g${j}`]);
    factory = new Function(...params, `return (i) => ({${fields.join(", ")}});`);
    if (rowMakers.size < ROW_MAKERS_KEPT) rowMakers.set(key, factory);
  }
  return factory(...readers.flatMap((r) => [r.array, r.get]));
}

/**
 * Rows of one batch, keys in column order. With code generation the row
 * maker is an object literal, so every row shares one hidden class, as
 * JSON.parse's rows do.
 */
export function batchRows(batch, numbers, out) {
  const { numRows, columns } = batch;
  const readers = columns.map((c) => cellReader(c, numbers));
  const names = columns.map((c) => c.name);
  if (canGenerate()) {
    const make = rowMaker(names, readers);
    for (let i = 0; i < numRows; i++) out.push(make(i));
    return out;
  }
  const gets = readers.map(getterOf);
  for (let i = 0; i < numRows; i++) {
    const row = {};
    for (let j = 0; j < names.length; j++) setField(row, names[j], gets[j](i));
    out.push(row);
  }
  return out;
}

/**
 * The rows of a table whose rows were not all of one shape, as sent: the
 * first `rowsBefore` rows have the batch's first `widthBefore` columns (the
 * core saw them alike), each later one the keys of its row in `later`
 * (those rows read again by the core), and every value is its column's.
 */
export function exactRows(batch, numbers, rowsBefore, widthBefore, later) {
  if (rowsBefore + later.length !== batch.numRows) {
    throw new Error(
      `erpdata: ${rowsBefore} + ${later.length} rows read again, not the table's ${batch.numRows}`,
    );
  }
  const before = { numRows: rowsBefore, columns: batch.columns.slice(0, widthBefore) };
  const out = batchRows(before, numbers, []);
  const gets = new Map(batch.columns.map((c) => [c.name, getterOf(cellReader(c, numbers))]));
  for (let k = 0; k < later.length; k++) {
    const i = rowsBefore + k;
    const row = {};
    for (const key of Object.keys(later[k])) setField(row, key, gets.get(key)(i));
    out.push(row);
  }
  return out;
}

// --- whole columns -----------------------------------------------------------

/**
 * A column of a table: typed values plus a validity bitmap. `get(i)` gives
 * row i's value as `rows` has it (null where there is none), except an
 * integer, which stays what `values` holds (a number in an int32 column, a
 * bigint in an int64 one) whatever `numbers` says: a typed column keeps
 * its type.
 */
export class Column {
  /** Row i's value when `values` is made only if asked for (validity aside). */
  #read;

  constructor(name, type, dataType, length, values, validity, extra = {}) {
    /** The row key. */
    this.name = name;
    /** `null`, `bool`, `int32`, `int64`, `float64`, `date`, `timestamp`, `string`, `decimal` or `json`. */
    this.type = type;
    /** The column's type as the core decided it: `int`, `decimal(P,S)`, `date`, `timestamp`, `string`... */
    this.dataType = dataType;
    this.length = length;
    /** Float64Array, Int32Array, BigInt64Array, Uint8Array (bool: 0/1), Int32Array (date: days since 1970-01-01), BigInt64Array (timestamp: microseconds since 1970-01-01), or an Array (strings, JSON values). */
    this.values = values;
    if (extra.read) {
      // Strings are sliced from their chunk's text when read; `values`
      // makes them all at its first use, then stays what it made.
      this.#read = extra.read;
      // Settled as the plain property it stands for.
      const settle = (value) =>
        Object.defineProperty(this, "values", { value, enumerable: true, writable: true });
      Object.defineProperty(this, "values", {
        enumerable: true,
        configurable: true,
        // A text column's cells are its values as they are (`get`).
        get: () => settle(this.toArray()).values,
        // Assignable, as a plain property is.
        set: settle,
      });
    }
    /** Packed bitmap (bit i set: row i has a value), or null when every row has one. */
    this.validity = validity;
    if (extra.precision !== undefined) {
      /** A decimal column's total digits. */
      this.precision = extra.precision;
      /** A decimal column's digits after the point. */
      this.scale = extra.scale;
    }
    if (extra.dictionary) {
      /** Distinct values of a string column whose values repeat. */
      this.dictionary = extra.dictionary;
      /** Per row, the index of its value in `dictionary`. */
      this.indices = extra.indices;
    }
  }

  /** Whether row `i` has a value. */
  isValid(i) {
    return isValidIn(this.validity, i);
  }

  /** Row `i`'s value as in `rows` (dates and timestamps as text), an integer as `values` holds it (int32 a number, int64 a bigint). */
  get(i) {
    // A row past the end read the offsets of none: a string column gave
    // the text of every row run together, a date column a RangeError.
    if (!Number.isInteger(i) || i < 0 || i >= this.length) {
      throw new RangeError(
        `no row ${String(i)}: the column has ${this.length} rows (0 to ${this.length - 1})`,
      );
    }
    if (!this.isValid(i)) return null;
    const v = this.#read ? this.#read(i) : this.values?.[i];
    switch (this.type) {
      case "null":
        return null;
      case "bool":
        return v === 1;
      case "date":
        return dayText(v);
      case "timestamp":
        return timestampText(v);
      default:
        return v;
    }
  }

  /** Every value, as `get` gives them. */
  toArray() {
    const out = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.get(i);
    return out;
  }
}

/**
 * One Column per column of `batch`, the whole table as one batch whose
 * column types the core unified over the table: conversion only.
 */
export function tableColumns(batch, numbers) {
  const { numRows, columns } = batch;
  const out = {};
  for (const col of columns) {
    const extra = { precision: col.precision, scale: col.scale };
    let values;
    if (col.type === "null") {
      values = null;
    } else if (col.values !== undefined) {
      values = col.values;
    } else if (col.dictionary) {
      const dict = slices(col.dictionary);
      const idx = col.indices;
      extra.dictionary = dict;
      extra.indices = idx;
      extra.read = (i) => dict[idx[i]];
    } else if (col.type === "string" || col.type === "decimal") {
      extra.read = textReader(col.chunks);
    } else {
      const reader = cellReader(col, numbers);
      values = reader.array ?? Array.from({ length: numRows }, (_, i) => reader.get(i));
    }
    setField(
      out,
      col.name,
      new Column(col.name, col.type, col.dataType, numRows, values, col.validity, extra),
    );
  }
  return out;
}
