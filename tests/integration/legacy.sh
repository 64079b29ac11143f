#!/bin/sh
# legacy.sh TARGET (pgsql | mysql): sysbench's legacy (0.5-style) Lua API.
#  1. What a legacy script sees (tests/integration/legacy/lg_globals.lua:
#     globals, option globals, db_* results and errors) under sbench and
#     under sysbench 1.0.20 itself, same script and options: the lines must
#     be the same.
#  2. A legacy OLTP workload (legacy/lg_oltp.lua + lg_common.lua, loaded
#     through the global `test`): prepare with --test=FILE and --oltp-*
#     options, run with 3 threads and with 4 clients on 2 threads, with an
#     event restart (an ignorable error leaving event()) and a retry loop
#     (pcall, errcode) in every thread; the tables checked on the server:
#     row counts, k = id after prepare, sum(k) - sum(id) = 2 x events,
#     one log row per event with the right thread_id / num_threads.
#  3. sysbench 1.0's own bulk_insert.lua (/usr/share/sysbench), which needs
#     the global thread_id: rows per thread's table on the server.
. "$(dirname "$0")/wl-lib.sh"
wl_setup "$1"
here=$(cd "$(dirname "$0")" && pwd)/legacy
SYSBENCH=${SYSBENCH:-/usr/bin/sysbench}
[ -x "$SYSBENCH" ] || die "sysbench 1.0 is not installed at $SYSBENCH (apt-get install sysbench)"
case "$TARGET" in
pgsql) SYS_DRV="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest"
    DUP_STATES=23505 ;;
mysql) SYS_DRV="--db-driver=mysql --mysql-socket=$SBT_MYSQL_SOCKET --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest"
    DUP_STATES=23000 ;;
*) die "legacy.sh: TARGET is pgsql or mysql" ;;
esac

# ---- 1. the same lines as sysbench 1.0.20 ----
g=$here/lg_globals.lua
compare() { # NAME COMMAND ARGS...: sbench's and sysbench's G lines
    cname=$1; shift
    # shellcheck disable=SC2086
    "$SYSBENCH" $SYS_DRV --test="$g" "$@" >"$SBT_TMP/lg-$TARGET-$cname.sysbench.out" 2>&1 ||
        fail "sysbench $cname exited $?"
    grep '^G ' "$SBT_TMP/lg-$TARGET-$cname.sysbench.out" >"$SBT_TMP/lg-$TARGET-$cname.sysbench"
    sb "globals-$cname" --test="$g" "$@"
    [ "$rc" = 0 ] || { fail "sbench $cname exited $rc"; show_out; }
    grep '^G ' "$OUT" >"$SBT_TMP/lg-$TARGET-$cname.sbench"
    n=$(wc -l <"$SBT_TMP/lg-$TARGET-$cname.sysbench")
    checks=$((checks + 1))
    if [ "$n" -gt 10 ] && diff "$SBT_TMP/lg-$TARGET-$cname.sysbench" "$SBT_TMP/lg-$TARGET-$cname.sbench" >"$SBT_TMP/lg-$TARGET-$cname.diff"; then
        echo "ok   $cname: $n lines as sysbench 1.0.20 prints them"
    else
        fail "$cname: sbench's lines differ from sysbench 1.0.20's ($n lines):"
        sed 's/^/     | /' "$SBT_TMP/lg-$TARGET-$cname.diff"
    fi
}
compare prepare --oltp-x=5 --oltp-flag prepare
expect_eq "globals: rows and values written through db_* (sbench's prepare)" \
    "$(dbq "SELECT count(*), sum(v) FROM lgprobe" | tr '\t|' '  ')" "2 50"
compare run --oltp-x=5 --oltp-flag --events=1 --time=0 run
sb globals-cleanup --test="$g" cleanup
expect_eq "globals: lgprobe after cleanup" "$(table_exists lgprobe)" 0

# ---- 2. a legacy OLTP workload ----
w=$here/lg_oltp.lua
TABLES=3 SIZE=200
lg() { sb "$@" --oltp-tables-count=$TABLES --oltp-table-size=$SIZE; }
sum_k() { # sum(k) - sum(id) over lgtest1..N
    i=1 sql="SELECT 0"
    while [ "$i" -le "$TABLES" ]; do sql="$sql + (SELECT sum(k) - sum(id) FROM lgtest$i)"; i=$((i + 1)); done
    dbq "$sql"
}
rows() {
    i=1 sql="SELECT 0"
    while [ "$i" -le "$TABLES" ]; do sql="$sql + (SELECT count(*) FROM lgtest$i)"; i=$((i + 1)); done
    dbq "$sql"
}
lg clean0 --test="$w" cleanup
lg prepare --test="$w" prepare
[ "$rc" = 0 ] || { fail "prepare exited $rc"; show_out; }
grep -q "^prepare: db_driver=$TARGET thread_id=0\$" "$OUT" || fail "prepare did not print its db_driver/thread_id line"
expect_eq "rows after prepare" "$(rows)" $((TABLES * SIZE))
expect_eq "rows with k <> id after prepare" "$(dbq "SELECT count(*) FROM lgtest2 WHERE k <> id")" 0
expect_eq "sum(k) - sum(id) after prepare" "$(sum_k)" 0

done_events=0
run_check() { # NAME EVENTS CONNECTIONS ARGS...: one run and its checks
    rname=$1 events=$2 conns=$3; shift 3
    before_log=$(dbq "SELECT count(*) FROM lglog")
    before_tries=$(dbq "SELECT coalesce(sum(tries), 0) FROM lglog")
    lg "$rname" --events="$events" --time=0 --db-ignore-sqlstates=$DUP_STATES "$@" "$w" run
    [ "$rc" = 0 ] || { fail "$rname exited $rc"; show_out 30; return; }
    parse_report "$OUT"
    expect_eq "$rname: transactions" "$R_TXN" "$events"
    # each connection's first event restarts once; more only on a deadlock
    expect_range "$rname: ignored errors (restarted events)" "$R_IGN" "$conns" $((conns + 10))
    done_events=$((done_events + events))
    expect_eq "$rname: sum(k) - sum(id) = 2 x committed events" "$(sum_k)" $((2 * done_events))
    expect_eq "$rname: rows (2 per event, each in place)" "$(rows)" $((TABLES * SIZE))
    expect_eq "$rname: log rows" $(($(dbq "SELECT count(*) FROM lglog") - before_log)) "$events"
    # one event per connection went round the retry loop twice
    expect_eq "$rname: tries" $(($(dbq "SELECT sum(tries) FROM lglog") - before_tries)) $((events + conns))
    expect_eq "$rname: thread_id / num_threads of the log rows" \
        "$(dbq "SELECT count(DISTINCT thread_id), min(thread_id), max(thread_id), min(num_threads), max(num_threads) FROM lglog WHERE num_threads = $conns" | tr '\t|' '  ')" \
        "$conns 0 $((conns - 1)) $conns $conns"
}
run_check run-threads 300 3 --threads=3
run_check run-clients 200 4 --threads=2 --clients=4
expect_eq "engine / max_rows as the script saw them" \
    "$(dbq "SELECT DISTINCT engine, max_rows FROM lglog" | tr '\t|' '  ')" "innodb 1000000"
lg cleanup --test="$w" cleanup
[ "$rc" = 0 ] || { fail "cleanup exited $rc"; show_out; }
expect_eq "lgtest2 after cleanup" "$(table_exists lgtest2)" 0
expect_eq "lglog after cleanup" "$(table_exists lglog)" 0

# ---- 3. sysbench 1.0's bulk_insert.lua: thread_id ----
b=/usr/share/sysbench/bulk_insert.lua
[ -f "$b" ] || die "sysbench's scripts are not installed in /usr/share/sysbench"
sb bulk-clean0 --threads=2 "$b" cleanup
sb bulk-prepare --threads=2 "$b" prepare
[ "$rc" = 0 ] || { fail "bulk_insert prepare exited $rc"; show_out; }
sb bulk-run --threads=2 --events=1000 --time=0 "$b" run
[ "$rc" = 0 ] || { fail "bulk_insert run exited $rc"; show_out; }
n1=$(dbq "SELECT count(*) FROM sbtest1") n2=$(dbq "SELECT count(*) FROM sbtest2")
expect_eq "bulk_insert: rows in sbtest1 + sbtest2" $((n1 + n2)) 1000
# each thread's rows in its own table (sbtest<thread_id + 1>), ids 1..n
expect_eq "bulk_insert: sbtest1 ids 1..count" "$(dbq "SELECT coalesce(max(id), 0) - count(*) FROM sbtest1")" 0
expect_eq "bulk_insert: sbtest2 ids 1..count" "$(dbq "SELECT coalesce(max(id), 0) - count(*) FROM sbtest2")" 0
sb bulk-cleanup --threads=2 "$b" cleanup
expect_eq "bulk_insert: sbtest tables after cleanup" "$(sbtest_tables)" 0

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
