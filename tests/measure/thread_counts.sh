#!/bin/bash
# thread_counts.sh: no silent cap on the number of threads a report counts
# (null driver, no server).  4200 threads (more than the 4096 the reporter
# once counted, and the 1024 of the text report's fairness lines) run empty
# events for 1 s; the events the report totals must be those the threads
# ran: in the JSON report transactions = threads_fairness.events_avg *
# threads (each thread's own count), in the text report "total number of
# events" = "events (avg/stddev)" avg * threads (avg printed to 4
# decimals: within 0.5).
# Environment: SBT_BUILD (required).
set -u
: "${SBT_BUILD:?set SBT_BUILD}"
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/thread_counts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo 'function event() end' >empty.lua
THREADS=4200
# a coarse histogram keeps 4200 threads' histograms small
timeout 120 "$SB" --db-driver=null --threads=$THREADS --time=1 --histogram-precision=0.2 \
    --report-format=json --output="$tmp/r.json" ./empty.lua run >out.txt 2>err.txt ||
    { echo "FAIL: sbench exit $?"; cat err.txt; exit 1; }
python3 - "$tmp/r.json" out.txt $THREADS <<'PY'
import json, re, sys
path, textout, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
errs = []
final = [json.loads(l) for l in open(path)][-1]
tx, avg = final["transactions"], final["threads_fairness"]["events_avg"]
print(f"JSON: threads {final['threads']}, transactions {tx}, events_avg * threads {avg * threads:.1f}")
if final["threads"] != threads: errs.append(f"JSON threads {final['threads']}")
if tx == 0: errs.append("no events")
if abs(avg * threads - tx) > 0.5: errs.append(f"JSON transactions {tx} != events_avg * threads {avg * threads}")
text = open(textout).read()
ev = int(re.search(r"total number of events:\s+(\d+)", text).group(1))
tavg = float(re.search(r"events \(avg/stddev\):\s+([0-9.]+)/", text).group(1))
print(f"text: total number of events {ev}, avg * threads {tavg * threads:.1f}")
if ev != tx: errs.append(f"text total {ev} != JSON transactions {tx}")
if abs(tavg * threads - ev) > 0.5: errs.append(f"text total {ev} != avg * threads {tavg * threads}")
for e in errs: print("FAIL:", e)
print("thread_counts: FAILED" if errs else "thread_counts: all checks passed")
sys.exit(1 if errs else 0)
PY
