#!/bin/sh
# clients.sh: --clients=64 on --threads=2, on PostgreSQL and MariaDB.
#
# Every workload in workloads/ but the diagnostic ones (diag*, fileio, sbk:
# tests/integration/diag.sh) (run, for bulk_insert at --rate=3200; the
# workloads on the sbtest tables share one prepare and one cleanup per
# server, bulk_insert has its own), on each server:
#   - sbench exits 130 (the SIGINT that ends it) and its header shows threads and clients (on a driver
#     that cannot multiplex, sbench runs one thread per client: threads 64);
#   - the server sees exactly 64 sbench sessions during the run (the
#     run ends on SIGINT once it has, after at least 2 s)
#     (pg_stat_activity; MariaDB: SHOW PROCESSLIST rows of user sbtest);
#   - the server's counters agree with sbench's report (check_server_counts
#     in wl-lib.sh: pg_stat_statements / pg_stat_database, MariaDB Com_*);
#   - the JSON report's clients_fairness lists 64 clients whose events add
#     up to the total, every client ran at least one event, and the text
#     report has the Clients fairness section.
# Then:
#   - --rate=200 --time=3 with 16 clients on 2 threads (both servers): tps
#     within [150, 250], schedule lag reported, every client ran events;
#   - every run with --io=$SBT_IO (default uring; the header names io_uring
#     exactly when it is in use);
#   - --reconnect=transaction with 16 clients on 2 threads, 200 events
#     (PostgreSQL): 200 transactions, the Connection time line counts
#     200 + 16 connections and pg_stat_database.sessions grows by as many.
#
# Environment: see wl-lib.sh (SBT_BUILD, SBT_TMP, SBT_PG*, SBT_MYSQL_*).
# Both servers must be running (scripts/pg-server.sh sets max_connections
# 1100); a missing server is a failure.  Runs for about 2-3 minutes.
set -u
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
command -v python3 >/dev/null || die "python3 not found (reads the JSON report)"

# 10000 rows a table (sysbench's default): with fewer, 64 writers wait on
# each other's row locks (PostgreSQL detects a deadlock only after
# deadlock_timeout, 1 s) and some clients may finish no event in the run.
TABLES=2 SIZE=10000 THREADS=2 CLIENTS=64
# SBT_IO: the clients' I/O (--io): uring (meson test clients) or poll
# (clients_poll, on a few workloads): the same checks on both paths
IO=${SBT_IO:-uring}
COMMON="--tables=$TABLES --table-size=$SIZE --threads=$THREADS --clients=$CLIENTS --io=$IO"
# (modules left out; tpcc has its own scale options and tpcc.sh runs it
# with clients; pgbench's are pgbench.sh's; cpu, memory, threads and mutex
# use no database)
WORKLOADS=${SBT_WORKLOADS:-$(cd "$WL_HERE/../../workloads" && ls *.lua | sed 's/\.lua$//' |
    grep -v -e '^oltp_common$' -e '^oltp_sql$' -e '^diag' -e '^fileio$' -e '^sbk$' -e '^tpcc$' -e '^tpcc_' \
        -e '^pgbench' -e '^builtin_common$' -e '^cpu$' -e '^memory$' -e '^threads$' -e '^mutex$')}

# sessions, sb_until_sessions: in wl-lib.sh.

# check_clients_json FILE WHAT N TRANSACTIONS: clients_fairness of the
# final JSON report in FILE.
check_clients_json() {
    got=$(python3 - "$1" <<'EOF'
import json, sys
final = None
for line in open(sys.argv[1]):
    if line.startswith("{"):
        j = json.loads(line)
        if j.get("type") == "final":
            final = j
cf = (final or {}).get("clients_fairness")
if not cf:
    print("none - - - -")
else:
    ev = cf["events"]
    print(cf["clients"], len(ev), sum(ev), min(ev), final["transactions"])
EOF
) || got="error - - - -"
    set -- "$2" "$3" "$4" $got
    w=$1 n=$2 tx=$3
    expect_eq "$w: JSON clients_fairness.clients" "$4" "$n"
    expect_eq "$w: JSON per-client counts" "$5" "$n"
    expect_eq "$w: JSON per-client events add up to the transactions" "$6" "$8"
    expect_eq "$w: JSON transactions = text report" "$8" "$tx"
    # even a perfectly fair scheduler leaves some client without an event
    # with probability about n*exp(-tx/n): only ask for one event each
    # when that is below 1/2500 (tx >= 12 n); a write workload held up by
    # deadlock waits (deadlock_timeout 1 s) on a loaded machine may not
    # get there in 2 s
    if [ "$8" -ge $((12 * n)) ] 2>/dev/null; then
        expect_range "$w: fewest events of one client" "$7" 1 1000000000
    else
        expect_range "$w: fewest events of one client ($8 transactions, too few to ask for one each)" "$7" 0 1000000000
    fi
}

run_workload() {
    w=$1
    echo "--- $w on $TARGET: --threads=$THREADS --clients=$CLIENTS"
    opts=$COMMON
    # bulk_insert: one table per client; every event only queues a row
    [ "$w" = bulk_insert ] && opts="--threads=$THREADS --clients=$CLIENTS --io=$IO"
    # the workloads on the sbtest tables share one prepare per server
    # (prepared by the first, cleaned up after the last: their checks are
    # the server's counter deltas of each run); bulk_insert has its own
    if [ "$w" = bulk_insert ] || [ "$SHARED_READY" = 0 ]; then
        sb "$w-cleanup0" $opts "$w" cleanup
        sb "$w-prepare" $opts "$w" prepare
        [ "$rc" = 0 ] || { fail "$w prepare exited $rc"; show_out; return; }
        [ "$w" = bulk_insert ] || SHARED_READY=1
    fi
    # each run lasts until the server has shown all the sessions and 3 s
    # more have passed, then ends on SIGINT (sb_until_sessions, wl-lib.sh): a
    # loaded machine samples slowly, and a fixed --time=2 once let the
    # samples miss a session (63 of 64).  bulk_insert's events only queue
    # a row: paced, so that every client gets events.
    len="--time=300"
    [ "$w" = bulk_insert ] && len="--rate=3200 --time=300"
    json=$SBT_TMP/clients-$TARGET-$w.json
    rm -f "$json"
    snap_before
    # shellcheck disable=SC2086
    sb_until_sessions "$w-run" "$CLIENTS" 3 $opts $len --report-format=json --output="$json" "$w" run
    seen=$SEEN
    snap_after
    R_TXN= R_EVENTS=
    parse_report "$OUT"

    expect_eq "$w: exit status (ended by SIGINT)" "$rc" 130
    [ "$rc" = 130 ] || show_out
    checks=$((checks + 1))
    if grep -Eq "^Number of threads: ($THREADS|$CLIENTS), clients: $CLIENTS\$" "$OUT"; then
        echo "ok   $w: header: $(grep '^Number of threads' "$OUT")"
    else
        fail "$w: header does not show threads and clients"; show_out 40
    fi
    # the header names io_uring exactly when it is in use
    io_line=$(grep -c "^Clients' I/O: io_uring" "$OUT")
    [ "$IO" = uring ] && want_line=1 || want_line=0
    expect_eq "$w: header's io_uring line with --io=$IO" "$io_line" "$want_line"
    expect_eq "$w: sbench sessions the server saw" "$seen" "$CLIENTS"
    expect_range "$w: transactions" "${R_TXN:-x}" 1 1000000000
    checks=$((checks + 1))
    if grep -q '^Clients fairness:' "$OUT" &&
        grep -A2 '^Clients fairness:' "$OUT" | grep -q 'events (avg/stddev):'; then
        echo "ok   $w: text report: $(grep -A1 '^Clients fairness:' "$OUT" | tail -n 1 | tr -s ' ')"
    else
        fail "$w: no Clients fairness section in the text report"
    fi
    check_clients_json "$json" "$w" "$CLIENTS" "$R_EVENTS"
    if [ "$w" = bulk_insert ]; then
        trx=0 margin=$CLIENTS
        [ "$KIND" = maria ] && R_TXN=$R_WRITE # bulk INSERTs autocommit
    else
        set -- $(mix "$w")
        trx=$4
        # pg: per connection, its session setup and the Parse and Close of
        # each prepared statement (see workloads.sh)
        margin=$((CLIENTS * (1 + 2 * $5)))
    fi
    check_server_counts "$trx" "$margin" "$w"
    if [ "$w" = bulk_insert ]; then
        sb "$w-cleanup" $opts "$w" cleanup
        [ "$rc" = 0 ] || { fail "$w cleanup exited $rc"; show_out; }
    fi
}

# --rate with more clients than threads: the arrivals are shared out, an
# arrival waits for an idle client, latency counts from the schedule.
check_rate() {
    echo "--- --rate=200 on $TARGET: --threads=$THREADS --clients=16"
    sb rate-prepare --tables=1 --table-size=$SIZE oltp_point_select prepare
    [ "$rc" = 0 ] || { fail "rate: prepare exited $rc"; show_out; return; }
    json=$SBT_TMP/clients-$TARGET-rate.json
    sb rate-run --tables=1 --table-size=$SIZE --threads=$THREADS --clients=16 --io=$IO --rate=200 --time=3 \
        --report-format=json --output="$json" oltp_point_select run
    expect_eq "rate: exit status" "$rc" 0
    [ "$rc" = 0 ] || show_out
    R_TXN= R_EVENTS=
    parse_report "$OUT"
    tps=$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9]*\)\..*/\1/p' "$OUT")
    expect_range "rate: tps (--rate=200)" "${tps:-x}" 150 250
    checks=$((checks + 1))
    if grep -q '^ *schedule lag (ms): avg' "$OUT"; then
        echo "ok   rate: $(grep 'schedule lag' "$OUT" | tr -s ' ')"
    else
        fail "rate: no schedule lag in the report"; show_out 40
    fi
    check_clients_json "$json" rate 16 "$R_EVENTS"
    sb rate-cleanup --tables=1 oltp_point_select cleanup
}

# --reconnect=transaction with more clients than threads (PostgreSQL):
# every event opens its client's connection anew.
check_reconnect() {
    echo "--- --reconnect=transaction on $TARGET: --threads=$THREADS --clients=16"
    sb rc-prepare --tables=1 --table-size=$SIZE oltp_point_select prepare
    [ "$rc" = 0 ] || { fail "reconnect: prepare exited $rc"; show_out; return; }
    sleep 1.5 # earlier sessions' statistics reach pg_stat_database
    s0=$(adminq "SELECT sessions FROM pg_stat_database WHERE datname = 'sbtest'")
    sb rc-run --tables=1 --table-size=$SIZE --threads=$THREADS --clients=16 --io=$IO --events=200 --time=0 \
        --reconnect=transaction oltp_point_select run
    sleep 1.5
    s1=$(adminq "SELECT sessions FROM pg_stat_database WHERE datname = 'sbtest'")
    expect_eq "reconnect: exit status" "$rc" 0
    [ "$rc" = 0 ] || show_out
    R_TXN= R_EVENTS=
    parse_report "$OUT"
    expect_eq "reconnect: transactions" "${R_TXN:-x}" 200
    c=$(sed -n 's/^Connection time (ms): \([0-9][0-9]*\) connections.*/\1/p' "$OUT")
    expect_eq "reconnect: Connection time line counts (events + clients)" "${c:-x}" 216
    expect_eq "reconnect: new sessions the server counted" $((s1 - s0)) 216
    sb rc-cleanup --tables=1 oltp_point_select cleanup
}

start=$(date +%s)
for target in pgsql mysql; do
    wl_setup "$target"
    t0=$(date +%s)
    SHARED_READY=0
    for w in $WORKLOADS; do
        run_workload "$w"
    done
    if [ "$SHARED_READY" = 1 ]; then
        sb shared-cleanup $COMMON oltp_read_write cleanup
        [ "$rc" = 0 ] || { fail "sbtest tables' cleanup exited $rc"; show_out; }
    fi
    check_rate
    [ "$KIND" = pg ] && check_reconnect
    echo "=== $target: $(($(date +%s) - t0)) s"
done
echo "clients.sh: $checks checks, $failures failed, $(($(date +%s) - start)) s"
[ "$failures" -eq 0 ]
