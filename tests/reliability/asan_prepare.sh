#!/bin/bash
# asan_prepare.sh: an error from con:prepare quotes the statement's text
# (core/db_stmt.c once freed the copy the error pointed to), checked on an
# AddressSanitizer + UBSan build ($SBT_BUILD/asan-tree, reused when present)
# on SQLite, PostgreSQL and MariaDB: no sanitizer report, and the text the
# script's pcall sees is the SQL it prepared.  Needs SBT_PG* and SBT_MYSQL_*.
source "$(dirname "$0")/lib.sh"
A=$SBT_BUILD/asan-tree
if [ ! -f "$A/build.ninja" ]; then
    timeout 300 meson setup "$A" "$SRC" -Db_sanitize=address,undefined -Db_lundef=false \
        >"$T/setup.log" 2>&1 || { cat "$T/setup.log"; fail "meson setup"; finish; }
fi
timeout 900 ninja -C "$A" cli/sbench $(cd "$A" && ninja -t targets all 2>/dev/null |
    sed -n 's/^\(drivers\/[^:]*\.so\): .*/\1/p') >"$T/build.log" 2>&1 ||
    { tail -n 30 "$T/build.log"; fail "asan build"; finish; }
AS=$A/cli/sbench
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$T/sanlog-asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$T/sanlog-ubsan
want="query: SELECT no_col_29 FROM no_such_table_29"

# check NAME DRIVER-ARGS...
check() {
    local name=$1; shift
    timeout -k 5 120 "$AS" "$@" "$SRC/tests/reliability/prepare_error.lua" \
        >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$? logs
    logs=$(ls "$T"/sanlog-* 2>/dev/null)
    if [ -n "$logs" ]; then
        fail "$name: sanitizer report (status $rc):"; head -n 30 $logs; rm -f $logs
    elif [ "$rc" -ne 0 ]; then
        fail "$name: status $rc"; tail -n 5 "$T/$name.err"
    elif ! grep -qxF "$want" "$T/$name.out"; then
        fail "$name: the error does not quote the SQL:"; cat "$T/$name.out"
    else
        ok "$name: $want"
    fi
}
check sqlite --db-driver=sqlite --sqlite-db="$T/p.db"
if [ -n "${SBT_PGPORT:-}" ]; then check pgsql $(pg_args); else fail "SBT_PGPORT not set"; fi
if [ -n "${SBT_MYSQL_SOCKET:-}" ]; then check mysql $(my_args); else fail "SBT_MYSQL_SOCKET not set"; fi
finish
