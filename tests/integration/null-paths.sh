#!/bin/bash
# null-paths.sh: the statement path of the real sbench binary, without a
# server, through the null driver: blocking, --clients=8 --threads=2,
# --pipeline=4, both, --db-ps-mode=disable, with and without
# --null-delay-us, with injected retry, error and lost-connection failures
# (--null-fail-every).  For each run, exact numbers from the final JSON
# report: sbench's events, queries by kind, ignored errors and reconnects
# against (1) what the null driver's server counted (the "server" object:
# a party independent of sbench's statistics) and (2) what follows from
# --events, the workload's statements per event and the failure schedule,
# simulated per client from the per-client event counts.
# Then the failures that must stop a run: a non-ignorable injected error,
# a lost connection with --db-reconnect=off.  ~20 s (mostly the 0.4 s each
# run waits for stable server counters), needs no server.
# Usage: null-paths.sh [BUILD_DIR] (default $SBT_BUILD).
set -u
B=${1:-${SBT_BUILD:?set SBT_BUILD or pass the build directory}}
B=$(cd "$B" && pwd) || exit 1
SB=$B/cli/sbench
[ -x "$SB" ] || { echo "null-paths.sh: no $SB (build first)"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/null-paths.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0
ncases=0

# case NAME WORKLOAD EVENTS FAIL_EVERY STATUS [sbench options...]
case_() {
    local name=$1 wl=$2 events=$3 every=$4 status=$5
    shift 5
    ncases=$((ncases + 1))
    local out=$tmp/$ncases
    timeout 120 "$SB" --db-driver=null --tables=2 --table-size=1000 --events="$events" --time=0 \
        --null-fail-every="$every" --null-fail-status="$status" \
        --report-format=json --output="$out.json" "$@" "$wl" run >"$out.out" 2>"$out.err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $name: sbench exited $rc"; sed 's/^/    /' "$out.err" | head -5
        failed=$((failed + 1))
        return
    fi
    if python3 - "$out.json" "$wl" "$events" "$every" "$status" "$name" <<'PY'
import json, sys
path, wl, events, every, status, name = sys.argv[1:]
events, every = int(events), int(every)
final = [json.loads(l) for l in open(path) if l.strip()][-1]
# data statements of one event, in order (BEGIN/COMMIT around them in the
# transactional workloads); s: SELECT, u: UPDATE, d: DELETE, i: INSERT
shapes = {
    "oltp_read_only": ("s" * 14, True),
    "oltp_read_write": ("s" * 14 + "uudi", True),
    "oltp_point_select": ("s", False),
}
seq, txn = shapes[wl]
per_client = (final.get("clients_fairness") or {}).get("events")
if per_client is None:
    # one connection per thread: no per-client counts in the report; with
    # no failures the counts are linear in the events, so one sum will do
    if final["threads"] != 1 and every:
        print(f"FAIL: {name}: failures need per-client events: use 1 thread or --clients")
        sys.exit(1)
    per_client = [final["transactions"]]

def simulate(e):
    """One client's connection through e events: the server's counts."""
    n = dict(s=0, u=0, d=0, i=0, stmts=0, commits=0, rollbacks=0, errors=0, reconnects=0)
    count = done = 0  # statements --null-fail-every counted on this connection
    while done < e:
        k = next((k for k in range(1, len(seq) + 1) if every and (count + k) % every == 0), 0)
        ran = seq[:k - 1] if k else seq
        for kind in ran:
            n[kind] += 1
        n["stmts"] += len(ran) + (1 if txn else 0)  # + BEGIN
        if not k:
            n["stmts"] += 1 if txn else 0           # COMMIT
            n["commits"] += 1 if txn else 0
            count += len(seq)
            done += 1
            continue
        n["errors"] += 1
        if status == "lost":                        # gone with its transaction
            n["rollbacks"] += 1 if txn else 0
            n["reconnects"] += 1
            count = 0
        else:                                       # ROLLBACK (or a COMMIT that rolls back)
            n["rollbacks"] += 1
            n["stmts"] += 1
            count += k
    return n

want = dict(s=0, u=0, d=0, i=0, stmts=0, commits=0, rollbacks=0, errors=0, reconnects=0)
for e in per_client:
    for key, v in simulate(e).items():
        want[key] += v
q, srv = final["queries"], final.get("server")
errs = []
def eq(what, got, exp):
    if got != exp:
        errs.append(f"{what}: {got}, expected {exp}")
if srv is None:
    errs.append("no server counters in the report")
    srv = {}
writes = want["u"] + want["d"] + want["i"]
eq("events", final["transactions"], events)
eq("sum of per-client events", sum(per_client), events)
# sbench against the computation
eq("sbench reads", q["read"], want["s"])
eq("sbench writes", q["write"], writes)
eq("sbench total queries", q["total"], want["stmts"])
eq("sbench ignored errors", final["ignored_errors"], want["errors"])
eq("sbench reconnects", final["reconnects"], want["reconnects"])
eq("sbench failed transactions", final["failed_transactions"], 0)
injected = {"retry": "40001", "error": "23505", "lost": "08006"}[status]
errors = {e["sqlstate"]: e for e in final["errors"]}
eq("ignored errors with SQLSTATE " + injected, errors.get(injected, {}).get("ignored", 0),
   want["errors"])
eq("error kinds", sorted(errors), [injected] if want["errors"] else [])
# the server against sbench and the computation
eq("server selects vs sbench reads", srv.get("selects"), q["read"])
eq("server inserts+updates+deletes vs sbench writes",
   srv.get("inserts", 0) + srv.get("updates", 0) + srv.get("deletes", 0), q["write"])
eq("server statements vs sbench queries", srv.get("statements"), q["total"])
eq("server updates", srv.get("updates"), want["u"])
eq("server inserts", srv.get("inserts"), want["i"])
eq("server deletes", srv.get("deletes"), want["d"])
eq("server commits", srv.get("commits"), want["commits"])
eq("server rollbacks", srv.get("rollbacks"), want["rollbacks"])
if errs:
    print(f"FAIL: {name}: " + "; ".join(errs))
    sys.exit(1)
print(f"ok: {name}: {events} events, {q['total']} queries, {final['ignored_errors']} ignored "
      f"errors, {final['reconnects']} reconnects, clients {per_client if len(per_client) > 1 else ''}")
PY
    then :; else failed=$((failed + 1)); fi
}

C="--clients=8 --threads=2 ${SBT_IO:+--io=$SBT_IO}" # SBT_IO: --io (null_paths_uring)
D=--null-delay-us=200
echo "== no failures"
case_ "read_only blocking" oltp_read_only 300 0 retry
case_ "read_write blocking, 2 threads" oltp_read_write 300 0 retry --threads=2
case_ "read_write clients" oltp_read_write 400 0 retry $C
case_ "point_select pipeline" oltp_point_select 1000 0 retry --pipeline=4
case_ "read_write pipeline" oltp_read_write 300 0 retry --pipeline=4
case_ "read_write clients+pipeline" oltp_read_write 400 0 retry $C --pipeline=4
case_ "read_write ps disabled" oltp_read_write 300 0 retry --db-ps-mode=disable
case_ "read_only ps disabled, clients+pipeline" oltp_read_only 400 0 retry --db-ps-mode=disable $C --pipeline=4
echo "== --null-delay-us=200"
case_ "read_write blocking, delay" oltp_read_write 60 0 retry $D
case_ "read_write clients, delay" oltp_read_write 400 0 retry $C $D
case_ "read_write pipeline, delay" oltp_read_write 60 0 retry --pipeline=4 $D
case_ "read_only clients+pipeline, delay" oltp_read_only 400 0 retry $C --pipeline=4 $D
echo "== injected retry (SQLSTATE 40001)"
case_ "read_write blocking, retry/25" oltp_read_write 300 25 retry
case_ "point_select blocking, retry/7" oltp_point_select 500 7 retry
case_ "read_only ps disabled, retry/20" oltp_read_only 300 20 retry --db-ps-mode=disable
case_ "read_write clients, retry/25" oltp_read_write 400 25 retry $C
case_ "read_write pipeline, retry/25" oltp_read_write 300 25 retry --pipeline=4
case_ "point_select pipeline, retry/7" oltp_point_select 500 7 retry --pipeline=4
case_ "read_only ps disabled, clients+pipeline, retry/20" oltp_read_only 400 20 retry --db-ps-mode=disable $C --pipeline=4
case_ "read_write clients+pipeline, retry/25, delay" oltp_read_write 400 25 retry $C --pipeline=4 $D
echo "== injected error (SQLSTATE 23505, in --db-ignore-sqlstates by default)"
case_ "read_write clients, error/25" oltp_read_write 400 25 error $C
case_ "read_write pipeline, error/30" oltp_read_write 300 30 error --pipeline=4
case_ "read_write, error/25, 23505 second of the list" oltp_read_write 300 25 error --db-ignore-sqlstates=40001,23505
echo "== injected lost connections"
case_ "read_write blocking, lost/25" oltp_read_write 300 25 lost
case_ "point_select clients, lost/5" oltp_point_select 500 5 lost $C
case_ "read_write clients, lost/25" oltp_read_write 400 25 lost $C
case_ "read_write pipeline, lost/25" oltp_read_write 300 25 lost --pipeline=4
case_ "point_select ps disabled, pipeline, lost/5" oltp_point_select 500 5 lost --db-ps-mode=disable --pipeline=4
case_ "read_write clients+pipeline, lost/25, delay" oltp_read_write 400 25 lost $C --pipeline=4 $D

# must_stop NAME MESSAGE sbench options...: exit status 1, MESSAGE on stderr
must_stop() {
    local name=$1 msg=$2
    shift 2
    ncases=$((ncases + 1))
    timeout 60 "$SB" --db-driver=null --tables=2 --table-size=1000 --time=0 "$@" \
        >"$tmp/stop.out" 2>"$tmp/stop.err"
    local rc=$?
    if [ $rc -ne 1 ] || ! grep -qF -- "$msg" "$tmp/stop.err"; then
        echo "FAIL: $name: exit $rc (expected 1), stderr without '$msg':"
        sed 's/^/    /' "$tmp/stop.err" | head -5
        failed=$((failed + 1))
    else
        echo "ok: $name: exit 1, '$msg'"
    fi
}
echo "== failures that stop the run"
must_stop "error not in --db-ignore-sqlstates" "23505" --events=100 --null-fail-every=25 \
    --null-fail-status=error --db-ignore-sqlstates=40001 oltp_read_write run
must_stop "error not ignorable, clients+pipeline" "23505" --events=100 --null-fail-every=25 \
    --null-fail-status=error --db-ignore-sqlstates=40001 $C --pipeline=4 oltp_read_write run
must_stop "lost with --db-reconnect=off" "--db-reconnect=off" --events=100 --null-fail-every=25 \
    --null-fail-status=lost --db-reconnect=off oltp_read_write run

# A fatal error while the other clients' statements are in flight (with
# SBT_IO=uring: bytes the host moves, on the io_uring): exit 1, and every
# statement the null server ran counted by sbench, none more (a statement
# sent again at the stop, or counted but never sent, shows as a
# difference).  Client 0 raises in its 200th event.
echo "== a fatal stop with statements in flight"
cat > "$tmp/fatal.lua" <<'LUA'
function thread_init() con = sbench.sql.driver():connect(); n = 0 end
function event()
   n = n + 1
   if sbench.cid == 0 and n == 200 then error("null-paths: the injected fatal error") end
   con:query("INSERT INTO t VALUES (1)")
end
LUA
for run in 1 2 3; do
    ncases=$((ncases + 1))
    timeout 60 "$SB" --db-driver=null --threads=2 --clients=16 ${SBT_IO:+--io=$SBT_IO} --time=30 --report-format=json \
        --output="$tmp/fatal.json" "$tmp/fatal.lua" run >"$tmp/fatal.out" 2>"$tmp/fatal.err"
    rc=$?
    got=$(python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])][-1]; print(f["queries"]["write"], f["server"]["inserts"])' "$tmp/fatal.json" 2>/dev/null)
    set -- $got
    if [ "$rc" = 1 ] && grep -q "the injected fatal error" "$tmp/fatal.err" && [ -n "${2:-}" ] && [ "$1" = "$2" ] &&
        [ "$1" -ge 199 ]; then
        echo "ok: fatal stop ($run): exit 1, $1 inserts counted = $2 run by the server"
    else
        echo "FAIL: fatal stop ($run): exit $rc, inserts counted/run '$got'"
        sed 's/^/    /' "$tmp/fatal.err" | head -5
        failed=$((failed + 1))
    fi
done

# An ignorable error the script catches with pcall still counts as an
# ignored error (as sysbench counts it where it is raised) and restarts
# nothing: every 3rd of 60 single-statement events fails, 20 caught.
echo "== ignorable errors caught by the script"
ncases=$((ncases + 1))
cat > "$tmp/caught.lua" <<'LUA'
function thread_init() con = sbench.sql.driver():connect() end
function event()
   local ok, e = pcall(con.query, con, "SELECT 1")
   if not ok then
      assert(e.errcode == sbench.error.RESTART_EVENT, "not marked ignorable")
      caught = (caught or 0) + 1
   end
end
function thread_done() print("caught " .. (caught or 0)) end
LUA
timeout 60 "$SB" --db-driver=null --events=60 --time=0 --threads=1 --null-fail-every=3 \
    --null-fail-status=retry --report-format=json --output="$tmp/caught.json" "$tmp/caught.lua" run \
    >"$tmp/caught.out" 2>"$tmp/caught.err"
got=$(python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])][-1]; print(f["transactions"], f["ignored_errors"])' "$tmp/caught.json" 2>/dev/null)
caught=$(sed -n 's/^caught //p' "$tmp/caught.out")
if [ "$got" = "60 20" ] && [ "$caught" = 20 ]; then
    echo "ok: pcall-caught: 60 events, 20 ignored errors = 20 caught by the script"
else
    echo "FAIL: pcall-caught: events and ignored errors '$got' (want '60 20'), caught '$caught' (want 20)"
    sed 's/^/    /' "$tmp/caught.err" | head -5
    failed=$((failed + 1))
fi

# SBT_IO=uring: the ring hands the kernel each statement's send linked to
# the receive of its answer (as against a real server: the null driver's
# server thread answers while the host waits in the kernel), failures
# injected too.  The driver logs (--db-debug) how many of its statements
# went on host I/O and how many sends the host reported done before the
# server had written their answer: a linked send is reported with its
# receive, after the answer, so none; a send the ring completes on its own
# is reported first nearly every time (70-85% when the link is taken out).
# The link needs IOSQE_CQE_SKIP_SUCCESS (Linux 5.17).
if [ "${SBT_IO:-}" = uring ]; then
    ncases=$((ncases + 1))
    kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
    if [ "$kv" -lt 5017 ]; then
        echo "skip: linked send+receive: kernel $(uname -r) before 5.17 does not link them"
    else
        timeout 60 "$SB" --db-driver=null --tables=1 --table-size=100 --threads=2 --clients=8 --io=uring \
            --events=2000 --time=0 --null-fail-every=50 --null-fail-status=lost --db-debug=on \
            --report-format=json --output="$tmp/link.json" oltp_point_select run >"$tmp/link.out" 2>"$tmp/link.err"
        rc=$?
        got=$(sed -n 's/.*null driver: \([0-9]*\) statements on host I\/O, \([0-9]*\) reported sent before.*/\1 \2/p' \
            "$tmp/link.err" | awk '{s += $1; e += $2} END {print s + 0, e + 0}')
        lost=$(python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])][-1]; print(f["reconnects"])' "$tmp/link.json" 2>/dev/null)
        set -- $got
        if [ $rc = 0 ] && [ "${1:-0}" -ge 2000 ] && [ "${2:-x}" = 0 ] && [ "${lost:-0}" -gt 0 ]; then
            echo "ok: linked send+receive: $1 statements on host I/O, none reported sent before its answer, $lost reconnects"
        else
            echo "FAIL: linked send+receive: exit $rc, statements on host I/O and sends reported before their answer '$got' (want >= 2000 and 0), reconnects '$lost' (want > 0)"
            grep -v "debug" "$tmp/link.err" | sed 's/^/    /' | head -5
            failed=$((failed + 1))
        fi
    fi
fi

echo "$((ncases - failed)) of $ncases cases passed"
[ $failed -eq 0 ]
