#!/usr/bin/env bash
# The core's default build holds no HTTP client, async runtime, socket or
# randomness crate: fails if `cargo tree -p erpdata -e normal` lists one.
# The same pattern must find them with the client features on, so the check
# cannot pass by matching nothing.
set -euo pipefail
forbidden='^(reqwest|ureq|hyper|hyper-util|h2|tokio|mio|socket2|async-std|smol|rustls|native-tls|openssl|openssl-sys|curl|fastrand|rand|getrandom) v'
tree() { cargo tree -p erpdata -e normal --prefix none --format '{p}' "$@" | sed 's/ (\*)//' | sort -u; }

default="$(tree)"
if found="$(grep -E "$forbidden" <<<"$default")"; then
  echo "erpdata's default build depends on I/O or randomness crates:" >&2
  echo "$found" >&2
  exit 1
fi
with_clients="$(tree --features reqwest,blocking)"
for crate in reqwest ureq tokio hyper rustls fastrand; do
  grep -qE "^$crate v" <<<"$with_clients" || {
    echo "check-core-deps: $crate not found with the client features; is the pattern stale?" >&2
    exit 1
  }
done
echo "erpdata default features: $(wc -l <<<"$default") crates, no HTTP client, runtime, socket or randomness crate"
