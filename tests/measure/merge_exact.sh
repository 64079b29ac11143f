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
#   - the merged JSON lines (and the shards' final lines) validate against
#     docs/report.schema.json
#   - event types (TPC-C's names, a different set per shard, some events
#     untyped): the merged "types" and merge_data.types equal one histogram
#     per type fed every sample (count, retries, failed, min, max, sum, p95,
#     p99 exactly; merge_data.types' buckets decoded by hdr-histogram-js);
#     the text report's "Transactions by type" lines and TPC-C section
#     (NOPM, TPM, mix) equal, byte for byte, what sbench's text writer
#     prints for one process that ran every event (shard_gen)
#   - refused with one line and status 1: a missing shard (named, with its
#     orphan log), a corrupt or truncated log (file:line), a truncated
#     report, a shard twice, another run's shard, an option that differs
#     (named), other histogram settings, a file that is neither; event
#     types that do not add up (a count that is not its histogram's, more
#     events than transactions, more failures than failed transactions), a
#     bad or repeated type name, more than 16 types in a shard or between
#     the shards; status 2: no input.  --allow-missing merges and says so in text, JSON and CSV.
#   - shard 0's server counters carried as they are (null stays null,
#     "reset":true stays), the merged line valid against the schema
# Environment: SBT_BUILD (required), SBT_HDR_JS_DIR (default tests/hdr-js).
set -u
B=${SBT_BUILD:?}
SB=$B/cli/sbench GEN=$B/tests/shard_gen
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
node "$here/hdr_sum.mjs" "$jsdir" --b64 "$(tail -1 "$tmp/m.json" | python3 -c 'import json,sys; print([t for t in json.load(sys.stdin)["merge_data"]["types"] if t["name"] == "new_order"][0]["latency"]["hdr"])')" \
    >"$tmp/new_order.buckets" || bad "hdr_sum on merge_data.types' new_order"
# the sections a single run prints from its types, against shard_gen's one process
sections() { sed -n '/^Transactions by type/,/^$/p;/^TPC-C/,/^$/p' "$1"; }
sections "$tmp/run/expected-text.txt" >"$tmp/types.want"
sections "$tmp/m.txt" >"$tmp/types.got"
if [ "$(wc -l <"$tmp/types.want")" -lt 18 ]; then
    bad "shard_gen's one-process report has no types section"
elif cmp -s "$tmp/types.want" "$tmp/types.got"; then
    echo "ok   the merged text's Transactions by type and TPC-C (NOPM, TPM, mix) equal one process's, byte for byte"
else
    bad "the merged text's types sections differ from one process's: $(diff "$tmp/types.want" "$tmp/types.got" | head -6)"
fi
python3 - "$tmp" "$schema" "$here" <<'PY' || fail=1
import json, sys
tmp, schema, here = sys.argv[1], sys.argv[2], sys.argv[3]
errs = []
exp = {}
windows = []
types = {}
for line in open(f"{tmp}/run/expected.txt"):
    k, *v = line.split()
    if k == "window": windows.append((int(v[1]), int(v[2])))
    elif k == "type": types[v[0]] = [int(x) for x in v[1:]]
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
from schema_errors import schema_errors
errs += schema_errors(schema, lines, "line")
# event types: the merged report against one histogram per type
if len(types) != 6: errs.append(f"shard_gen wrote {len(types)} types")
got_types = fin.get("types", {})
if sorted(got_types) != sorted(types): errs.append(f"merged types {sorted(got_types)}, want {sorted(types)}")
md_types = {t["name"]: t for t in fin["merge_data"].get("types", [])}
if sorted(md_types) != sorted(types): errs.append(f"merge_data.types {sorted(md_types)}")
for name, (cnt, retries, failed, mn, mx, sm, p95, p99) in types.items():
    t, m_ = got_types.get(name), md_types.get(name)
    if not t or not m_: continue
    l = t["latency_ms"]
    got = (t["count"], t["retries"], t["failed"], ns(l["min"]), ns(l["max"]), ns(l["sum"]),
           ns(l["percentiles"]["95"]), ns(l["percentiles"]["99"]))
    if got != (cnt, retries, failed, mn, mx, sm, p95, p99):
        errs.append(f"type {name}: merge {got}, one histogram {(cnt, retries, failed, mn, mx, sm, p95, p99)}")
    if abs(t["rate"] - cnt / fin["seconds"]) > 1e-9 * cnt: errs.append(f"type {name}: rate {t['rate']}")
    if (m_["count"], m_["retries"], m_["failed"], m_["latency"]["count"], m_["latency"]["min_ns"], m_["latency"]["max_ns"],
            m_["latency"]["sum_ns"]) != (cnt, retries, failed, cnt, mn, mx, sm):
        errs.append(f"merge_data.types {name}: {m_}")
if sum(t[0] for t in types.values()) >= exp["count"]: errs.append("shard_gen left no event untyped")
if fin["failed_transactions"] != sum(t[2] for t in types.values()): errs.append("failed_transactions")
nb = read_buckets(f"{tmp}/new_order.buckets")
if "new_order" in types:
    cnt, _, _, mn, mx, _, p95, p99 = types["new_order"]
    if sum(c for _, c, _ in nb) != cnt: errs.append("new_order's buckets (hdr-histogram-js) do not hold its count")
    for p, want in ((95, p95), (99, p99)):
        if percentile(nb, p, mn, mx) != want: errs.append(f"new_order p{p} from hdr-histogram-js's buckets")
errs += schema_errors(schema, [json.loads(open(f"{tmp}/run/shard-{i}.json").read().splitlines()[-1])
                               for i in range(3)], "the final line of shard")
csv = open(f"{tmp}/m.csv").read().splitlines()
if len(csv) != 1 + len(windows) or not csv[0].startswith("time,threads,tps"): errs.append(f"CSV: {csv[:2]}")
for e in errs: print("FAIL:", e)
print(f"merged {exp['count']} latencies from 3 shards: final count/min/max/sum/percentiles exact, "
      f"{len(ints)} windows, {len(buckets)} buckets equal to the reference's sum; "
      f"{len(types)} event types (sets differ by shard) exact")
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
# event types that do not add up, or cannot be a run's
fresh; edit "$tmp/x/shard-1.json" 'd["merge_data"]["types"][0]["count"] += 1'
expect_refusal "a type's count is not its histogram's" 1 "shard-1\.json:[0-9]+: event type [a-z_]+: [0-9]+ events but [0-9]+ latencies" "$tmp/x"
fresh; edit "$tmp/x/shard-0.json" 't = d["merge_data"]["types"][1]; t["latency"] = d["merge_data"]["latency"]; t["count"] = t["latency"]["count"]'
expect_refusal "types count more events than transactions" 1 "shard-0\.json:[0-9]+: the event types count more events than the [0-9]+ transactions" "$tmp/x"
fresh; edit "$tmp/x/shard-2.json" 'd["failed_transactions"] = 1'
expect_refusal "types count more failures" 1 "shard-2\.json:[0-9]+: the event types count more failures than the 1 failed" "$tmp/x"
fresh; edit "$tmp/x/shard-0.json" 'd["merge_data"]["types"][2]["name"] = "pay\u0001ment"'
expect_refusal "a type name with a control character" 1 "shard-0\.json:[0-9]+: merge_data\.types\[2\]: the name is not an event type's" "$tmp/x"
fresh; edit "$tmp/x/shard-0.json" 'd["merge_data"]["types"][0]["name"] = "x" * 40'
expect_refusal "a type name too long" 1 "merge_data\.types\[0\]: the name is not an event type's \(1 to 39" "$tmp/x"
fresh; edit "$tmp/x/shard-1.json" 'd["merge_data"]["types"][1]["name"] = d["merge_data"]["types"][0]["name"]'
expect_refusal "a type name twice" 1 "shard-1\.json:[0-9]+: event type [a-z_]+ twice in merge_data\.types" "$tmp/x"
# empty types (the shard's empty "other" histogram): 17 in one shard, 20 between two
more_types() { # FILE PREFIX N
    edit "$1" "d['merge_data']['types'] += [dict(name='$2%d' % i, count=0, retries=0, failed=0, latency=d['merge_data']['kinds']['other']) for i in range($3)]"
}
fresh; more_types "$tmp/x/shard-0.json" a 14
expect_refusal "17 types in a shard" 1 "shard-0\.json:[0-9]+: merge_data\.types is not a list of at most 16" "$tmp/x"
fresh; more_types "$tmp/x/shard-0.json" a 7; more_types "$tmp/x/shard-1.json" b 7
expect_refusal "more than 16 types between the shards" 1 "more than 16 event types between them \(b[0-9] of shard 1" "$tmp/x"

# run.io: the shards' common value, "mixed" when they differ, a value that
# is none of the paths refused
fresh; edit "$tmp/x/shard-0.json" 'd["run"]["io"] = "warp"'
expect_refusal "run.io not a path" 1 "shard-0\.json.*run\.io is not blocking, poll, io_uring or io_uring_poll" "$tmp/x"
merged_io() { # NAME WANT IO0 IO1 IO2: merged with these run.io, the report's run.io is WANT
    local name=$1 want=$2 s got; shift 2
    fresh
    for s in 0 1 2; do edit "$tmp/x/shard-$s.json" "d['run']['io'] = '$1'"; shift; done
    "$SB" merge --report-format=json --output="$tmp/io.json" "$tmp/x" >"$tmp/io.out" 2>&1 ||
        { bad "$name: merge failed: $(head -c 300 "$tmp/io.out")"; return; }
    got=$(python3 - "$tmp/io.json" "$schema" "$here" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from schema_errors import schema_errors
fin = json.loads(open(sys.argv[1]).read().splitlines()[-1])
errs = schema_errors(sys.argv[2], [fin], "final line")
print(fin["run"].get("io") if not errs else "invalid: " + "; ".join(errs)[:300])
PY
)
    if [ "$got" = "$want" ]; then echo "ok   $name: run.io $got"; else bad "$name: run.io $got, want $want"; fi
}
merged_io "the same run.io in every shard" io_uring io_uring io_uring io_uring
merged_io "run.io differing between shards" mixed poll io_uring poll
merged_io "io_uring_poll in every shard (the ring waited, the driver moved the bytes)" io_uring_poll io_uring_poll io_uring_poll io_uring_poll
merged_io "io_uring and io_uring_poll between shards" mixed io_uring io_uring_poll io_uring

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

# the server's counters, read by shard 0 only: carried as they are, null
# (unknown) as null, "reset" (they started again during the run) as reset,
# and the merged line valid against the schema; a negative one refused
# (tests/cli/result_files_bad.sh has the message)
for srv in '{"commits":1234,"rollbacks":5,"selects":null,"inserts":null,"updates":null,"deletes":null,"statements":null}' \
           '{"reset":true,"commits":null,"rollbacks":null,"selects":null,"inserts":null,"updates":null,"deletes":null,"statements":null}'; do
    fresh
    python3 - "$tmp/x/shard-0.json" "$srv" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.loads(lines[-1]); d["server"] = json.loads(sys.argv[2]); lines[-1] = json.dumps(d)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
    if ! "$SB" merge --report-format=json --output="$tmp/srv.json" "$tmp/x" >/dev/null 2>"$tmp/srv.err"; then
        bad "server $srv: merge exited: $(head -c 300 "$tmp/srv.err")"
    elif python3 - "$tmp/srv.json" "$srv" "$schema" <<'PY'
import json, sys, jsonschema
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
jsonschema.Draft202012Validator(json.load(open(sys.argv[3]))).validate(d)
sys.exit(0 if d.get("server") == json.loads(sys.argv[2]) else 1)
PY
    then echo "ok   server counters carried by merge: $srv"
    else bad "server $srv: merged as $(tail -1 "$tmp/srv.json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("server"))')"; fi
done

[ "$fail" = 0 ] && echo "merge_exact: ok" || echo "merge_exact: FAILED"
exit $fail
