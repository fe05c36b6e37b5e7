#!/usr/bin/env bash
# scripts/apt-install.sh LOG PACKAGE...: installs Debian packages with
# apt-get, the one way every script of the suites does it (chromium.sh,
# libreoffice.sh, system-packages.sh). Root and apt-get are required; the
# package lists the machine has are tried first, and `apt-get update` runs
# only when that fails (a fresh or stale machine); only what the packages
# need, not what they recommend; one apt-get at a time (make test runs
# suites side by side, and apt-get refuses to run beside another), under
# the lock target/apt.lock, which tests/php/run.sh takes too. apt-get's
# output goes to LOG. When it cannot, it prints why on stderr and exits 3.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOG=$1
shift
PACKAGES=("$@")
SHOWN=${LOG#"$ROOT/"}

cannot() {
  echo "$*" >&2
  exit 3
}

[[ $(id -u) == 0 ]] || cannot "not root to install them (apt-get install ${PACKAGES[*]})"
command -v apt-get >/dev/null 2>&1 || cannot "no apt-get to install ${PACKAGES[*]}"
mkdir -p "$(dirname "$LOG")"
export DEBIAN_FRONTEND=noninteractive
APT=(flock "$ROOT/target/apt.lock" apt-get)
install() {
  "${APT[@]}" install -y -qq --no-install-recommends "${PACKAGES[@]}" >>"$LOG" 2>&1
}
start=$SECONDS
if ! install; then
  "${APT[@]}" update -qq >>"$LOG" 2>&1 || cannot "apt-get update failed (see $SHOWN)"
  install || cannot "apt-get install ${PACKAGES[*]} failed (see $SHOWN)"
fi
echo "installed ${PACKAGES[*]} in $((SECONDS - start)) s" >>"$LOG"
