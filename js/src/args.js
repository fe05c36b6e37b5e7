// What every call does with its options before the core sees them.
import { invalidInput } from "./errors.js";
import { loadWasm } from "./wasm.js";

/**
 * A call's options object: `undefined` and `null` mean none; anything else
 * that is not an object is refused (destructuring `null` would otherwise
 * throw a bare TypeError).
 */
export function optionsOf(options, field = "options") {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object")
    throw invalidInput(field, `must be an object, got ${typeof options}`);
  return options;
}

/**
 * A constructor's or call's options, checked: `undefined` and `null` mean
 * none; anything but an object is refused with what `where` takes
 * (`receivables("C001", "RECEIPT")` said only "must be an object, got
 * string"), and so is a key none of `known` (see `refuseUnknown`).
 */
export function callOptions(options, known, where) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw invalidInput(
      "options",
      `${where} takes its options as an object ({ ${known.join(", ")} }), got ${kindOf(options)}`,
    );
  }
  refuseUnknown(options, known, where);
  return options;
}

/** What a value is, as the core says it ("a string", "an object"), never the value itself. */
export function kindOf(value) {
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/**
 * Refuses a key of `options` that is none of `known` (the options `where`,
 * a constructor or method, takes): a misspelt or snake_case option would
 * otherwise be ignored without a word, its default used instead. The error
 * names the key, never its value (it may be a token), and the known option
 * it most likely meant, by the core's rule (`access_token`: accessToken).
 */
export function refuseUnknown(options, known, where) {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const meant = loadWasm().closestName(key, known);
    const hint = meant ? `did you mean ${meant}?` : `it takes ${known.join(", ")}`;
    throw invalidInput(key, `is not an option of ${where}; ${hint}`);
  }
}

/**
 * The local calendar day as `YYYY-MM-DD`: a finance view's `asOf` when
 * none is given (the core reads no clock).
 */
export function today() {
  const now = new Date();
  const two = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
}
