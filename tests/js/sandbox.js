// Test helpers: a real sandbox ERP on loopback, and servers that misbehave.
// Not a test file (node --test picks up *.test.js only).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { ErpClient } from "../../js/src/index.js";

export const SANDBOX_TOKEN = "sandbox-token-not-secret";

/**
 * A client of the sandbox at `url` with the demo project, its token,
 * company 1 and year 2025, and `options` over them.
 */
export function demoClient(url, options = {}) {
  return new ErpClient({
    baseUrl: url,
    project: "demo",
    accessToken: SANDBOX_TOKEN,
    companyId: 1,
    yearId: 2025,
    ...options,
  });
}

/** Removes the ERPDATA_* settings, so that an option left out stays out. */
export function clearClientEnv() {
  for (const name of [
    "BASE_URL",
    "PROJECT",
    "ACCESS_TOKEN",
    "PROJECT_FOLDER",
    "COMPANY_ID",
    "YEAR_ID",
  ]) {
    delete process.env[`ERPDATA_${name}`];
  }
}
const START_TIMEOUT_MS = 20_000;

/**
 * Starts `$ERPDATA_SANDBOX_BIN --port 0` and resolves with its URL (the first
 * stdout line) and a `stop()` that kills it.
 */
export function startSandbox(extraArgs = []) {
  const bin = process.env.ERPDATA_SANDBOX_BIN;
  if (!bin) {
    throw new Error(
      "set ERPDATA_SANDBOX_BIN to target/debug/erpdata-sandbox (make sandbox builds it)",
    );
  }
  const child = spawn(bin, ["--port", "0", "--quiet", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill();
    });
  return new Promise((resolve, reject) => {
    let out = "";
    const fail = (why) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`sandbox ${bin} ${why}; stderr: ${stderr}`));
    };
    const timer = setTimeout(
      () => fail(`printed no URL within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    child.once("error", (err) => fail(`could not start (${err.message})`));
    child.once("exit", (code) => fail(`exited with ${code} before printing its URL`));
    child.stdout.setEncoding("utf8").on("data", function onData(chunk) {
      out += chunk;
      const newline = out.indexOf("\n");
      if (newline < 0) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      // Keep draining stdout so a chatty sandbox never blocks on a full pipe.
      child.stdout.off("data", onData).resume();
      const url = out.slice(0, newline).trim();
      if (!url.startsWith("http")) return fail(`printed ${JSON.stringify(url)} instead of a URL`);
      resolve({ url, stop });
    });
  });
}

/**
 * The base URL under which the sandbox applies `fault` and counts requests
 * as `key`: statuses and redirects under `/_faults/`
 * (crates/erpdata-sandbox/src/faults.rs), timing and body faults under
 * `/_body/` (body_faults.rs).
 */
export function faultUrl(sandboxUrl, fault, key) {
  return `${sandboxUrl}/${prefixOf(fault)}/${fault}/${key}/`;
}

function prefixOf(fault) {
  return /^(backoff|truncate|reset|stall)-/.test(fault) ? "_body" : "_faults";
}

let keys = 0;
/** A key no other test uses, for the sandbox's request counts. */
export function freshKey(label = "k") {
  keys += 1;
  return `${label}${process.pid}x${keys}`;
}

/** How many requests the sandbox saw under `key` (of a fault like `fault`). */
export async function seenBySandbox(sandboxUrl, key, fault = "pass") {
  const res = await fetch(`${sandboxUrl}/${prefixOf(fault)}/count/${key}`);
  assert.equal(res.status, 200, `count of ${key}: HTTP ${res.status}`);
  return Number(await res.text());
}

/** A TCP server; `onSocket` gets each connection. Resolves with its URL and `close()`. */
export async function rawServer(onSocket) {
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    onSocket(socket);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL where nothing listens (a port that was just freed). */
export async function closedPortUrl() {
  const { url, close } = await rawServer(() => {});
  await close();
  return url;
}

// --- the fault API (every fault under /_faults/, one count and log per KEY) --

/** The base URL under which the sandbox applies `fault` to requests counted as `key`. */
export function faultsBase(sandboxUrl, fault, key) {
  return `${sandboxUrl}/_faults/${fault}/${key}/`;
}

async function faultApi(sandboxUrl, path) {
  const res = await fetch(`${sandboxUrl}/_faults/${path}`);
  assert.equal(res.status, 200, `/_faults/${path}: HTTP ${res.status}`);
  return res.text();
}

/** Requests seen under `key` (`/_faults/count/KEY`). */
export async function attempts(sandboxUrl, key) {
  return Number(await faultApi(sandboxUrl, `count/${key}`));
}

/** What each request under `key` carried: `[{method, path, query, headers, body}]`. */
export async function requestLog(sandboxUrl, key) {
  return JSON.parse(await faultApi(sandboxUrl, `log/${key}`));
}

/** Every request the sandbox process has seen (`/_faults/total`). */
export async function totalSeen(sandboxUrl) {
  return Number(await faultApi(sandboxUrl, "total"));
}
