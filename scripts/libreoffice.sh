#!/usr/bin/env bash
# Prints the path of a LibreOffice to convert workbooks headless (with
# poppler's pdftoppm beside it, to render the PDF it writes), installing
# Debian's libreoffice-calc-nogui and poppler-utils with apt-get when they
# are missing and it can (root, apt-get). When it cannot, prints why on
# stderr and exits 3 (callers say "skipped").
#
# Only Calc without its GUI and without recommended packages: about a
# quarter of a full LibreOffice, so a fresh CI machine installs it in
# well under a minute.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOG=$ROOT/target/docs-tools/libreoffice-apt.log
PACKAGES=(libreoffice-calc-nogui poppler-utils)

cannot() {
  echo "$*" >&2
  exit 3
}

find_all() {
  local office
  office=$(command -v libreoffice || command -v soffice) || return 1
  command -v pdftoppm >/dev/null 2>&1 || return 1
  echo "$office"
}

if find_all; then exit 0; fi
[[ $(id -u) == 0 ]] || cannot "libreoffice or pdftoppm missing, and not root to install them (apt-get install ${PACKAGES[*]})"
command -v apt-get >/dev/null 2>&1 || cannot "libreoffice or pdftoppm missing, and no apt-get to install them"
mkdir -p "$(dirname "$LOG")"
export DEBIAN_FRONTEND=noninteractive
# One apt-get at a time: scripts/chromium.sh and tests/php/run.sh take the
# same lock.
APT=(flock "$ROOT/target/apt.lock" apt-get)
install() {
  "${APT[@]}" install -y -qq --no-install-recommends "${PACKAGES[@]}" >>"$LOG" 2>&1
}
start=$SECONDS
# The package lists a machine already has are tried first (no update:
# seconds saved); a fresh or stale one gets `apt-get update` and a retry.
if ! install; then
  "${APT[@]}" update -qq >>"$LOG" 2>&1 || cannot "apt-get update failed (see target/docs-tools/libreoffice-apt.log)"
  install || cannot "apt-get install ${PACKAGES[*]} failed (see target/docs-tools/libreoffice-apt.log)"
fi
echo "installed ${PACKAGES[*]} in $((SECONDS - start)) s" >>"$LOG"
find_all || cannot "libreoffice or pdftoppm still missing after apt-get install (see target/docs-tools/libreoffice-apt.log)"
