// npm's prepack (npm pack, npm publish): js/pkg/ built from the Rust core
// when it is missing or older than the sources it is made of, so that
// `npm pack` alone works in a checkout with Rust's wasm32 target installed
// (`make wasm` installs it; scripts/build-wasm.mjs builds the rest). A fresh
// js/pkg/ is left alone: rebuilding it would remove files that a running
// test may be loading.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
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
  "tools/wasm-bindgen",
  "js/scripts/build-wasm.mjs",
].map((f) => join(root, f));

const missing = built.filter((f) => !existsSync(f));
const oldest = missing.length ? 0 : Math.min(...built.map((f) => statSync(f).mtimeMs));
if (missing.length === 0 && Math.max(...sources.map(newest)) <= oldest) {
  console.error("prepack: js/pkg is up to date with the Rust sources");
  process.exit(0);
}

console.error(
  `prepack: building js/pkg (${missing.length ? "missing" : "older than the sources"})`,
);
const result = spawnSync(process.execPath, [join(js, "scripts/build-wasm.mjs")], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
