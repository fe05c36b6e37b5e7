// The wasm module, loaded the way the entry point chose (src/index.js for
// Node, src/edge.js for fetch-only runtimes).

let loader = () => {
  throw new Error("erpdata: no wasm loader; import the package's entry point, not a file of src/");
};

/** Sets how the wasm module is loaded (each entry point has its own way). */
export function useWasm(load) {
  loader = load;
}

/** The initialised wasm module. */
export function loadWasm() {
  return loader();
}
