#!/bin/bash
# csv_report.sh: --report-format=csv (null driver, no server).  The file
# parses with python's csv module: the documented header, >= 2 rows, every
# field numeric; per row qps = r+w+o rates and p50 <= p90 <= ... <= max;
# and the rows add up: with a fixed arrival rate, sum(tps) * interval is the
# events of the windows covered, which is the final event count (text
# report) scaled by covered/total time, within 5%; never more than it
# beyond 1% (a row's rate is over its window's measured length, which a
# late reporter wake-up on a loaded machine stretches or shortens by a few
# ms against the nominal interval the CSV's time column shows).
# Environment: SBT_BUILD (required).
set -u
: "${SBT_BUILD:?set SBT_BUILD}"
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/csv_report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
run() { # name, extra options...
    local name=$1; shift
    "$SB" --db-driver=null --threads=2 --report-interval=1 --report-format=csv \
          --output="$tmp/$name.csv" "$@" oltp_point_select run >"$name.out" 2>"$name.err" ||
        { echo "FAIL: sbench $* exit $?"; cat "$name.err"; fail=1; }
}
check() { # name, interval, mode (free|rate)
    python3 - "$1.csv" "$1.out" "$2" "$3" <<'PY'
import csv, re, sys
path, textout, interval, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
rows = list(csv.reader(open(path, newline="")))
errs = []
want = ["time", "threads", "tps", "qps", "reads_per_sec", "writes_per_sec", "other_per_sec",
        "latency_avg_ms", "latency_max_ms", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
        "latency_p99_ms", "latency_p99.9_ms", "latency_p99.99_ms", "errors_per_sec",
        "reconnects_per_sec"]
hdr, data = rows[0], rows[1:]
if hdr != want: errs.append(f"header {hdr}")
if len(data) < 2: errs.append(f"{len(data)} rows, want >= 2")
recs = []
for i, r in enumerate(data):
    if len(r) != len(hdr): errs.append(f"row {i+1}: {len(r)} fields"); continue
    try:
        d = {k: float(v) for k, v in zip(hdr, r)}
    except ValueError as e:
        errs.append(f"row {i+1}: not numeric: {e}"); continue
    recs.append(d)
    if abs(d["reads_per_sec"] + d["writes_per_sec"] + d["other_per_sec"] - d["qps"]) > 0.03:
        errs.append(f"row {i+1}: r+w+o != qps")
    p = [d[k] for k in hdr if k.startswith("latency_p")]
    if p != sorted(p): errs.append(f"row {i+1}: percentiles decrease {p}")
    if d["tps"] > 0 and p[-1] > d["latency_max_ms"] + 0.0015:
        errs.append(f"row {i+1}: p99.99 {p[-1]} > max {d['latency_max_ms']}")
    if abs(d["time"] - interval * (i + 1)) > 1e-6: errs.append(f"row {i+1}: time {d['time']}")
    if d["threads"] != 2: errs.append(f"row {i+1}: threads {d['threads']}")
text = open(textout).read()
ev = int(re.search(r"total number of events:\s+(\d+)", text).group(1))
tt = float(re.search(r"total time:\s+([0-9.]+)s", text).group(1))
covered = interval * len(recs)
s = sum(d["tps"] for d in recs) * interval
expect = ev * covered / tt
print(f"{path}: {len(recs)} rows, sum(tps)*interval = {s:.0f}, final events {ev} in {tt}s, "
      f"{expect:.0f} expected for the {covered:g}s covered")
if s > ev * 1.01 + 0.5: errs.append(f"rows add up to {s} > final events {ev} (+1%)")
if mode == "rate" and abs(s - expect) > 0.05 * expect:
    errs.append(f"sum(tps)*interval {s:.0f} not within 5% of {expect:.0f}")
if mode == "free" and not (0.5 * expect <= s <= 1.5 * expect):
    errs.append(f"sum(tps)*interval {s:.0f} far from {expect:.0f}")
for e in errs: print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
}
echo "== fixed rate 2000/s, 5 s"
run fixed --time=5 --rate=2000 --rate-distribution=fixed
check fixed 1 rate || fail=1
echo "== unthrottled, 3 s"
run free --time=3
check free 1 free || fail=1
[ $fail -eq 0 ] && echo "csv_report: all checks passed" || echo "csv_report: FAILED"
exit $fail
