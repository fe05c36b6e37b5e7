#!/usr/bin/env bash
# make test-php: a real PHP service (tests/php/www) over a private MariaDB,
# and the Python, JavaScript and Rust suites against it (tests/php/README.md).
#
#   bash tests/php/run.sh           start the servers, run the three suites behind
#                                   each front (PHP's own server, nginx + php-fpm),
#                                   stop the servers
#   bash tests/php/run.sh --serve   start the servers and wait (Ctrl-C stops them),
#                                   for trying the service by hand with curl
#
# Installs php-cli, php-mysql, php-fpm, nginx-light and mariadb-server with
# apt-get when they are missing and it can (root, apt-get); when it cannot,
# prints one line `test-php: skipped: <why>` and exits 0. Everything it
# makes lives under target/php/; every server is stopped on every exit,
# failures included.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/php
WORK=$ROOT/target/php
VPY=${VPY:-$ROOT/.venv/bin/python}
SERVE=0
[[ ${1:-} == --serve ]] && SERVE=1

say() { echo "test-php: $*"; }
# Under CI (CI set), whose machine can install them, a skip fails: a CI
# run never passes without the PHP service having been tested.
skip() {
  if [[ -n ${CI:-} ]]; then
    echo "test-php: cannot run under CI: $*" >&2
    exit 1
  fi
  echo "test-php: skipped: $*"
  exit 0
}

# A program on PATH or in the sbin folders (mariadbd lives in /usr/sbin,
# which a non-root PATH may lack).
find_bin() {
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
    for dir in /usr/sbin /usr/local/sbin /sbin; do
      if [[ -x $dir/$name ]]; then echo "$dir/$name"; return 0; fi
    done
  done
  return 1
}

have_all() {
  # (grep reads all of php -m's output: grep -q would end the pipe early
  # and pipefail would count php's SIGPIPE as a failure.)
  find_bin php >/dev/null && php -m 2>/dev/null | grep -x mysqli >/dev/null &&
    find_bin mariadbd mysqld >/dev/null && find_bin mariadb-install-db mysql_install_db >/dev/null &&
    find_bin mariadb mysql >/dev/null && find_bin mariadb-admin mysqladmin >/dev/null &&
    find_bin nginx >/dev/null && find_php_fpm >/dev/null
}

# php-fpm is installed under its version's name (php-fpm8.2).
find_php_fpm() {
  local found
  found=$(compgen -G '/usr/sbin/php-fpm*' | sort -V | tail -1) || true
  if [[ -n $found ]]; then echo "$found"; else find_bin php-fpm; fi
}

# --- packages -----------------------------------------------------------------

if ! have_all; then
  PACKAGES=(php-cli php-mysql php-fpm nginx-light mariadb-server)
  [[ $(id -u) == 0 ]] || skip "php, nginx or mariadb missing, and not root to install them (apt-get install ${PACKAGES[*]})"
  command -v apt-get >/dev/null 2>&1 || skip "php, nginx or mariadb missing, and no apt-get to install them"
  mkdir -p "$WORK"
  # Quiet until it worked: a run that cannot install says so in one line.
  export DEBIAN_FRONTEND=noninteractive
  # One apt-get at a time (scripts/chromium.sh may be installing beside this).
  APT=(flock "$ROOT/target/apt.lock" apt-get)
  "${APT[@]}" update -qq >"$WORK/apt.log" 2>&1 || skip "apt-get update failed (see target/php/apt.log)"
  # (Installing nginx and php-fpm does not start them here: no init.)
  "${APT[@]}" install -y -qq "${PACKAGES[@]}" >>"$WORK/apt.log" 2>&1 ||
    skip "apt-get install ${PACKAGES[*]} failed (see target/php/apt.log)"
  have_all || skip "php, nginx or mariadb still missing after apt-get install (see target/php/apt.log)"
  say "installed ${PACKAGES[*]} with apt-get"
fi

MARIADBD=$(find_bin mariadbd mysqld)
INSTALL_DB=$(find_bin mariadb-install-db mysql_install_db)
MARIADB=$(find_bin mariadb mysql)
MARIADB_ADMIN=$(find_bin mariadb-admin mysqladmin)
PHP=$(find_bin php)
PHP_FPM=$(find_php_fpm)
NGINX=$(find_bin nginx)
PY=$(find_bin python3 python)

# --- servers ------------------------------------------------------------------

mkdir -p "$WORK"
DB_PID_FILE=$WORK/mariadbd.pid
PHP_PID_FILE=$WORK/php.pid
FPM_PID_FILE=$WORK/php-fpm.pid
NGINX_PID_FILE=$WORK/nginx.pid

# A server left by an earlier run that was killed before its trap ran: ended
# by the id it recorded, and only if that process still is ours (its
# command line names this checkout's folder for it).
stop_stale() {
  local pid_file=$1 marker=$2 pid
  [[ -f $pid_file ]] || return 0
  pid=$(cat "$pid_file" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] &&
    tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$marker"; then
    say "stopping a server left by an earlier run (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do [[ -d /proc/$pid ]] || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
}
stop_stale "$PHP_PID_FILE" "$HERE/www"
stop_stale "$NGINX_PID_FILE" "$WORK/nginx.conf"
stop_stale "$FPM_PID_FILE" "$WORK/php-fpm.conf"
stop_stale "$DB_PID_FILE" "$WORK/data"

# The unix socket's path must fit sun_path (108 bytes): a deep checkout
# gets a short folder under /tmp instead.
SOCK_DIR=$WORK
if ((${#WORK} > 90)); then
  SOCK_DIR=$(mktemp -d /tmp/erpdata-php.XXXXXX)
fi
SOCK=$SOCK_DIR/mariadb.sock

DB_PID=""
PHP_PID=""
FPM_PID=""
NGINX_PID=""
stop_servers() {
  local status=$?
  trap - EXIT INT TERM
  local pid
  for pid in "$PHP_PID" "$NGINX_PID" "$FPM_PID"; do
    [[ -n $pid ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n $DB_PID ]]; then
    kill -TERM "$DB_PID" 2>/dev/null || true
    for _ in $(seq 200); do kill -0 "$DB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$DB_PID" 2>/dev/null || true
    wait "$DB_PID" 2>/dev/null || true
  fi
  rm -f "$PHP_PID_FILE" "$NGINX_PID_FILE" "$FPM_PID_FILE" "$DB_PID_FILE"
  [[ $SOCK_DIR == "$WORK" ]] || rm -rf "$SOCK_DIR"
  exit "$status"
}
trap stop_servers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

USER_ARGS=(--user="$(id -un)")
DB_ARGS=(
  --datadir="$WORK/data" --socket="$SOCK" --skip-networking
  --innodb-buffer-pool-size=32M --innodb-log-file-size=16M
  --innodb-flush-log-at-trx-commit=0 --skip-name-resolve
)

rm -rf "$WORK/data"
"$INSTALL_DB" --no-defaults "${USER_ARGS[@]}" "${DB_ARGS[@]}" \
  --auth-root-authentication-method=normal --skip-test-db >"$WORK/install-db.log" 2>&1 || {
  tail -20 "$WORK/install-db.log"
  say "mariadb-install-db failed (target/php/install-db.log)"
  exit 1
}

"$MARIADBD" --no-defaults "${USER_ARGS[@]}" "${DB_ARGS[@]}" \
  --pid-file="$DB_PID_FILE" --log-error="$WORK/mariadbd.log" </dev/null >/dev/null 2>&1 &
DB_PID=$!

db_ready=0
for _ in $(seq 300); do
  if ! kill -0 "$DB_PID" 2>/dev/null; then break; fi
  if "$MARIADB_ADMIN" --no-defaults --socket="$SOCK" -uroot ping >/dev/null 2>&1; then
    db_ready=1
    break
  fi
  sleep 0.1
done
if ((!db_ready)); then
  tail -20 "$WORK/mariadbd.log" || true
  say "mariadbd did not start (target/php/mariadbd.log)"
  exit 1
fi
"$MARIADB" --no-defaults --socket="$SOCK" -uroot <"$HERE/schema.sql"

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
# display_errors and html_errors on, as on a misconfigured production
# server: warnings and fatal errors are printed into the answer.
ERPDATA_PHP_DB_SOCKET=$SOCK "$PHP" -S "127.0.0.1:$PORT" -t "$HERE/www" \
  -d display_errors=1 -d html_errors=1 -d error_reporting=E_ALL -d log_errors=0 \
  </dev/null >"$WORK/php.log" 2>&1 &
PHP_PID=$!
echo "$PHP_PID" >"$PHP_PID_FILE"

# nginx in front of php-fpm, as most PHP ERPs are deployed: the same
# scripts and PHP settings, another server between them and the client
# (FastCGI, nginx's buffering of the answer). Both run as the current
# user (php-fpm needs -R to allow root), their files under target/php.
mkdir -p "$WORK/nginx"
cat >"$WORK/php-fpm.conf" <<EOF
[global]
pid = $FPM_PID_FILE
error_log = $WORK/php-fpm.log
daemonize = no

[erp]
user = $(id -un)
listen = $WORK/php-fpm.sock
listen.mode = 0666
pm = static
pm.max_children = 4
catch_workers_output = yes
env[ERPDATA_PHP_DB_SOCKET] = $SOCK
php_admin_flag[display_errors] = on
php_admin_flag[html_errors] = on
php_admin_value[error_reporting] = 32767
php_admin_flag[log_errors] = off
EOF
FPM_ARGS=(--nodaemonize --fpm-config "$WORK/php-fpm.conf")
if [[ $(id -u) == 0 ]]; then FPM_ARGS+=(--allow-to-run-as-root); fi
"$PHP_FPM" "${FPM_ARGS[@]}" </dev/null >>"$WORK/php-fpm.log" 2>&1 &
FPM_PID=$!

NGINX_PORT=$(free_port)
NGINX_URL=http://127.0.0.1:$NGINX_PORT
NGINX_USER=""
if [[ $(id -u) == 0 ]]; then NGINX_USER="user root;"; fi
cat >"$WORK/nginx.conf" <<EOF
daemon off;
pid $NGINX_PID_FILE;
error_log $WORK/nginx.log warn;
worker_processes 1;
$NGINX_USER
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  proxy_temp_path $WORK/nginx/proxy;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $HERE/www;
    location ~ \.php\$ {
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
      fastcgi_pass unix:$WORK/php-fpm.sock;
    }
  }
}
EOF
"$NGINX" -c "$WORK/nginx.conf" -p "$WORK/nginx" </dev/null >>"$WORK/nginx.log" 2>&1 &
NGINX_PID=$!

# Waits until the front at $2 (process $1, log $3) answers the dues query.
wait_ready() {
  local pid=$1 url=$2 log=$3
  for _ in $(seq 100); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if "$PY" - "$url" <<'EOF' 2>/dev/null; then
import sys, urllib.request
url = sys.argv[1] + "/apis/ajax.php?sys_projectfolder=modern&func=getduesDet&acid=C001&type=RECEIPT"
with urllib.request.urlopen(url, timeout=2) as res:
    sys.exit(0 if res.read().startswith(b'{"status":"success"') else 1)
EOF
      return 0
    fi
    sleep 0.1
  done
  tail -20 "$log" || true
  say "no answer to the dues query at $url (see $log)"
  exit 1
}
wait_ready "$PHP_PID" "$URL" "$WORK/php.log"
wait_ready "$NGINX_PID" "$NGINX_URL" "$WORK/nginx.log"

if ((SERVE)); then
  echo "$URL"
  echo "$NGINX_URL"
  say "serving: php -S at $URL, nginx + php-fpm at $NGINX_URL (projects modern and legacy, token php-test-token-not-secret); Ctrl-C stops"
  wait "$PHP_PID"
  exit 0
fi
say "PHP $("$PHP" -r 'echo PHP_VERSION;'), $("$MARIADBD" --version | sed 's/^.*Ver //'), $("$NGINX" -v 2>&1 | sed 's/^.*: //') with $(basename "$PHP_FPM"); php -S at $URL, nginx at $NGINX_URL"

# --- the suites ---------------------------------------------------------------

failed=()
run_suite() {
  local name=$1
  shift
  say "--- $name"
  if "$@"; then
    say "$name: passed"
  else
    say "$name: FAILED"
    failed+=("$name")
  fi
}

rust_suite() {
  # The test file is wired into crates/erpdata/Cargo.toml as
  # [[test]] name = "php", path = "../../tests/php/php_rust.rs".
  if ! grep -q 'tests/php/php_rust.rs' "$ROOT/crates/erpdata/Cargo.toml"; then
    echo "crates/erpdata/Cargo.toml has no [[test]] for tests/php/php_rust.rs" >&2
    return 1
  fi
  # The features and packages of `make test-rust` (make passes them in
  # RUST_TEST_SCOPE; run alone, this asks the Makefile), so the test binary
  # it built is reused instead of the core being compiled again.
  local scope=${RUST_TEST_SCOPE:-$(make -s --no-print-directory -C "$ROOT" rust-test-scope)}
  # shellcheck disable=SC2086 # the scope is a list of cargo arguments
  (cd "$ROOT" && cargo test -q $scope --test php -- --ignored)
}

for front in "php -S" "nginx + php-fpm"; do
  if [[ $front == "php -S" ]]; then export ERPDATA_PHP_URL=$URL; else export ERPDATA_PHP_URL=$NGINX_URL; fi
  if [[ -x $VPY ]]; then
    run_suite "python, $front" "$VPY" -m pytest -q -p no:cacheprovider "$HERE"
  else
    say "python: $VPY not found (make python builds it)"
    failed+=("python, $front")
  fi
  run_suite "js, $front" bash -c 'cd "$1/js" && node --test "$1/tests/php/php.test.js"' _ "$ROOT"
  run_suite "rust, $front" rust_suite
done

if ((${#failed[@]})); then
  say "failed: ${failed[*]}"
  exit 1
fi
say "all three suites passed behind both fronts"
