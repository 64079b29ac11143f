#!/bin/bash
# merge_exact.sh: sbench merge against independent computations, and its
# refusals, on a synthetic sharded run (no server, a few seconds).
#
# shard_gen (tests/measure/shard_gen.c) writes 3 shards x 5 one-second
# windows with sbench's own writers, and what one histogram fed with every
# sample reports.  Checked:
#   - the merged final report's count, min, max, sum and every percentile
#     equal that one histogram's, exactly; each merged window's count too
#   - the merged histogram (merged --hdr-log, and the final line's
#     merge_data) equals the sum of the shards' logs bucket for bucket, both
#     decoded and added by hdr-histogram-js (tests/measure/hdr_sum.mjs), and
#     the percentiles computed in Python from those buckets equal the merge's
#   - the merged JSON lines validate against docs/report.schema.json
#   - refused with one line and status 1: a missing shard (named, with its
#     orphan log), a corrupt or truncated log (file:line), a truncated
#     report, a shard twice, another run's shard, an option that differs
#     (named), other histogram settings, a file that is neither; status 2:
#     no input.  --allow-missing merges and says so in text, JSON and CSV.
# Environment: SBT_BUILD (required), SBT_HDR_JS_DIR (default tests/hdr-js).
set -u
B=${SBT_BUILD:?}
SB=$B/core/sbench GEN=$B/tests/shard_gen
here=$(cd "$(dirname "$0")" && pwd)
jsdir=${SBT_HDR_JS_DIR:-$here/../hdr-js}
schema=$here/../../docs/report.schema.json
[ -d "$jsdir/node_modules/hdr-histogram-js" ] || { echo "FAIL: $jsdir/node_modules/hdr-histogram-js missing"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/merge-exact.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir "$tmp/run" && "$GEN" "$tmp/run" 3 5 2000 11 || { echo "FAIL: shard_gen"; exit 1; }
"$SB" merge --report-format=json --output="$tmp/m.json" --hdr-log="$tmp/m.hlog" "$tmp/run" >"$tmp/m.txt" 2>&1 ||
    { bad "merge exited $?"; cat "$tmp/m.txt"; }
"$SB" merge --report-format=csv "$tmp/run" >"$tmp/m.csv" 2>"$tmp/m.csv.err" || bad "csv merge exited $?"
node "$here/hdr_sum.mjs" "$jsdir" "$tmp"/run/shard-*.hlog >"$tmp/shards.buckets" || bad "hdr_sum on the shards' logs"
node "$here/hdr_sum.mjs" "$jsdir" "$tmp/m.hlog" >"$tmp/merged.buckets" || bad "hdr_sum on the merged log"
node "$here/hdr_sum.mjs" "$jsdir" --b64 "$(tail -1 "$tmp/m.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["merge_data"]["latency"]["hdr"])')" \
    >"$tmp/final.buckets" || bad "hdr_sum on merge_data.latency"
cmp -s "$tmp/shards.buckets" "$tmp/merged.buckets" || bad "the merged log's buckets differ from the sum of the shards' logs"
cmp -s "$tmp/shards.buckets" "$tmp/final.buckets" || bad "merge_data.latency's buckets differ from the sum of the shards' logs"
python3 - "$tmp" "$schema" "$here" <<'PY' || fail=1
import json, sys
tmp, schema, here = sys.argv[1], sys.argv[2], sys.argv[3]
errs = []
exp = {}
windows = []
for line in open(f"{tmp}/run/expected.txt"):
    k, *v = line.split()
    if k == "window": windows.append((int(v[1]), int(v[2])))
    else: exp[k] = int(v[0])
lines = [json.loads(l) for l in open(f"{tmp}/m.json")]
fin, ints = lines[-1], lines[:-1]
lat = fin["latency_ms"]
ns = lambda ms: round(ms * 1e6)
for k, got in (("count", lat["count"]), ("min", ns(lat["min"])), ("max", ns(lat["max"])), ("sum", ns(lat["sum"]))):
    if got != exp[k]: errs.append(f"final {k}: merge {got}, one histogram {exp[k]}")
for p, v in lat["percentiles"].items():
    if ns(v) != exp["p" + p]: errs.append(f"final p{p}: merge {ns(v)} ns, one histogram {exp['p' + p]} ns")
if fin["transactions"] != exp["count"]: errs.append(f"transactions {fin['transactions']} != {exp['count']}")
if len(ints) != len(windows): errs.append(f"{len(ints)} window lines, want {len(windows)}")
for i, (d, (cnt, p99)) in enumerate(zip(ints, windows)):
    if d["transactions"] != cnt or d["latency_ms"]["count"] != cnt:
        errs.append(f"window {i}: {d['transactions']} transactions, {d['latency_ms']['count']} latencies, want {cnt}")
    got = ns(d["latency_ms"]["percentiles"]["99"])
    # one histogram clamps to its exact max, a window line to its bucket's bounds
    if not (p99 <= got <= p99 * 1.01 + 1): errs.append(f"window {i} p99: merge {got}, one histogram {p99}")
if not ints or not ints[-1].get("last"): errs.append("the last window line is not marked last")
m = fin["run"]["merge"]
if m["merged"] != [0, 1, 2] or m["missing"] or len(m["per_shard"]) != 3:
    errs.append(f"run.merge: {m}")
if sum(r["transactions"] for r in m["per_shard"]) != exp["count"]: errs.append("per_shard transactions")
# percentiles again, from the reference decoder's buckets and sbench's rule
sys.path.insert(0, here)
from bucket_percentiles import read_buckets, percentile
buckets = read_buckets(f"{tmp}/shards.buckets")
for p, v in lat["percentiles"].items():
    want = percentile(buckets, float(p), exp["min"], exp["max"])
    if ns(v) != want: errs.append(f"p{p} from the reference decoder's buckets {want}, merge {ns(v)}")
try:
    import jsonschema
    val = jsonschema.Draft202012Validator(json.load(open(schema)))
    for i, d in enumerate(lines):
        for e in val.iter_errors(d): errs.append(f"line {i + 1} against the schema: {e.message[:160]}")
except ImportError:
    errs.append("python3-jsonschema missing")
csv = open(f"{tmp}/m.csv").read().splitlines()
if len(csv) != 1 + len(windows) or not csv[0].startswith("time,threads,tps"): errs.append(f"CSV: {csv[:2]}")
for e in errs: print("FAIL:", e)
print(f"merged {exp['count']} latencies from 3 shards: final count/min/max/sum/percentiles exact, "
      f"{len(ints)} windows, {len(buckets)} buckets equal to the reference's sum")
sys.exit(1 if errs else 0)
PY

# ---- refusals ----
# expect_refusal NAME STATUS PATTERN ARGS...: sbench merge ARGS exits STATUS
# with one line on stderr matching PATTERN, and writes no --output
expect_refusal() {
    local name=$1 want=$2 pat=$3; shift 3
    rm -f "$tmp/out.json"
    "$SB" merge --report-format=json --output="$tmp/out.json" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
    local rc=$?
    if [ "$rc" != "$want" ] || ! grep -qE "$pat" "$tmp/r.err" || [ "$(wc -l <"$tmp/r.err")" != 1 ] ||
        [ -e "$tmp/out.json" ] || [ -e "$tmp/out.json.tmp" ]; then
        bad "$name: status $rc (want $want), stderr: $(head -c 300 "$tmp/r.err")"
    else
        echo "ok   $name: $(cat "$tmp/r.err")"
    fi
}
fresh() { rm -rf "$tmp/x"; cp -r "$tmp/run" "$tmp/x"; rm -f "$tmp/x/expected.txt"; }

fresh; rm "$tmp/x/shard-1.json"
expect_refusal "missing shard, orphan log" 1 "shard 1 of 3 is missing: .*shard-1\.hlog" "$tmp/x"
fresh; rm "$tmp/x/shard-2.json" "$tmp/x/shard-2.hlog"
expect_refusal "missing shard, nothing of it" 1 "shard 2 of 3 is missing" "$tmp/x"
fresh; rm "$tmp/x/shard-0.hlog"
expect_refusal "report without its log" 1 "shard 0 of 3 .*no HdrHistogram log" "$tmp/x"
fresh; python3 - "$tmp/x/shard-2.hlog" <<'PY'
import sys
p = sys.argv[1]; lines = open(p).read().split("\n")
i = [k for k, l in enumerate(lines) if l[:1].isdigit()][2]
f = lines[i].split(","); h = f[3]; f[3] = h[:40] + ("A" if h[40] != "A" else "B") + h[41:]
lines[i] = ",".join(f); open(p, "w").write("\n".join(lines))
print(i + 1, file=open(p + ".line", "w"))
PY
line=$(cat "$tmp/x/shard-2.hlog.line"); rm "$tmp/x/shard-2.hlog.line"
expect_refusal "corrupt log" 1 "shard-2\.hlog:$line: " "$tmp/x"
fresh; head -c -30 "$tmp/run/shard-1.hlog" >"$tmp/x/shard-1.hlog"
expect_refusal "truncated log" 1 "shard-1\.hlog:[0-9]+: the file ends inside a line" "$tmp/x"
fresh; head -n -2 "$tmp/run/shard-1.hlog" >"$tmp/x/shard-1.hlog"
expect_refusal "log cut at a line's end" 1 "shard-1\.hlog: 3 intervals, .* has 5 windows" "$tmp/x"
fresh; head -n -1 "$tmp/run/shard-0.json" >"$tmp/x/shard-0.json"
expect_refusal "truncated report" 1 "shard-0\.json: no final report line" "$tmp/x"
fresh; head -c -100 "$tmp/run/shard-0.json" >"$tmp/x/shard-0.json"
expect_refusal "report cut inside a line" 1 "shard-0\.json: the last line does not end" "$tmp/x"
fresh; cp "$tmp/run/shard-0.json" "$tmp/x/again.json"
expect_refusal "a shard twice" 1 "shard 0 twice: .*again\.json and .*shard-0\.json" "$tmp/x"
edit() { # FILE PYTHON-EXPRESSION-ON-d (the final line)
    python3 - "$1" "$2" <<'PY'
import json, sys
p, expr = sys.argv[1], sys.argv[2]
lines = open(p).read().splitlines()
d = json.loads(lines[-1]); exec(expr); lines[-1] = json.dumps(d, separators=(",", ":"))
open(p, "w").write("\n".join(lines) + "\n")
PY
}
fresh; edit "$tmp/x/shard-1.json" 'd["run"]["shard"]["run_id"] = "other-run"'
expect_refusal "another run's shard" 1 "shard-1\.json is from run other-run" "$tmp/x"
fresh; edit "$tmp/x/shard-2.json" 'd["run"]["options"]["threads"] = "8"'
expect_refusal "an option differs" 1 "shard 2 .* has --threads=8, shard 0 .* --threads=2" "$tmp/x"
fresh; for s in 0 1 2; do edit "$tmp/x/shard-$s.json" 'd["run"]["options"]["histogram-precision"] = "0.001"'; done
expect_refusal "histogram settings" 1 "shard-0\.json:[0-9]+: merge_data's latency histogram: histogram settings differ" "$tmp/x"
fresh; echo "hello" >"$tmp/x/notes.json"
expect_refusal "neither report nor log" 1 "notes\.json: neither an sbench JSON report nor an HdrHistogram log" "$tmp/x"
expect_refusal "no input" 2 "no input" 

# --allow-missing: merged, and every output says which shard is missing
fresh; rm "$tmp/x/shard-1.json"
"$SB" merge --allow-missing --report-format=json --output="$tmp/am.json" "$tmp/x" >"$tmp/am.txt" 2>"$tmp/am.err" ||
    bad "--allow-missing exited $?"
"$SB" merge --allow-missing --report-format=csv "$tmp/x" >"$tmp/am.csv" 2>/dev/null || bad "--allow-missing csv"
grep -q "WARNING: shard 1 missing (--allow-missing): the report covers 2 of 3 shards" "$tmp/am.txt" ||
    bad "--allow-missing: the text report does not say so"
grep -q "^    missing: 1$" "$tmp/am.txt" || bad "--allow-missing: the shards table does not list it"
head -1 "$tmp/am.csv" | grep -q "^# sbench merge: 2 of 3 shards, missing: 1$" || bad "--allow-missing: CSV: $(head -1 "$tmp/am.csv")"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
m = d["run"]["merge"]
assert m["missing"] == [1] and m["missing_count"] == 1 and m["merged"] == [0, 2], m
' "$tmp/am.json" || bad "--allow-missing: run.merge in JSON"
grep -q "1 of 3 shards missing" "$tmp/am.err" || bad "--allow-missing: no note on stderr"

[ "$fail" = 0 ] && echo "merge_exact: ok" || echo "merge_exact: FAILED"
exit $fail
