#!/bin/bash
# merge_phases.sh: sbench merge keeps a profiled run's per-phase summaries.
# Two shards (--shard=I/2, --start-at) of the null driver under
# --rate-profile='hold:300:2;hold:900:2' with fixed arrivals, merged.
# Checked against what is known apart from the merge:
#   - the merged phases are the profile's, in its order, and each asked the
#     whole profile's rate (300 and 900/s: each shard was asked half);
#   - each phase ran its asked rate (fixed arrivals, within 5%);
#   - the phases' transactions add up to the merged run's (the phases
#     partition the measured run) and each is the shards' sum;
#   - each merged phase's latencies equal the shards' phase histograms
#     added by hdr-histogram-js (bucket for bucket), and its p50/p95/p99/max
#     those computed from the reference's buckets (tests/measure/bucket_percentiles.py);
#   - the merged windows keep their phase (JSON "phase"), and the merged
#     report validates against docs/report.schema.json;
#   - a shard whose phase was renamed: refused with one line, exit 1.
# Environment: SBT_BUILD, SBT_HDR_JS_DIR.  About 10 s.
set -u
SB=${SBT_BUILD:?}/cli/sbench
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jsdir=${SBT_HDR_JS_DIR:-$root/tests/hdr-js}
[ -d "$jsdir/node_modules/hdr-histogram-js" ] || { echo "FAIL: $jsdir/node_modules/hdr-histogram-js missing"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-merge-phases.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir shards
start=$(($(date +%s) + 2))
for i in 0 1; do
    "$SB" --db-driver=null --threads=1 --rate-profile='hold:300:2;hold:900:2' --rate-distribution=fixed \
        --report-interval=1 --shard=$i/2 --start-at=$start --report-format=json --output="shards/s$i.json" \
        --hdr-log="shards/s$i.hlog" oltp_point_select run >"out$i" 2>&1 &
done
fail=0
for p in $(jobs -p); do wait "$p" || { echo "FAIL: a shard exited non-zero"; cat out0 out1; exit 1; }; done
"$SB" merge --report-format=json --output=m.json shards >m.txt 2>&1 || { echo "FAIL: merge exited $?"; cat m.txt; exit 1; }
if ! grep -q '^Phases (--rate-profile):' m.txt || ! grep -q '^    hold:900:2 ' m.txt; then
    echo "FAIL: the merged text report has no phases"; cat m.txt; fail=1
fi
# the shards' phase histograms, added up by the reference implementation
for k in 0 1; do
    # shellcheck disable=SC2046 # one base64 string a shard, no blanks
    node "$here/hdr_sum.mjs" "$jsdir" --b64 $(for i in 0 1; do tail -1 "shards/s$i.json" |
        python3 -c "import json,sys; print(json.load(sys.stdin)['phases'][$k]['merge_data']['latency']['hdr'])"; done) \
        >"ref$k.buckets" || { echo "FAIL: hdr-histogram-js could not add phase $k"; fail=1; }
    node "$here/hdr_sum.mjs" "$jsdir" --b64 "$(tail -1 m.json |
        python3 -c "import json,sys; print(json.load(sys.stdin)['phases'][$k]['merge_data']['latency']['hdr'])")" \
        >"merged$k.buckets" || { echo "FAIL: hdr-histogram-js could not read merged phase $k"; fail=1; }
done
python3 - "$here" "$root/docs/report.schema.json" <<'PY' || fail=1
import json, sys
here, schema = sys.argv[1], sys.argv[2]
sys.path.insert(0, here)
from bucket_percentiles import read_buckets, percentile
from schema_errors import schema_errors
lines = [json.loads(l) for l in open("m.json")]
fin, ints = lines[-1], lines[:-1]
shards = [json.loads(open(f"shards/s{i}.json").read().splitlines()[-1]) for i in (0, 1)]
errs, ph = [], fin.get("phases", [])
if [p["name"] for p in ph] != ["hold:300:2", "hold:900:2"]: errs.append(f"phases {[p['name'] for p in ph]}")
for p, want in zip(ph, (300, 900)):
    if abs(p["asked_rate"] - want) > 0.01 * want: errs.append(f"{p['name']}: asked {p['asked_rate']}/s, the profile {want}")
    if abs(p["tps"] - want) > 0.05 * want: errs.append(f"{p['name']}: ran {p['tps']:.1f}/s, asked {want} (fixed arrivals)")
if sum(p["transactions"] for p in ph) != fin["transactions"]:
    errs.append(f"the phases' transactions {sum(p['transactions'] for p in ph)}, the run's {fin['transactions']}")
for k, p in enumerate(ph):
    if p["transactions"] != sum(s["phases"][k]["transactions"] for s in shards): errs.append(f"{p['name']}: not the shards' sum")
    ref, got = read_buckets(f"ref{k}.buckets"), read_buckets(f"merged{k}.buckets")
    if ref != got or not ref: errs.append(f"{p['name']}: the merged histogram differs from hdr-histogram-js's sum")
    lo = min(s["phases"][k]["merge_data"]["latency"]["min_ns"] for s in shards)
    hi = max(s["phases"][k]["merge_data"]["latency"]["max_ns"] for s in shards)
    for q in (50, 95, 99):
        want, have = percentile(ref, q, lo, hi), round(p["latency_ms"][f"p{q}"] * 1e6)
        if want != have: errs.append(f"{p['name']} p{q}: merged {have} ns, from the reference's buckets {want} ns")
    if round(p["latency_ms"]["max"] * 1e6) != hi: errs.append(f"{p['name']} max")
wp = [w.get("phase") for w in ints]
if wp[:1] != ["hold:300:2"] or "hold:900:2" not in wp or None in wp: errs.append(f"windows' phases {wp}")
errs += schema_errors(schema, lines, "line")
for e in errs: print("FAIL:", e)
if not errs:
    print(f"ok: {len(ph)} merged phases: the profile's rates, transactions adding up, histograms and "
          f"percentiles as hdr-histogram-js adds the shards', windows tagged, schema valid")
sys.exit(1 if errs else 0)
PY
# a shard whose phase is another: refused, one line, nothing written
sed -i '$ s/"name":"hold:900:2"/"name":"hold:901:2"/' shards/s1.json
"$SB" merge --report-format=json --output=bad.json shards >bad.out 2>bad.err; rc=$?
if [ $rc = 1 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q "phase 2 is 'hold:901:2'" bad.err && [ ! -e bad.json ]; then
    echo "ok: a shard's other phase refused: $(cat bad.err)"
else echo "FAIL: a renamed phase: exit $rc"; cat bad.out bad.err; fail=1; fi
[ $fail = 0 ] && echo "PASS: merge_phases"
exit $fail
