// The error classes. Every failure of the SDK is an instance of one of
// them, all derived from ErpError (itself an Error): the core decides which
// (one class per variant of erpdata::Error) and writes the message, already
// redacted; this file only gives them classes. An error a call ended with
// also says where the call stood (the core's CallInfo): `attempts`, `url`
// (redacted), `rowsReceived`, `rowsDelivered`. `retryable` (every class)
// and `retryAfterMs` (HttpStatusError) are the core's answers too.

export class ErpError extends Error {
  /**
   * @param {string} message
   * @param {{kind?: string, cause?: unknown, retryable?: boolean, attempts?: number,
   *   url?: string, rowsReceived?: number, rowsDelivered?: number}} [options]
   */
  constructor(message, options = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    /** Stable kind name, the same in every language. */
    this.kind = options.kind ?? "unknown";
    /**
     * Whether the same call may pass if tried later: a connection refused,
     * reset or timed out, or a 429, 502, 503 or 504 (the core's rule).
     */
    this.retryable = options.retryable ?? false;
    /** Requests the call sent (retries and redirects included); undefined when not from a call. */
    this.attempts = options.attempts;
    /** The last request's URL, token redacted; undefined when not from a call. */
    this.url = options.url;
    /** Complete rows of a table answer decoded before the error, if a body was read. */
    this.rowsReceived = options.rowsReceived;
    /** Rows a stream handed out in complete batches before the error. */
    this.rowsDelivered = options.rowsDelivered;
  }
}

/** Rejected before anything was sent. */
export class InvalidInputError extends ErpError {
  constructor(message, { field, reason, ...rest } = {}) {
    super(message, { ...rest, kind: "invalid_input" });
    /**
     * The option or parameter, as this package spells it (`acid`, `table`,
     * `companyId`, `timeoutMs`...; the core's wasm glue spells the core's
     * names so), or an environment variable (`ERPDATA_BASE_URL`).
     */
    this.field = field;
    this.reason = reason;
  }
}

/** The request did not complete: connection refused, reset, timeout. */
export class TransportError extends ErpError {
  constructor(message, { transportKind = "other", ...rest } = {}) {
    super(message, { ...rest, kind: "transport" });
    /** `"connect"`, `"timeout"`, `"reset"`, `"tls"` (the server's certificate refused) or `"other"`. */
    this.transportKind = transportKind;
  }
}

/** The service answered with a status outside 2xx (a 3xx included). */
export class HttpStatusError extends ErpError {
  constructor(message, { status, excerpt, retryAfterMs, ...rest } = {}) {
    super(message, { ...rest, kind: "http_status" });
    this.status = status;
    this.excerpt = excerpt;
    /** Milliseconds the answer's Retry-After asked to wait (429, 502, 503, 504), else undefined. */
    this.retryAfterMs = retryAfterMs;
  }
}

/** JSON whose `status` is not `success`. */
export class ServiceError extends ErpError {
  constructor(message, { status, serviceMessage, ...rest } = {}) {
    super(message, { ...rest, kind: "service" });
    /** The `status` the service sent (a string, e.g. `"error"`). */
    this.status = status;
    this.serviceMessage = serviceMessage;
  }
}

/**
 * The answer was not of the documented shape. `excerpt` is the text around
 * byte `excerptAt`, where the body stopped being the documented JSON, or
 * (`excerptAt` null) the body's start.
 */
export class DecodeError extends ErpError {
  constructor(message, { reason, excerpt, excerptAt = null, ...rest } = {}) {
    super(message, { ...rest, kind: "decode" });
    this.reason = reason;
    this.excerpt = excerpt;
    this.excerptAt = excerptAt;
  }
}

// `name` on the prototype: `String(err)` and stacks show the class, and it
// is not an own property cluttering `util.inspect(err)`.
for (const cls of [
  ErpError,
  InvalidInputError,
  TransportError,
  HttpStatusError,
  ServiceError,
  DecodeError,
]) {
  Object.defineProperty(cls.prototype, "name", {
    value: cls.name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/**
 * The Error for a plain error object thrown or returned by the wasm `Core`
 * (`{kind, message, ...fields}`); anything else is returned unchanged.
 * @param {unknown} raw
 * @param {unknown} [cause]
 */
export function fromCore(raw, cause) {
  if (
    raw === null ||
    typeof raw !== "object" ||
    raw instanceof Error ||
    typeof raw.kind !== "string"
  ) {
    return raw;
  }
  const { message, retryable, attempts, url, rowsReceived, rowsDelivered } = raw;
  const call = { retryable, attempts, url, rowsReceived, rowsDelivered };
  switch (raw.kind) {
    case "invalid_input":
      return new InvalidInputError(message, { field: raw.field, reason: raw.reason });
    case "transport": {
      const options = { ...call, transportKind: raw.transportKind };
      if (cause !== undefined) options.cause = cause;
      return new TransportError(message, options);
    }
    case "http_status":
      return new HttpStatusError(message, {
        ...call,
        status: raw.status,
        excerpt: raw.excerpt,
        retryAfterMs: raw.retryAfterMs,
      });
    case "service":
      return new ServiceError(message, {
        ...call,
        status: raw.serviceStatus,
        serviceMessage: raw.serviceMessage,
      });
    case "decode":
      return new DecodeError(message, {
        ...call,
        reason: raw.reason,
        excerpt: raw.excerpt,
        excerptAt: raw.excerptAt ?? null,
      });
    default:
      // A kind added to the core later still arrives as an ErpError.
      return new ErpError(message, { ...call, kind: raw.kind });
  }
}

/**
 * An InvalidInputError made in JS, for options only JS has (signal,
 * fetch...) and options it does not know; `field` as JS spells it, the
 * message in the core's shape, `invalid FIELD: REASON`.
 */
export function invalidInput(field, reason) {
  return new InvalidInputError(`invalid ${field}: ${reason}`, { field, reason });
}
