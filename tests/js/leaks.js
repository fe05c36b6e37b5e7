// Test helpers for the token's secrecy: everything a value shows when it is
// printed, and the console output of a stretch of code.
// Not a test file (node --test picks up *.test.js only).
import assert from "node:assert/strict";
import { format, inspect } from "node:util";

/**
 * Every text `value` shows when printed: String(), message, stack,
 * util.inspect (hidden members, full depth), JSON.stringify, console-style
 * formatting, and the same for each `cause` down the chain.
 */
export function printable(value) {
  const out = [];
  const seen = new Set();
  for (
    let v = value;
    v !== undefined && v !== null && !seen.has(v) && seen.size < 16;
    v = v?.cause
  ) {
    seen.add(v);
    out.push(safe(() => String(v)));
    out.push(inspect(v, { showHidden: true, depth: Infinity, getters: true }));
    out.push(format("%o", v), format("%s", v));
    out.push(safe(() => JSON.stringify(v)));
    if (typeof v === "object" || typeof v === "function") {
      out.push(
        safe(() => v.message),
        safe(() => v.stack),
      );
      for (const key of Reflect.ownKeys(v))
        out.push(safe(() => inspect(v[key], { depth: Infinity })));
    }
    if (typeof v !== "object") break;
  }
  return out.filter((t) => typeof t === "string");
}

function safe(fn) {
  try {
    return fn();
  } catch (err) {
    return `<${err?.name}>`;
  }
}

/** The forms a token could leak in: as is, URL-encoded, form-encoded. */
export function tokenForms(token) {
  const forms = new Set([
    token,
    encodeURIComponent(token),
    new URLSearchParams({ t: token }).toString().slice(2),
  ]);
  return [...forms];
}

/** Asserts that no form of `token` occurs in any of `texts`. */
export function assertNoToken(texts, token, where = "") {
  for (const text of texts) {
    for (const form of tokenForms(token)) {
      assert.ok(
        !String(text).includes(form),
        `token (${form}) leaked ${where}: ${String(text).slice(0, 2000)}`,
      );
    }
  }
}

const METHODS = ["log", "info", "warn", "error", "debug", "trace", "dir", "table"];

/**
 * Records everything written through `console` (and still prints it) until
 * `stop()`; returns `{lines, stop}`.
 */
export function captureConsole() {
  const lines = [];
  const originals = {};
  for (const name of METHODS) {
    originals[name] = console[name];
    console[name] = (...args) => {
      lines.push(format(...args));
      return originals[name].apply(console, args);
    };
  }
  return {
    lines,
    stop() {
      for (const name of METHODS) console[name] = originals[name];
    },
  };
}
