#!/bin/bash
# server_restart.sh: the server's counters cross-check when the counters
# start again from zero during a run (core/server_stats.c).  Each server is
# first restarted before the run, so that its counters start near 0 and the
# counts after the mid-run restart end ABOVE those read before the run: a
# difference that looks plausible (the bug: "commits: 2374 (sbench counted
# 4486)"), which only the counters' origin (PostgreSQL's stats_reset of
# pg_stat_bgwriter and pg_stat_database, MariaDB's Uptime) tells apart.  The test checks that the
# server's own counter did end above the pre-run value (so that rule is
# what is tested), and:
#   - PostgreSQL restarted with pg_ctl -m immediate at 2 s of a JSON run:
#     "server":{"reset":true, every count null}, one stderr line, every
#     line valid against docs/report.schema.json, no negative number;
#   - PostgreSQL pg_stat_reset() at 2 s of a text run: the section says
#     "unknown" and prints no count;
#   - MariaDB stopped and started again (scripts/mariadb-server.sh) at 2 s
#     of a JSON run: as for PostgreSQL;
#   - no reset (every sbtest backend killed at 2 s, the counters'
#     connection too, on both; PostgreSQL restarted with -m fast, which
#     keeps its counters): no "reset", the counts given, and the server's
#     commits at least sbench's transactions and at most that plus what
#     the reconnects and connections add (bounds below).
# Needs the servers of scripts/test.sh (SBT_PG*, SBT_MYSQL_*), root and
# SBT_PGSOCKET/data (pg_ctl), like kill_backends.sh.
source "$(dirname "$0")/lib.sh"
PG=$(pg_args)
MY=$(my_args)
OPTS="--tables=1 --table-size=2000 --threads=2"
SCHEMA=$SRC/docs/report.schema.json
MYDIR=$(dirname "${SBT_MYSQL_SOCKET:?}")

[ "$(id -u)" = 0 ] && [ -f "${SBT_PGSOCKET:-/nonexistent}/data/PG_VERSION" ] ||
    { fail "needs root and SBT_PGSOCKET with data/ (scripts/pg-server.sh)"; finish; }

wait_pg() { for _ in $(seq 60); do pg_sql -c 'SELECT 1' >/dev/null 2>&1 && return 0; sleep 1; done; return 1; }
wait_my() { for _ in $(seq 60); do my_sql -e 'SELECT 1' >/dev/null 2>&1 && return 0; sleep 1; done; return 1; }
pg_ctl_restart() {
    (cd "$SBT_PGSOCKET" && timeout 60 runuser -u postgres -- "$(pg_bindir)/pg_ctl" \
        -D "$SBT_PGSOCKET/data" -l "$SBT_PGSOCKET/log" -m "$1" -w -t 50 restart) >/dev/null 2>&1 ||
        echo "server_restart: pg_ctl restart -m $1 failed" >&2
}
pg_restart() { pg_ctl_restart immediate; }
pg_fast() { pg_ctl_restart fast; }
pg_reset() { pg_sql -c 'SELECT pg_stat_reset()' >/dev/null; }
pg_kill() {
    pg_sql -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
               WHERE datname='sbtest' AND pid<>pg_backend_pid()" >/dev/null
}
my_restart() {
    timeout 120 "$SRC/scripts/mariadb-server.sh" stop "$MYDIR" >/dev/null 2>&1
    timeout 120 "$SRC/scripts/mariadb-server.sh" start "$MYDIR" "${SBT_MYSQL_PORT:?}" >/dev/null 2>&1 ||
        echo "server_restart: mariadb-server.sh start failed" >&2
}
my_kill() {
    local id
    for id in $(my_sql -e "SELECT id FROM information_schema.processlist
                           WHERE user='sbtest' AND db='sbtest' AND id<>CONNECTION_ID()"); do
        my_sql -e "KILL CONNECTION $id" 2>/dev/null
    done
}
pg_commits() { pg_sql -c "SELECT xact_commit FROM pg_stat_database WHERE datname='sbtest'"; }
my_commits() { my_sql -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | cut -f2; }

# run NAME FN SBENCH_ARGS...: sbench run with FN called at 2 s; the
# status must be 0 and the run reconnected (when FN broke connections)
run() {
    local name=$1 fn=$2; shift 2
    ( sleep 2; $fn ) &
    local bg=$!
    BG_PIDS="$BG_PIDS $bg"
    timeout -k 5 120 "$S" "$@" run >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$?
    wait "$bg"
    [ "$rc" -eq 0 ] || { fail "$name: status $rc: $(tail -n 3 "$T/$name.err" | tr '\n' '|')"; return 1; }
}

# check_json NAME RESET(1|0) DRIVER [PER_CONNECTION]: the JSON lines
# against the schema and the rules above
check_json() {
    python3 - "$SCHEMA" "$T/$1.out" "$2" "$3" "${4:-0}" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
recs = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
errs = [f"line {i + 1}: {e.message}" for i, r in enumerate(recs) for e in v.iter_errors(r)]
def neg(x):
    if isinstance(x, dict): return any(neg(y) for y in x.values())
    if isinstance(x, list): return any(neg(y) for y in x)
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x < 0
errs += ["a negative number"] if neg(recs) else []
fin = recs[-1] if recs else {}
srv = fin.get("server", {})
counts = [srv.get(k) for k in ("commits", "rollbacks", "selects", "inserts", "updates", "deletes", "statements")]
if fin.get("type") != "final":
    errs.append("no final line")
elif sys.argv[3] == "1":
    if srv.get("reset") is not True or any(c is not None for c in counts):
        errs.append(f"server: {srv}, expected reset and every count null")
elif "reset" in srv or not isinstance(srv.get("commits"), int):
    errs.append(f"server: {srv}, expected the counts and no reset")
else:
    # every transaction sbench counted committed on the server; above it:
    # a COMMIT whose answer the kill lost, one per reconnect at most, and
    # on PostgreSQL (every transaction counts) what each connection adds
    # (its statement preparations), measured by a run without kills
    # (argv[5]), plus the counters' connection opened again (< 5)
    t, n, r = fin["transactions"], fin["connection_time_ms"]["count"], fin["reconnects"]
    top = t + r if sys.argv[4] == "mysql" else t + r + int(sys.argv[5]) * n + 5
    if not t <= srv["commits"] <= top:
        errs.append(f"server commits {srv['commits']} for {t} transactions, {n} connections "
                    f"(want {t}..{top})")
print("; ".join(errs[:5]) if errs else f"ok: {fin['transactions']} transactions, server {srv}")
sys.exit(1 if errs else 0)
PY
}

said_reset() { grep -q "no cross-check with the server's counters, the run's are unknown: during the run" "$T/$1.err"; }

# restarted DRIVER RESTART WAIT COUNTER TIME ARGS...: the server restarted
# before the run (its counters start near 0) and RESTART called at 2 s of
# a JSON run of TIME seconds; the server's own counter (COUNTER) must end
# more than 100 above its value before the run, and the report say reset
restarted() {
    local drv=$1 fn=$2 wait=$3 counter=$4 secs=$5 c0 c1 r; shift 5
    $fn; $wait || { fail "$drv did not come back"; return; }
    c0=$($counter)
    run "$fn" "$fn" "$@" --time="$secs" --report-format=json oltp_read_write || { $wait; return; }
    $wait || { fail "$drv did not come back"; return; }
    c1=$($counter)
    if ! [ "$c1" -gt $((c0 + 100)) ]; then fail "$fn: server counter $c0 before, $c1 after: not the case tested"
    elif ! said_reset "$fn"; then fail "$fn: no line on stderr: $(tr '\n' '|' <"$T/$fn.err")"
    elif r=$(check_json "$fn" 1 "$drv"); then ok "$fn (server counter $c0 -> $c1): $r"
    else fail "$fn: $r"; fi
}

# killed NAME DRIVER KILL PER_CONNECTION ARGS...: KILL at 2 s is no reset
killed() {
    local name=$1 drv=$2 fn=$3 per=$4 r; shift 4
    run "$name" "$fn" "$@" --time=6 --report-format=json oltp_read_write || return
    if said_reset "$name"; then fail "$name: a reset said: $(tr '\n' '|' <"$T/$name.err")"
    elif r=$(check_json "$name" 0 "$drv" "$per"); then ok "$name (no reset; $per per connection): $r"
    else fail "$name: $r"; fi
}

# --- PostgreSQL ----------------------------------------------------------------
timeout 120 "$S" $PG $OPTS oltp_read_write cleanup >/dev/null 2>&1
timeout 120 "$S" $PG $OPTS oltp_read_write prepare >"$T/pp.out" 2>&1 || { cat "$T/pp.out"; fail "pgsql prepare"; finish; }

restarted pgsql pg_restart wait_pg pg_commits 8 $PG $OPTS

if run pg_reset pg_reset $PG $OPTS --time=6 oltp_read_write; then
    sec=$(sed -n "/^Server's own counters/,/^$/p" "$T/pg_reset.out")
    if grep -q "unknown: during the run they started again from zero" <<<"$sec" &&
        ! grep -qE "commits:|rollbacks:" <<<"$sec" &&
        said_reset pg_reset; then ok "pg_stat_reset(): $(sed -n 2p <<<"$sec" | sed 's/^ *//')"
    else fail "pg_stat_reset(): section: $(tr '\n' '|' <<<"$sec")"; fi
fi

# what one connection adds to xact_commit beyond the transactions, from a
# run without kills: (commits - transactions) / connections, rounded up
per=0
if run pg_base true $PG $OPTS --time=2 --report-format=json oltp_read_write; then
    per=$(python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(-(-(d["server"]["commits"] - d["transactions"]) // d["connection_time_ms"]["count"]))' "$T/pg_base.out")
fi
killed pg_kill pgsql pg_kill "$per" $PG $OPTS
killed pg_fast pgsql pg_fast "$per" $PG $OPTS
wait_pg
timeout 120 "$S" $PG $OPTS oltp_read_write cleanup >/dev/null 2>&1

# --- MariaDB -------------------------------------------------------------------
timeout 120 "$S" $MY $OPTS oltp_read_write cleanup >/dev/null 2>&1
timeout 120 "$S" $MY $OPTS oltp_read_write prepare >"$T/mp.out" 2>&1 || { cat "$T/mp.out"; fail "mysql prepare"; finish; }

restarted mysql my_restart wait_my my_commits 12 $MY $OPTS
killed my_kill mysql my_kill 0 $MY $OPTS
timeout 120 "$S" $MY $OPTS oltp_read_write cleanup >/dev/null 2>&1

finish
