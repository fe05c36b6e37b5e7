// Host stack failures, classified for the core. Which kind a fetch failure
// is, is the one thing only the binding can know (the core never sees
// sockets); the message is the core's, redacted, and the original error is
// kept as `cause` only when none of its text carries the token.

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
  ],
  // The server's certificate refused (OpenSSL's verify codes, as Node
  // names them): not retried, the same certificate would be refused again.
  tls: [
    "CERT_HAS_EXPIRED",
    "CERT_NOT_YET_VALID",
    "CERT_REVOKED",
    "CERT_UNTRUSTED",
    "CERT_REJECTED",
    "CERT_SIGNATURE_FAILURE",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "SELF_SIGNED_CERT_IN_CHAIN",
    "UNABLE_TO_GET_ISSUER_CERT",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "HOSTNAME_MISMATCH",
    "ERR_TLS_CERT_ALTNAME_INVALID",
  ],
  timeout: [
    "ETIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
  ],
  // ERR_STREAM_PREMATURE_CLOSE: a body that is a Node stream (node-fetch's)
  // ended before its end, as one does when the connection breaks.
  reset: [
    "ECONNRESET",
    "EPIPE",
    "ECONNABORTED",
    "UND_ERR_SOCKET",
    "UND_ERR_CLOSED",
    "ERR_STREAM_PREMATURE_CLOSE",
  ],
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

// Runtimes whose fetch gives its errors no code, by their words. Deno's
// (hyper's) messages: `fetch failed` caused by "error sending request for
// url (...): client error (Connect): tcp connect error: Connection refused"
// (or "dns error: ...", or "invalid peer certificate: UnknownIssuer"), a
// bare "Connection reset by peer (os error 104)", and "error reading a
// body from connection" for a body broken off. workerd's (Cloudflare
// Workers'): "Network connection lost." for a refused connection and a
// broken one alike, both worth another try. Without these, every one of
// them was "other", which is never retried.
const MESSAGES = [
  ["tls", /invalid peer certificate|certificate verify failed/i],
  ["connect", /client error \(Connect\)|tcp connect error|dns error|connection refused/i],
  [
    "reset",
    /error reading a body from connection|connection reset|connection closed before message completed|broken pipe|network connection lost/i,
  ],
];

function kindIn(errors) {
  for (const e of errors) {
    // AbortSignal.timeout() rejects with a DOMException named TimeoutError.
    if (e?.name === "TimeoutError") return "timeout";
    for (const [kind, codes] of Object.entries(CODES)) {
      if (codes.includes(e?.code)) return kind;
    }
  }
  for (const e of errors) {
    const text = typeof e?.message === "string" ? e.message : "";
    for (const [kind, words] of MESSAGES) {
      if (words.test(text)) return kind;
    }
  }
  return "other";
}

/** How many values {@link printsClean} reads of one cause at most. */
const READ_LIMIT = 256;

/**
 * Whether nothing that printing `value` shows (`util.inspect`, a logger's
 * serializer) carries the token: every string in it, under any key (a
 * symbol's, one not enumerable), at any depth, an `AggregateError`'s
 * `errors` and the whole `cause` chain. Of objects, only plain ones,
 * arrays and errors can be read through; any other (a `Request`, a
 * `Uint8Array` body, a `Map`, a `URL`) may print what it holds, so it is
 * not clean, nor is a value too deep or too large to read whole. A custom
 * fetch's error that kept `{ request: { url, body } }` was shown whole as
 * the cause, token and all.
 */
export function printsClean(value, redact) {
  const seen = new Set();
  let reads = 0;
  const clean = (v, depth) => {
    if (++reads > READ_LIMIT) return false;
    if (typeof v === "string") return redact(v) === v;
    if (v === null || typeof v !== "object") {
      return typeof v === "function" || redact(String(v)) === String(v);
    }
    if (seen.has(v)) return true;
    seen.add(v);
    const proto = Object.getPrototypeOf(v);
    const readable =
      Array.isArray(v) || proto === Object.prototype || proto === null || v instanceof Error;
    if (!readable || depth > 8) return false;
    try {
      for (const key of Reflect.ownKeys(v)) {
        if (typeof key === "string" && !clean(key, depth)) return false;
        const own = Object.getOwnPropertyDescriptor(v, key);
        if (own && "value" in own ? !clean(own.value, depth + 1) : own?.get) return false;
      }
      // Not own properties, yet printed: the message and stack an error
      // inherits, and its cause.
      if (v instanceof Error) {
        for (const inherited of [v.message, v.stack, v.cause]) {
          if (inherited !== undefined && !clean(inherited, depth + 1)) return false;
        }
      }
    } catch {
      return false; // a getter or proxy that throws: what it holds is not known
    }
    return true;
  };
  return clean(value, 0);
}

/** The kind of a fetch or body-read failure, for the core. */
export function kindOf(err) {
  return kindIn(chain(err));
}

/** A failure's own words for the core to redact (none for a timeout). */
export function detailOf(err) {
  const errors = chain(err);
  if (errors[0]?.name === "TimeoutError") return "";
  const parts = [];
  for (const e of errors) {
    const text = e instanceof Error || typeof e?.message === "string" ? e.message : String(e);
    if (text && !parts.includes(text)) parts.push(text);
  }
  return parts.join(": ");
}

/**
 * `failure` (what fetch or the body read threw last) as the cause of the
 * call's transport error `raw`, if it is that failure and none of its text
 * carries the token.
 */
export function shownCause(failure, raw, redact) {
  if (failure === undefined || raw?.kind !== "transport") return undefined;
  if (raw.transportKind !== kindOf(failure)) return undefined;
  return printsClean(failure, redact) ? failure : undefined;
}
