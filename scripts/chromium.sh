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
why=$(bash "$ROOT/scripts/apt-install.sh" "$LOG" chromium 2>&1 >/dev/null) ||
  cannot "chromium missing, and $why"
find_chromium || cannot "chromium still missing after apt-get install (see target/docs-tools/apt.log)"
