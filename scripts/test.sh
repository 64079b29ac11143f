#!/bin/bash
# test.sh: the whole test suite, from a fresh Debian machine.  Installs what
# the tests need, builds sbench, starts its own PostgreSQL and MariaDB in a
# temporary directory (ports 25432 and 23306 on 127.0.0.1, plus unix
# sockets), runs every meson test against them, stops them, and ends with
# the line "N passed, N failed".  Exit status 0 only if nothing failed.
#
# Environment: SBT_BUILD (build directory, default build-test),
# SBT_MESON_ARGS (extra `meson setup` arguments, e.g. -Db_sanitize=address),
# SBT_PORT_BASE (default 0): added to every server port the suite uses
# (25432, 23306, the TLS and PgBouncer ones), so that two checkouts can run
# their suites side by side (use 100, 200, ...: the ports are close together).
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
# Debian's tools first: the packages install-deps.sh installs (python3-
# jsonschema, meson, node's modules) are the ones the tests must find,
# not those of a pyenv or other per-user installation earlier on PATH
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH"
scripts/install-deps.sh --test || { echo "test.sh: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

build=${SBT_BUILD:-build-test}
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" ${SBT_MESON_ARGS:-} >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
fi
ninja -C "$build" >/dev/null || { ninja -C "$build"; echo "0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d /tmp/sbench-test.XXXXXX)
chmod 755 "$tmp"
cleanup() {
    scripts/pg-server.sh stop "$tmp/pg" >/dev/null 2>&1
    scripts/mariadb-server.sh stop "$tmp/maria" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

export SBT_PGPASSWORD='sbtest-pw-S3cret' SBT_MYSQL_PASSWORD='sbtest-pw-S3cret'
off=${SBT_PORT_BASE:-0}
case $off in '' | *[!0-9]*) echo "test.sh: SBT_PORT_BASE must be a number"; echo "0 passed, 1 failed"; exit 1 ;; esac
export SBT_PGPORT=$((25432 + off)) SBT_MYSQL_PORT=$((23306 + off))
export SBT_TLS_PGPORT=$((25433 + off)) SBT_TLS_MYSQL_PORT=$((23307 + off)) SBT_PGBOUNCER_PORT=$((26432 + off))
export SBT_PGHOST=127.0.0.1 SBT_PGSOCKET="$tmp/pg"
export SBT_MYSQL_HOST=127.0.0.1 SBT_MYSQL_SOCKET="$tmp/maria/mysqld.sock"
export SBT_BUILD="$root/$build" SBT_TMP="$tmp"
export SBT_ODBC_DIR="$tmp/odbc" SBT_SQLITE_DB="$tmp/odbc-sqlite.db"
# the suite's thousands of runs are not recorded in the run history (the
# user's ~/.local/share/sbench/history.db); the history's tests name their own
export SBENCH_HISTORY=off
mkdir -p "$SBT_ODBC_DIR"

servers_ok=1
scripts/pg-server.sh start "$tmp/pg" "$SBT_PGPORT" || servers_ok=0
scripts/mariadb-server.sh start "$tmp/maria" "$SBT_MYSQL_PORT" || servers_ok=0
if [ "$servers_ok" -ne 1 ]; then
    echo "test.sh: a test server did not start (see above)"
    echo "0 passed, 1 failed"
    exit 1
fi

# hdr-histogram-js, the reference decoder of tests/integration/hdr_log.sh
# (versions pinned by tests/hdr-js/package-lock.json)
if [ ! -d tests/hdr-js/node_modules/hdr-histogram-js ]; then
    (cd tests/hdr-js && npm ci --no-audit --no-fund) ||
        { echo "test.sh: npm ci in tests/hdr-js failed"; echo "0 passed, 1 failed"; exit 1; }
fi

meson test -C "$build" --print-errorlogs --num-processes 2 -t 2 "$@"
rc=$?
log="$build/meson-logs/testlog.json"
if [ -f "$log" ]; then
    python3 - "$log" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif res == "SKIP":
        skipped += 1
    else:
        failed += 1
        print("FAILED:", r.get("name"), res)
# a skipped test is a missing part: it counts as a failure
print(f"{passed} passed, {failed + skipped} failed")
PY
else
    echo "0 passed, 1 failed"
    rc=1
fi
exit $rc
