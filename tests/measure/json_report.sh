#!/bin/bash
# json_report.sh: checks --report-format=json against docs/report.schema.json
# and against itself.  Part 1 (null driver, no server): every line validates,
# >= 2 interval lines then exactly one final line, last; per-line arithmetic
# (tps, qps, query totals); the interval lines (the last one marked) add up
# to the final line exactly: transactions, queries, latency counts;
# percentiles non-decreasing and inside [min, max]; the schema accepts the
# server's counters as counts or null and refuses a negative count, -1, a
# count beside "reset", "reset":false.  Part 2 (PostgreSQL from SBT_*): the
# password given with --pgsql-password appears nowhere (JSON, stdout,
# stderr) while run.options shows "***".
# Environment: SBT_BUILD (required); SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.
set -u
: "${SBT_BUILD:?set SBT_BUILD}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SB=$SBT_BUILD/cli/sbench
SCHEMA=$SRC/docs/report.schema.json
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/json_report.XXXXXX")
[ -n "${SBT_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
python3 -c 'import jsonschema' || { echo "FAIL: python3-jsonschema missing"; exit 1; }

# checker: check.py FILE [expect-password-masked-option]
cat > check.py <<'PY'
import json, sys, math, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
val = jsonschema.Draft202012Validator(schema)
lines = [json.loads(l) for l in open(sys.argv[2])]
masked = sys.argv[3] if len(sys.argv) > 3 else None
errs = []
def bad(m): errs.append(m)
for i, d in enumerate(lines):
    for e in val.iter_errors(d):
        bad(f"line {i+1}: schema: {e.message} at {list(e.path)}")
types = [d["type"] for d in lines]
nint = types.count("interval")
if nint < 2: bad(f"{nint} interval lines, want >= 2")
if types.count("final") != 1 or types[-1] != "final":
    bad(f"want exactly one final line, last; types: {types}")
def close(a, b, rel=1e-5, ab=1e-6):
    return abs(a - b) <= max(ab, rel * max(abs(a), abs(b)))
def check_hist(where, h, final):
    if h["count"] == 0:
        return
    p = list(h["percentiles"].items())
    keys = [float(k) for k, _ in p]
    if keys != sorted(keys): bad(f"{where}: percentile keys not sorted {keys}")
    vals = [v for _, v in p]
    for a, b in zip(vals, vals[1:]):
        if b < a: bad(f"{where}: percentiles decrease {vals}")
    for k, v in p:
        if v < h["min"] * (1 - 1e-9) or v > h["max"] * (1 + 1e-9):
            bad(f"{where}: p{k}={v} outside [min {h['min']}, max {h['max']}]")
    if final:
        if not close(h["avg"], h["sum"] / h["count"], 1e-4):
            bad(f"{where}: avg {h['avg']} != sum/count {h['sum']/h['count']}")
        if not (h["min"] * (1 - 1e-5) <= h["avg"] <= h["max"] * (1 + 1e-5)):
            bad(f"{where}: avg {h['avg']} outside [min {h['min']}, max {h['max']}]")
        if h["sum"] < h["count"] * h["min"] * (1 - 1e-5) or h["sum"] > h["count"] * h["max"] * (1 + 1e-5):
            bad(f"{where}: sum {h['sum']} impossible for count {h['count']} in [min, max]")
for i, d in enumerate(lines):
    w = f"line {i+1} ({d['type']})"
    fin = d["type"] == "final"
    q = d["queries"]
    if q["read"] + q["write"] + q["other"] != q["total"]: bad(f"{w}: r+w+o != total {q}")
    s = d["seconds"]
    if s <= 0: bad(f"{w}: seconds {s}"); continue
    if not close(d["tps"], d["transactions"] / s): bad(f"{w}: tps {d['tps']} != {d['transactions']}/{s}")
    if not close(d["qps"], q["total"] / s): bad(f"{w}: qps {d['qps']} != {q['total']}/{s}")
    # point_select: one select per event, nothing else
    # (interval lines are read while workers run: per-thread counters are
    # read one after the other, so allow the events in flight meanwhile)
    slack = 0 if fin else 0.001 * d["transactions"] + 64
    if abs(q["read"] - d["transactions"]) > slack or q["write"] or q["other"]:
        bad(f"{w}: oltp_point_select should do exactly one read per event: {q} vs {d['transactions']}")
    if d["kinds"]["select"]["count"] != q["read"]:
        bad(f"{w}: kinds.select.count {d['kinds']['select']['count']} != queries.read {q['read']}")
    lc = d["latency_ms"]["count"]
    if fin and lc != d["transactions"]:
        bad(f"{w}: latency count {lc} != transactions {d['transactions']}")
    if not fin and abs(lc - d["transactions"]) > 0.001 * d["transactions"] + 64:
        bad(f"{w}: interval latency count {lc} far from transactions {d['transactions']}")
    check_hist(w + " latency_ms", d["latency_ms"], fin)
    for k, v in d["kinds"].items():
        check_hist(f"{w} kinds.{k}", v["latency_ms"], fin)
        if not close(v["rate"], v["count"] / s): bad(f"{w}: kinds.{k}.rate")
    if not fin and i > 0 and d["time"] <= lines[i-1]["time"]: bad(f"{w}: time not increasing")
fin = lines[-1]
ints = [d for d in lines if d["type"] == "interval"]
if fin["type"] == "final" and ints:
    tot = sum(d["transactions"] for d in ints)
    covered = sum(d["seconds"] for d in ints)
    rest = fin["transactions"] - tot
    # every window is written, the run's last (shorter) one marked "last":
    # the interval lines add up to the final line exactly
    print(f"final {fin['transactions']} = sum of {len(ints)} intervals {tot} "
          f"({covered:.3f}s of {fin['seconds']:.3f}s)")
    if rest != 0:
        bad(f"final transactions {fin['transactions']} != sum of intervals {tot}")
    for k in ("read", "write", "other", "total"):
        if sum(d["queries"][k] for d in ints) != fin["queries"][k]:
            bad(f"queries.{k}: intervals do not add up to the final line")
    if sum(d["latency_ms"]["count"] for d in ints) != fin["latency_ms"]["count"]:
        bad("latency counts of the intervals do not add up to the final one")
    if not ints[-1].get("last") or any(d.get("last") for d in ints[:-1]):
        bad("the last interval (and only it) must be marked last")
    if abs(covered - fin["seconds"]) > 0.05:
        bad(f"intervals cover {covered:.3f}s of the run's {fin['seconds']:.3f}s")
    ft = fin["threads_fairness"]
    if not close(ft["events_avg"] * fin["threads"], fin["transactions"], 1e-12):
        bad(f"threads_fairness.events_avg*threads != transactions")
    if fin["latency_ms"]["max"] + 1e-9 < max(d["latency_ms"]["max"] for d in ints) * 0.99:
        bad("final max below an interval's max")
    opts = fin["run"]["options"]
    if masked:
        if opts.get(masked) != "***": bad(f"run.options[{masked}] = {opts.get(masked)!r}, want '***'")
for e in errs: print("FAIL:", e)
print(f"{len(lines)} lines checked, {len(errs)} problems")
sys.exit(1 if errs else 0)
PY

echo "== null driver, 2 threads, 4 s, report every 1 s"
"$SB" --db-driver=null --threads=2 --time=4 --report-interval=1 --report-format=json \
      --output="$tmp/r.json" oltp_point_select run >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: sbench exit $rc"; cat err.txt; fail=1; }
[ -f r.json.tmp ] && { echo "FAIL: r.json.tmp left behind"; fail=1; }
python3 check.py "$SCHEMA" r.json || fail=1
# the text report's totals equal the final JSON line's
ev=$(sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p' out.txt)
jev=$(tail -n 1 r.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["transactions"])')
[ -n "$ev" ] && [ "$ev" = "$jev" ] || { echo "FAIL: text events '$ev' != JSON final '$jev'"; fail=1; }

# the schema's rules for the server's counters, on the null driver's final
# line (its "server" read from the null driver's model): a count or null,
# never negative, "reset" only true and only with every count null
python3 - "$SCHEMA" r.json <<'PY' || fail=1
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
fin = json.loads(open(sys.argv[2]).read().splitlines()[-1])
names = ["commits", "rollbacks", "selects", "inserts", "updates", "deletes", "statements"]
nulls = {k: None for k in names}
cases = [("the run's own", fin["server"], True), ("counts unknown", nulls, True),
         ("reset", dict(nulls, reset=True), True), ("a negative count", dict(nulls, commits=-74921), False),
         ("-1 for unknown", dict(nulls, selects=-1), False), ("a count beside reset", dict(nulls, reset=True, commits=2374), False),
         ("reset false", dict(nulls, reset=False), False), ("a counter missing", {k: 1 for k in names[1:]}, False)]
bad = [w for w, srv, want in cases if (not list(v.iter_errors(dict(fin, server=srv)))) != want]
print("schema of server:", "FAIL: " + ", ".join(bad) if bad else f"ok ({len(cases)} cases)")
sys.exit(1 if bad else 0)
PY

echo "== pgsql: the password never shows"
if [ -z "${SBT_PGHOST:-}" ] || [ -z "${SBT_PGPASSWORD:-}" ]; then
    echo "FAIL: SBT_PGHOST/SBT_PGPASSWORD not set (scripts/test.sh sets them)"; fail=1
else
    P=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
       --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest --tables=1 --table-size=100)
    unset PGPASSWORD
    "$SB" "${P[@]}" oltp_point_select cleanup >pw.out 2>pw.err
    "$SB" "${P[@]}" oltp_point_select prepare >>pw.out 2>>pw.err || { echo "FAIL: prepare"; cat pw.err; fail=1; }
    "$SB" "${P[@]}" --threads=2 --time=3 --report-interval=1 --report-format=json \
          --output="$tmp/pg.json" oltp_point_select run >>pw.out 2>>pw.err || { echo "FAIL: run"; cat pw.err; fail=1; }
    # JSON on stdout too (no --output)
    "$SB" "${P[@]}" --time=1 --report-format=json oltp_point_select run >pg-stdout.json 2>>pw.err || fail=1
    "$SB" "${P[@]}" oltp_point_select cleanup >>pw.out 2>>pw.err
    for f in pg.json pg-stdout.json pw.out pw.err; do
        if grep -F -q -- "$SBT_PGPASSWORD" "$f"; then echo "FAIL: password appears in $f"; fail=1; fi
    done
    python3 check.py "$SCHEMA" pg.json pgsql-password || fail=1
    python3 - "$SCHEMA" pg-stdout.json <<'PY' || fail=1
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
lines = [json.loads(l) for l in open(sys.argv[2])]
ok = len(lines) == 1 and lines[0]["type"] == "final" and not list(v.iter_errors(lines[0])) \
     and lines[0]["run"]["options"].get("pgsql-password") == "***" \
     and lines[0]["run"]["driver"] == "pgsql" and lines[0]["run"]["server_version"] != ""
print("stdout JSON:", "ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
fi
[ $fail -eq 0 ] && echo "json_report: all checks passed" || echo "json_report: FAILED"
exit $fail
