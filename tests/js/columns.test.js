// Text columns of a table whose body came in several of the core's batches:
// one `{text, offsets}` chunk per batch, each value sliced when it is read.
// Built by hand in the layout the wasm module gives (a million-row table is
// what makes several chunks over HTTP).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Column, tableColumns } from "../../js/src/columns.js";

/** A chunk of `values` (null: a row without a value, held as ""). */
function chunk(values) {
  const offsets = new Uint32Array(values.length + 1);
  let text = "";
  values.forEach((v, i) => {
    text += v ?? "";
    offsets[i + 1] = text.length;
  });
  return { text, offsets };
}

/** Validity bits of `values` (null when every row has a value). */
function validityOf(values) {
  if (values.every((v) => v !== null)) return null;
  const bits = new Uint8Array(Math.ceil(values.length / 8));
  values.forEach((v, i) => {
    if (v !== null) bits[i >> 3] |= 1 << (i & 7);
  });
  return bits;
}

describe("tableColumns: text columns", () => {
  // Chunks of unequal sizes, one of them empty, with multi-byte and
  // astral characters (UTF-16 offsets), empty strings and nulls.
  const sizes = [5, 0, 1, 13, 7];
  const words = ["a", "Müller", "", "😀 x", "INV-2025-0001", "\\"];
  const all = [];
  const chunks = sizes.map((n, c) => {
    const values = Array.from({ length: n }, (_, k) =>
      (c + k) % 5 === 4 ? null : `${words[(c * 7 + k) % words.length]}${k}`,
    );
    all.push(...values);
    return chunk(values);
  });
  const batch = {
    numRows: all.length,
    columns: [
      { name: "s", type: "string", dataType: "string", chunks, validity: validityOf(all) },
      {
        name: "d",
        type: "decimal",
        dataType: "decimal(9,2)",
        precision: 9,
        scale: 2,
        chunks: [chunk(["1.50", "-0.00"]), chunk(all.slice(2).map((_, i) => `${i}.25`))],
        validity: null,
      },
    ],
  };

  test("row i's value, read in any order, is the value sent", () => {
    const { s } = tableColumns(batch, "string");
    assert.ok(s instanceof Column);
    assert.equal(s.length, all.length);
    const order = [
      ...all.keys(),
      ...[...all.keys()].reverse(),
      ...Array.from({ length: all.length * 3 }, (_, k) => (k * 11) % all.length),
    ];
    for (const i of order) assert.equal(s.get(i), all[i], `row ${i}`);
    const { d } = tableColumns(batch, "string");
    assert.equal(d.get(1), "-0.00");
    assert.equal(d.get(all.length - 1), `${all.length - 3}.25`);
    assert.equal(d.precision, 9);
  });

  test("`values` is every value, made at its first use and then kept", () => {
    const { s, d } = tableColumns(batch, "string");
    s.get(3);
    const values = s.values;
    assert.deepEqual(values, all);
    assert.equal(s.values, values);
    assert.deepEqual(s.toArray(), all);
    assert.deepEqual(Object.keys(s), ["name", "type", "dataType", "length", "values", "validity"]);
    assert.equal(d.values.length, all.length);
    assert.deepEqual(JSON.parse(JSON.stringify(s)).values, all);
    // Assignable before its first use, as a plain property.
    const fresh = tableColumns(batch, "string").s;
    fresh.values = ["x"];
    assert.deepEqual(fresh.values, ["x"]);
  });

  test("a dictionary column reads through its indices", () => {
    const indices = Int32Array.from(all, (v, i) => (v === null ? 0 : i % 2));
    const dictionary = chunk(["EUR", "USD"]);
    const { c } = tableColumns(
      {
        numRows: all.length,
        columns: [
          {
            name: "c",
            type: "string",
            dataType: "string",
            dictionary,
            indices,
            validity: validityOf(all),
          },
        ],
      },
      "string",
    );
    const want = all.map((v, i) => (v === null ? null : ["EUR", "USD"][i % 2]));
    for (let i = all.length - 1; i >= 0; i--) assert.equal(c.get(i), want[i]);
    assert.deepEqual(c.values, want);
    assert.deepEqual(c.dictionary, ["EUR", "USD"]);
    assert.equal(c.indices, indices);
  });
});
