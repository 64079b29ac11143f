#!/bin/bash
# result_files_bad.sh: result files that lie, given to sbench merge and
# sbench report, one case per row of the table below.  Each must be
# refused with status 1 and one line naming the file (and the line and
# field where there is one), within 20 s (a FIFO must not hang it): a
# histogram whose counts overflow so the total wraps back to the true
# count, a FIFO, a directory where a file should be, tps=1e308, tps=-1000,
# a server counter of -74921 (what a server restart made of it before),
# a count beside "reset":true (the counts after a restart given as the run's),
# seconds=1e308, a time of -5 in comparison.json, a garbage info.json, a
# 40 MB line (refused at the 32 MiB line limit, using less than 100 MB of
# memory).  The good files are a synthetic sharded run (shard_gen, sbench's
# own writers) and a comparison on the null driver; both are first checked
# to be accepted, so a refusal below is the edit's.  No server needed.
# Usage: result_files_bad.sh BUILD_ROOT
set -u
B=$(cd "${1:?build root}" && pwd)
SB=$B/cli/sbench GEN=$B/tests/shard_gen
ED="python3 $(cd "$(dirname "$0")" && pwd)/result_files_bad.py"
[ -x "$SB" ] && [ -x "$GEN" ] || { echo "FAIL: build sbench and tests/shard_gen first"; exit 1; }
T=$(mktemp -d "${SBT_TMP:-/tmp}/bad-files.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
checks=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# the good files, accepted as they are
mkdir shards && "$GEN" shards 3 4 500 7 >/dev/null || { echo "FAIL: shard_gen"; exit 1; }
"$SB" compare --prepare=off --target="a:--db-driver=null" --target="b:--db-driver=null" --events=200 \
    --time=0 --warmup-time=0 --repeats=2 --quiet --results=cmp oltp_point_select >cmp.out 2>&1 ||
    { echo "FAIL: the good comparison:"; tail -5 cmp.out; exit 1; }
R=oltp_point_select_t1_a_r1
for c in "merge shards" "report cmp"; do
    # shellcheck disable=SC2086
    if timeout 60 "$SB" $c >good.out 2>good.err; then echo "ok   the good files: sbench $c accepts them"
    else fail "the good files: sbench $c: $(head -3 good.err)"; fi
done

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

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
