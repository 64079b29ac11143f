#!/usr/bin/env bash
# bench/soak.sh: a long run under trouble, for leaks and lost events (not
# a test: tests/reliability/soak_short.sh runs a 2-minute version of it).
# oltp_read_write (bench/soak.lua: the same events plus one counter update
# in each transaction) with --clients on PostgreSQL and MariaDB at once,
# while, at random moments every 15-45 s, every sbtest backend of one
# server is killed, or PostgreSQL is restarted (pg_ctl restart -m fast).
# Every 10 s it samples each sbench's RSS and open file descriptors.  At the
# end, one table row per server:
#   minutes, events, reconnects (sbench's), RSS after the first minute and
#   at the end, RSS growth per hour (least squares over the samples after
#   the first minute), fds after the first minute and at the end, and
#   "events lost": events sbench counted as done that the server did not
#   commit (the server's own count: the sum of soak_events.n), which must
#   be 0; the server may hold a few more (commits whose answer died with
#   the connection), never more than sbench's reconnects.
# Exit status 1 when events were lost, fds grew, or the RSS grew more than
# SOAK_MAX_RSS_MB (default 64) between the first minute and the end.
#
# Usage: bench/soak.sh [MINUTES]   (default 30)
# Servers: those of the test suite when SBT_PGPORT is set (scripts/test.sh
# exports SBT_*; the PostgreSQL restart then uses $SBT_PGSOCKET/data),
# else its own PostgreSQL and MariaDB in a temporary directory
# (PG_PORT/MY_PORT, default 25532/23406).  sbench: $SBT_BUILD/cli/sbench
# when set, else a release build in bench/build-release.
# Environment: SOAK_CLIENTS (default 32), SOAK_THREADS (2), SOAK_MAX_RSS_MB.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
MINUTES=${1:-30}
CLIENTS=${SOAK_CLIENTS:-32}
THREADS=${SOAK_THREADS:-2}
MAX_RSS_MB=${SOAK_MAX_RSS_MB:-64}
need psql mariadb python3
case $MINUTES in '' | *[!0-9]*) die "MINUTES must be a whole number" ;; esac
[ "$MINUTES" -ge 2 ] || die "MINUTES must be 2 or more (the first minute is the baseline)"

make_tmp
trap 'kill $(jobs -p) 2>/dev/null || true; stop_servers' EXIT
if [ -n "${SBT_PGPORT:-}" ]; then
    PG_PORT=$SBT_PGPORT
    PGDATA_DIR=$SBT_PGSOCKET/data
    PGLOG=$SBT_PGSOCKET/log
    MYCONN="--mysql-socket=$SBT_MYSQL_SOCKET"
    MYSQLCLI="--socket=$SBT_MYSQL_SOCKET"
else
    PG_PORT=$(pick_port PG_PORT "${PG_PORT:-25532}" 0)
    MY_PORT=$(pick_port MY_PORT "${MY_PORT:-23406}" 0)
    start_pg
    start_my
    PGDATA_DIR=$TMPD/pg/data
    PGLOG=$TMPD/pg/log
    MYCONN="--mysql-host=127.0.0.1 --mysql-port=$MY_PORT"
    MYSQLCLI="--host=127.0.0.1 --port=$MY_PORT"
fi
if [ -n "${SBT_BUILD:-}" ]; then SBENCH=$SBT_BUILD/cli/sbench; else build_sbench; fi
[ -x "$SBENCH" ] || die "no sbench at $SBENCH"
PGC="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PG_PORT --pgsql-user=sbtest --pgsql-password=$PGPW --pgsql-db=sbtest"
MYC="--db-driver=mysql $MYCONN --mysql-user=sbtest --mysql-password=$MYPW --mysql-db=sbtest"
pg_sql() { PGPASSWORD=$PGPW timeout 30 psql -X -q -At -h 127.0.0.1 -p "$PG_PORT" -U sbtest -d sbtest "$@"; }
my_sql() { MYSQL_PWD=$MYPW timeout 30 mariadb --no-defaults -N -B $MYSQLCLI -usbtest sbtest "$@"; }
pg_bin() { local d; d=$(pg_config --bindir 2>/dev/null || true); [ -x "$d/pg_ctl" ] || d=$(ls -d /usr/lib/postgresql/*/bin | tail -n1); echo "$d"; }

OPTS="--tables=2 --table-size=10000 --workload-path=$ROOT/workloads:$ROOT/bench"
for db in pg my; do
    conn=$PGC; [ $db = my ] && conn=$MYC
    timeout 120 "$SBENCH" $conn $OPTS soak cleanup >/dev/null 2>&1 || true
    timeout 300 "$SBENCH" $conn $OPTS soak prepare >"$TMPD/$db.prepare" 2>&1 ||
        { cat "$TMPD/$db.prepare"; die "prepare on $db failed"; }
done
ids=$(python3 -c "print(','.join('(%d,0)' % i for i in range($CLIENTS)))")
pg_sql -c "DROP TABLE IF EXISTS soak_events; CREATE TABLE soak_events (id int PRIMARY KEY, n bigint NOT NULL); INSERT INTO soak_events VALUES $ids"
my_sql -e "DROP TABLE IF EXISTS soak_events; CREATE TABLE soak_events (id int PRIMARY KEY, n bigint NOT NULL) ENGINE=InnoDB; INSERT INTO soak_events VALUES $ids"

secs=$((MINUTES * 60))
log "soak: $MINUTES min, --clients=$CLIENTS --threads=$THREADS on PostgreSQL and MariaDB"
for db in pg my; do
    conn=$PGC; [ $db = my ] && conn=$MYC
    "$SBENCH" $conn $OPTS --clients="$CLIENTS" --threads="$THREADS" --time="$secs" \
        --report-format=json --output="$TMPD/$db.json" --db-query-timeout=30 soak run \
        >"$TMPD/$db.out" 2>"$TMPD/$db.err" </dev/null &
    echo $! >"$TMPD/$db.pid"
done

# trouble at random moments
(
    end=$((SECONDS + secs - 20))
    while [ $SECONDS -lt $end ]; do
        sleep $((15 + RANDOM % 31))
        [ $SECONDS -lt $end ] || break
        case $((RANDOM % 5)) in
        0 | 1) pg_sql -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname='sbtest' AND usename='sbtest' AND pid<>pg_backend_pid()" >/dev/null 2>&1
               echo "$SECONDS kill-pg" ;;
        2 | 3) for id in $(my_sql -e "SELECT id FROM information_schema.processlist WHERE user='sbtest' AND db='sbtest' AND id<>CONNECTION_ID()" 2>/dev/null); do
                   my_sql -e "KILL CONNECTION $id" >/dev/null 2>&1 || true
               done
               echo "$SECONDS kill-my" ;;
        4) (cd "$(dirname "$PGDATA_DIR")" && timeout 90 runuser -u postgres -- "$(pg_bin)/pg_ctl" \
               -D "$PGDATA_DIR" -l "$PGLOG" -m fast -w -t 60 restart) >/dev/null 2>&1
           echo "$SECONDS restart-pg" ;;
        esac
    done
) >"$TMPD/trouble.log" 2>&1 &

# samples: t, rss_kb, fds per sbench
: >"$TMPD/pg.samples"
: >"$TMPD/my.samples"
t0=$SECONDS
while kill -0 "$(cat "$TMPD/pg.pid")" 2>/dev/null || kill -0 "$(cat "$TMPD/my.pid")" 2>/dev/null; do
    for db in pg my; do
        p=$(cat "$TMPD/$db.pid")
        rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
        fds=$( (ls "/proc/$p/fd" 2>/dev/null || true) | wc -l)
        [ -n "$rss" ] && echo "$((SECONDS - t0)) $rss $fds" >>"$TMPD/$db.samples"
    done
    sleep 10
done
rcs=""
for db in pg my; do
    wait "$(cat "$TMPD/$db.pid")" && rc=0 || rc=$?
    rcs="$rcs $db=$rc"
done
pg_n=$(pg_sql -c "SELECT coalesce(sum(n),0) FROM soak_events" || echo -1)
my_n=$(my_sql -e "SELECT coalesce(sum(n),0) FROM soak_events" || echo -1)
log "sbench exit statuses:$rcs; trouble: $(tr '\n' ' ' <"$TMPD/trouble.log")"

python3 - "$TMPD" "$pg_n" "$my_n" "$MAX_RSS_MB" <<'PY'
import json, sys
tmp, pg_n, my_n, max_mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
bad = []
print("| server | minutes | events | reconnects | RSS at 1 min (MB) | RSS at end (MB) | RSS growth (MB/h) | fds at 1 min | fds at end | server-counted | events lost |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for db, name, srv in (("pg", "PostgreSQL", pg_n), ("my", "MariaDB", my_n)):
    try:
        final = [json.loads(l) for l in open(f"{tmp}/{db}.json") if l.strip()][-1]
    except Exception as e:
        bad.append(f"{name}: no final report ({e})")
        print(open(f"{tmp}/{db}.err").read()[-2000:], file=sys.stderr)
        continue
    s = [tuple(map(int, l.split())) for l in open(f"{tmp}/{db}.samples") if l.strip()]
    base = [x for x in s if x[0] >= 60] or s
    t = [x[0] / 3600 for x in base]
    r = [x[1] / 1024 for x in base]
    n = len(t)
    mt, mr = sum(t) / n, sum(r) / n
    var = sum((a - mt) ** 2 for a in t)
    slope = sum((a - mt) * (b - mr) for a, b in zip(t, r)) / var if var > 0 else 0.0
    fd0 = max(x[2] for x in base[:3])
    fd1 = min(x[2] for x in base[-3:])
    events = final.get("transactions", 0)
    rec = final.get("reconnects", 0)
    lost = max(0, events - srv)
    print(f"| {name} | {final.get('seconds', 0) / 60:.1f} | {events} | {rec} | {r[0]:.1f} | {r[-1]:.1f} "
          f"| {slope:.1f} | {fd0} | {fd1} | {srv} | {lost} |")
    if srv < 0:
        bad.append(f"{name}: the server's count could not be read")
    if lost:
        bad.append(f"{name}: {lost} events counted by sbench but not committed")
    if srv - events > rec:
        bad.append(f"{name}: the server committed {srv - events} events more than sbench counted, "
                   f"more than its {rec} reconnects explain")
    if fd1 > fd0:
        bad.append(f"{name}: open fds grew from {fd0} to {fd1}")
    if r[-1] - r[0] > max_mb:
        bad.append(f"{name}: RSS grew {r[-1] - r[0]:.1f} MB (bound {max_mb:g} MB)")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
