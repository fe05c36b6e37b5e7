#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation on the
# stable toolchain (the flags cargo-fuzz would pass, minus the sanitizer,
# which needs nightly; the core has no unsafe code for it to watch) and runs
# one of them.
#
#   fuzz/run.sh table 600     # fuzz the table parser/decoder for 10 minutes
#   fuzz/run.sh dues 60
#   fuzz/run.sh simd 600      # the SIMD scanner against the scalar one
#
# The corpus starts from the response bodies in tests/vectors/ and grows in
# fuzz/corpus/<target>/; a crash is written to fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
target="${1:?usage: fuzz/run.sh table|dues|simd SECONDS}"
seconds="${2:-60}"
triple="$(rustc -vV | sed -n 's/^host: //p')"

export RUSTFLAGS="-Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros.
cargo build --release --target "$triple" --bin "$target"

corpus="corpus/$target"
mkdir -p "$corpus" "artifacts/$target"
python3 seeds.py "$target" "$corpus"
exec "target/$triple/release/$target" -max_total_time="$seconds" \
  -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$corpus"
