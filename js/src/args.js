// What every call does with its options before the core sees them.
import { invalidInput } from "./errors.js";

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
 * The local calendar day as `YYYY-MM-DD`: a finance view's `asOf` when
 * none is given (the core reads no clock).
 */
export function today() {
  const now = new Date();
  const two = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
}
