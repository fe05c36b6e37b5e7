// Generated from the core's catalogue (crates/erpdata/src/catalogue/entries.rs)
// by crates/erpdata/tests/facades.rs: do not edit. After changing the
// catalogue, run `make generate`; `make test` fails while this file is stale.

/** The method through which a client starts an operation of the catalogue. */
export const invoke = Symbol("erpdata.invoke");

/** The functions of ajax.php as methods; `ErpClient` extends this class. */
export class AjaxFunctions {
  /**
   * The outstanding receivables summary (`getduesSumm`).
   *
   * Like every function of ajax.php: `sendToken` sends the access token with
   * this call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   * Every argument is checked before anything is sent.
   */
  duesSummary(options) {
    return this[invoke]("duesSummary", {}, options);
  }

  /**
   * The average payment days of customer or supplier `acid` (`avgPayDays`).
   *
   * Like every function of ajax.php: `sendToken` sends the access token with
   * this call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   * Every argument is checked before anything is sent.
   *
   * @param acid The account id (customer or supplier), sent exactly as given.
   */
  avgPayDays(acid, options) {
    return this[invoke]("avgPayDays", { acid }, options);
  }

  /**
   * The net profit from `start` to `end` inclusive (`netProfit`).
   *
   * Like every function of ajax.php: `sendToken` sends the access token with
   * this call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   * Every argument is checked before anything is sent.
   *
   * @param start The first day of the range, `YYYY-MM-DD` (inclusive). Or a
   *   Date at midnight UTC.
   * @param end The last day of the range, `YYYY-MM-DD` (inclusive; not before
   *   `start`). Or a Date at midnight UTC.
   */
  netProfit(start, end, options) {
    return this[invoke]("netProfit", { start, end }, options);
  }

  /**
   * The gross profit from `start` to `end` inclusive (`grossProfit`).
   *
   * Like every function of ajax.php: `sendToken` sends the access token with
   * this call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   * Every argument is checked before anything is sent.
   *
   * @param start The first day of the range, `YYYY-MM-DD` (inclusive). Or a
   *   Date at midnight UTC.
   * @param end The last day of the range, `YYYY-MM-DD` (inclusive; not before
   *   `start`). Or a Date at midnight UTC.
   */
  grossProfit(start, end, options) {
    return this[invoke]("grossProfit", { start, end }, options);
  }

  /**
   * The accounts under `schedule`, with their figures from `start` to `end`
   * (`scheduleDet`).
   *
   * Like every function of ajax.php: `sendToken` sends the access token with
   * this call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   * Every argument is checked before anything is sent.
   *
   * @param schedule The schedule's name, e.g. `Sundry Debtors`.
   * @param start The first day of the range, `YYYY-MM-DD` (inclusive). Or a
   *   Date at midnight UTC.
   * @param end The last day of the range, `YYYY-MM-DD` (inclusive; not before
   *   `start`). Or a Date at midnight UTC.
   */
  scheduleAccounts(schedule, start, end, options) {
    return this[invoke]("scheduleAccounts", { schedule, start, end }, options);
  }
}
