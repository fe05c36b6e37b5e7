// npm's prepack (npm pack, npm publish): js/pkg/ built from the Rust core
// when it is missing or older than the sources it is made of, so that
// `npm pack` alone works in a checkout with the tools installed (`make
// wasm-tools`: the wasm32 target and wasm-bindgen in .tools/). A fresh
// js/pkg/ is left alone: rebuilding it would remove files that a running
// test may be loading.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const js = fileURLToPath(new URL("../", import.meta.url));
const built = ["pkg/erpdata_wasm.js", "pkg/erpdata_wasm_bg.wasm", "pkg/erpdata_wasm_bytes.js"].map(
  (f) => join(js, f),
);

/** The newest modification time of a file or of the files under a folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = [
  "Cargo.toml",
  "Cargo.lock",
  "crates/erpdata/Cargo.toml",
  "crates/erpdata/src",
  "crates/erpdata-wasm/Cargo.toml",
  "crates/erpdata-wasm/src",
  "js/scripts/build-wasm.mjs",
].map((f) => join(root, f));

const missing = built.filter((f) => !existsSync(f));
const oldest = missing.length ? 0 : Math.min(...built.map((f) => statSync(f).mtimeMs));
if (missing.length === 0 && Math.max(...sources.map(newest)) <= oldest) {
  console.error("prepack: js/pkg is up to date with the Rust sources");
  process.exit(0);
}

const env = { ...process.env };
if (!env.WASM_BINDGEN) {
  // The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock;
  // `make wasm-tools` installs that version into .tools/.
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const version = /\nname = "wasm-bindgen"\nversion = "([^"]+)"/.exec(lock)?.[1];
  const tool = join(root, `.tools/wasm-bindgen-${version}/bin/wasm-bindgen`);
  if (version && existsSync(tool)) env.WASM_BINDGEN = tool;
}
console.error(
  `prepack: building js/pkg (${missing.length ? "missing" : "older than the sources"})`,
);
const result = spawnSync(process.execPath, [join(js, "scripts/build-wasm.mjs")], {
  stdio: "inherit",
  env,
});
process.exit(result.status ?? 1);
