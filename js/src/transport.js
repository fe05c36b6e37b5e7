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

/** Every piece of text an error could show when printed. */
function texts(e) {
  if (e === null || typeof e !== "object") return [String(e)];
  const out = [String(e), String(e.message), String(e.stack)];
  for (const value of Object.values(e)) {
    if (typeof value === "string") out.push(value);
  }
  return out;
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
  const clean = chain(failure).every((e) => texts(e).every((t) => redact(t) === t));
  return clean ? failure : undefined;
}
