// The error classes. Every failure of the SDK is an instance of one of
// them, all derived from ErpError (itself an Error): the core decides which
// (one class per variant of erpdata::Error) and writes the message, already
// redacted; this file only gives them classes.

export class ErpError extends Error {
  /**
   * @param {string} message
   * @param {{kind?: string, cause?: unknown}} [options]
   */
  constructor(message, options = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    /** Stable kind name, the same in every language. */
    this.kind = options.kind ?? "unknown";
  }
}

/** Rejected before anything was sent. */
export class InvalidInputError extends ErpError {
  constructor(message, { field, reason } = {}) {
    super(message, { kind: "invalid_input" });
    /** The parameter, as the core names it (`acid`, `table`, `company_id`...). */
    this.field = field;
    this.reason = reason;
  }
}

/** The request did not complete: connection refused, reset, timeout. */
export class TransportError extends ErpError {
  constructor(message, { transportKind = "other", ...rest } = {}) {
    super(message, { kind: "transport", ...rest });
    /** `"connect"`, `"timeout"`, `"reset"` or `"other"`. */
    this.transportKind = transportKind;
  }
}

/** The service answered with a status outside 2xx (a 3xx included). */
export class HttpStatusError extends ErpError {
  constructor(message, { status, excerpt } = {}) {
    super(message, { kind: "http_status" });
    this.status = status;
    this.excerpt = excerpt;
  }
}

/** JSON whose `status` is not `success`. */
export class ServiceError extends ErpError {
  constructor(message, { status, serviceMessage } = {}) {
    super(message, { kind: "service" });
    /** The `status` the service sent (a string, e.g. `"error"`). */
    this.status = status;
    this.serviceMessage = serviceMessage;
  }
}

/** The answer was not of the documented shape. */
export class DecodeError extends ErpError {
  constructor(message, { reason, excerpt } = {}) {
    super(message, { kind: "decode" });
    this.reason = reason;
    this.excerpt = excerpt;
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
  const { message } = raw;
  switch (raw.kind) {
    case "invalid_input":
      return new InvalidInputError(message, raw);
    case "transport": {
      const options = { transportKind: raw.transportKind };
      if (cause !== undefined) options.cause = cause;
      return new TransportError(message, options);
    }
    case "http_status":
      return new HttpStatusError(message, raw);
    case "service":
      return new ServiceError(message, {
        status: raw.serviceStatus,
        serviceMessage: raw.serviceMessage,
      });
    case "decode":
      return new DecodeError(message, raw);
    default:
      // A kind added to the core later still arrives as an ErpError.
      return new ErpError(message, { kind: raw.kind });
  }
}

/**
 * An InvalidInputError made in JS, for options only JS has (timeoutMs...);
 * the message has the core's shape, `invalid FIELD: REASON`.
 */
export function invalidInput(field, reason) {
  return new InvalidInputError(`invalid ${field}: ${reason}`, { field, reason });
}
