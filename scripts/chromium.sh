#!/usr/bin/env bash
# Prints the path of a Chromium to drive headless, installing Debian's
# chromium with apt-get when it is missing and it can (root, apt-get).
# When it cannot, prints why on stderr and exits 3 (callers say "skipped").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOG=$ROOT/target/docs-tools/apt.log

cannot() {
  echo "$*" >&2
  exit 3
}

find_chromium() {
  local name
  for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if find_chromium; then exit 0; fi
[[ $(id -u) == 0 ]] || cannot "chromium missing, and not root to install it (apt-get install chromium)"
command -v apt-get >/dev/null 2>&1 || cannot "chromium missing, and no apt-get to install it"
mkdir -p "$(dirname "$LOG")"
export DEBIAN_FRONTEND=noninteractive
# make test runs two suites at once, and apt-get refuses to run beside
# another: each waits for the lock (tests/php/run.sh takes it too).
APT=(flock "$ROOT/target/apt.lock" apt-get)
"${APT[@]}" update -qq >"$LOG" 2>&1 || cannot "apt-get update failed (see target/docs-tools/apt.log)"
"${APT[@]}" install -y -qq chromium >>"$LOG" 2>&1 || cannot "apt-get install chromium failed (see target/docs-tools/apt.log)"
find_chromium || cannot "chromium still missing after apt-get install (see target/docs-tools/apt.log)"
