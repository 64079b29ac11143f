#!/bin/bash
# server_metrics.sh: the sampler's evidence (--server-metrics, on by
# default) on the suite's PostgreSQL and MariaDB, each case one whose
# answer is known apart from the sampler:
#   sum     the windows' commits and rollbacks add up to the server's own
#           before/after counters (the cross-check, read apart), PostgreSQL
#           and MariaDB, oltp_read_write 3 s, --report-interval=1;
#   lock    every event updates the same row and holds it 5 ms: the cause
#           names lock waits (PostgreSQL: Lock:transactionid; MariaDB:
#           Innodb_row_lock_waits or its sessions in LOCK WAIT);
#   ckpt    a CHECKPOINT sent by psql during a run: the window that holds
#           it is the one named, and checkpoints_req of the windows is 1;
#   disk    a second PostgreSQL (scripts/pg-server.sh, port SBT_PGPORT+5)
#           with shared_buffers = 128kB, point selects over a 30000-row
#           table: "reads from disk", the hit ratio the one pg_stat_database
#           gives for the run, read apart with psql;
#   wal     the same server with fsync and synchronous_commit on, every
#           event one INSERT committed: the cause names WAL waits;
#   none    oltp_point_select on a cached table: "no single cause";
#   off     --server-metrics=off: no server_metrics member;
#   merge   two shards (--shard-count=2, JOB_COMPLETION_INDEX): only shard 0
#           samples; sbench merge keeps its evidence, says so, and its
#           commits are shard 0's cross-check of the whole server;
#   csv     --report-format=csv: the server_* columns in every row, and the
#           Prometheus exporter scraped mid-run: sbench_server_commits_total
#           at most the commits the CSV's windows add up to.
# Environment: SBT_BUILD, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD,
# SBT_MYSQL_SOCKET, SBT_MYSQL_PASSWORD (required), SBT_TMP.
set -u
: "${SBT_BUILD:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
: "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PASSWORD:?}"
SB=$SBT_BUILD/cli/sbench
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/docs/report.schema.json
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/server_metrics.XXXXXX")
cd "$tmp" || exit 1
W=(--tables=1 --table-size=1000)
PG=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
    --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest)
MY=(--db-driver=mysql --mysql-socket="$SBT_MYSQL_SOCKET" --mysql-user=sbtest
    --mysql-password="$SBT_MYSQL_PASSWORD" --mysql-db=sbtest)
cat >hot.lua <<'LUA'
-- every event updates the same row and holds its lock for 5 ms
function prepare()
    local con = sysbench.sql.driver():connect()
    con:query("DROP TABLE IF EXISTS sbhot")
    con:query("CREATE TABLE sbhot (id INT PRIMARY KEY, v INT)")
    con:query("INSERT INTO sbhot VALUES (1, 0)")
end
function cleanup()
    sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS sbhot")
end
function thread_init() con = sysbench.sql.driver():connect() end
function event()
    con:query("BEGIN")
    con:query("UPDATE sbhot SET v = v + 1 WHERE id = 1")
    con:query(os.getenv("HOT_SLEEP"))
    con:query("COMMIT")
end
LUA
finish() {
    "$SB" "${PG[@]}" "${W[@]}" oltp_read_write cleanup >/dev/null 2>&1
    "$SB" "${MY[@]}" "${W[@]}" oltp_read_write cleanup >/dev/null 2>&1
    "$SB" "${PG[@]}" ./hot.lua cleanup >/dev/null 2>&1
    "$SB" "${MY[@]}" ./hot.lua cleanup >/dev/null 2>&1
    rm -rf "$tmp"
}
trap finish EXIT
fail=0
# run NAME OPTIONS... (the last is the workload and command): JSON into NAME.json
run() {
    local name=$1; shift
    "$SB" "$@" --report-format=json --output="$name.json" >"$name.out" 2>"$name.err" ||
        { echo "FAIL: $name run"; cat "$name.err"; fail=1; return 1; }
}
check() { # NAME CASE
    python3 - "$1.json" "$2" "$SCHEMA" <<'PY' || fail=1
import json, sys
import jsonschema
path, case = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(path) if l.strip()]
schema = json.load(open(sys.argv[3]))
for l in lines:
    jsonschema.validate(l, schema, cls=jsonschema.Draft202012Validator)
wins = [l for l in lines if l["type"] == "interval"]
fin = [l for l in lines if l["type"] == "final"][-1]
errs = []
sm = fin.get("server_metrics")
if case == "off":
    if sm is not None or any("server_metrics" in w for w in wins):
        errs.append("server_metrics present with --server-metrics=off")
else:
    if not sm or not sm.get("sampled"):
        print(json.dumps(fin)[:2000]); sys.exit("FAIL: %s: not sampled" % path)
    cause = sm["cause"]
    print(f"{path}: {len(wins)} windows, cause: {cause}; sampler {sm['sampler']}")
    if case == "sum":
        for k in ("commits", "rollbacks"):
            s = sum(w["server_metrics"][k] for w in wins)
            if s != fin["server"][k] or s != sm[k]:
                errs.append(f"{k}: windows add up to {s}, server counted {fin['server'][k]}, "
                            f"final server_metrics {sm[k]}")
            else:
                print(f"ok   {k}: windows {s} = after - before {fin['server'][k]}")
        if sm["sampler"]["queries"] < 10 * 2:
            errs.append(f"sampler queries {sm['sampler']['queries']}: not ~10 a second")
    elif case.startswith("lock"):
        if "lock waits" not in cause:
            errs.append(f"cause {cause!r} does not name lock waits")
        if case == "lock-pg" and "Lock:transactionid" not in cause and "Lock:tuple" not in cause:
            errs.append(f"cause {cause!r} does not name Lock:transactionid")
    elif case == "ckpt":
        req = [w["server_metrics"]["checkpoints_req"] for w in wins]
        at = [i for i, n in enumerate(req) if n > 0]
        if sum(req) != 1 or len(at) != 1:
            errs.append(f"checkpoints requested per window {req}: want exactly one")
        else:
            w = wins[at[0]]
            lo, hi = w["time"] - w["seconds"], w["time"]
            if f"window {lo:.0f}-{hi:.0f} s" not in cause:
                errs.append(f"cause {cause!r} does not name the window {lo:.0f}-{hi:.0f} s")
    elif case == "disk":
        hit = 100 * sm["blks_hit"] / (sm["blks_hit"] + sm["blks_read"])
        if not cause.startswith("reads from disk") or f"hit ratio {hit:.0f}%" not in cause:
            errs.append(f"cause {cause!r}: want reads from disk, hit ratio {hit:.0f}%")
        apart = open("disk.apart").read().split()
        r, h = int(apart[1]) - int(apart[0]), int(apart[3]) - int(apart[2])
        # the sampler's own reads touch a few cached catalogue pages
        if abs(sm["blks_read"] - r) > r * 0.02 + 20 or sm["blks_read"] < 1000:
            errs.append(f"blks_read {sm['blks_read']}, pg_stat_database read apart {r}")
    elif case == "wal":
        if "WAL waits" not in cause:
            errs.append(f"cause {cause!r} does not name WAL waits")
    elif case == "none":
        if not cause.startswith("no single cause"):
            errs.append(f"cause {cause!r}: want no single cause")
for e in errs:
    print("FAIL:", path, e)
sys.exit(1 if errs else 0)
PY
}
"$SB" "${PG[@]}" "${W[@]}" oltp_read_write prepare >/dev/null 2>&1 || { echo "FAIL: pg prepare"; exit 1; }
"$SB" "${MY[@]}" "${W[@]}" oltp_read_write prepare >/dev/null 2>&1 || { echo "FAIL: maria prepare"; exit 1; }
R=(--time=3 --report-interval=1 --threads=2)
run pg-sum "${PG[@]}" "${W[@]}" "${R[@]}" oltp_read_write run && check pg-sum sum
run my-sum "${MY[@]}" "${W[@]}" "${R[@]}" oltp_read_write run && check my-sum sum
run pg-off "${PG[@]}" "${W[@]}" "${R[@]}" --server-metrics=off oltp_read_write run && check pg-off off
run pg-none "${PG[@]}" "${W[@]}" "${R[@]}" oltp_point_select run && check pg-none none
# CSV and the Prometheus exporter, scraped after two windows
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SB" "${PG[@]}" "${W[@]}" "${R[@]}" --prometheus="127.0.0.1:$pport" --report-format=csv \
    --output=pg.csv oltp_read_write run >pg-csv.out 2>&1 &
sleep 2.5
python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
    "http://127.0.0.1:$pport/metrics" >prom.txt 2>&1
wait
python3 - pg.csv prom.txt <<'PY' || fail=1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"^sbench_server_commits_total (\d+)$", open(sys.argv[2]).read(), re.M)
errs = []
if not rows or any(r.get("server_commits_per_sec") in (None, "") for r in rows):
    errs.append(f"CSV rows without server_commits_per_sec: {rows[:2]}")
elif not m:
    errs.append("no sbench_server_commits_total in the scrape: " + open(sys.argv[2]).read()[-300:])
else:
    total = sum(float(r["server_commits_per_sec"]) for r in rows)  # 1 s windows
    if not 0 < int(m.group(1)) <= total * 1.05 + 5:
        errs.append(f"scraped commits {m.group(1)} not in (0, {total:.0f}] of the CSV's windows")
    else:
        print(f"ok   csv {len(rows)} rows; scraped commits {m.group(1)} <= windows' {total:.0f}")
for e in errs: print("FAIL: csv/prometheus:", e)
sys.exit(1 if errs else 0)
PY
# two shards and sbench merge
mkdir -p shards
start=$(($(date +%s) + 3))
for i in 0 1; do
    JOB_COMPLETION_INDEX=$i "$SB" "${PG[@]}" "${W[@]}" --threads=1 --events=200 --time=0 \
        --report-interval=1 --shard-count=2 --run-id=sm-test --start-at=$start --report-format=json \
        --output="shards/s$i.json" --hdr-log="shards/s$i.hlog" oltp_read_write run >"shard$i.out" 2>&1 &
done
wait
if "$SB" merge --report-format=json --output=merged.json shards >merge.out 2>&1; then
    python3 - shards/s0.json shards/s1.json merged.json "$SCHEMA" <<'PY' || fail=1
import json, sys
import jsonschema
fin = lambda p: [json.loads(l) for l in open(p) if l.strip()][-1]
s0, s1, m = fin(sys.argv[1]), fin(sys.argv[2]), fin(sys.argv[3])
jsonschema.validate(m, json.load(open(sys.argv[4])), cls=jsonschema.Draft202012Validator)
errs = []
if "server_metrics" in s1: errs.append("shard 1 sampled the server")
sm = m.get("server_metrics") or {}
if sm.get("sampled_by") != "shard 0, for every shard": errs.append(f"merge does not say who sampled: {sm}")
if sm.get("commits") != s0["server"]["commits"] or sm.get("commits", 0) < m["transactions"]:
    errs.append(f"merged commits {sm.get('commits')}, shard 0's cross-check {s0['server']['commits']}, "
                f"transactions {m['transactions']}")
for e in errs: print("FAIL: merge:", e)
if not errs: print(f"ok   merge: shard 0's evidence kept, commits {sm['commits']} >= {m['transactions']}")
sys.exit(1 if errs else 0)
PY
else
    echo "FAIL: sbench merge: $(tail -3 merge.out)"; fail=1
fi
# CHECKPOINT during the run's third second
(sleep 2.3; PGPASSWORD=$SBT_PGPASSWORD psql -q -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest sbtest \
    -c CHECKPOINT >/dev/null) &
run pg-ckpt "${PG[@]}" "${W[@]}" --time=5 --report-interval=1 --threads=2 oltp_write_only run &&
    check pg-ckpt ckpt
wait
"$SB" "${PG[@]}" ./hot.lua prepare >/dev/null 2>&1 || { echo "FAIL: pg hot prepare"; exit 1; }
"$SB" "${MY[@]}" ./hot.lua prepare >/dev/null 2>&1 || { echo "FAIL: maria hot prepare"; exit 1; }
HOT_SLEEP="SELECT pg_sleep(0.005)" run pg-lock "${PG[@]}" --time=2 --threads=4 ./hot.lua run &&
    check pg-lock lock-pg
HOT_SLEEP="SELECT SLEEP(0.005)" run my-lock "${MY[@]}" --time=2 --threads=4 ./hot.lua run &&
    check my-lock lock-my
# reads from disk: a second server whose buffer pool is tiny
pg2port=$((SBT_PGPORT + 5))
pg2=$(mktemp -d "${SBT_TMP:-/tmp}/pgtiny.XXXXXX")
PGS=$(cd "$(dirname "$0")/../.." && pwd)/scripts/pg-server.sh
trap '"$PGS" stop "$pg2" >/dev/null 2>&1; rm -rf "$pg2"; finish' EXIT
psql2() { PGPASSWORD=$SBT_PGPASSWORD psql -X -q -At -h 127.0.0.1 -p "$pg2port" -U sbtest -d sbtest "$@"; }
if "$PGS" start "$pg2" "$pg2port" >"$tmp/pg2.log" 2>&1 &&
   psql2 -c "ALTER SYSTEM SET shared_buffers = '128kB'" && "$PGS" stop "$pg2" >/dev/null 2>&1 &&
   "$PGS" start "$pg2" "$pg2port" >>"$tmp/pg2.log" 2>&1; then
    P2=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$pg2port" --pgsql-user=sbtest
        --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest --tables=1 --table-size=30000)
    counts() { psql2 -c "SELECT pg_stat_force_next_flush()" -c "SELECT blks_read, blks_hit FROM pg_stat_database WHERE datname = 'sbtest'" | tr '|' ' '; }
    "$SB" "${P2[@]}" oltp_point_select prepare >/dev/null 2>&1 || { echo "FAIL: tiny prepare"; fail=1; }
    before=$(counts)
    run pg-disk "${P2[@]}" --time=2 --threads=2 --rand-type=uniform oltp_point_select run
    sleep 1.2
    after=$(counts)
    set -- $before $after
    echo "$1 $3 $2 $4" >disk.apart
    check pg-disk disk
    psql2 -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
        -c "SELECT pg_reload_conf()" >/dev/null && sleep 0.5
    run pg-wal "${P2[@]}" --time=2 --threads=4 oltp_insert run && check pg-wal wal
else
    echo "FAIL: the PostgreSQL with a tiny buffer pool did not start: $(tail -3 "$tmp/pg2.log")"; fail=1
fi
[ $fail = 0 ] && echo "server_metrics: all passed"
exit $fail
