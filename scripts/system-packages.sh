#!/usr/bin/env bash
# Installs, in one apt-get transaction, the Debian packages the suites use
# and a fresh machine lacks: Chromium (the HTML report, test-docs),
# LibreOffice Calc and poppler (the workbook rendering), PHP with php-fpm,
# nginx and MariaDB (test-php), qemu-user with the aarch64 cross gcc and
# glibc (test-aarch64). `make test` runs it first, beside the
# builds, so that no suite waits for apt-get later; one update and one
# install cost less than three of each.
#
# Best effort: where it cannot (not root, no apt-get, apt fails) it says so
# in one line and exits 0. scripts/chromium.sh, scripts/libreoffice.sh,
# scripts/aarch64.sh and tests/php/run.sh still find or install what they
# need on their own (then they find it here), and say why they skip when
# they cannot.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOG=$ROOT/target/system-packages.log
mkdir -p "$ROOT/target"

PACKAGES=(chromium libreoffice-calc-nogui poppler-utils php-cli php-mysql php-fpm nginx-light mariadb-server
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross)

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for package in "${PACKAGES[@]}"; do
  installed "$package" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  echo "system packages: all present"
  exit 0
fi
start=$SECONDS
if why=$(bash "$ROOT/scripts/apt-install.sh" "$LOG" "${missing[@]}" 2>&1 >/dev/null); then
  echo "system packages: installed ${missing[*]} in $((SECONDS - start)) s"
else
  echo "system packages: ${missing[*]} missing, and $why; the suites that need them install or skip on their own"
fi
