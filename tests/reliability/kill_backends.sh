#!/bin/bash
# kill_backends.sh: lost connections during a run.  oltp_read_write
# (--threads=4 --time=8) on PostgreSQL while every sbtest backend is
# terminated at 2 s and 4 s; the same on MariaDB with KILL CONNECTION; one
# run during which the PostgreSQL server is restarted (pg_ctl restart -m
# fast); and --db-reconnect=off, which must stop the run with status 1.
# Also 16 clients on the io_uring loop, all killed at once (on MariaDB in
# one session), which must reconnect without backing off (#39); on MariaDB
# over TCP and over its Unix socket, where the killed connections' sends
# fail (EPIPE) and the kernel posts nothing for the receives linked to
# them: that run hung until #39's io_ring.c fix, and must now end within
# twice the poll run's wall time plus 5 s.
# Asserts: exit 0 (1 for reconnect=off), "reconnects:" > 0, the final
# report printed, nothing hangs (every sbench run is under timeout).
# Needs the servers of scripts/test.sh (SBT_PG*, SBT_MYSQL_*, SBT_BUILD).
source "$(dirname "$0")/lib.sh"
PG=$(pg_args)
MY=$(my_args)
OPTS="--tables=2 --table-size=2000 --threads=4"

pg_kill() {
    pg_sql -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
               WHERE datname='sbtest' AND pid<>pg_backend_pid()" >/dev/null
}
my_kill() {
    local id
    for id in $(my_sql -e "SELECT id FROM information_schema.processlist
                           WHERE user='sbtest' AND db='sbtest' AND id<>CONNECTION_ID()"); do
        my_sql -e "KILL CONNECTION $id" 2>/dev/null   # may have gone already
    done
}
pg_restart() {
    local bin
    bin=$(pg_bindir)
    (cd "$SBT_PGSOCKET" && timeout 60 runuser -u postgres -- "$bin/pg_ctl" \
        -D "$SBT_PGSOCKET/data" -l "$SBT_PGSOCKET/log" -m fast -w -t 50 restart) >/dev/null 2>&1 ||
        echo "kill_backends: pg_ctl restart failed" >&2
}

# every connection killed in one batch (one session), so that a thread's
# clients all lose theirs at once
my_kill_all() {
    local kills
    kills=$(my_sql -e "SELECT GROUP_CONCAT(CONCAT('KILL CONNECTION ', id) SEPARATOR ';')
                       FROM information_schema.processlist
                       WHERE user='sbtest' AND db='sbtest' AND id<>CONNECTION_ID()")
    [ -n "$kills" ] && [ "$kills" != NULL ] && my_sql -e "$kills" 2>/dev/null
}

# no_backoff NAME: a run whose clients each lost their connection once per
# kill (all at once, on the io_uring loop: one batch of answers) must not
# back off: each client's fresh connection answers before its next loss
# (#39: the streak was the thread's, and its clients' losses in one batch
# looked like one connection failing again and again).
no_backoff() {
    local n
    n=$(grep -c 'backing off' "$T/$1.err")
    [ "$n" -eq 0 ] && ok "$1: no back-off" ||
        fail "$1: $n back-off lines, expected none: $(grep -m1 'backing off' "$T/$1.err")"
}

# run_with NAME EXPECT_RC KILLFN SBENCH_ARGS...: runs sbench, calls KILLFN at
# 2 s and 4 s, checks status, report and reconnects.
run_with() {
    local name=$1 want=$2 fn=$3; shift 3
    ( sleep 2; $fn; sleep 2; $fn ) &
    local killer=$!
    BG_PIDS="$BG_PIDS $killer"
    local t0=$SECONDS
    timeout -k 5 60 "$S" "$@" run >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$? dt=$((SECONDS - t0)) r
    LAST_DT=$dt
    wait "$killer"
    r=$(rep reconnects "$T/$name.out")
    if [ "$rc" -ne "$want" ]; then
        fail "$name: status $rc, expected $want (${dt}s)"; tail -n 5 "$T/$name.err"
    elif ! grep -q '^General statistics:' "$T/$name.out" || ! grep -q '^Threads fairness:' "$T/$name.out"; then
        fail "$name: no final report"; tail -n 5 "$T/$name.out" "$T/$name.err"
    elif [ "$want" -eq 0 ] && ! [ "${r:-0}" -gt 0 ]; then
        fail "$name: reconnects: '${r}', expected > 0"
    elif ! within 25 20 "$dt"; then
        fail "$name: took ${dt}s for --time=8 (bound $(bound 25 20)s)"
    else
        ok "$name: status $rc, reconnects $r, ${dt}s"
    fi
}

# --- PostgreSQL: terminate backends -----------------------------------------
timeout 120 "$S" $PG $OPTS oltp_read_write cleanup >/dev/null 2>&1
timeout 120 "$S" $PG $OPTS oltp_read_write prepare >"$T/pp.out" 2>&1 || { cat "$T/pp.out"; fail "pgsql prepare"; finish; }
run_with pgsql_terminate 0 pg_kill $PG $OPTS --time=8 oltp_read_write

run_with pgsql_terminate_uring 0 pg_kill $PG $OPTS --clients=16 --io=uring --time=8 oltp_read_write
no_backoff pgsql_terminate_uring

# --- PostgreSQL: server restart ---------------------------------------------
if [ -n "${SBT_PGSOCKET:-}" ] && [ -f "$SBT_PGSOCKET/data/PG_VERSION" ] && [ "$(id -u)" = 0 ]; then
    run_with pgsql_restart 0 pg_restart $PG $OPTS --time=8 oltp_read_write
    # the server must be back for whoever comes next
    for _ in $(seq 30); do pg_sql -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
else
    fail "pgsql_restart: needs root and SBT_PGSOCKET with data/ (scripts/pg-server.sh)"
fi

# --- PostgreSQL: --db-reconnect=off ----------------------------------------
run_with pgsql_reconnect_off 1 pg_kill $PG $OPTS --time=8 --db-reconnect=off oltp_read_write
grep -q 'db-reconnect=off' "$T/pgsql_reconnect_off.err" ||
    fail "pgsql_reconnect_off: stderr does not say why: $(head -n 3 "$T/pgsql_reconnect_off.err")"
timeout 120 "$S" $PG $OPTS oltp_read_write cleanup >/dev/null 2>&1

# --- MariaDB: KILL CONNECTION -----------------------------------------------
timeout 120 "$S" $MY $OPTS oltp_read_write cleanup >/dev/null 2>&1
timeout 120 "$S" $MY $OPTS oltp_read_write prepare >"$T/mp.out" 2>&1 || { cat "$T/mp.out"; fail "mysql prepare"; finish; }
run_with mysql_kill 0 my_kill $MY $OPTS --time=8 oltp_read_write
poll_dt=$LAST_DT
# over the Unix socket ($MY): every send to a killed connection fails
run_with mysql_kill_uring_socket 0 my_kill_all $MY $OPTS --clients=16 --io=uring --time=8 oltp_read_write
no_backoff mysql_kill_uring_socket
[ "$LAST_DT" -le $((2 * poll_dt + 5)) ] && ok "mysql_kill_uring_socket: ${LAST_DT}s (poll: ${poll_dt}s)" ||
    fail "mysql_kill_uring_socket: ${LAST_DT}s, bound $((2 * poll_dt + 5))s (2 x the poll run's ${poll_dt}s + 5)"
# and over TCP
MY_TCP="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${SBT_MYSQL_PORT:?}"
MY_TCP="$MY_TCP --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest"
run_with mysql_kill_uring 0 my_kill_all $MY_TCP $OPTS --clients=16 --io=uring --time=8 oltp_read_write
no_backoff mysql_kill_uring
timeout 120 "$S" $MY $OPTS oltp_read_write cleanup >/dev/null 2>&1

finish
