// Typed columns from the batches the wasm core decodes (see
// crates/erpdata-wasm/src/columns.rs for their layout), and rows rebuilt
// from them. Conversion only: which type a value has was decided by the
// core's decoder.

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

/** The strings of a `{text, offsets}` pair: decoded once, then sliced. */
function slices({ text, offsets }, length = offsets.length - 1) {
  const out = new Array(length);
  for (let i = 0; i < length; i++) out[i] = text.slice(offsets[i], offsets[i + 1]);
  return out;
}

function isValidIn(validity, i) {
  return validity === null || ((validity[i >> 3] >> (i & 7)) & 1) === 1;
}

/**
 * One batch column as what rows need: `array` when row i's value is
 * exactly `array[i]` (no nulls, a plain array or typed array), else `get`.
 * `numbers` decides ints: JS numbers, or their decimal text.
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
    case "string":
    case "decimal": {
      if (col.dictionary) {
        const dict = slices(col.dictionary);
        const idx = col.indices;
        get = (i) => dict[idx[i]];
      } else {
        array = slices(col);
      }
      break;
    }
    case "json": {
      const { text, offsets } = col;
      get = (i) => JSON.parse(text.slice(offsets[i], offsets[i + 1]));
      break;
    }
    default:
      throw new Error(`erpdata: unknown column type ${col.type} from the wasm module`);
  }
  if (validity !== null) {
    const inner = get ?? ((a) => (i) => a[i])(array);
    return { array: null, get: (i) => (isValidIn(validity, i) ? inner(i) : null) };
  }
  return { array, get };
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
    const fields = names.map((name, j) => {
      const key = name === "__proto__" ? '["__proto__"]' : JSON.stringify(name);
      return `${key}: ${readers[j].array ? `a${j}[i]` : `g${j}(i)`}`;
    });
    const params = readers.flatMap((_, j) => [`a${j}`, `g${j}`]);
    const args = readers.flatMap((r) => [r.array, r.get]);
    const make = new Function(...params, `return (i) => ({${fields.join(", ")}});`)(...args);
    for (let i = 0; i < numRows; i++) out.push(make(i));
    return out;
  }
  const gets = readers.map((r) => r.get ?? ((a) => (i) => a[i])(r.array));
  for (let i = 0; i < numRows; i++) {
    const row = {};
    for (let j = 0; j < names.length; j++) {
      if (names[j] === "__proto__") {
        Object.defineProperty(row, "__proto__", {
          value: gets[j](i), writable: true, enumerable: true, configurable: true,
        });
      } else {
        row[names[j]] = gets[j](i);
      }
    }
    out.push(row);
  }
  return out;
}

// --- whole columns -----------------------------------------------------------

/**
 * A column of a table: typed values plus a validity bitmap. `get(i)` gives
 * row i's value as `rows` has it (null where there is none).
 */
export class Column {
  constructor(name, type, length, values, validity, extra = {}) {
    /** The row key. */
    this.name = name;
    /** `null`, `bool`, `int32`, `int64`, `float64`, `date`, `string`, `decimal` or `json`. */
    this.type = type;
    this.length = length;
    /** Float64Array, Int32Array, BigInt64Array, Uint8Array (bool: 0/1), Int32Array (date: days since 1970-01-01), or an Array (strings, JSON values). */
    this.values = values;
    /** Packed bitmap (bit i set: row i has a value), or null when every row has one. */
    this.validity = validity;
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

  /** Row `i`'s value as in `rows` (dates as `YYYY-MM-DD`, int64 as bigint). */
  get(i) {
    if (!this.isValid(i)) return null;
    const v = this.values?.[i];
    switch (this.type) {
      case "null":
        return null;
      case "bool":
        return v === 1;
      case "date":
        return dayText(v);
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

const TYPED = {
  int32: Int32Array, float64: Float64Array, int64: BigInt64Array, date: Int32Array, bool: Uint8Array,
};

/** The type holding both (the core's unification rule, for JS's types). */
function unify(a, b) {
  if (a === b || b === "null") return a;
  if (a === "null") return b;
  const pair = new Set([a, b]);
  const has = (x, y) => pair.has(x) && pair.has(y);
  if (has("int32", "int64")) return "int64";
  if (has("int32", "float64") || has("int64", "float64")) return "float64";
  if (has("date", "string")) return "string";
  return "json";
}

/** Values of batch column `col` (absent: `numRows` nulls) as type `to`. */
function valuesAs(col, numRows, to, numbers) {
  if (col === undefined || col.type === "null") return null;
  if (col.type === to && TYPED[to]) return col.values;
  if (to === "float64") return Float64Array.from(col.values, Number);
  if (to === "int64") return BigInt64Array.from(col.values, BigInt);
  const reader = cellReader(col, numbers);
  if (reader.array && !ArrayBuffer.isView(reader.array)) return reader.array;
  const get = reader.get ?? ((i) => reader.array[i]);
  const out = new Array(numRows);
  for (let i = 0; i < numRows; i++) out[i] = get(i);
  return out;
}

/**
 * One Column per name from the batches, each batch typed on its own (the
 * same key may be int32 in one batch and float64 in another).
 */
export function mergeColumns(batches, names, numbers) {
  const total = batches.reduce((n, b) => n + b.numRows, 0);
  const out = {};
  for (const name of names) {
    const parts = batches.map((b) => b.columns.find((c) => c.name === name));
    const type = parts.reduce((t, c) => unify(t, c?.type ?? "null"), "null");
    const allValid = parts.every((c) => c !== undefined && c.type !== "null" && c.validity === null);
    let validity = null;
    if (!allValid) {
      validity = new Uint8Array((total + 7) >> 3);
      let at = 0;
      batches.forEach((b, k) => {
        const c = parts[k];
        for (let i = 0; i < b.numRows; i++, at++) {
          if (c !== undefined && c.type !== "null" && isValidIn(c.validity, i)) {
            validity[at >> 3] |= 1 << (at & 7);
          }
        }
      });
    }
    const dictionary = (type === "string" || type === "decimal") && parts.every((c) => c?.dictionary);
    if (dictionary) {
      const dict = [];
      const index = new Map();
      const indices = new Int32Array(total);
      const values = new Array(total);
      let at = 0;
      batches.forEach((b, k) => {
        const local = slices(parts[k].dictionary).map((s) => {
          let j = index.get(s);
          if (j === undefined) {
            j = dict.length;
            dict.push(s);
            index.set(s, j);
          }
          return j;
        });
        const idx = parts[k].indices;
        for (let i = 0; i < b.numRows; i++, at++) {
          const j = local[idx[i]];
          indices[at] = j;
          values[at] = dict[j];
        }
      });
      out[name] = new Column(name, type, total, values, validity, { dictionary: dict, indices });
      continue;
    }
    let values = null;
    if (type !== "null") {
      const Typed = TYPED[type];
      values = Typed ? new Typed(total) : new Array(total);
      let at = 0;
      batches.forEach((b, k) => {
        const part = valuesAs(parts[k], b.numRows, type, numbers);
        if (part === null) {
          if (!Typed) values.fill(null, at, at + b.numRows);
        } else if (Typed) {
          values.set(part, at);
        } else {
          for (let i = 0; i < b.numRows; i++) values[at + i] = part[i];
        }
        at += b.numRows;
      });
    }
    out[name] = new Column(name, type, total, values, validity);
  }
  return out;
}
