// The waits of the host loop: a limit the core gave ends no sooner than it
// says, by the monotonic clock the core reads (timers alone count whole
// milliseconds and fired up to a millisecond early: a call's total timeout
// of 0.8 s ended after 0.7996 s).
import assert from "node:assert/strict";
import { test } from "node:test";

import { sleep, within } from "../../js/src/signals.js";

/** A turn of the event loop busy for `ms`, as decoding a chunk is. */
function busy(ms) {
  const start = performance.now();
  while (performance.now() - start < ms) {}
}

test("within() and sleep() end no sooner than their limit", async () => {
  for (const ms of [0.4, 5.5, 50.6, 99.9]) {
    for (let k = 0; k < 5; k++) {
      await new Promise((resolve) => setImmediate(resolve));
      busy(3);
      let start = performance.now();
      await assert.rejects(within(new Promise(() => {}), ms), { name: "TimeoutError" });
      assert.ok(performance.now() - start >= ms, `within(${ms}) ended early`);
      start = performance.now();
      await sleep(ms);
      assert.ok(performance.now() - start >= ms, `sleep(${ms}) ended early`);
    }
  }
});

test("an abort still ends a wait at once", async () => {
  const controller = new AbortController();
  const start = performance.now();
  setTimeout(() => controller.abort(), 10);
  await assert.rejects(sleep(5_000, controller.signal), (e) => typeof e === "symbol");
  assert.ok(performance.now() - start < 1_000);
});
