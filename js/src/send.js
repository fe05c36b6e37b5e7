// The send loop: fetch sends, the core decides. Redirects are never left to
// fetch (`redirect: "manual"`): the core follows one within the configured
// origin and refuses any other; retries happen when the core's RetryPolicy
// says so, after the delay it gives. This file only sends and sleeps.
import { ErpError, fromCore } from "./errors.js";
import { AttemptSignal, sleep } from "./signals.js";
import { transportError } from "./transport.js";

/** Lets a response's unread body go without waiting for it. */
function discard(response) {
  response.body?.cancel().catch(() => {});
}

/** The error for a call the caller aborted (never retried). */
export function aborted(wasmCore, signal) {
  const err = fromCore(
    wasmCore.transportError("other", "the call was aborted by its signal"),
    signal.reason,
  );
  err.aborted = true;
  return err;
}

/**
 * Sends `request` until an answer is final, then passes it to
 * `consume(response, attempt)`, whose result is returned. A transport
 * failure inside `consume` (the body breaking off) is retried like one of
 * fetch, unless `consume` marked it final by throwing an ErpError.
 * `attempt.done()` is called when `consume` settles, unless `keepOpen`
 * (the caller then calls it once it finished reading).
 *
 * @param {{core: object, policy: object, fetch: Function, timeoutMs: number}} client
 */
export async function send(client, request, { signal, consume, keepOpen = false }) {
  const { core: wasmCore, policy, timeoutMs } = client;
  const fetchFn = client.fetch;
  let retries = 0;
  let hops = 0;
  for (;;) {
    if (signal?.aborted) throw aborted(wasmCore, signal);
    const attempt = new AttemptSignal(timeoutMs, signal);
    let failure;
    let closeHere = true;
    try {
      const init = {
        method: request.method,
        headers: request.headers,
        redirect: "manual",
        signal: attempt.signal,
      };
      if (request.body !== null) init.body = request.body;
      const response = await fetchFn(request.url, init);
      const { status } = response;
      let next;
      try {
        next = wasmCore.followRedirect(
          request,
          status,
          response.headers.get("location") ?? undefined,
          hops,
        );
      } catch (raw) {
        discard(response);
        throw fromCore(raw);
      }
      if (next !== undefined) {
        discard(response);
        request = next;
        hops += 1;
        continue;
      }
      const delay = policy.afterStatus(
        retries,
        status,
        response.headers.get("retry-after") ?? undefined,
        Math.random(),
        Date.now(),
      );
      if (delay !== undefined) {
        discard(response);
        attempt.done();
        await sleep(delay, signal).catch(() => {
          throw aborted(wasmCore, signal);
        });
        retries += 1;
        continue;
      }
      const result = await consume(response, attempt);
      closeHere = !keepOpen;
      return result;
    } catch (err) {
      // Final: a refused redirect, a decode error, an abort already made.
      if (err instanceof ErpError) throw err;
      if (attempt.byCaller) throw aborted(wasmCore, signal);
      failure = transportError(wasmCore, err, timeoutMs);
    } finally {
      if (closeHere) attempt.done();
    }
    const delay = policy.afterTransport(retries, failure.transportKind, Math.random());
    if (delay === undefined) throw failure;
    await sleep(delay, signal).catch(() => {
      throw aborted(wasmCore, signal);
    });
    retries += 1;
  }
}
