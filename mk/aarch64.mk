# The core on aarch64, where its scanner takes NEON instead of SSE2/AVX2:
# the erpdata crate cross-built and its tests run under qemu-user (the
# scanner's differential tests against the scalar reference, the decoder's
# and the parallel decoding's tests, the shared vectors), and clippy over
# the code only aarch64 compiles (the library's: the tests have none).
#
#   make test-aarch64
#
# Without the HTTP clients (features reqwest and blocking): they add no
# code of their own for aarch64, and emulated, they and the tokio, rustls
# and hyper they need took most of the suite's time.
#
# scripts/aarch64.sh finds or installs qemu-user, the cross gcc (apt-get)
# and the target's std (rustup); when it cannot, one SKIPPED line says why
# (under CI it fails). Its own target directory keeps cargo's lock off the
# host builds that run beside it in make test.

AARCH64_CARGO := --target aarch64-unknown-linux-gnu --target-dir $(ROOT)/target/aarch64 -p erpdata

# The build, made for the emulator: no examples are built, so the cfg
# erpdata_tests_only leaves out their Parquet writer (crates/erpdata/
# Cargo.toml), half of the cross build with arrow's compute crates; and the
# crate's own code is optimized a little (its dependencies are not), which
# runs the decoder's long tests three times as fast under qemu for a few
# seconds more of compiling: 235 CPU-seconds for building and running,
# was 330.
AARCH64_ENV := CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="--cfg erpdata_tests_only"
AARCH64_OPT := --config 'profile.dev.package.erpdata.opt-level=1'

# clippy: feature `parallel` is the one the scanner's code has cfgs for
# (`arrow` adds none for any architecture, and checking its crates would
# cost a build of their own). The tests: every one but the two that go
# through every day from 0001 to 9999 and 200,000 timestamps; integer
# arithmetic, the same on each 64-bit target, they take 16 s emulated and
# run natively in make test-rust.
AARCH64_SKIP := --exact --skip date::tests::round_trip \
  --skip decode::timestamp::tests::format_writes_what_the_formatter_would

.PHONY: test-aarch64
test-aarch64: system-packages
	$(AARCH64_ENV) scripts/aarch64.sh bash -c 'cargo clippy --quiet --lib $(AARCH64_CARGO) --features parallel -- -D warnings \
	  && cargo test --quiet --lib --tests $(AARCH64_CARGO) $(AARCH64_OPT) --features parallel,arrow -- $(AARCH64_SKIP)'
