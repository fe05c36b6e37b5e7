# The core's unit tests in wasm32 with simd128, as the npm package's
# module is built: cross-built for wasm32-wasip1 and run in Node's WASI
# (scripts/wasi-run.mjs), so that the scanner's simd128 kernels are checked
# against the scalar reference (the differential tests, cuts at every
# offset) as the x86_64 ones are here and the NEON ones in test-aarch64.
# The JS suite runs the module itself on the shared vectors.
#
#   make test-wasm32
#
# Then the `simd` fuzz target in the same build, for 10 seconds
# (fuzz/run.sh's wasm32 driver: the corpus, the vectors' bodies in a fresh
# checkout, replayed and edited at random), so that the driver keeps
# building and running; fuzz/README.md has the long runs.
#
# The features the npm package's module has (none); the target's std comes
# from rustup. A panic aborts the whole run there (no unwinding) before
# libtest could name the test: --nocapture lets the panic's message
# through. Its own target directory keeps cargo's lock off the builds
# beside it in make test.
#
# The fuzz target is built unoptimized (FUZZ_PROFILE=dev) in the unit
# tests' target folder, and the unit tests with the flags fuzz/run.sh gives
# a wasm32 build: it then finds every dependency built (4 CPU-seconds
# instead of a 60-second release build). The flags change nothing in the
# tests but the fuzz targets' export they add.

WASM32_DIR   := $(ROOT)/target/wasm32-test
WASM32_FLAGS  = $(shell $(ROOT)/fuzz/run.sh --rustflags wasm32)

.PHONY: test-wasm32
test-wasm32:
	$(call rustup-target,wasm32-wasip1)
	CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="$(WASM32_FLAGS)" \
	CARGO_TARGET_WASM32_WASIP1_RUNNER=$(ROOT)/scripts/wasi-run.mjs \
	  cargo test --quiet --lib -p erpdata --target wasm32-wasip1 --target-dir $(WASM32_DIR) \
	  -- --nocapture
	FUZZ_PROFILE=dev CARGO_TARGET_DIR=$(WASM32_DIR) fuzz/run.sh simd 10 wasm32
