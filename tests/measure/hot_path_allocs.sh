#!/bin/bash
# hot_path_allocs.sh: nothing on the measured path allocates per query.
# Each case runs sbench twice under valgrind (memcheck's heap summary
# counts every malloc/calloc/realloc of the process, libpq, Connector/C and
# Lua included), with SMALL and BIG events on one thread and the same seed:
# the two runs must report the same number of allocations (give or take
# SLACK one-time ones), so the events between them took none.  Each run must also have done its events (the
# report's transaction count).
# Cases: PostgreSQL point_select, read_write (blocking, with
# --db-ps-mode=disable and with --pipeline=8), read_only with --clients=2 (the nonblocking path;
# read_write's two clients could deadlock each other, and a restarted
# event's error message is allocated), MariaDB point_select, read_write
# and read_only with --clients=2 (--mysql-wire), and the null driver.  Not
# covered, and allowed to allocate: ODBC and SQLite (the driver managers
# and the engine allocate inside every statement).
# Environment: SBT_BUILD, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD,
# SBT_MYSQL_SOCKET, SBT_MYSQL_PASSWORD (required).
set -u
: "${SBT_BUILD:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
: "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PASSWORD:?}"
command -v valgrind >/dev/null || { echo "FAIL: valgrind is not installed"; exit 1; }
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/hot_path_allocs.XXXXXX")
cd "$tmp" || exit 1
SMALL=100 BIG=600
# a few one-time allocations may land in either run (a buffer that grows
# once to a size that depends on how the answers arrived; the reporter
# thread's timing): far below one per query
SLACK=5
W=(--tables=2 --table-size=1000)
PG=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
    --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest "${W[@]}")
MY=(--db-driver=mysql --mysql-socket="$SBT_MYSQL_SOCKET" --mysql-user=sbtest
    --mysql-password="$SBT_MYSQL_PASSWORD" --mysql-db=sbtest "${W[@]}")
finish() {
    "$SB" "${PG[@]}" oltp_read_write cleanup >/dev/null 2>&1
    "$SB" "${MY[@]}" oltp_read_write cleanup >/dev/null 2>&1
    rm -rf "$tmp"
}
trap finish EXIT
fail=0
passed=0

for db in PG MY; do
    declare -n opts=$db
    "$SB" "${opts[@]}" oltp_read_write cleanup >/dev/null 2>&1
    if ! "$SB" "${opts[@]}" oltp_read_write prepare >"prep.$db" 2>&1; then
        echo "FAIL: $db prepare"; cat "prep.$db"; exit 1
    fi
done

# allocs NAME EVENTS ARGS...: runs sbench under valgrind; prints its total
# allocation count, or nothing when the run failed or fell short.
allocs() {
    local name=$1 ev=$2
    shift 2
    local log=$name.$ev
    valgrind --leak-check=no "$SB" "$@" --threads=1 --rand-seed=1 --db-server-counters=off \
        --events="$ev" --time=0 run >"$log.out" 2>"$log.err" ||
        { echo "FAIL: $name: run of $ev events exited $?" >&2; tail -n 5 "$log.err" >&2; return; }
    local tx
    tx=$(sed -n 's/^ *transactions: *\([0-9]*\) .*/\1/p' "$log.out" | head -n1)
    [ "$tx" = "$ev" ] || { echo "FAIL: $name: $ev events asked, report says '$tx'" >&2; return; }
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$log.err" | tr -d , | tail -n1
}

case_() {
    local name=$1
    shift
    local a b
    a=$(allocs "$name" $SMALL "$@")
    b=$(allocs "$name" $BIG "$@")
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "FAIL: $name: no heap summary"
        fail=$((fail + 1))
    elif [ $((b - a)) -gt $SLACK ] || [ $((a - b)) -gt $SLACK ]; then
        echo "FAIL: $name: $SMALL events $a allocations, $BIG events $b:" \
            "$(awk -v a="$a" -v b="$b" -v n=$((BIG - SMALL)) 'BEGIN { printf "%.2f", (b - a) / n }') per event"
        fail=$((fail + 1))
    else
        echo "ok: $name: $a allocations after $SMALL events, $b after $BIG"
        passed=$((passed + 1))
    fi
}

case_ "pgsql point_select" "${PG[@]}" oltp_point_select
case_ "pgsql read_write" "${PG[@]}" oltp_read_write
case_ "pgsql read_only --clients=2" "${PG[@]}" --clients=2 oltp_read_only
case_ "pgsql read_write --db-ps-mode=disable" "${PG[@]}" --db-ps-mode=disable oltp_read_write
case_ "pgsql read_write --pipeline=8" "${PG[@]}" --pipeline=8 oltp_read_write
case_ "mysql point_select" "${MY[@]}" oltp_point_select
case_ "mysql read_write" "${MY[@]}" oltp_read_write
case_ "mysql read_only --clients=2" "${MY[@]}" --clients=2 oltp_read_only
case_ "null read_write" --db-driver=null "${W[@]}" oltp_read_write

echo "hot_path_allocs: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
