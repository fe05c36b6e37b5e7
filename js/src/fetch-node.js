// The client's `fetch` in Node when the caller passes none: node:http and
// node:https doing what the host loop (send.js) asks of a fetch, no more.
// One request, never following a redirect (the core decides those); the
// status and headers; the body read chunk by chunk, decoded as fetch
// decodes a compressed body. Node's own fetch (undici) parses HTTP in a
// wasm module of its own and hands the body over as a web stream: reading
// a large body with it peaks at about 35 MB more memory. Other runtimes,
// and callers who pass `fetch`, keep fetch.
import http from "node:http";
import https from "node:https";
import { pipeline, Transform } from "node:stream";
import zlib from "node:zlib";

// Flushed as fetch (undici) flushes them, as curl does: the stream ends
// with what arrived. zlib's default demands a complete stream, and turned
// an empty body labelled gzip (a proxy's answer to an error) and one cut
// short into a TransportError, where fetch gives the status's error, or
// the body read and found empty or cut short.
const SYNC = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_SYNC = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/**
 * `deflate` as fetch reads it: zlib's format (RFC 1950), or the raw
 * deflate data some servers send under that name (RFC 1951), told apart by
 * the first byte, whose low four bits name method 8 in a zlib header.
 */
class Inflate extends Transform {
  #inner = null;

  _transform(chunk, _encoding, done) {
    if (this.#inner === null) {
      if (chunk.length === 0) {
        done();
        return;
      }
      const zlibFormat = (chunk[0] & 0x0f) === 0x08;
      this.#inner = zlibFormat ? zlib.createInflate(SYNC) : zlib.createInflateRaw(SYNC);
      this.#inner.on("data", (data) => this.push(data));
      this.#inner.on("error", (err) => this.destroy(err));
    }
    this.#inner.write(chunk, done);
  }

  _flush(done) {
    if (this.#inner === null) {
      done();
      return;
    }
    this.#inner.once("end", () => done());
    this.#inner.end();
  }
}

/** Decoders of the content codings fetch decodes. */
const DECODERS = {
  gzip: () => zlib.createGunzip(SYNC),
  "x-gzip": () => zlib.createGunzip(SYNC),
  deflate: () => new Inflate(),
  br: () => zlib.createBrotliDecompress(BROTLI_SYNC),
};

/**
 * Sends `init` (`method`, `headers` as name/value pairs, `body`, `signal`)
 * to `url`; resolves to the response's `status`, `headers.get(name)` and a
 * `body` with `getReader()` and `cancel()`, as fetch's do. Sent with
 * node:http's global agent, which Node 24 and later send through the
 * environment's proxy when told to (NODE_USE_ENV_PROXY).
 */
export function nodeFetch(url, init = {}) {
  return send(url, init, undefined);
}

// Agents of this module's own, as node:http's global ones are made (keep-alive,
// the most recently used socket first, idle sockets closed after 5 s), with
// no proxy: an empty `proxyEnv` names none. Node (24, and 22 since 22.21)
// proxies an agent from its `proxyEnv`, the global one from the environment
// when told to (NODE_USE_ENV_PROXY); Deno proxies every agent without
// `proxyEnv` when told so; older Node ignores the option.
let directAgents;
const DIRECT = { keepAlive: true, scheduling: "lifo", timeout: 5000, proxyEnv: {} };

/**
 * `nodeFetch` never through a proxy, for a base URL the core allows none
 * (`Core.proxyAllowed`: loopback). Plain http with the token is allowed
 * there only because the request never leaves the machine; through a proxy
 * the form, token included, would travel in plain text to the proxy's host.
 * Deno's and Bun's fetch read HTTP_PROXY and send a loopback request
 * through it, as Node's fetch and global agent do when told to; node:http
 * given these agents does not, in Node, Deno and Bun alike (make
 * test-runtimes checks each, with NODE_USE_ENV_PROXY set).
 */
export function directFetch(url, init = {}) {
  directAgents ??= {
    "http:": new http.Agent(DIRECT),
    "https:": new https.Agent(DIRECT),
  };
  return send(url, init, directAgents);
}

function send(url, init, agents) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const protocol = { "http:": http, "https:": https }[target.protocol];
    if (protocol === undefined) {
      reject(new TypeError(`erpdata: no transport for ${target.protocol} URLs`));
      return;
    }
    const headers = {};
    for (const [name, value] of init.headers ?? []) headers[name.toLowerCase()] = value;
    // What undici's fetch asks for when the request names no coding.
    headers["accept-encoding"] ??=
      target.protocol === "https:" ? "br, gzip, deflate" : "gzip, deflate";
    const body = init.body ?? null;
    if (body !== null) {
      headers["content-length"] = String(
        typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
      );
    }
    const request = protocol.request(
      target,
      {
        method: init.method ?? "GET",
        headers,
        signal: init.signal,
        agent: agents?.[target.protocol],
      },
      (res) => resolve(responseOf(res)),
    );
    request.on("error", reject);
    request.end(body ?? undefined);
  });
}

/** A fetch-like response over `res`, its body decoded. */
function responseOf(res) {
  const codings = (res.headers["content-encoding"] ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  // Decoded last coding first; a coding fetch does not know stays as sent,
  // as fetch leaves it.
  const decoders = codings.every((c) => c in DECODERS)
    ? codings.reverse().map((c) => DECODERS[c]())
    : [];
  // pipeline carries an error of any stage (a reset socket, a corrupt
  // gzip) to the last one, which the reader reads.
  const stream = decoders.length > 0 ? pipeline(res, ...decoders, () => {}) : res;
  const chunks = stream[Symbol.asyncIterator]();
  const cancel = async () => {
    stream.destroy();
    res.destroy();
  };
  return {
    status: res.statusCode,
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(", ") : value;
      },
    },
    body: {
      getReader: () => ({
        read: async () => {
          const next = await chunks.next();
          return next.done ? { done: true, value: undefined } : { done: false, value: next.value };
        },
        cancel,
      }),
      cancel,
    },
  };
}
