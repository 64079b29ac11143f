#!/bin/bash
# server_metrics_silent.sh: a server that stops answering the sampler
# (--server-metrics) must not hold the run.  The suite's PostgreSQL and
# MariaDB behind tests/netdelay with --stall-on: 2 s into the run, the
# connection that sends the sampler's active-session query (PostgreSQL:
# its prepared statement sbench_sampler_waits; MariaDB: INNODB_TRX) gets
# no answer ever again, while the server and every client connection go
# on.  What is known apart from sbench:
#   - the sampler's read has a 3 s client-side deadline: one line
#     "server metrics stop: an active-session sample timed out after 3 s",
#     the run ends within --time plus that bound (and slack for a loaded
#     machine; without the deadline it never ends), exit status 0;
#   - the clients never waited for it: every event inserted one row
#     stamped with the server's clock, so the server's own rows count the
#     events sbench reports (exactly), and the largest gap between two
#     consecutive rows stays under 2 s (a client held by the stalled
#     sampler would leave a gap of 3 s);
#   - the final report says why the sampler stopped.
# Environment: SBT_BUILD, SBT_TMP, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD,
# SBT_MYSQL_SOCKET, SBT_MYSQL_PORT, SBT_MYSQL_PASSWORD (required).
set -u
: "${SBT_BUILD:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}" "${SBT_MYSQL_PORT:?}"
: "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PASSWORD:?}"
SB=$SBT_BUILD/cli/sbench
ND=$SBT_BUILD/tests/netdelay
[ -x "$SB" ] && [ -x "$ND" ] || { echo "FAIL: build first ($SB, $ND)"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/server_metrics_silent.XXXXXX")
cd "$tmp" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }
RELAY_PID=
stop_relay() {
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
    RELAY_PID=
}
trap 'stop_relay; rm -rf "$tmp"' EXIT

pgq() { PGPASSWORD=$SBT_PGPASSWORD psql -X -qAt -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$SBT_PGPORT" -U sbtest -d sbtest -c "$1"; }
myq() { mariadb --no-defaults -uroot --socket="$SBT_MYSQL_SOCKET" -N -B -D sbtest -e "$1"; }

cat >stamp.lua <<'LUA'
-- every event inserts one row stamped with the server's clock
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query(os.getenv("STAMP_SQL")) end
LUA

RUN_S=5
for target in pgsql mysql; do
    case $target in
    pgsql)
        pgq "DROP TABLE IF EXISTS sbsilent; CREATE TABLE sbsilent (id bigserial PRIMARY KEY, ts timestamptz NOT NULL)" ||
            { fail "[$target] create table"; continue; }
        export STAMP_SQL="INSERT INTO sbsilent (ts) VALUES (clock_timestamp())"
        server=127.0.0.1:$SBT_PGPORT stall=sbench_sampler_waits
        count() { pgq "SELECT count(*) FROM sbsilent"; }
        gap_ms() { pgq "SELECT coalesce(round(max(g)), 0) FROM (SELECT extract(epoch FROM ts - lag(ts) OVER (ORDER BY ts)) * 1000 AS g FROM sbsilent) x"; }
        span_ms() { pgq "SELECT round(extract(epoch FROM max(ts) - min(ts)) * 1000) FROM sbsilent"; }
        drv() { echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$1 --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest --pgsql-sslmode=disable"; } ;;
    mysql)
        myq "DROP TABLE IF EXISTS sbsilent; CREATE TABLE sbsilent (id BIGINT AUTO_INCREMENT PRIMARY KEY, ts DATETIME(6) NOT NULL) ENGINE=InnoDB" ||
            { fail "[$target] create table"; continue; }
        export STAMP_SQL="INSERT INTO sbsilent (ts) VALUES (SYSDATE(6))"
        server=127.0.0.1:$SBT_MYSQL_PORT stall=INNODB_TRX
        count() { myq "SELECT count(*) FROM sbsilent"; }
        gap_ms() { myq "SELECT coalesce(round(max(g)), 0) FROM (SELECT TIMESTAMPDIFF(MICROSECOND, LAG(ts) OVER (ORDER BY ts), ts) / 1000 AS g FROM sbsilent) x"; }
        span_ms() { myq "SELECT round(TIMESTAMPDIFF(MICROSECOND, min(ts), max(ts)) / 1000) FROM sbsilent"; }
        drv() { echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$1 --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest --mysql-ssl=off"; } ;;
    esac
    rm -f port relay.err
    "$ND" --listen=0 --to="$server" --delay-ms=0 --port-file=port --stall-on="$stall" --stall-after-ms=2000 2>relay.err &
    RELAY_PID=$!
    for _ in $(seq 100); do [ -s port ] && break; sleep 0.1; done
    [ -s port ] || { fail "[$target] the relay did not start"; stop_relay; continue; }
    t0=$(date +%s%N)
    # shellcheck disable=SC2046
    timeout 120 "$SB" $(drv "$(cat port)") --threads=2 --time=$RUN_S --report-interval=1 \
        --server-metrics=on stamp.lua run >out 2>err
    rc=$?
    elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
    stop_relay
    [ "$rc" = 0 ] && ok "[$target] exit status 0" || { fail "[$target] exit status $rc"; tail -5 err out; }
    grep -q "stalled from now on" relay.err && ok "[$target] the relay stalled the sampler's connection" ||
        fail "[$target] the relay never saw '$stall' (stderr: $(cat relay.err))"
    n=$(grep -c "server metrics stop: an active-session sample timed out after 3 s" err)
    [ "$n" = 1 ] && ok "[$target] one line: $(grep 'server metrics stop' err)" ||
        { fail "[$target] $n 'timed out after 3 s' lines"; cat err; }
    # --time, the 3 s deadline, and 10 s for connecting and the final
    # reads on a loaded machine
    [ "$elapsed_ms" -le $(((RUN_S + 3 + 10) * 1000)) ] && ok "[$target] the run took $elapsed_ms ms" ||
        fail "[$target] the run took $elapsed_ms ms (--time=$RUN_S, deadline 3 s)"
    grep -q "timed out after 3 s" out && ok "[$target] the report says why the sampler stopped" ||
        fail "[$target] the report does not say why the sampler stopped"
    events=$(awk '/^ *transactions:/ { print $2; exit }' out)
    rows=$(count)
    [ -n "$events" ] && [ "$events" = "$rows" ] && ok "[$target] events reported = rows the server holds: $rows" ||
        fail "[$target] events reported '$events', rows on the server '$rows'"
    gap=$(gap_ms) span=$(span_ms)
    [ -n "$gap" ] && [ "$gap" -lt 2000 ] && ok "[$target] largest gap between events: $gap ms" ||
        fail "[$target] largest gap between two events: '$gap' ms (clients held by the sampler?)"
    [ -n "$span" ] && [ "$span" -ge $(((RUN_S - 1) * 1000)) ] && ok "[$target] events over $span ms" ||
        fail "[$target] events over '$span' ms only (--time=$RUN_S)"
    case $target in pgsql) pgq "DROP TABLE sbsilent" ;; mysql) myq "DROP TABLE sbsilent" ;; esac
done
[ "$failures" = 0 ] && echo "server_metrics_silent: all passed" || echo "server_metrics_silent: $failures failed"
[ "$failures" = 0 ]
