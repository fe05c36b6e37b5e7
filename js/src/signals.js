// Abort signals: one per attempt, covering the request and the whole body
// read, that fires on the client's timeout or on the caller's `signal`.

/** Why an attempt was aborted: the timeout, or the caller. */
export class AttemptSignal {
  /**
   * @param {number} timeoutMs
   * @param {AbortSignal | undefined} outer the caller's signal
   */
  constructor(timeoutMs, outer) {
    this.controller = new AbortController();
    this.timedOut = false;
    this.outer = outer;
    const abort = (reason) => this.controller.abort(reason);
    this.timeoutMs = timeoutMs;
    this.onTimeout = () => {
      this.timedOut = true;
      abort(new DOMException(`no complete answer within ${timeoutMs} ms`, "TimeoutError"));
    };
    this.restart();
    if (outer) {
      this.onOuter = () => abort(outer.reason);
      if (outer.aborted) this.onOuter();
      else outer.addEventListener("abort", this.onOuter, { once: true });
    }
  }

  get signal() {
    return this.controller.signal;
  }

  /** Whether the caller (not the timeout) aborted. */
  get byCaller() {
    return !this.timedOut && this.outer?.aborted === true;
  }

  /** Starts the timeout over (a stream's wait for its next chunk). */
  restart() {
    clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(this.onTimeout, this.timeoutMs);
    // Node's timers would keep a process alive for a call nobody awaits.
    this.timer?.unref?.();
  }

  /** Stops the timeout while the caller, not the server, is busy. */
  pause() {
    clearTimeout(this.timer);
  }

  /** Stops the timer and forgets the caller's signal. */
  done() {
    clearTimeout(this.timer);
    if (this.onOuter) this.outer.removeEventListener("abort", this.onOuter);
  }
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
