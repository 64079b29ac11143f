#!/bin/bash
# server_metrics_ps.sh: MariaDB's waits in the sampler (--server-metrics)
# from performance_schema where it is on, and one line saying so where it
# is off.  Every event is SELECT SLEEP(0.02) on 2 threads, so the sessions
# spend nearly all their time in the sleep (known apart from sbench):
#   off  the suite's MariaDB (performance_schema off by default, read here
#        with @@performance_schema): one stderr line "performance_schema is
#        off", wait_events_now 0, the top wait the state "State:User sleep";
#   on   a second MariaDB (scripts/mariadb-server.sh, port SBT_MYSQL_PORT+5)
#        with performance_schema, its events_waits_current consumer and the
#        sleep's instrument on: no such line, wait_events_now 1, the top
#        wait the instrument Wait:wait/synch/cond/sql/Item_func_sleep::cond
#        with more than half the sampled session time, and the cause names
#        it.
# Environment: SBT_BUILD, SBT_TMP, SBT_MYSQL_SOCKET, SBT_MYSQL_PORT,
# SBT_MYSQL_PASSWORD (required).  ~30 s.
set -u
: "${SBT_BUILD:?}" "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PORT:?}" "${SBT_MYSQL_PASSWORD:?}"
SB=$SBT_BUILD/cli/sbench
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/server_metrics_ps.XXXXXX")
cd "$tmp" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else fail "$1: got '$2', want '$3'"; fi
}
PS_DIR=$tmp/maria-ps
cleanup() { "$root/scripts/mariadb-server.sh" stop "$PS_DIR" >/dev/null 2>&1; cd /; rm -rf "$tmp"; }
trap cleanup EXIT
cat >sleep.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT SLEEP(0.02)") end
LUA
# run NAME SOCKET: the sleep workload, its final JSON line in NAME.json
run() {
    "$SB" --db-driver=mysql --mysql-socket="$2" --mysql-user=sbtest --mysql-password="$SBT_MYSQL_PASSWORD" \
        --mysql-db=sbtest --threads=2 --time=3 --report-format=json sleep.lua run >"$1.out" 2>"$1.err"
    check "[$1] exit status" "$?" 0
    tail -1 "$1.out" >"$1.json"
}
metric() { python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['server_metrics']; print($2)" "$1.json"; }

check "[off] the suite's MariaDB has performance_schema off" \
    "$(mariadb --no-defaults -uroot --socket="$SBT_MYSQL_SOCKET" -N -B -e 'SELECT @@performance_schema')" 0
run off "$SBT_MYSQL_SOCKET"
check "[off] one line says performance_schema is off" "$(grep -c 'performance_schema is off on this server' off.err)" 1
check "[off] wait_events_now" "$(metric off "m['wait_events_now']")" 0
check "[off] the top wait is the sleep's state" "$(metric off "m['active_sessions']['waits'][0]['name']")" "State:User sleep"

SBT_MYSQL_SERVER_ARGS="--performance-schema=ON --performance-schema-consumer-events-waits-current=ON
    --performance-schema-instrument=wait/synch/cond/sql/Item_func_sleep::cond=ON" \
    "$root/scripts/mariadb-server.sh" start "$PS_DIR" $((SBT_MYSQL_PORT + 5)) >ps-server.log 2>&1 ||
    { fail "a MariaDB with performance_schema did not start"; cat ps-server.log; exit 1; }
run on "$PS_DIR/mysqld.sock"
check "[on] no line says performance_schema is off" "$(grep -c 'performance_schema is off' on.err)" 0
check "[on] wait_events_now" "$(metric on "m['wait_events_now']")" 1
check "[on] the top wait is the sleep's instrument" "$(metric on "m['active_sessions']['waits'][0]['name']")" \
    "Wait:wait/synch/cond/sql/Item_func_sleep::cond"
check "[on] with more than half the sampled session time" \
    "$(metric on "m['active_sessions']['waits'][0]['share'] > 0.5")" True
check "[on] the cause names it" "$(metric on "'Item_func_sleep::cond' in m['cause']")" True
[ "$failures" = 0 ] && echo "server_metrics_ps: all passed" || echo "server_metrics_ps: $failures failed"
[ "$failures" = 0 ]
