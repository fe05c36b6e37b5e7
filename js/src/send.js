// The host loop of a call: the core's Call (wasm) decides everything —
// attempts, redirects, when to try again and after how long, every time
// limit — and this file only does what it says: send with fetch (never
// following a redirect itself), read the body, sleep, hand out a batch.
import { fromCore } from "./errors.js";
import { ABORTED, sleep, within } from "./signals.js";
import { detailOf, kindOf, printsClean, shownCause } from "./transport.js";

/**
 * Hands `logger[level]` the core's line made by `line()`, when there is a
 * logger: without one, no line is made. What the logger throws is not the
 * call's failure (it would be taken for the transport's, and retried):
 * it is dropped, as Python's logging drops a handler's. So is the
 * rejection of a logger whose methods are async (one writing to a remote
 * sink): left unhandled, it ended the Node process.
 */
function log(logger, level, line) {
  if (!logger) return;
  try {
    const written = logger[level](line());
    if (typeof written?.then === "function") written.then(undefined, () => {});
  } catch {
    // The call goes on.
  }
}

/**
 * Carries out `call`'s actions: yields each batch of a stream, returns
 * the call's value, throws its ErpError. The caller's `signal` ends it at
 * once (never retried). With a `logger`, each request and answer goes to
 * its `debug` and each wait before another attempt to its `info`, as the
 * core writes them (URL and form redacted).
 *
 * @param {object} call a wasm Call; freed when this ends
 * @param {{fetch: Function, redact: (text: string) => string, signal?: AbortSignal,
 *   logger?: {debug: Function, info: Function}}} host
 */
export async function* drive(call, { fetch, redact, signal, logger }) {
  let response;
  let reader;
  let controller;
  let failure;
  // Whether the consumer holds a batch: a return() then (a stream ended
  // early) ends the call here, which its last log line says.
  let held = false;
  const close = () => {
    controller?.abort();
    discard(reader ?? response?.body);
    response = reader = controller = undefined;
  };
  const now = () => performance.now();
  // The caller's abort lets go of the connection at once, whatever the
  // call is doing: a stream waiting at a `yield` for its consumer (a
  // handler waiting for a response to drain, that never will once its
  // HTTP client is gone) otherwise kept the service's answer open until
  // the next next() or return(), if ever.
  signal?.addEventListener("abort", close, { once: true });
  /**
   * The aborted call's error, its end logged as any other failure's once
   * a request was: a signal aborted before the first one sent nothing.
   */
  const abortedError = () => {
    const error = aborted(call, signal, redact);
    if (call.attempts > 0) log(logger, "debug", () => call.failedLine(error.message));
    return error;
  };
  try {
    for (;;) {
      if (signal?.aborted) throw abortedError();
      const next = call.next(now());
      if (next.action !== "read" && next.action !== "emit") close();
      try {
        switch (next.action) {
          case "send": {
            log(logger, "debug", () => call.requestLine());
            controller = new AbortController();
            const init = { method: next.method, headers: next.headers, redirect: "manual" };
            init.signal = controller.signal;
            if (next.body !== null) init.body = next.body;
            // fetch cannot tell connecting from waiting: one limit, waitMs.
            const stop = controller.abort.bind(controller);
            response = await within(fetch(next.url, init), next.waitMs, signal, stop);
            log(logger, "debug", () => call.answerLine(response.status));
            const h = response.headers;
            const [location, retryAfter] = [h.get("location"), h.get("retry-after")];
            call.head(
              now(),
              response.status,
              location ?? undefined,
              retryAfter ?? undefined,
              Date.now(),
            );
            break;
          }
          case "read": {
            reader ??= readerOf(response?.body);
            const part = reader ? await within(reader.read(), next.waitMs, signal) : { done: true };
            if (part.done) call.end(now());
            else call.chunk(now(), part.value);
            break;
          }
          case "sleep":
            log(logger, "info", () => call.waitingLine(next.ms));
            await sleep(next.ms, signal);
            break;
          case "emit":
            held = true;
            yield next.batch;
            held = false;
            break;
          case "done":
            log(logger, "debug", () => call.doneLine());
            return next.value;
          case "failed": {
            const error = fromCore(next.error, shownCause(failure, next.error, redact));
            log(logger, "debug", () => call.failedLine(error.message));
            throw error;
          }
        }
      } catch (err) {
        if (err === ABORTED || signal?.aborted) throw abortedError();
        if (next.action !== "send" && next.action !== "read") throw err;
        failure = err;
        call.failed(now(), kindOf(err), detailOf(err));
      }
    }
  } finally {
    signal?.removeEventListener("abort", close);
    close();
    if (held && logger) {
      const ended = call.endedLine(); // the core's line, if the call sent anything
      if (ended !== undefined) log(logger, "debug", () => ended);
    }
    call.free();
  }
}

/**
 * A reader of a response's body: a web stream's own, or one over the
 * chunks of a body that is a Node stream, as node-fetch and cross-fetch
 * give it (a `fetch` that a proxy's or a private CA's https.Agent is
 * passed to): every call through one failed with a bare TypeError. None
 * for no body, which reads as empty.
 */
function readerOf(body) {
  if (typeof body?.getReader === "function") return body.getReader();
  if (typeof body?.[Symbol.asyncIterator] !== "function") return undefined;
  const chunks = body[Symbol.asyncIterator]();
  return {
    async read() {
      const next = await chunks.next();
      return next.done ? { done: true, value: undefined } : { done: false, value: next.value };
    },
    async cancel() {
      body.destroy?.();
    },
  };
}

/**
 * Lets go of a body or its reader: a web stream's cancel(), a Node stream's
 * destroy(). Never throws: it runs in the host loop's finally, before the
 * call is freed.
 */
function discard(body) {
  try {
    if (typeof body?.cancel === "function") body.cancel()?.catch?.(() => {});
    else body?.destroy?.();
  } catch {
    // Let go of as far as it can be.
  }
}

/** Runs a call that hands out no batches to its value. */
export async function run(call, host) {
  const steps = drive(call, host);
  for (;;) {
    const step = await steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The error for a call the caller aborted, saying where it stood: a
 * timeout when the signal's reason is a TimeoutError (a deadline set with
 * `AbortSignal.timeout()`, alone or in `AbortSignal.any`). The reason is
 * the cause only if printing it shows no token, as a fetch's failure: it
 * is any value the caller gave `abort()`, such as the request it gave up on.
 */
function aborted(call, signal, redact) {
  const reason = signal?.reason;
  const cause = printsClean(reason, redact) ? reason : undefined;
  const err = fromCore(call.aborted(reason?.name === "TimeoutError"), cause);
  err.aborted = true;
  return err;
}
