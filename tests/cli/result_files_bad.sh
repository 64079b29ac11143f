#!/bin/bash
# result_files_bad.sh: result files that lie, given to sbench merge,
# sbench report and sbench compare reading its results directory back, one
# case per row of the tables below.  Each must be refused with status 1
# and one line naming the file (and the line and field where there is
# one), within 20 s (a FIFO must not hang it): a histogram whose counts
# overflow so the total wraps back to the true count, a FIFO, a directory
# where a file should be, tps=1e308, tps=-1000, a server counter of
# -74921 (what a server restart made of it before), a count beside
# "reset":true, seconds=1e308, a time of -5
# in comparison.json, a garbage info.json, a 40 MB line (refused at the 32
# MiB line limit, using less than 100 MB of memory); and issue #39's:
# transactions 100x their latencies, an interval line inflated (itself
# consistent, not with the final line), a window moved against the log's,
# machine_busy_share 5 and client_cpu_s 1e308 in a record, symlink loops,
# another target's run (its driver) or record (its id), values of another
# type where the summary copies them.  The good files are a synthetic
# sharded run (shard_gen, sbench's own writers), a comparison of the null
# and SQLite drivers, and a script that counts transactions itself; all
# are first checked to be accepted (and the summaries to hold to
# docs/compare.schema.json), so a refusal below is the edit's.  No server.
# Usage: result_files_bad.sh BUILD_ROOT
set -u
B=$(cd "${1:?build root}" && pwd)
SB=$B/cli/sbench GEN=$B/tests/shard_gen
ED="python3 $(cd "$(dirname "$0")" && pwd)/result_files_bad.py"
SCHEMA=$(cd "$(dirname "$0")/../.." && pwd)/docs/compare.schema.json
LJ=$(cd "$(dirname "$0")/.." && pwd)/integration/luajit_workload.lua
[ -x "$SB" ] && [ -x "$GEN" ] || { echo "FAIL: build sbench and tests/shard_gen first"; exit 1; }
T=$(mktemp -d "${SBT_TMP:-/tmp}/bad-files.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
checks=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# the good files, accepted as they are
mkdir shards && "$GEN" shards 3 4 500 7 >/dev/null || { echo "FAIL: shard_gen"; exit 1; }
# two drivers that need no server: null, and sqlite on tables made here
"$SB" --db-driver=sqlite --sqlite-db="$T/t.db" --table-size=100 oltp_point_select prepare >prep.out 2>&1 ||
    { echo "FAIL: sqlite prepare:"; tail -5 prep.out; exit 1; }
# target a's 200 events take at least 1.6 s (8 ms each): two windows or more
CARGS=(compare --prepare=off --target="a:--db-driver=null --null-delay-us=8000" --target="b:--db_driver=sqlite --sqlite-db=$T/t.db"
       --table-size=100 --events=200 --time=0 --warmup-time=0 --repeats=2 --quiet --results=cmp oltp_point_select)
"$SB" "${CARGS[@]}" >cmp.out 2>&1 || { echo "FAIL: the good comparison:"; tail -5 cmp.out; exit 1; }
R=oltp_point_select_t1_a_r1 RB=oltp_point_select_t1_b_r1
# every summary sbench writes from good files holds to its schema
schema_ok() {
    python3 - "$1" "$SCHEMA" <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])),
                    cls=jsonschema.Draft202012Validator)
PY
}
good() { # WHAT DIR CMD...: the good files accepted, and DIR/summary.json (if any) valid
    local what=$1 dir=$2
    shift 2
    if timeout 60 "$SB" "$@" >good.out 2>good.err; then echo "ok   the good files: sbench $what accepts them"
    else fail "the good files: sbench $what: $(head -3 good.err)"; fi
    [ "$1" = merge ] && return
    if err=$(schema_ok "$dir/summary.json" 2>&1); then echo "ok   sbench $what's summary.json holds to docs/compare.schema.json"
    else fail "sbench $what's summary.json breaks docs/compare.schema.json: $(echo "$err" | tail -3)"; fi
}
good merge - merge shards
good report cmp report cmp
good "compare (all runs done)" cmp "${CARGS[@]}"

# a script that counts transactions itself (SB_CNT_TRX on every 10th of its
# events: tests/integration/luajit_workload.lua): those have no latency,
# and the report says how many, so the readers accept it
LJS=(--db-driver=sqlite --sqlite-db="$T/lj.db")
"$SB" "${LJS[@]}" "$LJ" prepare >ljprep.out 2>&1 || { echo "FAIL: luajit_workload prepare:"; tail -5 ljprep.out; exit 1; }
LJC=(compare --prepare=off --target="s:${LJS[*]}" --events=200 --time=0 --warmup-time=0 --repeats=1 --quiet
     --results=lj "$LJ")
mkdir ljs && for i in 0 1; do
    "$SB" "${LJS[@]}" --events=100 --report-interval=1 --shard=$i/2 --run-id=lj --report-format=json \
        --output=ljs/s$i.json --hdr-log=ljs/s$i.hlog "$LJ" run >ljs.out 2>&1 || { echo "FAIL: shard $i:"; tail -5 ljs.out; exit 1; }
done
"$SB" "${LJC[@]}" >lj.out 2>&1 || { echo "FAIL: the script-counting comparison:"; tail -5 lj.out; exit 1; }
good "merge (script-counted transactions)" - merge ljs
good "report (script-counted transactions)" lj report lj
good "compare (script-counted transactions)" lj "${LJC[@]}"
checks=$((checks + 1))
got=$(python3 -c 'import json, sys
for f in sys.argv[1:]:
    for l in open(f):
        d = json.loads(l)
        print(d["type"], d["transactions"], d["latency_ms"]["count"], d.get("script_transactions", 0))' \
    lj/runs/luajit_workload_t1_s_r1.json ljs/s0.json | sort -u | tr '\n' ';')
# 200 events, every 10th also counted: 220 transactions, 200 latencies, 20
# by the script; --events=100 split over 2 shards: 55, 50, 5 (one window each)
if [ "$got" = "final 220 200 20;final 55 50 5;interval 220 200 20;interval 55 50 5;" ]; then
    echo "ok   script_transactions: 20 of 200 events, 5 of a shard's 50 (every 10th)"
else fail "script_transactions: got $got"; fi
checks=$((checks + 1))
if err=$(python3 - "${SCHEMA%compare.schema.json}report.schema.json" lj/runs/luajit_workload_t1_s_r1.json ljs/s0.json <<'PY' 2>&1
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    for line in open(f):
        jsonschema.validate(json.loads(line), schema, cls=jsonschema.Draft202012Validator)
PY
); then echo "ok   the lines with script_transactions hold to docs/report.schema.json"
else fail "a line with script_transactions breaks docs/report.schema.json: $(echo "$err" | tail -3)"; fi

# row NAME WHAT PATTERN CMD...: the copy in NAME/ edited by WHAT (a shell
# command run in NAME/), then CMD run on it: status 1 within 20 s, one
# line on stderr matching PATTERN (grep -E)
row() {
    local name=$1 what=$2 pat=$3
    shift 3
    checks=$((checks + 1))
    mkdir "$name"
    cp -r shards cmp "$name/"
    (cd "$name" && eval "$what") >"$name.edit" 2>&1 || { fail "$name: the edit failed: $(cat "$name.edit")"; return; }
    local t0=$SECONDS
    (cd "$name" && exec timeout -k 5 20 /usr/bin/time -f %M -o ../"$name.rss" "$SB" "$@") \
        >"$name.out" 2>"$name.err"
    local rc=$? secs=$((SECONDS - t0)) rss
    rss=$(tail -1 "$name.rss" 2>/dev/null)
    grep -v "^Command exited with non-zero status" "$name.err" >"$name.msg"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        fail "$name: sbench $1 hangs (killed after ${secs}s)"
    elif [ "$rc" != 1 ]; then
        fail "$name: sbench $*: status $rc, want 1: $(head -c 300 "$name.msg")"
    elif [ "$(wc -l <"$name.msg")" != 1 ] || ! grep -qE -- "$pat" "$name.msg"; then
        fail "$name: want one line matching '$pat', got:"; head -5 "$name.msg" | cut -c1-300
    elif [ "${rss:-0}" -gt 100000 ]; then
        fail "$name: refused, but with ${rss} KB of memory (want < 100 MB)"
    else
        echo "ok   $name: $(cut -c1-200 "$name.msg") (${secs}s, ${rss} KB)"
    fi
}

N='[0-9]+'
# sbench merge
row merge-hist-overflow 'l=$($ED hist-overflow shards/shard-1.hlog) && echo $l' \
    "shards/shard-1.hlog:$N: the histogram's counts add up to more than 2\\^63-1 \\(overflow\\)" merge shards
row merge-fifo 'mkfifo shards/shard-9.json' "shards/shard-9.json: not a regular file \\(a FIFO\\)" merge shards
row merge-dir-in-dir 'mkdir shards/shard-9.json' "shards/shard-9.json: is a directory" merge shards
row merge-seconds-1e308 '$ED set shards/shard-2.json -1 seconds 1e308' \
    "shards/shard-2.json:$N: \"seconds\" is 1(\\.0+)?e\\+308: not a time" merge shards
row merge-tps-negative '$ED set shards/shard-0.json 2 tps -1000' \
    "shards/shard-0.json:2: \"tps\" is -1000, but $N in .* s is" merge shards
row merge-kinds-lie '$ED set shards/shard-1.json -1 kinds.select.count 999999999' \
    "shards/shard-1.json:$N: \"queries.read\" is $N, but its statement kinds count 999999999" merge shards
# the JSON the bug wrote after a server restart (docs/report-json.md: a
# count is never negative; unknown is null)
row merge-server-negative "\$ED set shards/shard-0.json -1 server \
    '{\"commits\":-74921,\"rollbacks\":0,\"selects\":null,\"inserts\":null,\"updates\":null,\"deletes\":null,\"statements\":null}'" \
    "shards/shard-0.json:$N: \"server.commits\" is -74921: a count is never negative" merge shards
row merge-server-reset-lie "\$ED set shards/shard-0.json -1 server \
    '{\"reset\":true,\"commits\":2374,\"rollbacks\":null,\"selects\":null,\"inserts\":null,\"updates\":null,\"deletes\":null,\"statements\":null}'" \
    "shards/shard-0.json:$N: \"server.commits\" is 2374 beside \"reset\": the counts are unknown" merge shards
row merge-huge-line '$ED huge shards/shard-0.json 40000000' \
    "shards/shard-0.json: line 1 is longer than 33554432 bytes, the limit for one line" merge shards
# sbench report
row report-tps-1e308 "\$ED set cmp/runs/$R.json -1 tps 1e308" \
    "cmp/runs/$R.json:$N: \"tps\" is 1(\\.0+)?e\\+308, but $N in" report cmp
row report-tps-negative "\$ED set cmp/runs/$R.json 1 tps -1000" "cmp/runs/$R.json:1: \"tps\" is -1000" report cmp
row report-time-negative '$ED set-doc cmp/comparison.json time -5' \
    "cmp/comparison.json: \"time\" is -5: not a whole number from 0" report cmp
row report-info-garbage 'printf "%s" "{garbage" >cmp/info.json' "cmp/info.json: not JSON" report cmp
row report-info-not-info '$ED set-doc cmp/info.json type "\"run\""' "cmp/info.json: \"type\" is not \"info\"" report cmp
row report-fifo "rm cmp/runs/$R.json && mkfifo cmp/runs/$R.json" \
    "cmp/runs/$R.json: not a regular file \\(a FIFO\\)" report cmp
row report-dir "rm cmp/runs/$R.json && mkdir cmp/runs/$R.json" "cmp/runs/$R.json: is a directory" report cmp
row report-hist-overflow "\$ED hist-overflow cmp/runs/$R.hlog" \
    "cmp/runs/$R.hlog:$N: the histogram's counts add up to more than 2\\^63-1" report cmp
row report-huge-line "\$ED huge cmp/runs/$R.json 40000000" \
    "cmp/runs/$R.json: line 1 is longer than 33554432 bytes" report cmp
row report-record-wall "\$ED set-doc cmp/runs/$R.record.json wall_s -3" \
    "cmp/runs/$R.record.json: \"wall_s\" is -3" report cmp

# the lies of issue #39, each given to sbench merge (where it applies),
# sbench report and sbench compare loading the results directory
both() { # NAME WHAT PATTERN: report and compare rows
    row "report-$1" "$2" "$3" report cmp
    row "compare-$1" "$2" "$3" "${CARGS[@]}"
}
row merge-tx-100x '$ED scale shards/shard-0.json 100' \
    "shards/shard-0.json:1: \"transactions\" is $N, but \"latency_ms.count\" is $N" merge shards
both tx-100x "\$ED scale cmp/runs/$R.json 100" \
    "cmp/runs/$R.json:1: \"transactions\" is $N, but \"latency_ms.count\" is $N"
row merge-interval-inflated '$ED inflate shards/shard-1.json 100' \
    "shards/shard-1.json:$N: the interval lines' \"transactions\" add up to $N, the final line's is $N" merge shards
both interval-inflated "\$ED inflate cmp/runs/$R.json 100" \
    "cmp/runs/$R.json:$N: the interval lines' \"transactions\" add up to $N, the final line's is 200"
row merge-window-shifted '$ED shift shards/shard-2.json' \
    "shards/shard-2.hlog:$N: the interval holds $N latencies, line 1 of shards/shard-2.json says $N" merge shards
both window-shifted "\$ED shift cmp/runs/$R.json" \
    "cmp/runs/$R.hlog:$N: the interval holds $N latencies, interval line 1 of the report $N"
both busy-share-5 "\$ED set-doc cmp/runs/$R.record.json machine_busy_share 5" \
    "cmp/runs/$R.record.json: \"machine_busy_share\" is 5: not from 0 to 1"
both cpu-1e308 "\$ED set-doc cmp/runs/$R.record.json client_cpu_s 1e308" \
    "cmp/runs/$R.record.json: \"client_cpu_s\" is 1(\\.0+)?e\\+308: not from 0 to"
row merge-symlink-loop '$ED loop shards/shard-1.json' "shards/shard-1.json: .*symbolic links" merge shards
both json-symlink-loop "\$ED loop cmp/runs/$R.json" "cmp/runs/$R.json: Too many levels of symbolic links"
both report-gone "rm cmp/runs/$R.json" "cmp/runs/$R.json: missing, but the run's record is there"
both record-symlink-loop "\$ED loop cmp/runs/$R.record.json" \
    "cmp/runs/$R.record.json: Too many levels of symbolic links"
# target b's (sqlite) run under target a (null), its record's id made a's
both other-target "for e in json hlog record.json; do cp cmp/runs/$RB.\$e cmp/runs/$R.\$e; done &&
    \$ED set-doc cmp/runs/$R.record.json id '\"$R\"'" \
    "cmp/runs/$R.json: \"run.options.db-driver\" is sqlite, but target 'a' runs null"
both other-record "cp cmp/runs/$RB.record.json cmp/runs/$R.record.json" \
    "cmp/runs/$R.record.json: \"id\" is \"$RB\": the record of another run"
# what the summary copies must be of the shape its schema gives it
both host-memory "\$ED set cmp/runs/$R.json -1 run.host.memory_bytes -1" \
    "cmp/runs/$R.json: \"run.host.memory_bytes\" is not a count"
both settings-value "\$ED set cmp/runs/$RB.json -1 run.server_settings.settings.page_size.value 4096" \
    "cmp/runs/$RB.json: \"run.server_settings.settings\" is not settings of \\{value, unit\\} strings"
both info-loadavg '$ED set-doc cmp/info.json host.loadavg "[1, 2]"' \
    "cmp/info.json: \"host.loadavg\" is not three load averages"
both info-symlink-loop '$ED loop cmp/info.json' "cmp/info.json: .*Too many levels of symbolic links"
both comparison-symlink-loop '$ED loop cmp/comparison.json' "cmp/comparison.json.*Too many levels of symbolic links"

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
