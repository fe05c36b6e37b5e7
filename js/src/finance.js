// Aging and credit status: the core's finance views over tables JS holds
// (a table's typed batch goes back into the core, so every figure is the
// one Python and Rust compute, to the cent).
import { AjaxAnswer } from "./answer.js";
import { callOptions, kindOf, optionsOf, today } from "./args.js";
import { invalidInput } from "./errors.js";
import { core, Table, tableBatch } from "./table.js";
import { loadWasm } from "./wasm.js";

/**
 * Upper bounds of the past-due buckets, in days: current, 1-30, 31-60,
 * 61-90, 91+. The core's (a test pins them): a constant here because the
 * package loads no wasm at import.
 */
export const DEFAULT_BUCKETS = Object.freeze([30, 60, 90]);

function batchOf(field, value) {
  const get = value?.[tableBatch];
  if (typeof get !== "function") {
    throw invalidInput(
      field,
      "must be a Table or Dues (as table(), duesTable() or dues() give it)",
    );
  }
  return get.call(value);
}

/** `asOf` as the core takes it (text or a Date, checked there); today when not given. */
function asOfOf(asOf) {
  return asOf ?? today();
}

/**
 * The aging of `dues` (a Table from `duesTable()`, or a Dues) as of `asOf`
 * (default: today): one row per account of the table, in first-seen order
 * (a Dues: its account's one row, named),
 * its balance split into `current`, `1-30`, `31-60`, `61-90`, `91+` (or the
 * `buckets` given), `undated`, and the `total` (zeros for an account that
 * owes nothing). Columns are found by name (`due_date`, `duedate`, `date`,
 * `doc_date`; `balance`, `outstanding`, `amount`) unless named.
 */
export function aging(dues, options) {
  options = callOptions(options, ["asOf", "buckets", "dueDateColumn", "balanceColumn"], "aging()");
  const { asOf, buckets, dueDateColumn, balanceColumn } = options;
  // A Dues's batch comes with its account: its row is named for it.
  const { batch, numbers, acid } = batchOf("dues", dues);
  const out = core(() =>
    loadWasm().aging(batch, asOfOf(asOf), buckets, dueDateColumn, balanceColumn, numbers, acid),
  );
  return new Table({ ...out, numbers });
}

/**
 * A payDays value refused, shown as the core shows one: a number or a
 * boolean as itself (NaN said "got number" of what must be a number),
 * anything else by its kind.
 */
function shown(value) {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return kindOf(value);
}

function payDaysText(acid, value) {
  if (value === null || value === undefined) return null;
  if (value instanceof AjaxAnswer) return core(() => loadWasm().payDays(acid, value.raw));
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "bigint") return value.toString();
  // The account quoted, as the core quotes it refusing a text.
  throw invalidInput(
    "payDays",
    `${JSON.stringify(acid)}: must be an avgPayDays answer, a finite number or decimal text, ` +
      `got ${shown(value)}`,
  );
}

/**
 * The credit status of the customers of `accounts` (the account table:
 * `acid`, `credit_limit`, `name` and `kind` when present) as of `asOf`
 * (default: today), from `dues` (their receivables, from `duesTable()`):
 * `acid`, `name`, `credit_limit`, `outstanding`, `available`, `over_limit`,
 * `overdue`, `oldest_overdue_due_date`, `oldest_overdue_days`,
 * `avg_pay_days` (from `payDays`: acid → avgPayDays answer or number).
 * `acids` keeps only those customers, in that order; one that owes nothing
 * has its row, `outstanding` and `overdue` zero.
 */
export function creditStatus(accounts, dues, options) {
  options = callOptions(options, ["payDays", "asOf", "acids"], "creditStatus()");
  const { payDays, asOf, acids } = options;
  const a = batchOf("accounts", accounts);
  const d = batchOf("dues", dues);
  // One answer for the whole map: its fields were read as accounts
  // ("rows: must be an avgPayDays answer", of the answer given).
  if (payDays instanceof AjaxAnswer) {
    throw invalidInput(
      "payDays",
      "must map each account to its avgPayDays answer or number (a Map, or an object by " +
        "acid: { C001: answer }), got one avgPayDays answer",
    );
  }
  const entries =
    payDays instanceof Map ? [...payDays] : Object.entries(optionsOf(payDays, "payDays"));
  const pairs = entries.map(([acid, value]) => [String(acid), payDaysText(String(acid), value)]);
  // `acids` as given: the core checks it is a list of ids (a single id is
  // refused, not spread into its characters), and each text in `pairs`.
  const out = core(() =>
    loadWasm().creditStatus(a.batch, d.batch, pairs, asOfOf(asOf), acids, a.numbers),
  );
  return new Table({ ...out, numbers: a.numbers });
}
