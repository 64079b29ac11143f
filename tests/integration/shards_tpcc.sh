#!/bin/sh
# shards_tpcc.sh: the tpcc workload run as 2 shards (--shard=0/2 and 1/2)
# against PostgreSQL and merged by sbench merge: the event types survive
# the merge (needs the SBT_* servers of scripts/test.sh; a missing server is
# a failure).  1 warehouse, --items=2000 (NOT TPC-C-conformant, short),
# 300 transactions split over the shards.  Checked:
#   - merged transactions = the sum of the shards' = --events, and the
#     merged types' counts add up to them;
#   - merged new_order = ORDERS rows added, merged payment = HISTORY rows
#     added (counted with psql), each merged type = the sum of the shards';
#   - the merged text report's "Transactions by type" lines and its TPC-C
#     section: NOPM and TPM recomputed from the merged JSON's types and
#     seconds;
#   - the merged JSON validates against docs/report.schema.json.
# Environment: see wl-lib.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/wl-lib.sh"
wl_setup pgsql

OPTS="--items=2000 --warehouses=1"
EVENTS=300
tmp=$(mktemp -d "$SBT_TMP/shards-tpcc.XXXXXX")
count() { dbq "SELECT COUNT(*) FROM $1"; }

# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $OPTS tpcc cleanup >/dev/null 2>&1
# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $OPTS --threads=2 tpcc prepare >"$tmp/prepare.out" 2>&1 ||
    die "tpcc prepare failed: $(tail -3 "$tmp/prepare.out")"

o0=$(count orders1) h0=$(count history1)
mkdir "$tmp/shards"
pids=""
for i in 0 1; do
    # shellcheck disable=SC2086
    "$SBENCH" $SB_DRV $OPTS --threads=2 --events=$EVENTS --time=0 --report-interval=1 --shard=$i/2 \
        --run-id=tpcc-shards --report-format=json --output="$tmp/shards/s$i.json" \
        --hdr-log="$tmp/shards/s$i.hlog" tpcc run >"$tmp/out$i" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a tpcc shard exited non-zero: $(tail -3 "$tmp"/out*)"; done
o1=$(count orders1) h1=$(count history1)

checks=$((checks + 1))
if "$SBENCH" merge --report-format=json --output="$tmp/merged.json" "$tmp/shards" >"$tmp/merged.txt" 2>&1; then
    echo "ok   sbench merge of the 2 tpcc shards"
else
    fail "sbench merge exited non-zero: $(tail -3 "$tmp/merged.txt")"
fi

checks=$((checks + 1))
python3 - "$tmp" "$EVENTS" $((o1 - o0)) $((h1 - h0)) "$root" <<'PY' || failures=$((failures + 1))
import json, re, sys
tmp, events, orders, history, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, root + "/tests/measure")
from schema_errors import schema_errors
errs = []
shards = [json.loads(open(f"{tmp}/shards/s{i}.json").read().splitlines()[-1]) for i in (0, 1)]
lines = [json.loads(l) for l in open(f"{tmp}/merged.json")]
fin = lines[-1]
types = fin.get("types", {})
count = lambda name: types.get(name, {}).get("count", 0)
tx = fin["transactions"]
if tx != sum(s["transactions"] for s in shards) or tx != events:
    errs.append(f"merged transactions {tx}, shards {[s['transactions'] for s in shards]}, --events={events}")
if sum(t["count"] for t in types.values()) != tx: errs.append("the merged types do not add up to the transactions")
if count("new_order") != orders: errs.append(f"merged new_order {count('new_order')}, ORDERS rows added {orders}")
if count("payment") != history: errs.append(f"merged payment {count('payment')}, HISTORY rows added {history}")
names = set(types) | {n for s in shards for n in s.get("types", {})}
for n in sorted(names):
    for k in ("count", "retries", "failed"):
        want = sum(s.get("types", {}).get(n, {}).get(k, 0) for s in shards)
        if types.get(n, {}).get(k) != want: errs.append(f"merged {n}.{k} {types.get(n, {}).get(k)}, the shards' sum {want}")
    if types.get(n, {}).get("latency_ms", {}).get("count") != count(n): errs.append(f"{n}: latencies")
text = open(f"{tmp}/merged.txt").read()
for n in names:
    m = re.search(r"^        %s +(\d+) \(" % re.escape(n), text, re.M)
    if not m or int(m.group(1)) != count(n): errs.append(f"text: Transactions by type line of {n}")
minutes = fin["seconds"] / 60
for label, want in (("NOPM (New-Orders committed/min):", count("new_order") / minutes),
                    ("TPM (transactions/min):", tx / minutes)):
    m = re.search(r"^    %s +([0-9.]+)$" % re.escape(label), text, re.M)
    if not m or abs(float(m.group(1)) - want) > 0.05 + 1e-9 * want:
        errs.append(f"text: {label} {m.group(1) if m else 'missing'}, from the merged JSON {want:.2f}")
errs += schema_errors(root + "/docs/report.schema.json", lines, "merged line")
for e in errs: print("FAIL:", e)
if not errs:
    print(f"ok   {tx} transactions from 2 shards; new_order {count('new_order')} = ORDERS rows added, "
          f"payment {count('payment')} = HISTORY rows added; {len(names)} types = the shards' sums; NOPM and TPM")
sys.exit(1 if errs else 0)
PY

# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $OPTS tpcc cleanup >/dev/null 2>&1
rm -rf "$tmp"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
