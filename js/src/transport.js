// Host stack failures -> TransportError. Classifying a fetch failure is the
// one thing only the binding can do (the core never sees sockets); the
// message is redacted by the core, and the original error is kept as
// `cause` only when none of its text carries the token.
import { fromCore } from "./errors.js";

// Node's and undici's error codes, found on the error or its `cause`
// (undici rejects with `TypeError: fetch failed` whose cause has the code).
const CODES = {
  connect: [
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "EADDRNOTAVAIL",
    "UND_ERR_CONNECT",
    "CERT_HAS_EXPIRED",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "ERR_TLS_CERT_ALTNAME_INVALID",
  ],
  timeout: [
    "ETIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
  ],
  reset: ["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "UND_ERR_CLOSED"],
};

/** The error and its causes, outermost first (bounded: causes can loop). */
function chain(err) {
  const out = [];
  for (let e = err; e !== undefined && e !== null && out.length < 8; e = e.cause) {
    out.push(e);
    if (typeof e !== "object") break;
  }
  return out;
}

function kindOf(errors) {
  for (const e of errors) {
    // AbortSignal.timeout() rejects with a DOMException named TimeoutError.
    if (e?.name === "TimeoutError") return "timeout";
    for (const [kind, codes] of Object.entries(CODES)) {
      if (codes.includes(e?.code)) return kind;
    }
  }
  return "other";
}

/** Every piece of text an error could show when printed. */
function texts(e) {
  if (e === null || typeof e !== "object") return [String(e)];
  const out = [String(e), String(e.message), String(e.stack)];
  for (const value of Object.values(e)) {
    if (typeof value === "string") out.push(value);
  }
  return out;
}

/**
 * @param {{redact(text: string): string, transportError(kind: string, message: string): object}} core
 * @param {unknown} err what fetch or the body read threw
 * @param {number} timeoutMs
 */
export function transportError(core, err, timeoutMs) {
  const errors = chain(err);
  const kind = kindOf(errors);
  const parts = [];
  if (errors[0]?.name === "TimeoutError") {
    parts.push(`no complete answer within timeoutMs (${timeoutMs} ms)`);
  } else {
    for (const e of errors) {
      const text = e instanceof Error || typeof e?.message === "string" ? e.message : String(e);
      if (text && !parts.includes(text)) parts.push(text);
    }
  }
  const clean = errors.every((e) => texts(e).every((t) => core.redact(t) === t));
  const raw = core.transportError(kind, parts.join(": ") || "the request failed");
  return fromCore(raw, clean ? err : undefined);
}
