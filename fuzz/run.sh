#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation on the
# stable toolchain (the flags cargo-fuzz would pass, minus the sanitizer,
# which needs nightly: FUZZ_SANITIZER=address below) and runs one of them.
#
#   fuzz/run.sh table 600     # fuzz the table parser/decoder for 10 minutes
#   fuzz/run.sh dues 60
#   fuzz/run.sh simd 600      # the SIMD scanner against the scalar one
#   fuzz/run.sh simd 600 aarch64   # the same on aarch64 (NEON), under qemu
#   fuzz/run.sh simd 600 wasm32    # in wasm with simd128, in Node (no
#                                  # libFuzzer there: fuzz_targets/wasm.rs)
#
# FUZZ_PROFILE=dev builds the target unoptimized, for a short check that
# it builds and runs (make test-wasm32 does, in its unit tests' target
# folder, CARGO_TARGET_DIR, whose dependencies it then finds built): a
# fifth of release's inputs a second. A fuzzing run wants the default,
# release.
#
# FUZZ_SANITIZER=address builds with AddressSanitizer, on the nightly
# make test-msrv and make miri use (rustup installs it if missing), in
# fuzz/target/asan: a read past a buffer in the core's unsafe code (the
# SIMD scanner, the column buffers) stops the run even where it would not
# crash. This machine's architecture only; about a tenth of the inputs a
# second.
#
# The corpus starts from the response bodies in tests/vectors/ and grows in
# fuzz/corpus/<target>/; a crash is written to fuzz/artifacts/<target>/
# (fuzz/artifacts/<target>-aarch64/ and -wasm32/ for those builds, whose
# corpus is the same: an input found on one is worth replaying on another).
set -euo pipefail
cd "$(dirname "$0")"
# libFuzzer's coverage instrumentation (what it steers by).
sancov="-Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares"
# The RUSTFLAGS of a build for an architecture ($1; none: this machine's).
# `fuzz/run.sh --rustflags wasm32` prints them: make test-wasm32 builds
# the unit tests with the same, to share their build.
rustflags() {
  local flags=$sancov
  [[ $1 != wasm32 ]] || flags=-Ctarget-feature=+simd128
  echo "$flags --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
}
if [[ ${1:-} == --rustflags ]]; then
  rustflags "${2:-}"
  exit
fi
target="${1:?usage: fuzz/run.sh table|dues|simd SECONDS [aarch64|wasm32]}"
seconds="${2:-60}"
arch="${3:-}"
case "$arch" in
  "") triple="$(rustc -vV | sed -n 's/^host: //p')" artifacts="artifacts/$target" ;;
  aarch64)
    # Cross-built, and run under qemu-user (scripts/aarch64.sh sets both
    # up, and brings g++ for libFuzzer's C++).
    [[ -n ${AARCH64_RUNNER:-} ]] || exec ../scripts/aarch64.sh --cxx --required "$PWD/run.sh" "$@"
    triple=aarch64-unknown-linux-gnu artifacts="artifacts/$target-aarch64"
    ;;
  wasm32)
    # libFuzzer does not build for wasm: the targets' own driver replays
    # the corpus, then mutates it at random (no coverage to steer by),
    # built as the npm package's module is (simd128) and run in Node.
    rustup target add wasm32-wasip1 >/dev/null 2>&1 || rustup target add wasm32-wasip1
    triple=wasm32-wasip1 artifacts="artifacts/$target-wasm32"
    ;;
  *) echo "fuzz/run.sh: no architecture $arch (aarch64, wasm32, or none for this machine's)" >&2; exit 2 ;;
esac

RUSTFLAGS=$(rustflags "$arch")
toolchain=()
case ${FUZZ_SANITIZER:-} in
  "") ;;
  address)
    [[ -z $arch ]] || { echo "fuzz/run.sh: FUZZ_SANITIZER on this machine's architecture only" >&2; exit 2; }
    # The nightly mk/msrv.mk names, so that the two never drift apart.
    nightly=$(sed -n 's/^NIGHTLY *:= *//p' ../mk/msrv.mk)
    [[ -n $nightly ]] || { echo "fuzz/run.sh: no NIGHTLY in mk/msrv.mk" >&2; exit 2; }
    rustup toolchain install "$nightly" --profile minimal >/dev/null
    toolchain=("+$nightly")
    RUSTFLAGS="$RUSTFLAGS -Zsanitizer=address"
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/asan}"
    ;;
  *) echo "fuzz/run.sh: FUZZ_SANITIZER is address or unset, not $FUZZ_SANITIZER" >&2; exit 2 ;;
esac
export RUSTFLAGS
# Only the `table` target needs the core's features arrow and parallel
# (Cargo.toml's feature `table`).
features=--no-default-features
[[ $target != table ]] || features=
profile=${FUZZ_PROFILE:-release}
case $profile in
  release) built=release ;;
  dev) built=debug ;;
  *) echo "fuzz/run.sh: FUZZ_PROFILE is release or dev, not $profile" >&2; exit 2 ;;
esac
built="${CARGO_TARGET_DIR:-$PWD/target}/$triple/$built/$target"
# --target keeps the flags off build scripts and proc macros.
cargo "${toolchain[@]}" build --locked --profile "$profile" --target "$triple" --bin "$target" $features

corpus="$PWD/corpus/$target" artifacts="$PWD/$artifacts"
mkdir -p "$corpus" "$artifacts"
python3 seeds.py "$target" "$corpus"
if [[ $arch == wasm32 ]]; then
  # The driver's arguments (fuzz_targets/wasm.rs); the program sees only
  # these two directories.
  exec ../scripts/wasi-run.mjs --dir "$corpus" --dir "$artifacts" \
    "$built.wasm" "$seconds" "$corpus" "$artifacts"
fi
# shellcheck disable=SC2086 # the runner is a command and its arguments
exec ${arch:+$AARCH64_RUNNER} "$built" -max_total_time="$seconds" \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus"
