#!/usr/bin/env bash
# make test-docs: the pages of target/docs opened in headless Chromium
# (tests/docs/check_site.py says which, and what is checked).
#
# Finds or installs Chromium with scripts/chromium.sh; when it cannot,
# prints one line `test-docs: skipped: <why>` and exits 0.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VPY=${VPY:-$ROOT/.venv/bin/python}
DOCS=${DOCS:-$ROOT/target/docs}

skip() {
  echo "test-docs: skipped: $*"
  exit 0
}

mkdir -p "$ROOT/target"
if ! CHROMIUM=$(bash "$ROOT/scripts/chromium.sh" 2>"$ROOT/target/chromium-why.txt"); then
  skip "$(cat "$ROOT/target/chromium-why.txt")"
fi

exec "$VPY" "$ROOT/tests/docs/check_site.py" "$CHROMIUM" "$DOCS"
