// ErpClient: sends the requests the wasm core describes with `fetch`, and
// hands status + body bytes back to the core. No rule of the wire format
// (encoding, validation, parsing, redaction) is implemented here.
import { fromCore, invalidInput } from "./errors.js";
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
  return typeof window !== "undefined" && typeof document !== "undefined" && typeof navigator !== "undefined";
}

/** `process.env` where there is one (Node, Deno, Bun), else nothing. */
function environment() {
  const env = typeof process !== "undefined" ? process?.env : undefined;
  return env ?? {};
}

/** Calls the core; its plain error objects become ErpError subclasses. */
function core(call) {
  try {
    return call();
  } catch (raw) {
    const err = fromCore(raw);
    // Start the stack at the caller's frame, not inside this plumbing.
    if (err instanceof Error) Error.captureStackTrace?.(err, core);
    throw err;
  }
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

export class ErpClient {
  /** The wasm core: the only place the access token is kept. */
  #core;
  #fetch;
  #timeoutMs;
  #maxRetries;

  constructor(options) {
    options ??= {};
    if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw invalidInput("dangerouslyAllowBrowser", BROWSER_MESSAGE);
    }
    const { timeoutMs = 30_000, maxRetries = 2 } = options;
    if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      // "Wait forever" is never what a server process wants by accident.
      throw invalidInput("timeoutMs", "must be a positive, finite number of milliseconds");
    }
    if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
      throw invalidInput("maxRetries", "must be a non-negative integer");
    }
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== "function") {
      throw invalidInput("fetch", "must be a function; this runtime has no global fetch, so pass one");
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
    const { Core } = loadWasm();
    this.#core = core(() => new Core(settings));
    this.#fetch = fetchFn;
    this.#timeoutMs = timeoutMs;
    // Stored for the retry loop, which will follow the core's RetryPolicy
    // (as the Python client does) once the wasm glue exposes it; today
    // every call makes exactly one attempt.
    this.#maxRetries = maxRetries;
  }

  /** Outstanding dues of one account: `kind` is `"RECEIPT"` or `"PAYMENT"`. */
  async dues({ acid, kind, numbers } = {}) {
    checkNumbers(numbers);
    const request = core(() => this.#core.duesRequest(acid, kind));
    const { status, body } = await this.#send(request);
    return core(() => this.#core.parseDues(acid, kind, status, body, numbers));
  }

  /** What a customer owes (`type=RECEIPT`). */
  receivables(acid, { numbers } = {}) {
    return this.dues({ acid, kind: "RECEIPT", numbers });
  }

  /** What is owed to a supplier (`type=PAYMENT`). */
  payables(acid, { numbers } = {}) {
    return this.dues({ acid, kind: "PAYMENT", numbers });
  }

  /** Every row of an ERP table; POST unless `method: "GET"` is asked for. */
  async table(name, { companyId, yearId, method, numbers } = {}) {
    checkNumbers(numbers);
    const request = core(() => this.#core.tableRequest(name, companyId, yearId, method));
    const { status, body } = await this.#send(request);
    return core(() => this.#core.parseTable(status, body, numbers));
  }

  async #send(request) {
    const init = {
      method: request.method,
      headers: request.headers,
      // The core decides about redirects: a 3xx comes back to it as an
      // HttpStatusError. Redirect following, within the core's policy
      // (same origin only), comes with the retry loop.
      redirect: "manual",
      signal: AbortSignal.timeout(this.#timeoutMs),
    };
    if (request.body !== null) init.body = request.body;
    const fetchFn = this.#fetch;
    try {
      // The same signal covers reading the body: a server that sends
      // headers and then stalls still times out.
      const response = await fetchFn(request.url, init);
      const body = new Uint8Array(await response.arrayBuffer());
      // In its own call: wasm memory growing during the parse call makes
      // V8 collect garbage over and over (see Core.reserveForBody).
      this.#core.reserveForBody(body.length);
      return { status: response.status, body };
    } catch (err) {
      throw transportError(this.#core, err, this.#timeoutMs);
    }
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
      maxRetries: this.#maxRetries,
    };
  }

  toJSON() {
    return this.#describe();
  }

  [Symbol.for("nodejs.util.inspect.custom")](depth, options, inspect) {
    const fields = this.#describe();
    return `ErpClient ${inspect ? inspect(fields, options) : JSON.stringify(fields)}`;
  }
}
