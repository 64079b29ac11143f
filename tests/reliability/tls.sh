#!/bin/bash
# tls.sh: sbench over TLS against its own PostgreSQL and MariaDB.
#
# Generates with openssl, in a scratch directory, a throwaway CA, a second
# ("wrong") CA and a server certificate for CN 127.0.0.1 with SAN
# IP:127.0.0.1 and DNS:localhost signed by the first CA.  Starts a separate
# PostgreSQL (scripts/pg-server.sh, then ssl=on via ALTER SYSTEM + reload)
# and a separate MariaDB (scripts/mariadb-server.sh with --ssl-ca/cert/key
# in SBT_MYSQL_SERVER_ARGS), and checks:
#   pgsql  --pgsql-sslmode=verify-full with the right CA: oltp_point_select
#          prepare / run --events=50 / cleanup exit 0; a Lua workload sees
#          pg_stat_ssl.ssl = t for its own backend; sampled during a 3 s
#          run, the server sees 2-3 sbench sessions (2 threads + the
#          counters connection) with ssl in pg_stat_ssl, and none without;
#          verify-full with the wrong CA: exit 1, first stderr line names the
#          certificate failure;
#          sslmode=disable: the Lua workload sees ssl = f (the check can fail).
#   mysql  --mysql-ssl=REQUIRED / VERIFY_CA / VERIFY_IDENTITY with the right
#          CA: exit 0, Ssl_cipher of the session non-empty (Lua workload);
#          oltp_point_select prepare / run / cleanup with REQUIRED;
#          VERIFY_CA with the wrong CA: exit 1, message names the certificate;
#          REQUIRED against the shared non-TLS MariaDB: exit 1, message says
#          the connection has no TLS;
#          --mysql-ssl=off against the TLS server: Ssl_cipher empty.
#   pgsql  TLS on the fast path: oltp_insert and oltp_read_write under
#          verify-full, blocking, --clients on poll and io_uring, --pipeline:
#          rows added = inserts counted, every counted statement on the
#          wire fast path (the driver's count at --db-debug).
#   mysql  the same after SET GLOBAL require_secure_transport = ON (a
#          --mysql-ssl=off session is then refused) with REQUIRED:
#          blocking, --clients on poll and io_uring, blocking with a
#          --db-query-timeout; --mysql-wire=off: no statement on it.
#   both   then TLS-only (PostgreSQL: pg_hba hostnossl reject; MariaDB:
#          require_secure_transport): a session without TLS refused, and
#          every oltp_* workload with --clients=8 on io_uring, every query
#          sbench counted on the fast path.
# Both servers are stopped on exit (trap), whatever happens.
#
# Environment: SBT_BUILD, SBT_TMP, SBT_MYSQL_HOST/SBT_MYSQL_PORT (the shared
# non-TLS MariaDB), SBT_PGPASSWORD, SBT_MYSQL_PASSWORD; SBT_TLS_PGPORT
# [25433] and SBT_TLS_MYSQL_PORT [23307], the ports of the two TLS servers.
# Needs root (pg-server.sh runs PostgreSQL as user postgres).
. "$(dirname "$0")/lib.sh"
: "${SBT_PGPASSWORD:?}" "${SBT_MYSQL_PASSWORD:?}" "${SBT_MYSQL_PORT:?}"
command -v openssl >/dev/null || { echo "FAIL: openssl not found"; exit 1; }
PGP=${SBT_TLS_PGPORT:-25433}
MYP=${SBT_TLS_MYSQL_PORT:-23307}
PGDIR=$T/pg
MYDIR=$T/my
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$PGP" "$MYP"; do
    port_busy "$p" && { echo "FAIL: port $p is in use (set SBT_TLS_PGPORT / SBT_TLS_MYSQL_PORT)"; exit 1; }
done

tls_cleanup() {
    timeout 90 "$SRC/scripts/pg-server.sh" stop "$PGDIR" >/dev/null 2>&1
    timeout 150 "$SRC/scripts/mariadb-server.sh" stop "$MYDIR" >/dev/null 2>&1
    rel_cleanup
}
trap tls_cleanup EXIT

# --- certificates -------------------------------------------------------
C=$T/certs
mkdir -p "$C"
mkca() {
    openssl req -x509 -new -nodes -newkey rsa:2048 -days 2 -subj "/CN=$2" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        -keyout "$C/$1.key" -out "$C/$1.crt" >"$C/$1.log" 2>&1
}
printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature,keyEncipherment \
    extendedKeyUsage=serverAuth subjectAltName=IP:127.0.0.1,DNS:localhost >"$C/ext.cnf"
if mkca ca "sbench test CA" && mkca wrongca "sbench test CA" &&
    openssl req -new -nodes -newkey rsa:2048 -subj /CN=127.0.0.1 \
        -keyout "$C/server.key" -out "$C/server.csr" >"$C/csr.log" 2>&1 &&
    openssl x509 -req -in "$C/server.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" -CAcreateserial \
        -days 2 -extfile "$C/ext.cnf" -out "$C/server.crt" >"$C/x509.log" 2>&1 &&
    openssl verify -CAfile "$C/ca.crt" "$C/server.crt" >/dev/null 2>&1 &&
    ! openssl verify -CAfile "$C/wrongca.crt" "$C/server.crt" >/dev/null 2>&1; then
    ok "certificates: CA, wrong CA (same subject), server cert for 127.0.0.1/localhost"
else
    cat "$C"/*.log
    fail "generating certificates"; finish
fi
chmod 644 "$C"/*.crt

# --- servers ------------------------------------------------------------
if ! timeout 120 "$SRC/scripts/pg-server.sh" start "$PGDIR" "$PGP" >"$T/pgstart.log" 2>&1; then
    cat "$T/pgstart.log"; fail "starting the TLS PostgreSQL on port $PGP"; finish
fi
install -o postgres -m 600 "$C/server.key" "$PGDIR/server.key"
install -o postgres -m 644 "$C/server.crt" "$PGDIR/server.crt"
tpg_sql() {
    PGPASSWORD=$SBT_PGPASSWORD PGSSLMODE=${TPG_SSLMODE:-disable} timeout 20 psql -X -q -At -v ON_ERROR_STOP=1 \
        -h 127.0.0.1 -p "$PGP" -U sbtest -d "${DB:-sbtest}" "$@"
}
DB=postgres tpg_sql -c "ALTER SYSTEM SET ssl = on" \
    -c "ALTER SYSTEM SET ssl_cert_file = '$PGDIR/server.crt'" \
    -c "ALTER SYSTEM SET ssl_key_file = '$PGDIR/server.key'" -c "SELECT pg_reload_conf()" >/dev/null ||
    { fail "ALTER SYSTEM SET ssl"; finish; }
for _ in $(seq 50); do [ "$(tpg_sql -c 'SHOW ssl')" = on ] && break; sleep 0.1; done
if [ "$(tpg_sql -c 'SHOW ssl')" = on ]; then ok "PostgreSQL on port $PGP has ssl = on"
else tail -5 "$PGDIR/log"; fail "PostgreSQL did not turn ssl on"; finish; fi

if ! SBT_MYSQL_SERVER_ARGS="--ssl-ca=$C/ca.crt --ssl-cert=$C/server.crt --ssl-key=$C/server.key" \
    timeout 120 "$SRC/scripts/mariadb-server.sh" start "$MYDIR" "$MYP" >"$T/mystart.log" 2>&1; then
    cat "$T/mystart.log"; fail "starting the TLS MariaDB on port $MYP"; finish
fi
have_ssl=$(MYSQL_PWD=$SBT_MYSQL_PASSWORD timeout 20 mariadb --no-defaults -N -B \
    --socket="$MYDIR/mysqld.sock" -usbtest -e "SELECT @@have_ssl" 2>&1)
if [ "$have_ssl" = YES ]; then ok "MariaDB on port $MYP has have_ssl = YES"
else fail "MariaDB has have_ssl = '$have_ssl'"; finish; fi

# --- tiny workloads that report what their own session uses -------------
cat >"$T/pg_ssl.lua" <<'EOF'
-- fails the run unless this session's backend uses SSL (pg_stat_ssl)
function thread_init() con = sbench.sql.driver():connect() end
local said = false
function event()
  local ssl, ver = con:query_row("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
  if not said then print("SESSION ssl=" .. tostring(ssl) .. " version=" .. tostring(ver)); said = true end
  if ssl ~= "t" and ssl ~= true then error("this session is not encrypted (pg_stat_ssl.ssl=" .. tostring(ssl) .. ")") end
end
EOF
cat >"$T/my_ssl.lua" <<'EOF'
-- fails the run unless this session is encrypted (Ssl_cipher non-empty)
function thread_init() con = sbench.sql.driver():connect() end
local said = false
function event()
  local _, cipher = con:query_row("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
  if not said then print("SESSION cipher=" .. tostring(cipher)); said = true end
  if cipher == nil or cipher == "" then error("this session is not encrypted (Ssl_cipher empty)") end
end
EOF

TPG="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGP --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest"
TMY="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MYP --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest"
OLTP="--tables=1 --table-size=100"
# sb NAME ARGS...: runs sbench (at most 60 s) into $T/NAME.out / .err; sets rc
sb() {
    local name=$1; shift
    rc=0
    # shellcheck disable=SC2068
    timeout 60 "$S" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
}
show() { echo "--- $1 stdout (tail)"; tail -5 "$T/$1.out"; echo "--- $1 stderr"; head -5 "$T/$1.err"; }
first_err() { head -n 1 "$T/$1.err"; }

# --- PostgreSQL -----------------------------------------------------------
V="--pgsql-sslmode=verify-full --pgsql-sslrootcert=$C/ca.crt"
sb pg_prepare $TPG $V $OLTP oltp_point_select prepare
if [ $rc -eq 0 ]; then ok "pgsql verify-full: prepare"; else show pg_prepare; fail "pgsql verify-full: prepare exit $rc"; fi
sb pg_run $TPG $V $OLTP --events=50 --time=0 oltp_point_select run
n=$(rep "transactions" "$T/pg_run.out")
if [ $rc -eq 0 ] && [ "$n" = 50 ]; then ok "pgsql verify-full: run, 50 transactions"
else show pg_run; fail "pgsql verify-full: run exit $rc, transactions '$n'"; fi

# the connection figures split (driver ABI 1.7): a new connection per
# transaction; the TCP, TLS and authentication phases, one each per
# connection, add up to at most the connection time; the TLS phase is
# there exactly when the session has TLS (sslmode=disable: no tls entry)
phases_check() { # NAME TLS(yes|no): the JSON of run NAME
    python3 - "$T/$1.json" "$2" "$SRC/docs/report.schema.json" <<'PY'
import json, sys, jsonschema
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
jsonschema.validate(r, json.load(open(sys.argv[3])))
conn, ph = r["connection_time_ms"], r.get("connection_phases_ms", {})
want = ["tcp", "tls", "auth"] if sys.argv[2] == "yes" else ["tcp", "auth"]
assert sorted(ph) == sorted(want + ["first_query"]), "phases %s, want %s" % (sorted(ph), want)
# 40 events, each on a connection of its own (the 2 of thread_init are
# reopened before any statement): 40 first queries
assert ph["first_query"]["count"] == 40, "first_query: %d, want 40" % ph["first_query"]["count"]
assert ph["first_query"]["min"] > 0
for k in want:
    assert ph[k]["count"] == conn["count"], "%s: %d, connections %d" % (k, ph[k]["count"], conn["count"])
    assert ph[k]["min"] > 0, "%s: min %s %s" % (k, ph[k]["min"], ph)
total = sum(ph[k]["sum"] for k in want)
assert total <= conn["sum"] * 1.01, "phases %.3f ms > connection time %.3f ms" % (total, conn["sum"])
print("%d connections, %.3f ms in all: %s" % (conn["count"], conn["sum"],
      ", ".join("%s %.3f" % (k, ph[k]["sum"]) for k in want + ["first_query"])))
PY
}
# the first query's figure is the first statement's: an event whose first
# statement sleeps 30 ms and whose second does not (each connection's
# first is the sleep), against the same without the sleep first; 20
# events, 20 connections that ran statements (2 more opened at
# thread_init are reopened before any)
cat >"$T/first.lua" <<'EOF'
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query(os.getenv("FIRST_SQL"))
  con:query("SELECT 1")
end
EOF
first_check() { # NAME: first_query min (ms) and count, connections
    python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][-1]
f=r["connection_phases_ms"]["first_query"]; print("%.3f %d %d" % (f["min"], f["count"], r["connection_time_ms"]["count"]))' "$T/$1.json"
}
FIRST_SQL="SELECT pg_sleep(0.03)" sb pg_first_sleep $TPG $V --threads=2 --events=20 --time=0 --reconnect=transaction \
    --report-format=json --output="$T/pg_first_sleep.json" "$T/first.lua" run
read -r fmin fcount fconn <<<"$(first_check pg_first_sleep 2>/dev/null)"
if [ $rc -eq 0 ] && [ "${fcount:-0}" = 20 ] && [ "$fconn" = 22 ] && awk -v m="$fmin" 'BEGIN { exit !(m >= 30) }'; then
    ok "pgsql first query: the sleeping first statement, $fcount of $fconn connections, min ${fmin} ms >= 30"
else show pg_first_sleep; fail "pgsql first query with a 30 ms sleep first: exit $rc, min '$fmin', count '$fcount' of '$fconn' connections"; fi
FIRST_SQL="SELECT 2" sb pg_first_fast $TPG $V --threads=2 --events=20 --time=0 --reconnect=transaction \
    --report-format=json --output="$T/pg_first_fast.json" "$T/first.lua" run
read -r fmin fcount fconn <<<"$(first_check pg_first_fast 2>/dev/null)"
if [ $rc -eq 0 ] && [ "${fcount:-0}" = 20 ] && awk -v m="$fmin" 'BEGIN { exit !(m < 30) }'; then
    ok "pgsql first query: without the sleep, min ${fmin} ms < 30"
else show pg_first_fast; fail "pgsql first query without the sleep: exit $rc, min '$fmin', count '$fcount' of '$fconn'"; fi
sb pg_phases_tls $TPG $V $OLTP --threads=2 --events=40 --time=0 --reconnect=transaction \
    --report-format=json --output="$T/pg_phases_tls.json" oltp_point_select run
if [ $rc -eq 0 ] && m=$(phases_check pg_phases_tls yes 2>&1); then ok "pgsql verify-full, phases: $m"
else show pg_phases_tls; fail "pgsql verify-full, phases (exit $rc): $m"; fi
sb pg_phases_plain $TPG --pgsql-sslmode=disable $OLTP --threads=2 --events=40 --time=0 --reconnect=transaction \
    --report-format=json --output="$T/pg_phases_plain.json" oltp_point_select run
if [ $rc -eq 0 ] && m=$(phases_check pg_phases_plain no 2>&1); then ok "pgsql sslmode=disable, phases: $m"
else show pg_phases_plain; fail "pgsql sslmode=disable, phases (exit $rc): $m"; fi
sb pg_plain_text $TPG --pgsql-sslmode=disable $OLTP --events=10 --time=0 oltp_point_select run
grep -q "^    TLS handshake " "$T/pg_run.out" && ! grep -q "^    TLS handshake " "$T/pg_plain_text.out" &&
    grep -q "^    TCP connect " "$T/pg_plain_text.out" && ok "pgsql: the text report's TLS handshake line with TLS only" ||
    fail "pgsql text phases: $(grep -A3 '^Connection time' "$T/pg_run.out" "$T/pg_plain_text.out")"

sb pg_lua $TPG $V --events=20 --time=0 --threads=2 "$T/pg_ssl.lua" run
if [ $rc -eq 0 ] && grep -q '^SESSION ssl=t version=TLS' "$T/pg_lua.out" && [ "$(rep transactions "$T/pg_lua.out")" = 20 ]; then
    ok "pgsql verify-full: the session's own pg_stat_ssl row says ssl ($(grep -m1 '^SESSION' "$T/pg_lua.out"))"
else show pg_lua; fail "pgsql verify-full: pg_stat_ssl check (exit $rc)"; fi

# the same check must be able to fail: sslmode=disable
sb pg_lua_plain $TPG --pgsql-sslmode=disable --events=5 --time=0 "$T/pg_ssl.lua" run
if [ $rc -ne 0 ] && grep -q '^SESSION ssl=f' "$T/pg_lua_plain.out"; then
    ok "pgsql sslmode=disable: the same check sees ssl=f and fails the run (exit $rc)"
else show pg_lua_plain; fail "pgsql sslmode=disable: expected ssl=f and a failed run, exit $rc"; fi

# the server's view: sample pg_stat_ssl during a 3 s run with 2 threads
timeout 30 "$S" $TPG $V $OLTP --threads=2 --time=3 oltp_point_select run >"$T/pg_long.out" 2>"$T/pg_long.err" &
lp=$!
BG_PIDS="$BG_PIDS $lp"
seen_ssl=0 seen_plain=0
while kill -0 "$lp" 2>/dev/null; do
    r=$(tpg_sql -F ' ' -c "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl)
        FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'sbench'" 2>/dev/null)
    set -- $r
    [ "${1:-0}" -gt "$seen_ssl" ] && seen_ssl=$1
    [ "${2:-0}" -gt "$seen_plain" ] && seen_plain=$2
    sleep 0.2
done
lrc=0; wait "$lp" || lrc=$?
# 2 worker sessions, plus the connection that reads the server's counters
if [ $lrc -eq 0 ] && [ "$seen_ssl" -ge 2 ] && [ "$seen_ssl" -le 3 ] && [ "$seen_plain" -eq 0 ]; then
    ok "pgsql verify-full: the server saw $seen_ssl sbench sessions with ssl (2 threads + counters) and none without"
else show pg_long; fail "pgsql server view: exit $lrc, ssl sessions $seen_ssl (want 2-3), plain $seen_plain (want 0)"; fi

sb pg_wrong $TPG --pgsql-sslmode=verify-full --pgsql-sslrootcert="$C/wrongca.crt" $OLTP --events=50 --time=0 oltp_point_select run
if [ $rc -eq 1 ] && first_err pg_wrong | grep -q "certificate verify failed"; then
    ok "pgsql verify-full, wrong CA: exit 1: $(first_err pg_wrong | sed "s/.*failed: //" | cut -c1-200)"
else show pg_wrong; fail "pgsql verify-full, wrong CA: exit $rc (want 1), first stderr line '$(first_err pg_wrong)'"; fi
# the secret does not leak into the message
grep -q -- "$SBT_PGPASSWORD" "$T/pg_wrong.err" "$T/pg_wrong.out" && fail "pgsql wrong CA: the password appears in the output"

# TLS on the fast path: on an encrypted session the statements still go
# over sbench's wire path (through libpq's SSL session), on every I/O mode;
# each INSERT runs exactly once (rows added = inserts sbench counted) and
# the fast path carried them (its count, logged at --db-debug, covers
# every statement sbench counted)
# fast_path_modes DB COUNT_SQL_FN MODE...: oltp_insert (300 events) and
# oltp_read_write (100) in each I/O MODE against $DB's TLS server ("pg":
# $TPG $V, "my": $TMY $R): each INSERT ran exactly once (rows added, by
# COUNT_SQL_FN, = inserts counted) and the fast path carried every
# statement sbench counted (its count, logged at --db-debug)
fast_stmts() { grep -o '[0-9]* statements went over the wire protocol fast path' "$T/$1.err" | awk '{s += $1} END {print s + 0}'; }
fast_path_modes() {
    local db=$1 sql=$2 conn name tag mode before after w f q
    shift 2
    if [ "$db" = pg ]; then conn="$TPG $V"; name=pgsql; else conn="$TMY $R"; name=mysql; fi
    for mode in "$@"; do
        tag=$(echo "$mode" | tr -c 'a-z0-9' _)
        before=$($sql "SELECT count(*) FROM sbtest1")
        sb "${db}_fast_ins$tag" $conn $OLTP $mode --events=300 --time=0 --db-debug=on oltp_insert run
        after=$($sql "SELECT count(*) FROM sbtest1")
        w=$(awk '/^ *write:/ {print $2}' "$T/${db}_fast_ins$tag.out")
        f=$(fast_stmts "${db}_fast_ins$tag")
        if [ $rc -eq 0 ] && [ "$w" = 300 ] && [ $((after - before)) = 300 ] && [ "$f" -ge 300 ]; then
            ok "$name TLS fast path [$mode]: 300 inserts counted, 300 rows added, $f statements on the fast path"
        else show "${db}_fast_ins$tag"; fail "$name TLS fast path [$mode]: exit $rc, writes '$w', rows added $((after - before)), fast path $f"; fi
        sb "${db}_fast_rw$tag" $conn $OLTP $mode --events=100 --time=0 --db-debug=on oltp_read_write run
        q=$(awk '/^ *queries:/ {print $2}' "$T/${db}_fast_rw$tag.out")
        f=$(fast_stmts "${db}_fast_rw$tag")
        if [ $rc -eq 0 ] && [ -n "$q" ] && [ "$f" -ge "$q" ]; then
            ok "$name TLS fast path [$mode]: oltp_read_write, $q queries, $f on the fast path"
        else show "${db}_fast_rw$tag"; fail "$name TLS fast path [$mode]: read_write exit $rc, queries '$q', fast path $f"; fi
    done
}
# every_oltp DB: every oltp_* workload (60 events) with --clients=8 on
# io_uring against DB's TLS server: exit 0 and every query sbench counted
# on the fast path
every_oltp() {
    local db=$1 conn name wl q f bad=""
    if [ "$db" = pg ]; then conn="$TPG $V"; name=pgsql; else conn="$TMY $R"; name=mysql; fi
    for wl in oltp_point_select oltp_read_only oltp_read_write oltp_write_only oltp_update_index \
        oltp_update_non_index oltp_delete oltp_insert; do
        sb "${db}_every_$wl" $conn $OLTP --threads=2 --clients=8 --io=uring --events=60 --time=0 --db-debug=on $wl run
        q=$(awk '/^ *queries:/ {print $2}' "$T/${db}_every_$wl.out")
        f=$(fast_stmts "${db}_every_$wl")
        if [ $rc -ne 0 ] || [ -z "$q" ] || [ "$f" -lt "$q" ]; then
            show "${db}_every_$wl"; bad="$bad $wl(exit $rc, queries '$q', fast $f)"
        fi
    done
    if [ -z "$bad" ]; then ok "$name TLS: every oltp_* workload with --clients=8 on io_uring, every query on the fast path"
    else fail "$name TLS, --clients=8 --io=uring:$bad"; fi
}
pg_count() { tpg_sql -c "$1"; }
fast_path_modes pg pg_count "--threads=1" "--threads=2 --clients=8 --io=poll" "--threads=2 --clients=8 --io=uring" "--threads=1 --pipeline=8"
# from here the server is TLS-only (pg_hba: hostnossl ... reject), as a
# managed PostgreSQL is: a session without TLS is refused
sed -i '1i hostnossl all all all reject' "$PGDIR/data/pg_hba.conf"
tpg_sql -c "SELECT pg_reload_conf()" >/dev/null
TPG_SSLMODE=require
sb pg_insecure $TPG --pgsql-sslmode=disable $OLTP --events=5 --time=0 oltp_point_select run
if [ $rc -eq 1 ] && first_err pg_insecure | grep -q "no encryption"; then
    ok "pgsql TLS-only (hostnossl reject): a session without TLS is refused: $(first_err pg_insecure | sed 's/.*FATAL: *//' | cut -c1-120)"
else show pg_insecure; fail "pgsql TLS-only: --pgsql-sslmode=disable exit $rc (want 1, refused)"; fi
every_oltp pg

sb pg_cleanup $TPG $V $OLTP oltp_point_select cleanup
if [ $rc -eq 0 ] && [ "$(tpg_sql -c "SELECT count(*) FROM pg_tables WHERE tablename = 'sbtest1'")" = 0 ]; then
    ok "pgsql verify-full: cleanup"
else show pg_cleanup; fail "pgsql verify-full: cleanup exit $rc"; fi

# --- MariaDB ------------------------------------------------------------
for m in REQUIRED VERIFY_CA VERIFY_IDENTITY; do
    sb my_lua_$m $TMY --mysql-ssl=$m --mysql-ssl-ca="$C/ca.crt" --events=20 --time=0 --threads=2 "$T/my_ssl.lua" run
    c=$(sed -n 's/^SESSION cipher=//p' "$T/my_lua_$m.out" | head -n 1)
    if [ $rc -eq 0 ] && [ -n "$c" ] && [ "$c" != nil ] && [ "$(rep transactions "$T/my_lua_$m.out")" = 20 ]; then
        ok "mysql --mysql-ssl=$m, right CA: session cipher $c"
    else show my_lua_$m; fail "mysql --mysql-ssl=$m, right CA: exit $rc, cipher '$c'"; fi
done

sb my_lua_off $TMY --mysql-ssl=off --events=5 --time=0 "$T/my_ssl.lua" run
if [ $rc -ne 0 ] && grep -q '^SESSION cipher=$' "$T/my_lua_off.out"; then
    ok "mysql --mysql-ssl=off: the same check sees no cipher and fails the run (exit $rc)"
else show my_lua_off; fail "mysql --mysql-ssl=off: expected an empty cipher and a failed run, exit $rc"; fi

R="--mysql-ssl=REQUIRED --mysql-ssl-ca=$C/ca.crt"
sb my_prepare $TMY $R $OLTP oltp_point_select prepare
if [ $rc -eq 0 ]; then ok "mysql REQUIRED: prepare"; else show my_prepare; fail "mysql REQUIRED: prepare exit $rc"; fi
sb my_run $TMY $R $OLTP --events=50 --time=0 oltp_point_select run
n=$(rep "transactions" "$T/my_run.out")
if [ $rc -eq 0 ] && [ "$n" = 50 ]; then ok "mysql REQUIRED: run, 50 transactions"
else show my_run; fail "mysql REQUIRED: run exit $rc, transactions '$n'"; fi
# MySQL: Connector/C shows the TCP connect and the rest (its TLS
# handshake is inside auth: no tls entry), a pair per connection
sb my_phases $TMY $R $OLTP --threads=2 --events=40 --time=0 --reconnect=transaction \
    --report-format=json --output="$T/my_phases.json" oltp_point_select run
if [ $rc -eq 0 ] && m=$(phases_check my_phases no 2>&1); then ok "mysql REQUIRED, phases: $m"
else show my_phases; fail "mysql REQUIRED, phases (exit $rc): $m"; fi

# TLS on the fast path with require_secure_transport=ON: a plain TCP
# session is refused, and on the encrypted ones the statements still go
# over sbench's wire path (through Connector/C's OpenSSL session), on
# every I/O mode; each INSERT runs exactly once (rows added = inserts
# counted) and the fast path carried every statement sbench counted
tmy_sql() {
    MYSQL_PWD=$SBT_MYSQL_PASSWORD timeout 20 mariadb --no-defaults -N -B \
        --socket="$MYDIR/mysqld.sock" -usbtest sbtest -e "$1"
}
tmy_sql "SET GLOBAL require_secure_transport = ON" || fail "SET GLOBAL require_secure_transport = ON"
sb my_insecure $TMY --mysql-ssl=off $OLTP --events=5 --time=0 oltp_point_select run
# (MariaDB 10.11 refuses it as "Access denied"; the same login without
# TLS connected above, in my_lua_off, before the setting)
rst=$(tmy_sql "SELECT @@global.require_secure_transport")
if [ "$rst" = 1 ] && [ $rc -eq 1 ] && first_err my_insecure | grep -Eqi "insecure transport|access denied"; then
    ok "mysql require_secure_transport=ON: a session without TLS is refused: $(first_err my_insecure | sed 's/.*sbtest: //' | cut -c1-120)"
else show my_insecure; fail "mysql require_secure_transport='$rst': --mysql-ssl=off exit $rc (want 1, refused)"; fi
fast_path_modes my tmy_sql "--threads=1" "--threads=2 --clients=8 --io=poll" "--threads=2 --clients=8 --io=uring" "--threads=1 --db-query-timeout=30"
every_oltp my
# the same count must be able to fail: --mysql-wire=off puts no statement
# on the fast path
sb my_fast_off $TMY $R $OLTP --events=20 --time=0 --db-debug=on --mysql-wire=off oltp_insert run
f=$(fast_stmts my_fast_off)
if [ $rc -eq 0 ] && [ "$f" = 0 ]; then ok "mysql TLS, --mysql-wire=off: no statement on the fast path"
else show my_fast_off; fail "mysql TLS, --mysql-wire=off: exit $rc, fast path $f (want 0)"; fi

sb my_cleanup $TMY $R $OLTP oltp_point_select cleanup
if [ $rc -eq 0 ]; then ok "mysql REQUIRED: cleanup"; else show my_cleanup; fail "mysql REQUIRED: cleanup exit $rc"; fi

sb my_wrong $TMY --mysql-ssl=VERIFY_CA --mysql-ssl-ca="$C/wrongca.crt" $OLTP --events=50 --time=0 oltp_point_select run
if [ $rc -eq 1 ] && first_err my_wrong | grep -qi "certificate"; then
    ok "mysql VERIFY_CA, wrong CA: exit 1: $(first_err my_wrong | sed "s/.*failed: //" | cut -c1-200)"
else show my_wrong; fail "mysql VERIFY_CA, wrong CA: exit $rc (want 1), first stderr line '$(first_err my_wrong)'"; fi
grep -q -- "$SBT_MYSQL_PASSWORD" "$T/my_wrong.err" "$T/my_wrong.out" && fail "mysql wrong CA: the password appears in the output"

# REQUIRED against the shared MariaDB, which has no TLS
sb my_notls --db-driver=mysql --mysql-host="${SBT_MYSQL_HOST:-127.0.0.1}" --mysql-port="$SBT_MYSQL_PORT" \
    --mysql-user=sbtest --mysql-password="$SBT_MYSQL_PASSWORD" --mysql-db=sbtest \
    --mysql-ssl=REQUIRED $OLTP --events=50 --time=0 oltp_point_select run
if [ $rc -eq 1 ] && first_err my_notls | grep -q "without TLS"; then
    ok "mysql REQUIRED against the non-TLS server: exit 1: $(first_err my_notls | sed "s/.*failed: //" | cut -c1-200)"
else show my_notls; fail "mysql REQUIRED against the non-TLS server: exit $rc (want 1), first stderr line '$(first_err my_notls)'"; fi

finish
