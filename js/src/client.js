// ErpClient: each call is the core's Call (wasm), carried out with `fetch`
// by send.js. No rule of the wire format (encoding, validation, parsing,
// redaction) and no decision of a call (attempts, redirects, time limits)
// is implemented here.

import { AjaxAnswer } from "./answer.js";
import { callOptions, kindOf, today } from "./args.js";
import { batchRows, exactRows } from "./columns.js";
import { Dues } from "./dues.js";
import { InvalidInputError, invalidInput } from "./errors.js";
import { AjaxFunctions, invoke } from "./functions.js";
import { drive, run } from "./send.js";
import { follow } from "./signals.js";
import { core, Table } from "./table.js";
import { loadWasm } from "./wasm.js";

export { useWasm } from "./wasm.js";

/** What a client sends with when given no `fetch`: the entry point's, or fetch. */
let defaultFetch;
/** What it sends with to a base URL the core allows no proxy (loopback), if the entry has one. */
let directFetch;

/**
 * Sets what clients send with when given no `fetch`: `fetchFn` (the Node
 * entry's own; fetch if undefined), and `direct`, which never goes through
 * a proxy, to a loopback base URL.
 */
export function useFetch(fetchFn, direct) {
  defaultFetch = fetchFn;
  directFetch = direct;
}

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

/** What `variable` gives for a variable the runtime did not let the package read. */
const UNREAD = Symbol("unread");

/**
 * The variable `name` of `env`, or UNREAD. Deno reads a variable only with
 * leave (`--allow-env`): without it, the read throws (NotCapable) or, on a
 * terminal, stops the program to ask. A variable is only the fallback of
 * a setting not given, so one without leave is not read at all: a program
 * that gives every setting it needs runs without `--allow-env`, and is not
 * asked about ERPDATA_PROJECT_FOLDER, which it never set.
 */
function variable(env, name) {
  try {
    const state = globalThis.Deno?.permissions?.querySync?.({ name: "env", variable: name })?.state;
    if (state !== undefined && state !== "granted") return UNREAD;
    return env[name];
  } catch {
    return UNREAD;
  }
}

/**
 * `err`, or where it is an InvalidInputError about a setting whose
 * variable the runtime did not let the package read, the same saying so:
 * the core's "or set ERPDATA_BASE_URL" would send one who did set it in
 * circles.
 */
function sayingUnread(err, unread) {
  const name = err instanceof InvalidInputError ? ENV[err.field] : undefined;
  if (name === undefined || !unread.includes(name)) return err;
  return invalidInput(
    err.field,
    `${err.reason} (${name} was not read: this runtime gives no leave to read it; ` +
      `on Deno, run with --allow-env=${name})`,
  );
}

/**
 * The client's `logger`: `undefined` (no logging) when not given, else an
 * object (`console`, a pino or winston logger) with `debug(message)` and
 * `info(message)` methods.
 */
function loggerOf(logger) {
  if (logger === undefined || logger === null) return undefined;
  const methods =
    (typeof logger === "object" || typeof logger === "function") &&
    typeof logger.debug === "function" &&
    typeof logger.info === "function";
  if (!methods) {
    const got = typeof logger === "object" ? "an object without them" : kindOf(logger);
    throw invalidInput(
      "logger",
      `must be an object with debug(message) and info(message) methods (console works), got ${got}`,
    );
  }
  return logger;
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
const CALL_OPTIONS = [
  "timeoutMs",
  "connectTimeoutMs",
  "readTimeoutMs",
  "maxRetries",
  "maxRetryAfterMs",
];

/** The options every call takes (CallOptions in index.d.ts). */
const EVERY_CALL = ["numbers", "schema", "inferStrings", "signal", ...CALL_OPTIONS];

/** The options of the constructor (ErpClientOptions in index.d.ts). */
const CLIENT_OPTIONS = [
  ...Object.keys(ENV),
  "fetch",
  "logger",
  "allowInsecureHttp",
  "ajaxToken",
  "dangerouslyAllowBrowser",
  ...CALL_OPTIONS,
];

/** The options of the plans (DuesTableOptions and the two below it in index.d.ts). */
const PLAN_OPTIONS = [...EVERY_CALL, "concurrency"];
const ACCOUNT_TABLE = ["accounts", "asOf", "accountsTable", "companyId", "yearId"];
const AGING_OPTIONS = [...PLAN_OPTIONS, ...ACCOUNT_TABLE, "buckets"];
const CREDIT_OPTIONS = [...PLAN_OPTIONS, ...ACCOUNT_TABLE, "payDays"];

/** The given members of `options` among `keys` (`null` is not given). */
function given(options, keys) {
  const out = {};
  for (const key of keys)
    if (options[key] !== undefined && options[key] !== null) out[key] = options[key];
  return out;
}

/** How a call's answer is read, copied: the caller's objects may change while it waits. */
function readingOf({ numbers, schema, inferStrings }) {
  // Only a plain object is copied: anything else goes to the core as given,
  // to be refused there.
  const plain =
    schema !== null &&
    typeof schema === "object" &&
    [Object.prototype, null].includes(Object.getPrototypeOf(schema));
  return { numbers, schema: plain ? { ...schema } : schema, inferStrings };
}

/** The core's catalogue: each operation's parameters (JS names) and answer kind. */
let operations;
function operationOf(name) {
  operations ??= new Map(
    JSON.parse(loadWasm().Core.catalogue()).operations.map((op) => [op.js_name, op]),
  );
  return operations.get(name);
}

/**
 * The options a call of operation `name` takes: every call's, and the
 * operation's parameters that its method does not take as arguments
 * (`companyId` of `table`, `sendToken` of every function of ajax.php).
 */
function optionsOfOperation(name, args) {
  const params = operationOf(name).params.map((p) => p.js_name);
  return [...params.filter((param) => !(param in args)), ...EVERY_CALL];
}

/** What a call's value becomes, by the operation's answer kind. */
const ANSWERS = {
  dues: (value, numbers) => new Dues(value, numbers),
  function: (value, numbers) => new AjaxAnswer(value, numbers),
  table: (value, numbers, exactRows) => new Table({ ...value, numbers, exactRows }),
};

export class ErpClient extends AjaxFunctions {
  /** The wasm core: the only place the access token is kept. */
  #core;
  #fetch;
  /** What the core's lines of each request, answer and wait go to, if anything. */
  #logger;
  /** The call options given to the constructor (checked by the core). */
  #defaults;
  /** The variables of settings not given that the runtime did not let be read. */
  #unread = [];

  constructor(options) {
    super();
    options = callOptions(options, CLIENT_OPTIONS, "ErpClient");
    if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw invalidInput("dangerouslyAllowBrowser", BROWSER_MESSAGE);
    }
    const passed = options.fetch;
    if (passed !== undefined && passed !== null && typeof passed !== "function") {
      // The value passed is what is wrong, whether or not there is a global fetch.
      throw invalidInput("fetch", `must be a function, got ${kindOf(passed)}`);
    }
    this.#logger = loggerOf(options.logger);
    const fetchFn = passed ?? defaultFetch ?? globalThis.fetch;
    if (typeof fetchFn !== "function") {
      throw invalidInput(
        "fetch",
        "must be a function; this runtime has no global fetch, so pass one",
      );
    }
    // The settings given here, and the variables of those not given: the
    // core reads those as it reads them for Rust (ConfigBuilder::or_from_vars),
    // so that a value it refuses is named by its variable
    // (ERPDATA_BASE_URL), where it can be fixed, and says how to give a
    // base URL when there is none. The variable of a setting given is not
    // read from the environment at all (a runtime may ask leave to read it).
    const env = environment();
    const settings = given(options, [...Object.keys(ENV), "allowInsecureHttp", "ajaxToken"]);
    const vars = {};
    for (const [key, name] of Object.entries(ENV)) {
      if (key in settings) continue;
      const value = variable(env, name);
      if (value === UNREAD) this.#unread.push(name);
      else if (value !== undefined) vars[name] = value;
    }
    const wasm = loadWasm();
    // `null`, like `undefined`, means "not set", as for every other option;
    // the core checks each against its range and names the field.
    this.#defaults = given(options, CALL_OPTIONS);
    core(() => wasm.checkCallOptions(this.#defaults));
    this.#core = this.#checked(() => new wasm.Core(settings, vars));
    // Called unbound: a fetch that needs `this` (window.fetch) breaks
    // otherwise; the global one looked up at each call, as a caller who
    // replaces it expects. A `fetch` passed is used as given; without one,
    // a loopback base URL is never sent to through the proxy the runtime
    // may take from HTTP_PROXY (see directFetch in fetch-node.js).
    if (passed == null && directFetch !== undefined && !this.#core.proxyAllowed) {
      this.#fetch = directFetch;
    } else {
      this.#fetch = passed || defaultFetch ? fetchFn : (...args) => globalThis.fetch(...args);
    }
  }

  /**
   * The core's limits and defaults: `{defaults: {timeoutMs,
   * connectTimeoutMs, readTimeoutMs, maxRetries, maxRetryAfterMs, batchRows,
   * streamBatchRows}, maxTimeoutMs, maxRetries: {min, max}, batchRows:
   * {min, max}}`.
   */
  static get limits() {
    return loadWasm().limits();
  }

  /**
   * A call's options (`timeoutMs`, `connectTimeoutMs`, `readTimeoutMs`,
   * `maxRetries`, `maxRetryAfterMs`, `batchRows`) over the client's, which the core checks
   * before anything is sent.
   */
  #options(options, batchRows) {
    return { ...this.#defaults, ...given(options, CALL_OPTIONS), batchRows };
  }

  /** `core(make)`, its error saying which variable the runtime did not let be read. */
  #checked(make) {
    try {
      return core(make);
    } catch (err) {
      throw sayingUnread(err, this.#unread);
    }
  }

  /** How send.js carries out a call. */
  #host(signal) {
    const wasmCore = this.#core;
    const redact = (text) => wasmCore.redact(text);
    return { fetch: this.#fetch, redact, signal, logger: this.#logger };
  }

  /** A new call's clock and jitter seed. */
  static #start() {
    return [performance.now(), Math.floor(Math.random() * 2 ** 53)];
  }

  /**
   * Any operation of the core's catalogue by its JS name: `args` its
   * arguments, and every other parameter of the operation (`sendToken`,
   * `method`, `companyId`...) taken from `options` when given there. The
   * core checks them all before anything is sent.
   */
  /** `#invoke`, for the functions of ajax.php (see functions.js). */
  [invoke](name, args, options) {
    return this.#invoke(name, args, options);
  }

  /** `method`: the public method called, as errors name it. */
  async #invoke(name, args, options, method = name) {
    options = callOptions(options, optionsOfOperation(name, args), `${method}()`);
    checkSignal(options.signal);
    const operation = operationOf(name);
    const all = { ...args };
    for (const { js_name: param } of operation.params) {
      if (!(param in all)) all[param] = options[param];
    }
    const reading = readingOf(options);
    const invocation = this.#checked(() => this.#core.invoke(name, all, reading));
    let value;
    // The call waits on a signal of its own, following the caller's (one
    // listener on it for every call at a time; see follow()).
    const end = new AbortController();
    const unfollow = follow(options.signal, end);
    try {
      const call = core(() => invocation.call(this.#options(options), ...ErpClient.#start()));
      value = await run(call, this.#host(options.signal ? end.signal : undefined));
    } finally {
      unfollow();
      invocation.free();
    }
    // Rows rebuilt from columns equal the rows sent only when every row had
    // the same keys in the same order; otherwise the core reads the kept
    // part of the body again for the keys of the rows from where they
    // stopped being alike.
    const rows = value.body && (() => this.#exactRows(name, all, reading, value, options.numbers));
    return ANSWERS[operation.answer](value, options.numbers, rows);
  }

  /** A table's rows as sent: their keys read again by the core, their values the columns'. */
  #exactRows(name, args, reading, { status, body, batch, rowsBefore, widthBefore }, numbers) {
    const invocation = core(() => this.#core.invoke(name, args, reading));
    let later;
    try {
      // In its own call: wasm memory growing during the parse makes V8
      // collect garbage over and over (see Core.reserveForBody).
      this.#core.reserveForBody(body.length);
      later = core(() => invocation.parse(status, body)).rows;
    } finally {
      invocation.free();
    }
    return exactRows(batch, numbers, rowsBefore, widthBefore, later);
  }

  /**
   * Runs a plan of the core (`make` builds it from the wasm core and the
   * reading and call options): at most its concurrency of calls at a
   * time, handed back in any order. The first failure abandons the calls
   * still running; the caller's signal ends them all.
   */
  async #plan(make, options, known, method) {
    options = callOptions(options, known, `${method}()`);
    const { signal } = options;
    checkSignal(signal);
    const planOptions = { ...readingOf(options), ...this.#options(options) };
    const plan = this.#checked(() => make(this.#core, planOptions));
    const abandon = new AbortController();
    const unfollow = follow(signal, abandon);
    // Each call waits on a signal of its own, all ended from one listener
    // here: on one signal shared by every call, each wait hangs a listener
    // of its own, and past ten calls at a time Node warns of a leak that is
    // none. A real leak (a wait that never lets go) still shows on a call's.
    const ends = new Set();
    abandon.signal.addEventListener("abort", () => {
      for (const end of ends) end.abort(abandon.signal.reason);
    });
    const running = new Map();
    try {
      for (;;) {
        const step = core(() => plan.next());
        if (step.call) {
          const { id } = step.call;
          const call = core(() => plan.call(id, ...ErpClient.#start()));
          const end = new AbortController();
          if (abandon.signal.aborted) end.abort(abandon.signal.reason);
          ends.add(end);
          const finished = run(call, this.#host(end.signal))
            .finally(() => ends.delete(end))
            .then((outcome) => [id, outcome]);
          finished.catch(() => {});
          running.set(id, finished);
        } else if (step.wait) {
          const [id, outcome] = await Promise.race(running.values());
          running.delete(id);
          plan.done(id, outcome);
        } else {
          return new Table({ ...step.done, numbers: options.numbers });
        }
      }
    } finally {
      abandon.abort();
      unfollow();
      for (const finished of running.values())
        finished.then(
          ([, o]) => o.free(),
          () => {},
        );
      plan.free();
    }
  }

  /** Outstanding dues of one account: `kind` is `"RECEIPT"` or `"PAYMENT"`. */
  dues(options) {
    return this.#invoke("dues", {}, options);
  }

  /** What a customer owes (`type=RECEIPT`). */
  receivables(acid, options) {
    return this.#invoke("dues", { acid, kind: "RECEIPT" }, options, "receivables");
  }

  /** What is owed to a supplier (`type=PAYMENT`). */
  payables(acid, options) {
    return this.#invoke("dues", { acid, kind: "PAYMENT" }, options, "payables");
  }

  /**
   * Any function of ajax.php by name, its parameters in order
   * (`client.ajax("avgPayDays", { acid: "C001" })`), with the checks,
   * encoding, retries, redirect rules and errors of the named methods.
   */
  ajax(func, params, options) {
    return this.#invoke("ajax", { func, params }, options);
  }

  /**
   * The dues of many accounts as one Table: an `acid` column first (text),
   * then the dues columns, typed over all the accounts together. At most
   * `concurrency` (default 8) queries at a time; every account is checked
   * before anything is sent; the first failure is thrown.
   */
  duesTable(acids, kind, options) {
    const make = (c, o) => c.duesTable({ ...options, acids, kind }, o);
    return this.#plan(make, options, PLAN_OPTIONS, "duesTable");
  }

  /**
   * The aging of the receivables (`kind` `"receipt"`, the default) or
   * payables (`"payment"`) of `accounts`, or of every customer or supplier
   * of the account table (`accountsTable`, default `"account"`, of
   * `companyId`/`yearId`), as of `asOf` (default: today); see `aging()`.
   */
  aging(kind = "receipt", options) {
    const asOf = options?.asOf ?? today();
    const make = (c, o) => c.aging({ ...options, kind, asOf }, o);
    return this.#plan(make, options, AGING_OPTIONS, "aging");
  }

  /**
   * The credit status of `accounts` (default: every customer of the account
   * table) as of `asOf` (default: today): receivables against
   * `credit_limit`, what is overdue and since when, and (unless
   * `payDays: false`) each one's `avgPayDays`; see `creditStatus()`.
   */
  creditStatus(options) {
    const asOf = options?.asOf ?? today();
    const make = (c, o) => c.creditStatus({ ...options, asOf }, o);
    return this.#plan(make, options, CREDIT_OPTIONS, "creditStatus");
  }

  /**
   * Every row of an ERP table; POST unless `method: "GET"` is asked for.
   * The body is decoded as it arrives; each column's type is decided over
   * the whole table by the core, and `rows` and `columns()` are built from
   * those typed columns.
   */
  table(name, options) {
    return this.#invoke("table", { name }, options);
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
    const known = [...optionsOfOperation("table", { name }), "batchRows"];
    options = callOptions(options, known, "streamTable()");
    const { companyId, yearId, method, numbers, signal } = options;
    checkSignal(signal);
    const perCall = this.#options(options, options.batchRows);
    // Checked now, so that bad input throws here rather than when iterated.
    const args = { name, companyId, yearId, method };
    const reading = readingOf(options);
    this.#checked(() => this.#core.invoke("table", args, reading)).free();
    core(() => loadWasm().checkCallOptions(perCall));
    const wasmCore = this.#core;
    const host = this.#host(signal);
    /** The batches of one iteration; `stop` ends the call, a read in progress included. */
    async function* batches(stop) {
      const invocation = core(() => wasmCore.invoke("table", args, reading));
      let call;
      try {
        call = core(() => invocation.stream(perCall, ...ErpClient.#start()));
      } finally {
        invocation.free();
      }
      const unfollow = follow(signal, stop);
      const steps = drive(call, { ...host, signal: stop.signal });
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
        unfollow();
        await steps.return();
      }
    }
    let iterated = false;
    const stream = {
      /** The answer's notices, once the stream ended without an error. */
      notices: undefined,
      /** The rows of the whole answer, once the stream ended without an error. */
      totalRows: undefined,
      [Symbol.asyncIterator]() {
        // Once: a second loop sent the request again, while `notices` and
        // `totalRows` still told of the first.
        if (iterated) {
          throw new TypeError(
            "a TableStream is read once: call streamTable() again to read the table again",
          );
        }
        iterated = true;
        // An async generator's return() waits for a next() in progress,
        // and a read waits up to readTimeoutMs for the service: a
        // ReadableStream passing the table on, whose cancel calls return()
        // while its pull waits on next(), kept the call and its connection
        // that long after the HTTP client had gone. return() ends the read
        // first (that next() rejects, aborted). So does throw(): what
        // Readable.from() calls when the stream it makes is destroyed with
        // an error, as pipeline() does to its source when the response
        // closes early.
        const stop = new AbortController();
        const iterator = batches(stop);
        for (const method of ["return", "throw"]) {
          const end = iterator[method].bind(iterator);
          iterator[method] = (value) => {
            stop.abort();
            return end(value);
          };
        }
        return iterator;
      },
    };
    return stream;
  }

  /** What the client is configured with; never the token. */
  #describe() {
    const c = this.#core;
    const options = loadWasm().checkCallOptions(this.#defaults);
    return {
      // The token redacted, where the caller put it in the URL.
      baseUrl: c.displayBaseUrl,
      project: c.project ?? null,
      projectFolder: c.projectFolder ?? null,
      accessToken: c.hasAccessToken ? "[REDACTED]" : null,
      companyId: c.companyId ?? null,
      yearId: c.yearId ?? null,
      timeoutMs: options.timeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      readTimeoutMs: options.readTimeoutMs,
      maxRetries: options.maxRetries,
      maxRetryAfterMs: options.maxRetryAfterMs,
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
