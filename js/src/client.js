// ErpClient: sends the requests the wasm core describes with `fetch`, and
// hands status + body bytes back to the core. No rule of the wire format
// (encoding, validation, parsing, redaction, retrying, redirects) is
// implemented here.

import { batchRows } from "./columns.js";
import { invalidInput } from "./errors.js";
import { aborted, send } from "./send.js";
import { concat, core, DEFAULT_BATCH_ROWS, readTable, Table, withRowCount } from "./table.js";
import { transportError } from "./transport.js";

let loadWasm = () => {
  throw new Error("erpdata: no wasm loader; import the package's entry point, not src/client.js");
};

/** Sets how the wasm module is loaded (each entry point has its own way). */
export function useWasm(loader) {
  loadWasm = loader;
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

/**
 * The decoder sets aside room for a whole batch up front, in wasm memory
 * (at most 4 GiB, and a failed allocation there aborts the module): a
 * batch of a hundred million rows would never fit, a million always does.
 */
const MAX_BATCH_ROWS = 1_000_000;

function checkBatchRows(batchRows) {
  if (
    batchRows !== undefined &&
    (!Number.isSafeInteger(batchRows) || batchRows < 1 || batchRows > MAX_BATCH_ROWS)
  ) {
    throw invalidInput("batchRows", `must be an integer from 1 to ${MAX_BATCH_ROWS}`);
  }
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

/**
 * A call's options object: `undefined` and `null` mean none; anything else
 * that is not an object is refused (destructuring `null` would otherwise
 * throw a bare TypeError).
 */
function optionsOf(options, field = "options") {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object")
    throw invalidInput(field, `must be an object, got ${typeof options}`);
  return options;
}

/** Starts an Error's stack at the caller's frame, not inside this plumbing. */
function trimmed(err, fn) {
  if (err instanceof Error) Error.captureStackTrace?.(err, fn);
  return err;
}

export class ErpClient {
  /** The wasm core: the only place the access token is kept. */
  #core;
  #policy;
  #fetch;
  #timeoutMs;

  constructor(options) {
    options = optionsOf(options);
    if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw invalidInput("dangerouslyAllowBrowser", BROWSER_MESSAGE);
    }
    // `null`, like `undefined`, means "not set", as for every other option.
    const timeoutMs = options.timeoutMs ?? 30_000;
    const maxRetries = options.maxRetries ?? 2;
    if (
      typeof timeoutMs !== "number" ||
      !(timeoutMs > 0) ||
      !Number.isFinite(timeoutMs) ||
      timeoutMs > 2 ** 31 - 1
    ) {
      // "Wait forever" is never what a server process wants by accident.
      throw invalidInput(
        "timeoutMs",
        "must be a positive, finite number of milliseconds (at most 2^31-1)",
      );
    }
    if (!Number.isSafeInteger(maxRetries) || maxRetries < 0 || maxRetries > 2 ** 32 - 1) {
      throw invalidInput("maxRetries", "must be a non-negative integer");
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
    const { Core, RetryPolicy } = loadWasm();
    this.#core = core(() => new Core(settings));
    this.#policy = new RetryPolicy(maxRetries);
    // Called unbound: a fetch that needs `this` (window.fetch) breaks otherwise.
    this.#fetch = options.fetch ? fetchFn : (...args) => globalThis.fetch(...args);
    this.#timeoutMs = timeoutMs;
  }

  get #client() {
    return {
      core: this.#core,
      policy: this.#policy,
      fetch: this.#fetch,
      timeoutMs: this.#timeoutMs,
    };
  }

  /** Outstanding dues of one account: `kind` is `"RECEIPT"` or `"PAYMENT"`. */
  async dues(options) {
    try {
      const { acid, kind, numbers, signal, schema, inferStrings } = optionsOf(options);
      checkNumbers(numbers);
      checkSignal(signal);
      const request = core(() => this.#core.duesRequest(acid, kind));
      const typing = typingOf(this.#core, schema, inferStrings);
      const { status, body } = await send(this.#client, request, {
        signal,
        consume: async (response) => ({
          status: response.status,
          body: new Uint8Array(await response.arrayBuffer()),
        }),
      });
      return core(() => this.#core.parseDues(acid, kind, status, body, numbers, typing));
    } catch (err) {
      throw trimmed(err, this.dues);
    }
  }

  /** What a customer owes (`type=RECEIPT`). */
  async receivables(acid, options) {
    try {
      const { numbers, signal, schema, inferStrings } = optionsOf(options);
      return await this.dues({ acid, kind: "RECEIPT", numbers, signal, schema, inferStrings });
    } catch (err) {
      throw trimmed(err, this.receivables);
    }
  }

  /** What is owed to a supplier (`type=PAYMENT`). */
  async payables(acid, options) {
    try {
      const { numbers, signal, schema, inferStrings } = optionsOf(options);
      return await this.dues({ acid, kind: "PAYMENT", numbers, signal, schema, inferStrings });
    } catch (err) {
      throw trimmed(err, this.payables);
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
      const { companyId, yearId, method, numbers, signal, schema, inferStrings } =
        optionsOf(options);
      checkNumbers(numbers);
      checkSignal(signal);
      const request = core(() => this.#core.tableRequest(name, companyId, yearId, method));
      const wasmCore = this.#core;
      const typing = typingOf(wasmCore, schema, inferStrings);
      return await send(this.#client, request, {
        signal,
        consume: async (response) => {
          const read = await readTable(wasmCore, response, {
            numbers,
            typing,
            batchRows: DEFAULT_BATCH_ROWS,
            keepBody: true,
          });
          const { chunks, status } = { chunks: read.chunks, status: response.status };
          // Rows rebuilt from columns equal the rows sent (typed) only when
          // every row had the same keys in the same order; otherwise the
          // core's row path reads the kept body.
          const exact = !read.regular;
          return new Table({
            ...read,
            numbers,
            exactRows: exact
              ? () => exactRows(wasmCore, status, concat(chunks), numbers, typing)
              : undefined,
          });
        },
      });
    } catch (err) {
      throw trimmed(err, this.table);
    }
  }

  /**
   * The table as an async iterable of row batches (arrays of row objects),
   * decoded while the body arrives: memory stays bounded by `batchRows`.
   * `timeoutMs` bounds the wait for the answer and for each chunk of the
   * body, not the whole download (which the caller paces).
   * One schema: the first batch fixes every column's type, and a later
   * value that does not fit it (or a column first seen later) throws a
   * DecodeError naming the column and the row; `schema` declares types.
   * Every row has every column (null where a row lacked the key). A body
   * that breaks off throws after the last complete batch; the error says
   * how many rows arrived.
   */
  streamTable(name, options) {
    const {
      companyId,
      yearId,
      method,
      numbers,
      signal,
      batchRows: rowsPerBatch,
      schema,
      inferStrings,
    } = optionsOf(options);
    const size = rowsPerBatch ?? 10_000;
    checkNumbers(numbers);
    checkSignal(signal);
    checkBatchRows(size);
    const request = core(() => this.#core.tableRequest(name, companyId, yearId, method));
    const typing = typingOf(this.#core, schema, inferStrings);
    const client = this.#client;
    const wasmCore = this.#core;
    return {
      async *[Symbol.asyncIterator]() {
        let attempt;
        const response = await send(client, request, {
          signal,
          keepOpen: true,
          consume: (res, a) => {
            attempt = a;
            return res;
          },
        });
        const stream = core(() =>
          wasmCore.tableStream(response.status, size, numbers, typing, false),
        );
        const reader = response.body?.getReader();
        try {
          for (;;) {
            let chunk;
            try {
              // The timeout bounds each wait for the server, not the time
              // the caller spends on a batch.
              attempt.restart();
              chunk = reader ? await reader.read() : { done: true };
              attempt.pause();
            } catch (err) {
              const failure = attempt.byCaller
                ? aborted(wasmCore, signal)
                : transportError(wasmCore, err, client.timeoutMs);
              failure.rowsReceived = stream.rows;
              failure.message = `${failure.message} (${stream.rows} complete rows arrived before the error)`;
              throw failure;
            }
            if (chunk.done) break;
            let batches;
            try {
              batches = core(() => stream.feed(chunk.value));
            } catch (err) {
              throw withRowCount(err, stream.rows);
            }
            for (const b of batches) yield batchRows(b, numbers, []);
          }
          let end;
          try {
            end = core(() => stream.finish());
          } catch (err) {
            throw withRowCount(err, stream.rows);
          }
          for (const b of end.batches) yield batchRows(b, numbers, []);
        } finally {
          attempt?.done();
          reader?.cancel().catch(() => {});
          stream.free();
        }
      },
    };
  }

  /** What the client is configured with; never the token. */
  #describe() {
    const c = this.#core;
    return {
      baseUrl: c.baseUrl,
      project: c.project ?? null,
      projectFolder: c.projectFolder ?? null,
      accessToken: c.hasAccessToken ? "[REDACTED]" : null,
      companyId: c.companyId ?? null,
      yearId: c.yearId ?? null,
      timeoutMs: this.#timeoutMs,
      maxRetries: this.#policy.maxRetries,
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
