#!/bin/bash
# windows_add_up.sh: every reporting window is reported, the run's last
# (shorter) one included, so that the windows of every output add up to
# the final report.  Null driver, no server.  For --time=3 with
# --report-interval=1 and with --report-interval=5 (a run shorter than one
# window): the text report has a "[ Ns ]" line per window (3, then 1); the
# JSON interval lines add up to the final line; the HdrHistogram log,
# decoded and added up by the reference implementation (hdr-histogram-js,
# tests/measure/hdr_merge.mjs), holds exactly the final report's count of
# latencies, and its p50/p99/p99.99 agree with the final report's within
# the histogram's precision.
# Environment: SBT_BUILD (required), SBT_HDR_JS_DIR (node_modules of
# hdr-histogram-js; default tests/hdr-js).
set -u
SB=${SBT_BUILD:?}/cli/sbench
here=$(cd "$(dirname "$0")" && pwd)
jsdir=${SBT_HDR_JS_DIR:-$here/../hdr-js}
[ -d "$jsdir/node_modules/hdr-histogram-js" ] || { echo "FAIL: $jsdir/node_modules/hdr-histogram-js missing"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-windows.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
for ri in 1 5; do
    name=ri$ri
    "$SB" --db-driver=null --null-delay-us=20 --threads=2 --time=3 --report-interval=$ri --rand-seed=7 \
        --report-format=json --output="$tmp/$name.json" --hdr-log="$tmp/$name.hlog" \
        oltp_point_select run >"$tmp/$name.out" 2>&1 || { echo "FAIL: $name: sbench exited $?"; cat "$tmp/$name.out"; fail=1; continue; }
    node "$here/hdr_merge.mjs" "$tmp/$name.hlog" "$jsdir" >"$tmp/$name.merged" ||
        { echo "FAIL: $name: the HdrHistogram log does not decode"; fail=1; continue; }
    python3 - "$tmp/$name" "$ri" <<'PY' || fail=1
import json, re, sys
base, ri = sys.argv[1], int(sys.argv[2])
errs = []
lines = [json.loads(l) for l in open(base + ".json")]
ints = [d for d in lines if d["type"] == "interval"]
fin = lines[-1]
want = -(-3 // ri)   # windows of a 3 s run: ceil(3 / interval)
text = open(base + ".out").read()
marks = re.findall(r"^\[ (\d+)s \]", text, re.M)
if len(marks) != want: errs.append(f"{len(marks)} '[ Ns ]' lines in the text report, want {want}")
if len(ints) != want: errs.append(f"{len(ints)} JSON interval lines, want {want}")
if ints and not ints[-1].get("last"): errs.append("the last interval line is not marked last")
if sum(d["transactions"] for d in ints) != fin["transactions"]:
    errs.append(f"JSON intervals hold {sum(d['transactions'] for d in ints)} transactions, final {fin['transactions']}")
n, count, p50, p99, p9999, mx, covered = open(base + ".merged").read().split()
lat = fin["latency_ms"]
if int(n) != want: errs.append(f"HDR log has {n} intervals, want {want}")
if int(float(count)) != lat["count"]:
    errs.append(f"HDR log holds {count} latencies, the final report {lat['count']}")
prec = 0.01
for name, ref in (("50", p50), ("99", p99), ("99.99", p9999)):
    ours = lat["percentiles"][name] * 1e6 if "percentiles" in lat else None
    ref = float(ref)
    # the reference reports a bucket's highest equivalent value, sbench the
    # same clamped to the exact [min, max]: ref >= ours, within precision
    if ours is None: errs.append(f"final report has no p{name}"); continue
    if not (ref + 1 >= ours and ref - ours <= ours * prec + 16):
        errs.append(f"p{name}: HDR log {ref:.0f} ns, final report {ours:.0f} ns")
print(f"{base}: {len(ints)} windows, {fin['transactions']} transactions, log {count} latencies "
      f"over {covered}s, p99 log {float(p99):.0f} vs report {lat.get('percentiles', {}).get('99', 0) * 1e6:.0f} ns")
for e in errs: print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
done
[ "$fail" = 0 ] && echo "windows_add_up: ok" || echo "windows_add_up: FAILED"
exit $fail
