// Type declarations of `erpdata/erpdata_wasm_bg.wasm`: the package's wasm
// module as runtimes that import wasm modules give it (Cloudflare Workers,
// Vercel Edge, Netlify Edge), for `initWasm` of `erpdata/edge`. Without
// them a TypeScript Worker's `import wasm from "erpdata/erpdata_wasm_bg.wasm"`
// is an error (TS2307) unless some other declaration covers `*.wasm`.
declare const module: WebAssembly.Module;
export default module;
