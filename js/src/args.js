// Arguments every call checks the same way before the core sees them.
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
 * A date argument as the core takes it: `"YYYY-MM-DD"` text as given (the
 * core checks it is a calendar day), or a `Date` at exactly midnight UTC,
 * taken as that UTC day. Any other `Date` is refused: its calendar day
 * depends on the time zone it is read in.
 */
export function isoDate(field, value) {
  if (!(value instanceof Date)) return value;
  if (Number.isNaN(value.getTime())) throw invalidInput(field, "is an invalid Date");
  if (value.getTime() % 86_400_000 !== 0) {
    throw invalidInput(
      field,
      `is a Date that is not midnight UTC (${value.toISOString()}): its calendar day ` +
        'depends on the time zone; pass "YYYY-MM-DD" text',
    );
  }
  return value.toISOString().slice(0, 10);
}
