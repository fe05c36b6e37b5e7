// ErpClient: each call is the core's Call (wasm), carried out with `fetch`
// by send.js. No rule of the wire format (encoding, validation, parsing,
// redaction) and no decision of a call (attempts, redirects, time limits)
// is implemented here.

import { AjaxAnswer } from "./answer.js";
import { isoDate, optionsOf } from "./args.js";
import { batchRows } from "./columns.js";
import { Dues } from "./dues.js";
import { invalidInput } from "./errors.js";
import { accountIds, aging, checkAging, creditStatus } from "./finance.js";
import { drive, run } from "./send.js";
import { core, Table } from "./table.js";
import { loadWasm } from "./wasm.js";

export { useWasm } from "./wasm.js";

const ENV = {
  baseUrl: "ERPDATA_BASE_URL",
  project: "ERPDATA_PROJECT",
  accessToken: "ERPDATA_ACCESS_TOKEN",
  projectFolder: "ERPDATA_PROJECT_FOLDER",
  companyId: "ERPDATA_COMPANY_ID",
  yearId: "ERPDATA_YEAR_ID",
};

const BROWSER_MESSAGE =
  "erpdata refuses to run in a browser: the table fetch's access token would be " +
  "readable by anyone who opens the page. Call the ERP from a server (Node, an edge " +
  "function) and send the browser only the data. Pass dangerouslyAllowBrowser: true " +
  "only if this code never reaches an untrusted user.";

function inBrowser() {
  return (
    typeof window !== "undefined" &&
    typeof document !== "undefined" &&
    typeof navigator !== "undefined"
  );
}

/** `process.env` where there is one (Node, Deno, Bun), else nothing. */
function environment() {
  const env = typeof process !== "undefined" ? process?.env : undefined;
  return env ?? {};
}

/**
 * The core checks `numbers` too, but only when parsing, after the request
 * went out; nothing is sent for invalid input, so it is checked first.
 */
function checkNumbers(numbers) {
  if (numbers !== undefined && numbers !== null && numbers !== "number" && numbers !== "string") {
    throw invalidInput("numbers", 'must be "number" or "string"');
  }
}

function checkSignal(signal) {
  if (
    signal !== undefined &&
    signal !== null &&
    !(
      typeof signal === "object" &&
      "aborted" in signal &&
      typeof signal.addEventListener === "function"
    )
  ) {
    throw invalidInput("signal", "must be an AbortSignal");
  }
}

/** The options a call takes on top of the client's defaults. */
const CALL_OPTIONS = ["timeoutMs", "connectTimeoutMs", "readTimeoutMs", "maxRetries"];

/** The given members of `options` among `keys` (`null` is not given). */
function given(options, keys) {
  const out = {};
  for (const key of keys)
    if (options[key] !== undefined && options[key] !== null) out[key] = options[key];
  return out;
}

/** Rows by the core's row decoder, which keeps each row's own keys. */
function exactRows(wasmCore, status, body, numbers, typing) {
  // In its own call: wasm memory growing during the parse call makes V8
  // collect garbage over and over (see Core.reserveForBody).
  wasmCore.reserveForBody(body.length);
  return core(() => wasmCore.parseTable(status, body, numbers, typing)).rows;
}

/**
 * A call's typing options for the core (`schema`: column name -> declared
 * type name; `inferStrings`: whether strings are typed from their text),
 * checked by it before anything is sent: an unknown type is refused naming
 * `schema["column"]`.
 */
function typingOf(wasmCore, schema, inferStrings) {
  if (
    (schema === undefined || schema === null) &&
    (inferStrings === undefined || inferStrings === null)
  ) {
    return undefined;
  }
  core(() => wasmCore.checkTyping({ schema, inferStrings }));
  // A copy, checked: the caller's object may change while the call waits.
  const declared =
    schema === undefined || schema === null
      ? undefined
      : Object.fromEntries(Object.entries(schema));
  return { schema: declared, inferStrings };
}

/** A generic call's parameters as `[name, value]` pairs, in order. */
function paramPairs(params) {
  if (params === undefined || params === null) return [];
  if (typeof params !== "object" || Array.isArray(params)) {
    throw invalidInput("params", "must be an object of parameter names to values");
  }
  return Object.entries(params);
}

/** `value` as an array of account ids: any iterable but a single string. */
function accountList(field, value) {
  if (typeof value === "string" || !value || typeof value[Symbol.iterator] !== "function") {
    throw invalidInput(field, "must be an iterable of account ids (not a single id)");
  }
  return [...value];
}

/** Starts an Error's stack at the caller's frame, not inside this plumbing. */
function trimmed(err, fn) {
  if (err instanceof Error) Error.captureStackTrace?.(err, fn);
  return err;
}

export class ErpClient {
  /** The wasm core: the only place the access token is kept. */
  #core;
  #fetch;
  /** The call options given to the constructor (checked by the core). */
  #defaults;

  constructor(options) {
    options = optionsOf(options);
    if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw invalidInput("dangerouslyAllowBrowser", BROWSER_MESSAGE);
    }
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== "function") {
      throw invalidInput(
        "fetch",
        "must be a function; this runtime has no global fetch, so pass one",
      );
    }
    const env = environment();
    const settings = {};
    for (const [key, name] of Object.entries(ENV)) {
      settings[key] = options[key] ?? env[name];
    }
    if (settings.baseUrl === undefined || settings.baseUrl === null) {
      throw invalidInput("base_url", "not given; pass baseUrl or set ERPDATA_BASE_URL");
    }
    settings.allowInsecureHttp = options.allowInsecureHttp;
    settings.ajaxToken = options.ajaxToken;
    const wasm = loadWasm();
    // `null`, like `undefined`, means "not set", as for every other option;
    // the core checks each against its range and names the field.
    this.#defaults = given(options, CALL_OPTIONS);
    core(() => wasm.checkCallOptions(this.#defaults));
    this.#core = core(() => new wasm.Core(settings));
    // Called unbound: a fetch that needs `this` (window.fetch) breaks otherwise.
    this.#fetch = options.fetch ? fetchFn : (...args) => globalThis.fetch(...args);
  }

  /**
   * The core's limits and defaults: `{defaults: {timeoutMs,
   * connectTimeoutMs, readTimeoutMs, maxRetries, batchRows}, maxTimeoutMs,
   * maxRetries: {min, max}, batchRows: {min, max}}`.
   */
  static get limits() {
    return loadWasm().limits();
  }

  /**
   * A call's options (`timeoutMs`, `connectTimeoutMs`, `readTimeoutMs`,
   * `maxRetries`, `batchRows`) over the client's, checked by the core
   * before anything is sent; and the call's signal, checked.
   */
  #options(options, batchRows) {
    checkSignal(options.signal);
    const merged = { ...this.#defaults, ...given(options, CALL_OPTIONS), batchRows };
    core(() => loadWasm().checkCallOptions(merged));
    return merged;
  }

  /** How send.js carries out a call. */
  #host(signal) {
    const wasmCore = this.#core;
    return { fetch: this.#fetch, redact: (text) => wasmCore.redact(text), signal };
  }

  /** A new call's clock and jitter seed. */
  static #start() {
    return [performance.now(), Math.floor(Math.random() * 2 ** 53)];
  }

  /** Outstanding dues of one account: `kind` is `"RECEIPT"` or `"PAYMENT"`. */
  async dues(options) {
    try {
      options = optionsOf(options);
      const { acid, kind, numbers, signal, schema, inferStrings, sendToken, method } = options;
      checkNumbers(numbers);
      const callOptions = this.#options(options);
      const typing = typingOf(this.#core, schema, inferStrings);
      const call = core(() =>
        this.#core.duesCall(acid, kind, numbers, typing, callOptions, ...ErpClient.#start(), {
          sendToken,
          method,
        }),
      );
      return new Dues(await run(call, this.#host(signal)), numbers);
    } catch (err) {
      throw trimmed(err, this.dues);
    }
  }

  /** What a customer owes (`type=RECEIPT`). */
  async receivables(acid, options) {
    try {
      return await this.dues({ ...optionsOf(options), acid, kind: "RECEIPT" });
    } catch (err) {
      throw trimmed(err, this.receivables);
    }
  }

  /** What is owed to a supplier (`type=PAYMENT`). */
  async payables(acid, options) {
    try {
      return await this.dues({ ...optionsOf(options), acid, kind: "PAYMENT" });
    } catch (err) {
      throw trimmed(err, this.payables);
    }
  }

  /** A function of ajax.php (`name` and `args` as the core takes them). */
  async #function(name, args, options) {
    options = optionsOf(options);
    const { numbers, signal, schema, inferStrings, sendToken, method } = options;
    checkNumbers(numbers);
    const callOptions = this.#options(options);
    const typing = typingOf(this.#core, schema, inferStrings);
    const call = core(() =>
      this.#core.ajaxCall(
        name,
        args,
        { sendToken, method },
        numbers,
        typing,
        callOptions,
        ...ErpClient.#start(),
      ),
    );
    return new AjaxAnswer(await run(call, this.#host(signal)), numbers);
  }

  /**
   * The outstanding receivables summary (`getduesSumm`). Like every
   * function of ajax.php: `sendToken` sends the access token with this
   * call (default: the client's `ajaxToken`), by POST unless `method:
   * "GET"`; the answer is an AjaxAnswer (rows, one object or one value).
   */
  async duesSummary(options) {
    try {
      return await this.#function("dues_summary", {}, options);
    } catch (err) {
      throw trimmed(err, this.duesSummary);
    }
  }

  /** Average payment days of a customer or supplier (`avgPayDays`). */
  async avgPayDays(acid, options) {
    try {
      return await this.#function("avg_pay_days", { acid }, options);
    } catch (err) {
      throw trimmed(err, this.avgPayDays);
    }
  }

  /**
   * Net profit from `start` to `end` inclusive (`netProfit`): `"YYYY-MM-DD"`
   * or a Date at midnight UTC; real days, `start` not after `end`, checked
   * before anything is sent.
   */
  async netProfit(start, end, options) {
    try {
      const args = { start: isoDate("start", start), end: isoDate("end", end) };
      return await this.#function("net_profit", args, options);
    } catch (err) {
      throw trimmed(err, this.netProfit);
    }
  }

  /** Gross profit from `start` to `end` inclusive (`grossProfit`). */
  async grossProfit(start, end, options) {
    try {
      const args = { start: isoDate("start", start), end: isoDate("end", end) };
      return await this.#function("gross_profit", args, options);
    } catch (err) {
      throw trimmed(err, this.grossProfit);
    }
  }

  /** The accounts under a schedule (`"Sundry Debtors"`) over a range (`scheduleDet`). */
  async scheduleAccounts(schedule, start, end, options) {
    try {
      const args = { schedule, start: isoDate("start", start), end: isoDate("end", end) };
      return await this.#function("schedule_accounts", args, options);
    } catch (err) {
      throw trimmed(err, this.scheduleAccounts);
    }
  }

  /**
   * Any function of ajax.php by name, its parameters in order
   * (`client.ajax("avgPayDays", { acid: "C001" })`), with the checks,
   * encoding, retries, redirect rules and errors of the named methods.
   */
  async ajax(func, params, options) {
    try {
      return await this.#function("ajax", { func, params: paramPairs(params) }, options);
    } catch (err) {
      throw trimmed(err, this.ajax);
    }
  }

  /**
   * The dues of many accounts as one Table: an `acid` column first (text),
   * then the dues columns, typed over all the accounts together. At most
   * `concurrency` (default 8) queries at a time; every account is checked
   * before anything is sent; the first failure is thrown.
   */
  async duesTable(acids, kind, options) {
    try {
      options = optionsOf(options);
      const { concurrency = 8, numbers, schema, inferStrings } = options;
      core(() => loadWasm().checkConcurrency(concurrency));
      const wanted = [...new Set(accountList("acids", acids))];
      for (const acid of wanted) core(() => this.#core.duesRequest(acid, kind));
      const typing = typingOf(this.#core, schema, inferStrings);
      const results = new Array(wanted.length);
      let next = 0;
      let failed = false;
      const worker = async () => {
        while (!failed && next < wanted.length) {
          const i = next++;
          try {
            results[i] = await this.dues({ ...options, acid: wanted[i], kind });
          } catch (err) {
            failed = true;
            throw err;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, wanted.length) }, worker));
      const dues = results.map((d) => ({ acid: d.acid, kind: d.kind, raw: d.raw }));
      const joined = core(() => this.#core.duesTable(dues, numbers, typing));
      return new Table({ ...joined, numbers });
    } catch (err) {
      throw trimmed(err, this.duesTable);
    }
  }

  /**
   * The accounts an aging or credit-status call asks about (undefined:
   * every one of the account table), once every input of the call is
   * checked: it may fetch the account table (always, with `alwaysTable`)
   * and then the dues, and bad input must stop it before the first.
   */
  #financeAccounts(kind, accounts, accountsTable, call, alwaysTable) {
    const { concurrency = 8, companyId, yearId, method } = call;
    core(() => loadWasm().checkConcurrency(concurrency));
    const given =
      accounts === undefined || accounts === null ? undefined : accountList("accounts", accounts);
    // With no account given, the kind is checked on a request never sent.
    for (const acid of given?.length ? given : ["0"]) {
      core(() => this.#core.duesRequest(acid, kind));
    }
    if (given === undefined || alwaysTable) {
      core(() => this.#core.tableRequest(accountsTable, companyId, yearId, method));
    }
    return given;
  }

  /**
   * The aging of the receivables (`kind` `"receipt"`, the default) or
   * payables (`"payment"`) of `accounts`, or of every customer or supplier
   * of the account table (`accountsTable`, default `"account"`, of
   * `companyId`/`yearId`), as of `asOf` (default: today); see `aging()`.
   */
  async aging(kind = "receipt", options) {
    try {
      options = optionsOf(options);
      const { accounts, asOf, buckets, accountsTable = "account", ...call } = options;
      const day = checkAging(asOf, buckets);
      const given = this.#financeAccounts(kind, accounts, accountsTable, call, false);
      const acids = given ?? accountIds(await this.table(accountsTable, call), kind);
      const dues = await this.duesTable(acids, kind, call);
      return aging(dues, { asOf: day, buckets });
    } catch (err) {
      throw trimmed(err, this.aging);
    }
  }

  /**
   * The credit status of `accounts` (default: every customer of the account
   * table) as of `asOf` (default: today): receivables against
   * `credit_limit`, what is overdue and since when, and (unless
   * `payDays: false`) each one's `avgPayDays`; see `creditStatus()`.
   */
  async creditStatus(options) {
    try {
      options = optionsOf(options);
      const { accounts, asOf, payDays = true, accountsTable = "account", ...call } = options;
      const { concurrency = 8 } = call;
      const day = checkAging(asOf, undefined);
      if (typeof payDays !== "boolean") {
        throw invalidInput("pay_days", `must be true or false, got ${typeof payDays}`);
      }
      const given = this.#financeAccounts("receipt", accounts, accountsTable, call, true);
      const table = await this.table(accountsTable, call);
      const customers = accountIds(table, "receipt");
      const wanted = given?.map(String);
      const acids = wanted ? wanted.filter((a) => customers.includes(a)) : customers;
      const dues = await this.duesTable(acids, "receipt", call);
      const answers = new Map();
      if (payDays && acids.length > 0) {
        let next = 0;
        const worker = async () => {
          while (next < acids.length) {
            const acid = acids[next++];
            answers.set(acid, await this.avgPayDays(acid, call));
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, acids.length) }, worker));
      }
      return creditStatus(table, dues, { payDays: answers, asOf: day, acids: wanted });
    } catch (err) {
      throw trimmed(err, this.creditStatus);
    }
  }

  /**
   * Every row of an ERP table; POST unless `method: "GET"` is asked for.
   * The body is decoded as it arrives; each column's type is decided over
   * the whole table by the core, and `rows` and `columns()` are built from
   * those typed columns.
   */
  async table(name, options) {
    try {
      options = optionsOf(options);
      const { companyId, yearId, method, numbers, signal, schema, inferStrings } = options;
      checkNumbers(numbers);
      const callOptions = this.#options(options);
      const wasmCore = this.#core;
      const typing = typingOf(wasmCore, schema, inferStrings);
      const call = core(() =>
        wasmCore.tableCall(
          name,
          companyId,
          yearId,
          method,
          numbers,
          typing,
          callOptions,
          ...ErpClient.#start(),
        ),
      );
      const read = await run(call, this.#host(signal));
      // Rows rebuilt from columns equal the rows sent (typed) only when
      // every row had the same keys in the same order; otherwise the core's
      // row path reads the kept body.
      const { body, status } = read;
      const exact = body ? () => exactRows(wasmCore, status, body, numbers, typing) : undefined;
      return new Table({ ...read, numbers, exactRows: exact });
    } catch (err) {
      throw trimmed(err, this.table);
    }
  }

  /**
   * The table as an async iterable of row batches (arrays of row objects),
   * decoded while the body arrives: memory stays bounded by `batchRows`.
   * `timeoutMs` bounds the time spent waiting for the service, not the
   * time the caller spends on a batch. One schema: the first batch fixes
   * every column's type, and a later value that does not fit it (or a
   * column first seen later) throws a DecodeError naming the column and
   * the row; `schema` declares types. Every row has every column (null
   * where a row lacked the key). A body that breaks off throws after the
   * last complete batch; the error says how many rows had arrived and how
   * many were handed out.
   */
  streamTable(name, options) {
    options = optionsOf(options);
    const { companyId, yearId, method, numbers, signal, schema, inferStrings } = options;
    checkNumbers(numbers);
    const callOptions = this.#options(options, options.batchRows);
    // Checked now, so that bad input throws here rather than when iterated.
    core(() => this.#core.tableRequest(name, companyId, yearId, method));
    const typing = typingOf(this.#core, schema, inferStrings);
    const wasmCore = this.#core;
    const host = this.#host(signal);
    const stream = {
      /** The answer's notices, once the stream ended without an error. */
      notices: undefined,
      /** The rows of the whole answer, once the stream ended without an error. */
      totalRows: undefined,
      async *[Symbol.asyncIterator]() {
        const call = core(() =>
          wasmCore.streamCall(
            name,
            companyId,
            yearId,
            method,
            numbers,
            typing,
            callOptions,
            ...ErpClient.#start(),
          ),
        );
        const steps = drive(call, host);
        try {
          for (;;) {
            const step = await steps.next();
            if (step.done) {
              stream.notices = step.value.notices;
              stream.totalRows = step.value.totalRows;
              return;
            }
            yield batchRows(step.value, numbers, []);
          }
        } finally {
          await steps.return();
        }
      },
    };
    return stream;
  }

  /** What the client is configured with; never the token. */
  #describe() {
    const c = this.#core;
    const options = loadWasm().checkCallOptions(this.#defaults);
    return {
      baseUrl: c.baseUrl,
      project: c.project ?? null,
      projectFolder: c.projectFolder ?? null,
      accessToken: c.hasAccessToken ? "[REDACTED]" : null,
      companyId: c.companyId ?? null,
      yearId: c.yearId ?? null,
      timeoutMs: options.timeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      readTimeoutMs: options.readTimeoutMs,
      maxRetries: options.maxRetries,
    };
  }

  toJSON() {
    return this.#describe();
  }

  [Symbol.for("nodejs.util.inspect.custom")](_depth, options, inspect) {
    const fields = this.#describe();
    return `ErpClient ${inspect ? inspect(fields, options) : JSON.stringify(fields)}`;
  }
}
