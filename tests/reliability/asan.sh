#!/bin/bash
# asan.sh: builds sbench with -Db_sanitize=address,undefined in a second
# build tree ($SBT_TMP/asan, reused when present) and runs short
# multi-threaded oltp_read_write runs on SQLite, PostgreSQL and the null
# driver (prepare, run, cleanup) with leak detection on, and the quick
# matrix of tests/hostile/hostile.sh (a fake server that misbehaves) against
# that build.  Any sanitizer
# report (or a failed run) fails the test.  The dlopen'ed drivers are the
# ones of that build tree.  Needs SBT_PG* for the PostgreSQL part.
source "$(dirname "$0")/lib.sh"
A=${SBT_TMP:-/tmp}/asan
if [ ! -f "$A/build.ninja" ]; then
    timeout 300 meson setup "$A" "$SRC" -Db_sanitize=address,undefined -Db_lundef=false \
        >"$T/setup.log" 2>&1 || { cat "$T/setup.log"; fail "meson setup"; finish; }
fi
timeout 400 ninja -C "$A" cli/sbench $(cd "$A" && ninja -t targets all 2>/dev/null |
    sed -n 's/^\(drivers\/[^:]*\.so\): .*/\1/p') >"$T/build.log" 2>&1 ||
    { tail -n 30 "$T/build.log"; fail "asan build"; finish; }
ok "asan build in $A"
AS=$A/cli/sbench
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$T/sanlog-asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$T/sanlog-ubsan
cd "$T" || exit 1

# san NAME ARGS...: one sbench run; fails on a non-zero status or any log
san() {
    local name=$1; shift
    timeout -k 5 120 "$AS" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$?
    local logs
    logs=$(ls "$T"/sanlog-* 2>/dev/null)
    if [ -n "$logs" ]; then
        fail "$name: sanitizer report (status $rc):"
        head -n 40 $logs
        rm -f $logs
    elif grep -q 'runtime error:\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$T/$name.err"; then
        fail "$name: sanitizer report on stderr"; head -n 40 "$T/$name.err"
    elif [ "$rc" -ne 0 ]; then
        fail "$name: status $rc"; tail -n 5 "$T/$name.err"
    else
        ok "$name"
    fi
}

O="--tables=2 --table-size=2000"
R="--threads=4 --time=3 --report-interval=1"
SQ="--sqlite-db=$T/asan.db"
san sqlite_prepare $SQ $O oltp_read_write prepare
san sqlite_run $SQ $O $R oltp_read_write run
san sqlite_run_json $SQ $O $R --report-format=json --output="$T/r.json" --histogram oltp_read_write run
san sqlite_cleanup $SQ $O oltp_read_write cleanup

san null_run --db-driver=null $O $R oltp_read_write run
san null_events --db-driver=null $O --threads=8 --events=20000 --time=0 --report-format=csv oltp_read_write run
# the io_uring loop's linked send+receive on the null driver's host I/O (its
# server thread), connections lost and closed while it serves them
san null_uring_lost --db-driver=null $O --threads=2 --clients=16 --io=uring --events=3000 --time=0 \
    --null-fail-every=40 --null-fail-status=lost oltp_read_write run

if [ -n "${SBT_PGPORT:-}" ]; then
    PG=$(pg_args)
    timeout 60 "$S" $PG $O oltp_read_write cleanup >/dev/null 2>&1
    san pgsql_prepare $PG $O --threads=2 oltp_read_write prepare
    san pgsql_run $PG $O $R oltp_read_write run
    san pgsql_run_literal $PG $O $R --db-ps-mode=disable oltp_read_write run
    san pgsql_cleanup $PG $O oltp_read_write cleanup
else
    fail "SBT_PGPORT not set: PostgreSQL part not run"
fi

# a hostile server (tests/hostile/hostile.sh --quick) against this build
if SBENCH=$AS HOSTILE_NO_ULIMIT=1 HOSTILE_LIMIT=30 timeout 900 bash "$SRC/tests/hostile/hostile.sh" \
    --quick "$SBT_BUILD" >"$T/hostile.out" 2>&1; then
    ok "hostile server: $(grep -c '^ok' "$T/hostile.out") cases, no sanitizer report"
else
    fail "hostile server under ASan:"; grep -v '^ok' "$T/hostile.out" | head -n 30
fi
finish
