#!/usr/bin/env bash
# Runs a command against a fresh sandbox ERP on a free loopback port:
#   scripts/with-sandbox.sh SANDBOX_BIN CMD [ARGS...]
# The command sees ERPDATA_BASE_URL; the sandbox is stopped afterwards.
# ERPDATA_SANDBOX_ARGS adds sandbox flags (e.g. "--rows 200000").
set -euo pipefail
bin="$1"; shift
out="$(mktemp)"
# shellcheck disable=SC2086 # the extra flags are meant to split
"$bin" --port 0 --quiet ${ERPDATA_SANDBOX_ARGS:-} >"$out" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do
  url="$(head -n1 "$out" 2>/dev/null || true)"
  [[ "$url" == http* ]] && break
  sleep 0.05
done
[[ "${url:-}" == http* ]] || { echo "sandbox did not start: $(cat "$out")" >&2; exit 1; }
ERPDATA_BASE_URL="$url" "$@"
