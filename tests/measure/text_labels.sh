#!/bin/bash
# text_labels.sh: the text report keeps sysbench 1.0's shape, so existing
# parsers work.  For a null-driver run and an SQLite oltp_read_write run
# (no server): every sysbench 1.0 label of the final report is present, in
# sysbench's order; every intermediate line matches sysbench's format
# exactly; min <= avg <= max, min <= 95th percentile <= max (to the printed
# two decimals); read+write+other = total = queries; sum ~= avg * events;
# transactions = total number of events; the intermediate lines' tps (but
# the last, shorter window's) add up to no more than the events.
# Environment: SBT_BUILD (required).
set -u
: "${SBT_BUILD:?set SBT_BUILD}"
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/text_labels.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
check() { # file, threads
    python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
threads = int(sys.argv[2])
errs = []
labels = ["SQL statistics:", "queries performed:", "read:", "write:", "other:", "total:",
          "transactions:", "queries:", "ignored errors:", "reconnects:", "General statistics:",
          "total time:", "total number of events:", "Latency (ms):", "min:", "avg:", "max:",
          "95th percentile:", "sum:", "Threads fairness:", "events (avg/stddev):",
          "execution time (avg/stddev):"]
final = text[text.find("SQL statistics:"):] if "SQL statistics:" in text else ""
lines = final.splitlines()
pos = 0
for lab in labels:
    for j in range(pos, len(lines)):
        if lines[j].strip().startswith(lab):
            pos = j + 1
            break
    else:
        errs.append(f"label {lab!r} missing or out of order")
X = r"[0-9]+\.[0-9]{2}"
inter = re.compile(r"^\[ (\d+)s \] thds: (\d+) tps: (" + X + r") qps: (" + X + r") \(r/w/o: (" + X +
                   r")/(" + X + r")/(" + X + r")\) lat \(ms,95%\): (" + X + r") err/s: (" + X +
                   r") reconn/s: (" + X + r")$")
ilines = [l for l in text.splitlines() if l.startswith("[")]
if len(ilines) < 2: errs.append(f"{len(ilines)} intermediate lines, want >= 2")
tps_sum = 0.0
for n, l in enumerate(ilines):
    m = inter.match(l)
    if not m:
        errs.append(f"intermediate line does not match sysbench's format: {l!r}"); continue
    if int(m.group(1)) != n + 1: errs.append(f"line {n+1} says [ {m.group(1)}s ]")
    if int(m.group(2)) != threads: errs.append(f"thds {m.group(2)} != {threads}")
    r, w, o, qps = (float(m.group(i)) for i in (5, 6, 7, 4))
    if abs(r + w + o - qps) > 0.03: errs.append(f"r/w/o don't add up to qps: {l!r}")
    if n < len(ilines) - 1: # the last line is the run's last window, shorter than 1 s
        tps_sum += float(m.group(3))
def val(label):
    m = re.search(r"^\s*" + re.escape(label) + r"\s+([0-9.]+)", final, re.M)
    if not m: errs.append(f"no value for {label}"); return 0.0
    return float(m.group(1))
rd, wr, ot, tot = val("read:"), val("write:"), val("other:"), val("total:")
tx, qs, ev = val("transactions:"), val("queries:"), val("total number of events:")
mn, av, mx, p95, sm = val("min:"), val("avg:"), val("max:"), val("95th percentile:"), val("sum:")
if rd + wr + ot != tot: errs.append(f"read+write+other {rd+wr+ot} != total {tot}")
if tot != qs: errs.append(f"total {tot} != queries {qs}")
if tx != ev: errs.append(f"transactions {tx} != events {ev}")
if not (mn - 0.005 <= p95 <= mx + 0.005): errs.append(f"95th {p95} outside [{mn}, {mx}]")
if not (mn - 0.005 <= av <= mx + 0.005): errs.append(f"avg {av} outside [{mn}, {mx}]")
if abs(sm - av * ev) > 0.005 * ev + 0.01 * sm + 0.01: errs.append(f"sum {sm} != avg {av} * events {ev}")
if tps_sum > ev + 0.5 * len(ilines): errs.append(f"intermediate tps add up to {tps_sum} > events {ev}")
print(f"{sys.argv[1]}: {len(ilines)} intermediate lines, events {ev:.0f}, lat min/avg/95th/max "
      f"{mn}/{av}/{p95}/{mx}")
for e in errs: print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
}
echo "== null driver"
"$SB" --db-driver=null --threads=2 --time=3 --report-interval=1 oltp_point_select run >null.txt 2>null.err ||
    { echo "FAIL: null run"; cat null.err; fail=1; }
check null.txt 2 || fail=1
echo "== sqlite oltp_read_write"
S=(--db-driver=sqlite --sqlite-db="$tmp/t.db" --tables=2 --table-size=1000)
"$SB" "${S[@]}" oltp_read_write prepare >prep.txt 2>&1 || { echo "FAIL: prepare"; cat prep.txt; fail=1; }
"$SB" "${S[@]}" --threads=2 --time=3 --report-interval=1 oltp_read_write run >sqlite.txt 2>sqlite.err ||
    { echo "FAIL: sqlite run"; cat sqlite.err; fail=1; }
check sqlite.txt 2 || fail=1
[ $fail -eq 0 ] && echo "text_labels: all checks passed" || echo "text_labels: FAILED"
exit $fail
