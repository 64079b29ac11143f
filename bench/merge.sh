#!/usr/bin/env bash
# bench/merge.sh: how long `sbench merge` takes for a big sharded run:
# MERGE_SHARDS shards of a MERGE_WINDOWS-second run with 1-second windows
# (defaults 64 and 600: a 10-minute run on 64 client machines), written
# synthetically with sbench's own writers by tests/measure/shard_gen
# (MERGE_EVENTS latencies per window and shard, log-normal with a tail:
# a few hundred occupied buckets per window).  Merges them MERGE_REPEAT
# times into the text and into the JSON report plus a merged HdrHistogram
# log, checks the merged count against the generator's, and prints wall,
# user and system seconds and peak RSS of each, best of the repeats.
# Target: under a few seconds.
#
# Environment: MERGE_SHARDS [64] MERGE_WINDOWS [600] MERGE_EVENTS [1000]
# MERGE_REPEAT [3]; BUILD_DIR (a release build, made if missing).
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need /usr/bin/time python3
build_sbench
GEN=$BUILD_DIR/tests/shard_gen
[ -x "$GEN" ] || die "no $GEN"
S=${MERGE_SHARDS:-64} W=${MERGE_WINDOWS:-600} E=${MERGE_EVENTS:-1000} R=${MERGE_REPEAT:-3}
tmp=$(mktemp -d /tmp/sbench-merge-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run"
log "writing $S shards x $W windows x $E latencies"
"$GEN" "$tmp/run" "$S" "$W" "$E" 1
want=$(awk '$1 == "count" { print $2 }' "$tmp/run/expected.txt")
mv "$tmp/run/expected.txt" "$tmp"
log "$(du -sh "$tmp/run" | cut -f1) of reports and logs"
best() { sort -n -k1 "$1" | head -1; }
for kind in text json; do
    : >"$tmp/$kind.times"
    for _ in $(seq "$R"); do
        if [ $kind = text ]; then
            /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$SBENCH" merge "$tmp/run" >"$tmp/out.txt"
        else
            /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$SBENCH" merge --report-format=json \
                --output="$tmp/out.json" --hdr-log="$tmp/out.hlog" "$tmp/run" >/dev/null
        fi
        cat "$tmp/t" >>"$tmp/$kind.times"
    done
    read -r wall user sys rss < <(best "$tmp/$kind.times")
    printf '%-5s %d shards x %d windows: wall %5.2f s, user %5.2f s, system %5.2f s, peak RSS %d MB\n' \
        "$kind" "$S" "$W" "$wall" "$user" "$sys" $((rss / 1024))
done
got=$(tail -1 "$tmp/out.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms"]["count"])')
[ "$got" = "$want" ] || die "the merge holds $got latencies, the generator wrote $want"
log "merged $got latencies, as written"
