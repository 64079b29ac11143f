#!/bin/sh
# fatal_once.sh: a fatal stop with statements in flight (#39).  One
# client (or thread) of fatal_once.lua raises an error while the others'
# inserts are in flight, on PostgreSQL and MariaDB, one client per thread
# (blocking), --clients on poll() and on io_uring.  Every insert carries
# its own key, so the table itself says what the server ran:
#   - no key twice: no statement was sent again at the stop;
#   - rows = the queries sbench reports = the server's counters
#     (pg_stat_statements INSERT calls, Com_insert): every statement the
#     server ran was counted, and sbench counted none it did not run;
#   - status 1, the injected error on stderr, within the run's bound.
# Environment: see wl-lib.sh.  About 30 s.
set -u
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
LUA=$WL_HERE/fatal_once.lua

for target in pgsql mysql; do
    wl_setup "$target"
    echo "--- $target"
    for mode in blocking poll uring; do
        case $mode in
        blocking) how="--threads=4" ;;
        *) how="--threads=2 --clients=16 --io=$mode" ;;
        esac
        dbq "DROP TABLE IF EXISTS sbtest_once" >/dev/null 2>&1
        dbq "CREATE TABLE sbtest_once (k BIGINT NOT NULL)" || die "$target: cannot create sbtest_once"
        snap_before
        t0=$(date +%s)
        # shellcheck disable=SC2086
        sb once-$mode $how --time=120 --events=0 "$LUA" run
        secs=$(($(date +%s) - t0))
        snap_after
        expect_eq "$target $mode: exit status of the fatal stop" "$rc" 1
        checks=$((checks + 1))
        if grep -q 'fatal_once: the injected fatal error' "$OUT"; then
            echo "ok   $target $mode: the injected error is reported"
        else
            fail "$target $mode: the injected error is not on the output"; show_out
        fi
        # --time=120: the fatal stop ends the run, not the clock
        expect_range "$target $mode: seconds until exit" "$secs" 0 60
        R_QUERIES=
        parse_report "$OUT"
        rows=$(dbq "SELECT count(*) FROM sbtest_once")
        dups=$(dbq "SELECT count(*) - count(DISTINCT k) FROM sbtest_once")
        expect_eq "$target $mode: keys inserted twice" "$dups" 0
        expect_range "$target $mode: rows (more than client 0's 199 events)" "$rows" 200 100000000
        expect_eq "$target $mode: rows = queries sbench counted" "$rows" "${R_QUERIES:-x}"
        expect_eq "$target $mode: server's INSERT count = rows" "$D_WR" "$rows"
    done
    dbq "DROP TABLE IF EXISTS sbtest_once" >/dev/null 2>&1
done
echo "fatal_once.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
