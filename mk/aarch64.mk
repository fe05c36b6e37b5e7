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

# clippy: feature `parallel` is the one the scanner's code has cfgs for
# (`arrow` adds none for any architecture, and checking its crates would
# cost a build of their own). The tests: every one but the two that go
# through every day from 0001 to 9999 and 200,000 timestamps; integer
# arithmetic, the same on each 64-bit target, they take 25 s emulated and
# run natively in make test-rust.
AARCH64_SKIP := --exact --skip date::tests::round_trip \
  --skip decode::timestamp::tests::format_writes_what_the_formatter_would

.PHONY: test-aarch64
test-aarch64: system-packages
	scripts/aarch64.sh bash -c 'cargo clippy --quiet --lib $(AARCH64_CARGO) --features parallel -- -D warnings \
	  && cargo test --quiet --lib --tests $(AARCH64_CARGO) --features parallel,arrow -- $(AARCH64_SKIP)'
