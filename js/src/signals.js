// Waiting, bounded: by the limit the core gave for this wait, and by the
// caller's abort signal. Which limit applies is the core's decision.

/** What a wait rejects with once the caller's signal aborted. */
export const ABORTED = Symbol("aborted");

/**
 * Calls `then` once `ms` have passed by the monotonic clock; the function
 * returned cancels it. A timer alone can end early: it counts whole
 * milliseconds from the event loop's clock, which is read once per turn
 * of the loop, so a limit of 799.6 ms set late in a long turn fired ~1 ms
 * early, and a call's total timeout ended before its limit. It is set
 * again for what is left until the time has really passed.
 */
function after(ms, then) {
  let armed = performance.now();
  const end = armed + ms;
  let timer;
  const check = () => {
    const now = performance.now();
    // A clock that did not move while the timer ran (workerd's, which
    // advances only with I/O) cannot tell: the timer's word stands.
    if (now > armed && end > now) {
      armed = now;
      timer = setTimeout(check, Math.ceil(end - now));
    } else {
      then();
    }
  };
  timer = setTimeout(check, Math.ceil(ms));
  return () => clearTimeout(timer);
}

/**
 * Settles as `promise` does, or rejects with a TimeoutError after `ms`
 * (calling `onTimeout` first) or with ABORTED once `signal` aborts.
 */
export function within(promise, ms, signal, onTimeout) {
  let cancel;
  let onAbort;
  const limit = new Promise((_, reject) => {
    cancel = after(ms, () => {
      onTimeout?.();
      // The wait left is fractional (the call's budget less the time
      // spent); the timer itself rounds up to whole milliseconds too.
      reject(new DOMException(`nothing within ${Math.ceil(ms)} ms`, "TimeoutError"));
    });
    onAbort = () => reject(ABORTED);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, limit]).finally(() => {
    cancel();
    signal?.removeEventListener("abort", onAbort);
  });
}

/** Waits `ms`; rejects with ABORTED once `signal` aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(ABORTED);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The calls following each caller's signal, and the one listener that
 * ends them all (see `follow`).
 */
const followers = new WeakMap();

/**
 * Aborts `controller` (with the same reason) once `signal` aborts, if
 * `signal` is given; the function returned stops following. However many
 * calls follow one signal at a time, it holds one listener of theirs: a
 * server passing every call one signal of its own (a shutdown's) had a
 * listener hung on it per call in flight, and past ten Node warned of a
 * leak (MaxListenersExceededWarning) that was none.
 */
export function follow(signal, controller) {
  if (signal === undefined || signal === null) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  let entry = followers.get(signal);
  if (entry === undefined) {
    const controllers = new Set();
    const onAbort = () => {
      followers.delete(signal);
      for (const c of controllers) c.abort(signal.reason);
    };
    entry = { controllers, onAbort };
    followers.set(signal, entry);
    signal.addEventListener("abort", onAbort, { once: true });
  }
  entry.controllers.add(controller);
  return () => {
    entry.controllers.delete(controller);
    if (entry.controllers.size === 0 && followers.get(signal) === entry) {
      followers.delete(signal);
      signal.removeEventListener("abort", entry.onAbort);
    }
  };
}
