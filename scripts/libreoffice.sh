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
why=$(bash "$ROOT/scripts/apt-install.sh" "$LOG" "${PACKAGES[@]}" 2>&1 >/dev/null) ||
  cannot "libreoffice or pdftoppm missing, and $why"
find_all || cannot "libreoffice or pdftoppm still missing after apt-get install (see target/docs-tools/libreoffice-apt.log)"
