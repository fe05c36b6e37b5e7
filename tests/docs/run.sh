#!/usr/bin/env bash
# make test-docs: every page of target/docs opened in headless Chromium
# (tests/docs/check_site.py says what is checked).
#
# Installs Debian's chromium with apt-get when it is missing and it can
# (root, apt-get); when it cannot, prints one line `test-docs: skipped:
# <why>` and exits 0.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VPY=${VPY:-$ROOT/.venv/bin/python}
DOCS=${DOCS:-$ROOT/target/docs}
LOG=$ROOT/target/docs-tools/apt.log

skip() {
  echo "test-docs: skipped: $*"
  exit 0
}

find_chromium() {
  local name
  for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if ! CHROMIUM=$(find_chromium); then
  [[ $(id -u) == 0 ]] || skip "chromium missing, and not root to install it (apt-get install chromium)"
  command -v apt-get >/dev/null 2>&1 || skip "chromium missing, and no apt-get to install it"
  mkdir -p "$(dirname "$LOG")"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$LOG" 2>&1 || skip "apt-get update failed (see target/docs-tools/apt.log)"
  apt-get install -y -qq chromium >>"$LOG" 2>&1 || skip "apt-get install chromium failed (see target/docs-tools/apt.log)"
  CHROMIUM=$(find_chromium) || skip "chromium still missing after apt-get install (see target/docs-tools/apt.log)"
fi

exec "$VPY" "$ROOT/tests/docs/check_site.py" "$CHROMIUM" "$DOCS"
