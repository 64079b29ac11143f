#!/bin/bash
# pgbouncer.sh: a connection per transaction (--reconnect=transaction),
# straight to the shared PostgreSQL and through a PgBouncer in front of it
# (scripts/pgbouncer-server.sh, transaction pooling, default_pool_size 20).
# For each: oltp_point_select run --threads=2 --events=200 exits 0 with 200
# transactions; the report's "Connection time" line counts 200 + 2
# connections (one per thread at start, one after each transaction); the
# server's own session counter (pg_stat_database.sessions of sbtest, read
# from database postgres after the stats flush) grows by exactly 202 for
# the direct run, and by at most pool size + threads through PgBouncer.
# Each run's TCP connect / authentication / first query lines count 202 /
# 202 / 200; their averages are printed, what the pooler saves.
# Then examples/pgbouncer.sh with small settings prints two "tps =" lines.
#
# Environment: SBT_BUILD, SBT_TMP, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD;
# SBT_PGBOUNCER_PORT [26432].  Needs root (PgBouncer runs as postgres).
. "$(dirname "$0")/../reliability/lib.sh"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
command -v pgbouncer >/dev/null || { echo "FAIL: pgbouncer not found"; exit 1; }
BP=${SBT_PGBOUNCER_PORT:-26432}
POOL=20 THREADS=2 EVENTS=200
(exec 3<>"/dev/tcp/127.0.0.1/$BP") 2>/dev/null &&
    { echo "FAIL: port $BP is in use (set SBT_PGBOUNCER_PORT)"; exit 1; }
BDIR=$T/bouncer
pgb_cleanup() {
    timeout 20 "$SRC/scripts/pgbouncer-server.sh" stop "$BDIR" >/dev/null 2>&1
    # the stop script sends SIGTERM once; make sure it is gone
    if [ -f "$BDIR/pgbouncer.pid" ]; then
        p=$(cat "$BDIR/pgbouncer.pid")
        for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    fi
    timeout 60 "$S" $(pg_args) --tables=1 oltp_point_select cleanup >/dev/null 2>&1
    rel_cleanup
}
trap pgb_cleanup EXIT

if ! timeout 30 "$SRC/scripts/pgbouncer-server.sh" start "$BDIR" "$BP" "$SBT_PGHOST" "$SBT_PGPORT" >"$T/bstart.log" 2>&1; then
    cat "$T/bstart.log"; fail "starting PgBouncer on port $BP"; finish
fi
grep -q "default_pool_size = $POOL" "$BDIR/pgbouncer.ini" || fail "PgBouncer's pool size is not $POOL"
ok "PgBouncer on 127.0.0.1:$BP -> $SBT_PGHOST:$SBT_PGPORT"

# sessions of database sbtest, as the server counts them (from database postgres)
sessions() {
    PGPASSWORD=$SBT_PGPASSWORD timeout 20 psql -X -q -At -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d postgres \
        -c "SELECT sessions FROM pg_stat_database WHERE datname = 'sbtest'"
}
# phase_p50 FILE LABEL: the avg (ms) of a connection phase's line;
# phase_count FILE LABEL: its count
phase_p50() { sed -n "s/^    $2  *[0-9][0-9]*  min [0-9.]*, avg \([0-9.]*\),.*/\1/p" "$1" | head -n 1; }
phase_count() { sed -n "s/^    $2  *\([0-9][0-9]*\)  min .*/\1/p" "$1" | head -n 1; }
conn_count() { sed -n 's/^Connection time (ms): \([0-9][0-9]*\) connections.*/\1/p' "$1"; }

timeout 120 "$S" $(pg_args) --tables=1 --table-size=1000 oltp_point_select prepare --force >"$T/prepare.out" 2>&1 ||
    { cat "$T/prepare.out"; fail "prepare"; finish; }

RUN="--tables=1 --table-size=1000 --reconnect=transaction --db-ps-mode=disable --db-server-counters=off
     --threads=$THREADS --events=$EVENTS --time=0"
for target in direct:"$SBT_PGPORT" pgbouncer:"$BP"; do
    name=${target%%:*} port=${target#*:}
    sleep 1.5   # let earlier sessions' statistics reach pg_stat_database
    s0=$(sessions)
    rc=0
    timeout 120 "$S" --db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$port" --pgsql-user=sbtest \
        --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest $RUN oltp_point_select run \
        >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    sleep 1.5
    s1=$(sessions)
    d=$((s1 - s0))
    n=$(rep transactions "$T/$name.out")
    c=$(conn_count "$T/$name.out")
    if [ $rc -eq 0 ] && [ "$n" = $EVENTS ]; then ok "$name: exit 0, $n transactions"
    else tail -5 "$T/$name.out"; cat "$T/$name.err"; fail "$name: exit $rc, transactions '$n' (want $EVENTS)"; fi
    if [ -n "$c" ] && [ "$c" -eq $((EVENTS + THREADS)) ]; then
        ok "$name: Connection time line counts $c connections ($EVENTS + $THREADS)"
    else grep '^Connection time' "$T/$name.out"; fail "$name: Connection time line counts '$c' connections (want $((EVENTS + THREADS)))"; fi
    # the connection phases, through the pooler too: one TCP connect and
    # one authentication per connection, one first query per transaction
    pc=$(phase_count "$T/$name.out" "TCP connect")/$(phase_count "$T/$name.out" authentication)/$(phase_count "$T/$name.out" "first query")
    [ "$pc" = "$((EVENTS + THREADS))/$((EVENTS + THREADS))/$EVENTS" ] &&
        ok "$name: TCP connect / authentication / first query lines count $pc" ||
        fail "$name: TCP connect / authentication / first query lines count '$pc' (want $((EVENTS + THREADS))/$((EVENTS + THREADS))/$EVENTS)"
    # their averages, for what the pooler saves
    eval "${name}_auth=\$(phase_p50 \"\$T/\$name.out\" authentication) ${name}_first=\$(phase_p50 \"\$T/\$name.out\" 'first query')"
    case $name in
    direct)
        if [ "$d" -eq $((EVENTS + THREADS)) ]; then
            ok "direct: the server counted $d new sessions ($EVENTS + $THREADS)"
        else fail "direct: the server counted $d new sessions (want $((EVENTS + THREADS)))"; fi ;;
    pgbouncer)
        if [ "$d" -ge 0 ] && [ "$d" -le $((POOL + THREADS)) ]; then
            ok "pgbouncer: the server counted $d new sessions (<= pool $POOL + $THREADS threads) for $c client connections"
        else fail "pgbouncer: the server counted $d new sessions (want <= $((POOL + THREADS)))"; fi ;;
    esac
done

# what the pooler saves: through PgBouncer a connection's authentication
# is PgBouncer's own (no server backend starts: the session counts above),
# and its first query runs on a server session already warm.  Printed, not
# compared: with scram-sha-256 on both, the PBKDF2 rounds dominate both
# authentications (measured here: 11.7 ms direct, 12.2 ms through
# PgBouncer; first query 1.65 against 1.26 ms, min 0.73 against 0.06)
echo "authentication avg: direct ${direct_auth:-?} ms, pgbouncer ${pgbouncer_auth:-?} ms;" \
     "first query avg: direct ${direct_first:-?} ms, pgbouncer ${pgbouncer_first:-?} ms"
grep -A5 '^Connection time' "$T/direct.out" "$T/pgbouncer.out"

# examples/pgbouncer.sh, small: 2 threads for 2 s each way
rc=0
(cd "$T" && PGHOST=$SBT_PGHOST PGPORT=$SBT_PGPORT BOUNCER_PORT=$BP PGPASSWORD=$SBT_PGPASSWORD SBENCH=$S \
    RUN="--threads=2 --time=2" timeout 120 sh "$SRC/examples/pgbouncer.sh" --pgsql-user=sbtest --pgsql-db=sbtest \
    >"$T/example.out" 2>"$T/example.err") || rc=$?
ntps=$(grep -c 'tps = [0-9][0-9.]* ' "$T/example.out")
if [ $rc -eq 0 ] && [ "$ntps" -eq 2 ] && grep -q '^direct .*tps = ' "$T/example.out" &&
    grep -q '^pgbouncer .*tps = ' "$T/example.out"; then
    ok "examples/pgbouncer.sh: $(grep 'tps =' "$T/example.out" | sed 's/ (including.*//' | tr -s ' ' | paste -sd ';')"
else cat "$T/example.out" "$T/example.err"; fail "examples/pgbouncer.sh: exit $rc, $ntps 'tps =' lines (want 2)"; fi

finish
