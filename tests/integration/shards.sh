#!/bin/bash
# shards.sh: sbench as shards started by real launchers, merged by sbench
# merge, checked against the servers' own counters and an independent
# HdrHistogram decoder (needs the SBT_* servers of scripts/test.sh and
# Debian's openmpi-bin; a missing part is a failure).
#
#  1. mpirun (Open MPI) starts 3 shards of oltp_read_write with --start-at,
#     against PostgreSQL and against MariaDB: the merged transactions equal
#     the server's count (pg_stat_statements' COMMIT calls; Com_commit) and
#     the sum of the shards'; the merged histogram (merged --hdr-log and the
#     final line's merge_data) equals the shards' logs added up by
#     hdr-histogram-js bucket for bucket; the merged percentiles equal those
#     computed from the reference's buckets; the windows line up (within
#     0.1 s: a window ends when the reporter wakes, late on a loaded machine).
#  2. A plain loop setting JOB_COMPLETION_INDEX, as a Kubernetes Indexed
#     Job does, with --events split: exactly --events transactions, on the
#     server too.
#  3. --shard=I/N with --rate split (null driver): the merged rate is the
#     total asked for, within 2% (fixed arrivals: Poisson's own spread over
#     24000 events, 0.65%, would make the check about chance, not the split).
#  4. One shard killed mid-run: the others finish, its HdrHistogram log is
#     left as FILE.partial, sbench merge names the missing shard and
#     refuses; --allow-missing merges and says so.
#  5. examples/k8s/sbench-shards.yaml is an Indexed Job (parsed as YAML).
#  6. sbench.shard in a workload; 7. examples/shards.sh (null driver, mpirun).
set -u
: "${SBT_BUILD:?}" "${SBT_TMP:?}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jsdir=${SBT_HDR_JS_DIR:-$root/tests/hdr-js}
SUM=$root/tests/measure/hdr_sum.mjs
. "$here/wl-lib.sh"
command -v mpirun >/dev/null || die "mpirun not found (Debian package openmpi-bin, scripts/install-deps.sh --test)"
[ -d "$jsdir/node_modules/hdr-histogram-js" ] || die "$jsdir/node_modules/hdr-histogram-js missing"
tmp=$(mktemp -d "$SBT_TMP/shards.XXXXXX")
W="--tables=2 --table-size=2000"
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -n 3"

# check_merge DIR SERVER_TRANSACTIONS(or -) WANT_SOURCE: the merge of DIR
# against the server's count, the shards, and hdr-histogram-js
check_merge() {
    local dir=$1 server=$2 source=$3
    checks=$((checks + 1))
    if ! "$SBENCH" merge --report-format=json --output="$dir/merged.json" --hdr-log="$dir/merged.hlog" \
        "$dir/shards" >"$dir/merged.txt" 2>&1; then
        fail "$dir: sbench merge exited $?: $(tail -3 "$dir/merged.txt")"
        return
    fi
    node "$SUM" "$jsdir" "$dir"/shards/*.hlog >"$dir/shards.buckets" &&
        node "$SUM" "$jsdir" "$dir/merged.hlog" >"$dir/merged.buckets" &&
        node "$SUM" "$jsdir" --b64 "$(tail -1 "$dir/merged.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["merge_data"]["latency"]["hdr"])')" \
            >"$dir/final.buckets" || { fail "$dir: hdr-histogram-js could not decode the logs"; return; }
    if cmp -s "$dir/shards.buckets" "$dir/merged.buckets" && cmp -s "$dir/shards.buckets" "$dir/final.buckets"; then
        echo "ok   $dir: the merged histogram equals the shards' logs added by hdr-histogram-js ($(($(wc -l <"$dir/shards.buckets") - 1)) buckets)"
    else
        fail "$dir: the merged histogram differs from the shards' logs added by hdr-histogram-js"
    fi
    python3 - "$dir" "$server" "$source" "$root/tests/measure" <<'PY' || failures=$((failures + 1))
import glob, json, sys
d, server, source, measure = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
errs = []
shards = [json.loads(open(f).read().splitlines()[-1]) for f in sorted(glob.glob(d + "/shards/*.json"))]
lines = [json.loads(l) for l in open(d + "/merged.json")]
fin, wins = lines[-1], lines[:-1]
tx = fin["transactions"]
if len(shards) != 3: errs.append(f"{len(shards)} shard reports")
if sorted(s["run"]["shard"]["index"] for s in shards) != [0, 1, 2]: errs.append("shard indices")
if {s["run"]["shard"]["source"] for s in shards} != {source}: errs.append(f"sources {[s['run']['shard']['source'] for s in shards]}")
if len({s["run"]["shard"]["run_id"] for s in shards}) != 1: errs.append("run ids differ")
if tx != sum(s["transactions"] for s in shards): errs.append(f"merged {tx} != sum of the shards'")
if tx == 0: errs.append("no transactions")
if server != "-" and tx != int(server): errs.append(f"merged transactions {tx}, the server counted {server}")
if sum(w["transactions"] for w in wins) != tx: errs.append("the window lines do not add up to the final line")
if fin["run"]["merge"]["max_window_offset_s"] > 0.1: errs.append(f"windows off the grid by {fin['run']['merge']['max_window_offset_s']} s")
if fin["threads"] != sum(s["threads"] for s in shards): errs.append("threads")
lat = fin["latency_ms"]
mn, mx = round(lat["min"] * 1e6), round(lat["max"] * 1e6)
if mn != min(s["merge_data"]["latency"]["min_ns"] for s in shards) or mx != max(s["merge_data"]["latency"]["max_ns"] for s in shards):
    errs.append("min/max are not the shards' extremes")
sys.path.insert(0, measure)
from bucket_percentiles import read_buckets, percentile
buckets = read_buckets(d + "/shards.buckets")
n = sum(c for _, c, _ in buckets)
if n != lat["count"]: errs.append(f"reference count {n}, merge {lat['count']}")
for p, v in lat["percentiles"].items():
    want = percentile(buckets, float(p), mn, mx)
    if round(v * 1e6) != want: errs.append(f"p{p}: merge {round(v * 1e6)} ns, from the reference's buckets {want}")
for e in errs: print("FAIL:", d, e)
if not errs: print(f"ok   {d}: {tx} transactions merged = server {server} = sum of 3 shards; {len(wins)} windows on one grid; percentiles exact")
sys.exit(1 if errs else 0)
PY
}

# ---- 1. mpirun, PostgreSQL and MariaDB ----
for target in pgsql mysql; do
    wl_setup "$target"
    # shellcheck disable=SC2086
    "$SBENCH" $SB_DRV $W oltp_read_write cleanup >/dev/null 2>&1
    # shellcheck disable=SC2086
    "$SBENCH" $SB_DRV $W oltp_read_write prepare >"$tmp/prep.out" 2>&1 || { show_out; die "$target: prepare failed: $(tail -2 "$tmp/prep.out")"; }
    snap_before
    d=$tmp/mpi-$target
    mkdir -p "$d/shards"
    start=$(($(date +%s) + 8))
    # shellcheck disable=SC2086
    $MPIRUN "$SBENCH" $SB_DRV $W --threads=2 --time=4 --report-interval=1 --rand-seed=42 --start-at=$start \
        --report-format=json --output="$d/shards/s{shard}.json" --hdr-log="$d/shards/s{shard}.hlog" \
        oltp_read_write run >"$d/mpirun.out" 2>&1 || { fail "$target: mpirun exited $?"; tail -20 "$d/mpirun.out"; continue; }
    snap_after
    case $KIND in
    pg) server=$(adminq "SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest') AND upper(query) = 'COMMIT'") ;;
    maria) server=$D_COMMIT ;;
    esac
    check_merge "$d" "$server" OMPI_COMM_WORLD_RANK
    grep -q "^Shards (client machines):" "$d/merged.txt" || fail "$target: no shards table in the text report"
done

# ---- 2. JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's way), --events split ----
wl_setup pgsql
snap_before
d=$tmp/k8s
mkdir -p "$d/shards"
start=$(($(date +%s) + 5))
pids=""
for i in 0 1 2; do
    # shellcheck disable=SC2086
    JOB_COMPLETION_INDEX=$i "$SBENCH" $SB_DRV $W --threads=2 --events=601 --time=0 --report-interval=1 \
        --shard-count=3 --run-id=k8s-test --start-at=$start --report-format=json \
        --output="$d/shards/s$i.json" --hdr-log="$d/shards/s$i.hlog" oltp_read_write run >"$d/out$i" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "JOB_COMPLETION_INDEX shard exited non-zero"; done
snap_after
server=$(adminq "SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest') AND upper(query) = 'COMMIT'")
expect_eq "JOB_COMPLETION_INDEX: --events=601 over 3 shards, the server's COMMITs" "$server" 601
check_merge "$d" 601 JOB_COMPLETION_INDEX
# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $W oltp_read_write cleanup >/dev/null 2>&1
wl_setup mysql
# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $W oltp_read_write cleanup >/dev/null 2>&1

# ---- 3. --shard=I/N, --rate split (null driver) ----
d=$tmp/rate
mkdir -p "$d/shards"
start=$(($(date +%s) + 4))
pids=""
for i in 0 1 2; do
    "$SBENCH" --db-driver=null --null-delay-us=100 --threads=2 --rate=3000 --rate-distribution=fixed \
        --time=8 --report-interval=1 \
        --rand-seed=9 --shard=$i/3 --start-at=$start --report-format=json --output="$d/shards/s$i.json" \
        --hdr-log="$d/shards/s$i.hlog" oltp_point_select run >"$d/out$i" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "--shard shard exited non-zero"; done
check_merge "$d" - --shard
checks=$((checks + 1))
python3 - "$d/merged.json" <<'PY' || failures=$((failures + 1))
import json, sys
fin = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tps = fin["transactions"] / fin["seconds"]
ok = abs(tps - 3000) <= 0.02 * 3000
print(f"{'ok  ' if ok else 'FAIL:'} --rate=3000 over 3 shards: merged {tps:.1f} events/s over {fin['seconds']:.2f} s (within 2%: {ok})")
sys.exit(0 if ok else 1)
PY

# ---- 4. one shard killed mid-run ----
d=$tmp/kill
mkdir -p "$d/shards"
start=$(($(date +%s) + 3))
declare -a kp
for i in 0 1 2; do
    "$SBENCH" --db-driver=null --null-delay-us=200 --threads=2 --time=5 --report-interval=1 --shard=$i/3 \
        --run-id=killed --start-at=$start --report-format=json --output="$d/shards/s$i.json" \
        --hdr-log="$d/shards/s$i.hlog" oltp_point_select run >"$d/out$i" 2>&1 &
    kp[$i]=$!
done
sleep $((start - $(date +%s) + 2))
kill -9 "${kp[1]}"
wait "${kp[1]}" 2>/dev/null
for i in 0 2; do wait "${kp[$i]}" || fail "shard $i did not finish after shard 1 was killed"; done
checks=$((checks + 1))
if "$SBENCH" merge "$d/shards" >"$d/m.out" 2>"$d/m.err"; then
    fail "merge with a killed shard succeeded"
elif grep -q "shard 1 of 3 is missing: no report or log of it among the inputs" "$d/m.err" &&
    [ -f "$d/shards/s1.hlog.partial" ] && [ ! -e "$d/shards/s1.hlog" ]; then
    # the killed shard's log was never closed whole: it stays s1.hlog.partial
    # (core/hdr_log.c), which merge does not take for a log
    echo "ok   killed shard: $(cat "$d/m.err") (its log left as s1.hlog.partial)"
else
    fail "killed shard: $(cat "$d/m.err")"
fi
checks=$((checks + 1))
if "$SBENCH" merge --allow-missing --report-format=json --output="$d/am.json" "$d/shards" >"$d/am.txt" 2>&1 &&
    grep -q "WARNING: shard 1 missing" "$d/am.txt" &&
    python3 -c 'import json,sys; m=json.loads(open(sys.argv[1]).read().splitlines()[-1])["run"]["merge"]; sys.exit(0 if m["missing"]==[1] and m["merged"]==[0,2] else 1)' "$d/am.json"; then
    echo "ok   killed shard: --allow-missing merged shards 0 and 2 and says shard 1 is missing"
else
    fail "killed shard: --allow-missing: $(tail -3 "$d/am.txt")"
fi

# ---- 5. the Kubernetes example ----
checks=$((checks + 1))
python3 - "$root/examples/k8s/sbench-shards.yaml" <<'PY' || failures=$((failures + 1))
import re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
jobs = [d for d in docs if d.get("kind") == "Job"]
errs = []
if len(jobs) != 1: errs.append(f"{len(jobs)} Jobs")
j = jobs[0] if jobs else {}
spec = j.get("spec", {})
if j.get("apiVersion") != "batch/v1": errs.append("apiVersion")
if spec.get("completionMode") != "Indexed": errs.append("completionMode is not Indexed")
n = spec.get("completions")
if not isinstance(n, int) or n < 2 or spec.get("parallelism") != n: errs.append("completions/parallelism")
pod = spec.get("template", {}).get("spec", {})
if pod.get("restartPolicy") not in ("Never", "OnFailure"): errs.append("restartPolicy")
c = pod.get("containers", [{}])[0]
args = " ".join(map(str, (c.get("command") or []) + (c.get("args") or [])))
for want in (f"--shard-count={n}", "--report-format=json", "--output=", "--hdr-log=", "--start-at=", " run"):
    if want not in args: errs.append(f"container args lack {want!r}")
if "$(JOB_COMPLETION_INDEX)" not in args and "{shard}" not in args: errs.append("output paths do not name the shard")
mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
if not any(re.match(r"--output=(\S+)", a) and any(a.split("=", 1)[1].startswith(m) for m in mounts) for a in args.split()):
    errs.append("--output is not on a mounted volume")
for e in errs: print("FAIL: k8s manifest:", e)
if not errs: print(f"ok   examples/k8s/sbench-shards.yaml: an Indexed Job of {n} shards writing to a volume")
sys.exit(1 if errs else 0)
PY

# ---- 6. sbench.shard in a workload (control state and worker threads) ----
# (the two threads print at once: their lines may run together, so each is
# looked for anywhere, not as a whole line)
cat >"$tmp/shardinfo.lua" <<'LUA'
function prepare() print("prepare " .. sbench.shard.index .. "/" .. sbench.shard.count .. " " .. sbench.shard.run_id) end
function thread_init() print("thread " .. sbench.tid .. " " .. sbench.shard.index .. "/" .. sbench.shard.count) end
function event() end
LUA
checks=$((checks + 1))
"$SBENCH" --db-driver=null --shard=1/3 --run-id=lua-test "$tmp/shardinfo.lua" prepare >"$tmp/lua1.out" 2>&1
"$SBENCH" --db-driver=null --threads=2 --time=1 --shard=2/4 --run-id=lua-test --report-format=json \
    --output="$tmp/lua.json" --hdr-log="$tmp/lua.hlog" "$tmp/shardinfo.lua" run >"$tmp/lua2.out" 2>&1
"$SBENCH" --db-driver=null "$tmp/shardinfo.lua" prepare >"$tmp/lua3.out" 2>&1
if grep -qx "prepare 1/3 lua-test" "$tmp/lua1.out" && [ "$(grep -o "thread [01] 2/4" "$tmp/lua2.out" | sort -u | wc -l)" = 2 ] &&
    grep -qx "prepare 0/1 " "$tmp/lua3.out"; then
    echo "ok   sbench.shard.index/count/run_id in prepare and in each thread; 0/1 when not sharded"
else
    fail "sbench.shard: $(cat "$tmp/lua1.out" "$tmp/lua2.out" "$tmp/lua3.out" | head -8)"
fi

# ---- 7. examples/shards.sh (null driver) ----
checks=$((checks + 1))
if OUT=$tmp/example SBENCH=$SBENCH RUN="--threads=1 --time=2 --report-interval=1" "$root/examples/shards.sh" \
    >"$tmp/example.out" 2>&1 && grep -q "3 shards merged of 3" "$tmp/example.out" &&
    grep -q "^Shards (client machines):" "$tmp/example.out"; then
    echo "ok   examples/shards.sh: 3 shards under mpirun, merged"
else
    fail "examples/shards.sh: $(tail -5 "$tmp/example.out")"
fi

rm -rf "$tmp"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
