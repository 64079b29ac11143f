#!/bin/sh
# remote_latency.sh: sbench against a server that answers as a remote one
# would: the suite's PostgreSQL and MariaDB behind tests/netdelay (a TCP
# relay that delays every byte 2.5 ms each way: a 5 ms round trip; tc netem
# needs the sch_netem kernel module, which this machine's kernel lacks).
# What the round trip allows is known without sbench:
#   - every statement crosses the relay twice: no latency under 5 ms;
#   - a connection that waits for each answer runs at most 1000/5 = 200
#     single-statement transactions a second, so sysbench 1.0.20 (the
#     reference, one connection per thread) and sbench with --threads=N and
#     no --clients are held to N x 200;
#   - 64 client connections on 2 threads (--clients=64, io_uring) are held
#     to 64 x 200 = 12,800, and must reach a fair share of what the latency
#     allows: at least a quarter of min(12,800, what the same 64 clients do
#     through the relay with no delay, measured in this test on this
#     machine now: the relay's own CPU is in both);
#   - --pipeline=16 on one connection sends oltp_read_only's 16 statements
#     (BEGIN, 14 SELECTs, COMMIT) without a round trip each: more than twice
#     the 200/16 = 12.5 transactions a second one waiting connection allows.
. "$(dirname "$0")/wl-lib.sh"
ND=$SBT_BUILD/tests/netdelay
[ -x "$ND" ] || die "no $ND (build first)"
J=$SBT_TMP/remote-latency
mkdir -p "$J"
RTT_MS=5
RELAY_PID=

stop_relay() {
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    RELAY_PID=
}
trap stop_relay EXIT

# start_relay HOST:PORT DELAY_MS: sets RPORT to the relay's port
start_relay() {
    rm -f "$J/port"
    "$ND" --listen=0 --to="$1" --delay-ms="$2" --port-file="$J/port" &
    RELAY_PID=$!
    i=0
    while [ ! -s "$J/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -s "$J/port" ] || die "the relay did not start"
    RPORT=$(cat "$J/port")
}

# tps, queries/s and min latency (ms x 100) of the last report in $OUT
read_report() {
    TPS=$(awk '/^ *transactions:/ { gsub(/[()]/, "", $3); print int($3) }' "$OUT")
    MIN100=$(awk '/^ *min:/ { print int($2 * 100); exit }' "$OUT")
}

# sysbench_tps TARGET PORT THREADS: sysbench 1.0.20's tps through the relay
sysbench_tps() {
    case "$1" in
    pgsql) o="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$2 --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest" ;;
    mysql) o="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$2 --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest --mysql-ssl=off" ;;
    esac
    # shellcheck disable=SC2086
    sysbench $o --tables=1 --table-size=1000 --threads="$3" --time=2 oltp_point_select run >"$J/sysbench.out" 2>&1 ||
        { fail "sysbench through the relay"; sed 's/^/     | /' "$J/sysbench.out" | tail -5; }
    awk '/^ *transactions:/ { gsub(/[()]/, "", $3); print int($3) }' "$J/sysbench.out"
}

for target in pgsql mysql; do
    wl_setup "$target"
    case "$target" in
    pgsql) server=127.0.0.1:$SBT_PGPORT
        relay_opt() { echo "--pgsql-port=$RPORT"; } ;;
    mysql) server=127.0.0.1:$SBT_MYSQL_PORT
        # TCP, not the socket: the relay is a TCP port
        SB_DRV="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$SBT_MYSQL_PORT --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest --mysql-ssl=off"
        relay_opt() { echo "--mysql-port=$RPORT"; } ;;
    esac
    W="--tables=1 --table-size=1000"
    # shellcheck disable=SC2086
    sb prep $W oltp_point_select cleanup
    # shellcheck disable=SC2086
    sb prep $W oltp_point_select prepare
    [ "$rc" = 0 ] || { show_out; die "[$target] prepare"; }

    # what 64 clients on 2 threads do through the relay with no delay, on
    # this machine now
    start_relay "$server" 0
    # shellcheck disable=SC2086
    sb direct $(relay_opt) $W --threads=2 --clients=64 --io=uring --time=2 oltp_point_select run
    read_report
    DIRECT=$TPS
    expect_eq "[$target] no delay: exit status" "$rc" 0
    stop_relay

    start_relay "$server" 2.5
    # shellcheck disable=SC2086
    sb one $(relay_opt) $W --threads=1 --time=2 oltp_point_select run
    read_report
    expect_eq "[$target] one connection: exit status" "$rc" 0
    expect_range "[$target] one connection: min latency (ms x 100) >= the 5 ms round trip" "$MIN100" 500 100000
    expect_range "[$target] one connection: tps <= 1000/5 (+2%)" "$TPS" 1 204

    SYS=$(sysbench_tps "$target" "$RPORT" 2)
    expect_range "[$target] sysbench 1.0.20, 2 threads: tps <= 2 x 200 (+2%)" "$SYS" 1 408

    # shellcheck disable=SC2086
    sb many $(relay_opt) $W --threads=2 --clients=64 --io=uring --time=2 oltp_point_select run
    read_report
    expect_eq "[$target] 64 clients: exit status" "$rc" 0
    expect_range "[$target] 64 clients: min latency (ms x 100) >= 5 ms" "$MIN100" 500 100000
    allowed=12800
    [ "${DIRECT:-0}" -lt "$allowed" ] && allowed=$DIRECT
    expect_range "[$target] 64 clients: tps (allowed by the latency: 12800; with no delay $DIRECT; sysbench $SYS)" \
        "$TPS" $((allowed / 4)) $((12800 * 102 / 100))
    echo "     [$target] 64 clients on 2 threads: $TPS tps through a 5 ms round trip, sysbench with 2 threads $SYS"

    if [ "$target" = pgsql ]; then
        # shellcheck disable=SC2086
        sb piped $(relay_opt) $W --threads=1 --pipeline=16 --time=2 oltp_read_only run
        read_report
        expect_eq "[$target] --pipeline=16: exit status" "$rc" 0
        expect_range "[$target] --pipeline=16, oltp_read_only: tps > 2 x 200/16" "$TPS" 26 100000
    fi
    stop_relay
    # shellcheck disable=SC2086
    sb clean $W oltp_point_select cleanup
done

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
