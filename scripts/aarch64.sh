#!/usr/bin/env bash
# scripts/aarch64.sh [--cxx] [--required] COMMAND...: runs COMMAND with
# cargo set up to build for aarch64-unknown-linux-gnu and to run what it
# builds under qemu-user, so that `cargo test --target
# aarch64-unknown-linux-gnu` runs the tests on an emulated aarch64 CPU,
# where the scanner takes its NEON code (an x86_64 machine never runs that
# code otherwise).
#
# It finds or installs what that needs: qemu-user, the cross gcc and
# aarch64 glibc with apt-get (scripts/apt-install.sh; --cxx: g++ too, which
# libFuzzer's C++ needs), the target's standard library with rustup. When
# it cannot, it prints one line `SKIPPED: aarch64 (<why>)` and exits 0, as
# the other suites that need system packages do; under CI (CI set), where
# the machine can install them, or with --required, it says why on stderr
# and exits 1 instead, so that a CI run never passes without having run
# the aarch64 code.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TRIPLE=aarch64-unknown-linux-gnu
SYSROOT=/usr/aarch64-linux-gnu
LOG=$ROOT/target/aarch64-apt.log

cxx=false
required=${CI:+true}
while [[ ${1:-} == --* ]]; do
  case $1 in
    --cxx) cxx=true ;;
    --required) required=true ;;
    *) echo "scripts/aarch64.sh: no option $1" >&2; exit 2 ;;
  esac
  shift
done
(($# > 0)) || { echo "usage: scripts/aarch64.sh [--cxx] [--required] COMMAND..." >&2; exit 2; }

skip() {
  if [[ -n $required ]]; then
    echo "aarch64: cannot run ($*)" >&2
    exit 1
  fi
  echo "SKIPPED: aarch64 ($*)"
  exit 0
}

# What each package brings, and the file that shows it is there.
need=(qemu-user:/usr/bin/qemu-aarch64
  gcc-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-gcc
  libc6-dev-arm64-cross:$SYSROOT/lib/ld-linux-aarch64.so.1)
$cxx && need+=(g++-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-g++)
missing=()
for pair in "${need[@]}"; do
  [[ -e ${pair#*:} ]] || missing+=("${pair%%:*}")
done
if ((${#missing[@]} > 0)); then
  why=$(bash "$ROOT/scripts/apt-install.sh" "$LOG" "${missing[@]}" 2>&1 >/dev/null) || skip "$why"
fi
rustup target add "$TRIPLE" >/dev/null 2>&1 || skip "rustup target add $TRIPLE failed"

# AARCH64_RUNNER also for COMMANDs that run a built binary themselves
# (fuzz/run.sh).
export AARCH64_RUNNER="qemu-aarch64 -L $SYSROOT"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=$AARCH64_RUNNER
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
exec "$@"
