// Waiting, bounded: by the limit the core gave for this wait, and by the
// caller's abort signal. Which limit applies is the core's decision.

/** What a wait rejects with once the caller's signal aborted. */
export const ABORTED = Symbol("aborted");

/**
 * Settles as `promise` does, or rejects with a TimeoutError after `ms`
 * (calling `onTimeout` first) or with ABORTED once `signal` aborts.
 */
export function within(promise, ms, signal, onTimeout) {
  let timer;
  let onAbort;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new DOMException(`nothing within ${ms} ms`, "TimeoutError"));
    }, ms);
    onAbort = () => reject(ABORTED);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, limit]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}

/** Waits `ms`; rejects with ABORTED once `signal` aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(ABORTED);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}
