#!/bin/sh
# tpcc.sh TARGET: the tpcc workload end to end on one target (pgsql, mysql,
# sqlite, odbc-pg), 1 warehouse with --items=$ITEMS (a reduced, NOT
# TPC-C-conformant ITEM/STOCK size, to keep the test short), checked
# against the database itself:
#   - prepare with 2 threads: the row counts of the population (clause
#     4.3.3.1) read with psql / mariadb / sqlite3;
#   - `tpcc check`: every consistency condition PASSED;
#   - a run of $EVENTS transactions (several clients where the driver can
#     multiplex): the report's per-type counts add up to its transactions,
#     the executed mix is within a few points of 45/43/4/4/4, and the
#     tables agree with the counts: new ORDERS rows = sum of D_NEXT_O_ID
#     increments = committed New-Orders; new HISTORY rows = Payments;
#     NEW_ORDER rows added = New-Orders - 10 x Deliveries + the skipped
#     districts the report counts, and none skipped while every district
#     holds more new orders than the run has events;
#     MariaDB's Com_commit = transactions - rolled-back New-Orders;
#     PostgreSQL's pg_stat_statements counts the HISTORY inserts and
#     ORDERS inserts;
#   - `tpcc check` passes after the run;
#   - pgsql only: a run with --pipeline, and one at SERIALIZABLE with 8
#     clients on the one warehouse (serialization failures retried: the
#     report shows retries, check still passes);
#   - sqlite only: `sbench compare` with tpcc as its workload (two names
#     for the one database, 2 repeats each): the New-Orders and Payments of
#     the runs' JSON reports equal the ORDERS and HISTORY rows added, the
#     summary's transactions equal the runs' reports, check still passes;
#   - Deliveries alone at 4 and 8 threads: the skipped Deliveries and
#     districts the report counts, and the rows each district keeps,
#     against the NEW_ORDER rows before the run (a district is skipped
#     only once empty), with one district cut to 5 rows; the 1% (or one)
#     limit of clause 2.7.4.2 on the Deliveries that skipped; skipped
#     Deliveries in the Delivery percentile and mix line;
#   - a bad option gives one line and a non-zero exit;
#   - cleanup leaves no tpcc table.
# Environment: see wl-lib.sh.  A missing server is a failure.
set -u
[ $# -eq 1 ] || { echo "usage: $0 pgsql|mysql|sqlite|odbc-pg" >&2; exit 2; }
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
wl_setup "$1"

ITEMS=2000 EVENTS=600
OPTS="--items=$ITEMS --warehouses=1"
case "$TARGET" in
pgsql | mysql) RUNOPTS="--threads=2 --clients=6" ;;
*) RUNOPTS="--threads=2" ;;
esac
start=$(date +%s)

count() { dbq "SELECT COUNT(*) FROM $1"; }

# report_type NAME: the count of a type in the "Transactions by type" lines.
report_type() {
    awk -v n="$1" '$1 == n && $0 ~ /per sec/ { print $2; found = 1 } END { if (!found) print 0 }' "$OUT"
}

check_passes() { # $1 label
    sb "check-$1" $OPTS tpcc check
    expect_eq "$1: check exit status" "$rc" 0
    expect_eq "$1: conditions PASSED" "$(grep -c 'warehouse 1 PASSED$' "$OUT")" 10
    grep -q "FAILED" "$OUT" && { fail "$1: a condition FAILED"; show_out 20; }
}

# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $OPTS tpcc cleanup >/dev/null 2>&1

echo "--- prepare on $TARGET"
sb prepare $OPTS --threads=2 tpcc prepare
[ "$rc" = 0 ] || { show_out; die "prepare exited $rc"; }
expect_eq "warehouse rows" "$(count warehouse1)" 1
expect_eq "district rows" "$(count district1)" 10
expect_eq "customer rows" "$(count customer1)" 30000
expect_eq "history rows" "$(count history1)" 30000
expect_eq "orders rows" "$(count orders1)" 30000
expect_eq "new_order rows" "$(count new_order1)" 9000
expect_eq "item rows" "$(count item1)" "$ITEMS"
expect_eq "stock rows" "$(count stock1)" "$ITEMS"
# 5 to 15 lines per order: 10 on average
expect_range "order_line rows" "$(count order_line1)" 280000 320000
expect_eq "customers with bad credit (~10%) in range" \
    "$(dbq "SELECT CASE WHEN COUNT(*) BETWEEN 2400 AND 3600 THEN 1 ELSE 0 END FROM customer1 WHERE c_credit = 'BC'")" 1
check_passes "after prepare"

# a second prepare refuses to overwrite
sb prepare-again $OPTS tpcc prepare
checks=$((checks + 1))
if [ "$rc" = 0 ] || ! grep -q "already exists.*--force" "$OUT"; then
    fail "second prepare: exit $rc, no clear refusal"; show_out
else
    echo "ok   second prepare refused"
fi

# district_rows: "D ROWS" per district of warehouse 1, the NEW_ORDER rows
# the database holds (the orders not delivered yet).
district_rows() {
    dbq "SELECT d_id, (SELECT COUNT(*) FROM new_order1 WHERE no_w_id = 1 AND no_d_id = d_id) FROM district1 WHERE d_w_id = 1 ORDER BY d_id" |
        tr '|\t' '  '
}

# run_and_compare NAME ARGS...: a run of $EVENTS transactions, compared
# with the tables and the server's counters.
run_and_compare() {
    name=$1; shift
    echo "--- run $name on $TARGET"
    o0=$(count orders1) h0=$(count history1) d0=$(dbq "SELECT SUM(d_next_o_id) FROM district1")
    n0=$(count new_order1) least=$(district_rows | awk 'NR == 1 || $2 < m { m = $2 } END { print m }')
    [ "$KIND" = sqlite ] || snap_before
    sb "run-$name" $OPTS --events=$EVENTS --time=0 "$@" tpcc run
    [ "$rc" = 0 ] || { fail "$name: run exited $rc"; show_out 30; return; }
    [ "$KIND" = sqlite ] || snap_after
    parse_report "$OUT"
    no=$(report_type new_order) rb=$(report_type new_order_rollback) pay=$(report_type payment)
    os=$(report_type order_status) sl=$(report_type stock_level)
    dl=$(($(report_type delivery) + $(report_type delivery_skipped)))
    expect_eq "$name: transactions = events" "$R_TXN" "$EVENTS"
    expect_eq "$name: per-type counts add up to the transactions" $((no + rb + pay + os + dl + sl)) "$R_TXN"
    # the mix, in percent of the transactions (binomial sd at 600: 2 points
    # for 45%, 0.8 for 4%: the bounds are about 3 sd)
    expect_range "$name: New-Order share %" $(((no + rb) * 100 / R_TXN)) 39 51
    expect_range "$name: Payment share %" $((pay * 100 / R_TXN)) 37 49
    for pair in "Order-Status:$os" "Delivery:$dl" "Stock-Level:$sl"; do
        expect_range "$name: ${pair%%:*} share %" $((${pair#*:} * 100 / R_TXN)) 1 7
    done
    expect_range "$name: rolled-back New-Orders" "$rb" 0 $(((no + rb) / 20 + 3))
    o1=$(count orders1) h1=$(count history1) d1=$(dbq "SELECT SUM(d_next_o_id) FROM district1")
    expect_eq "$name: new ORDERS rows = committed New-Orders" $((o1 - o0)) "$no"
    expect_eq "$name: D_NEXT_O_ID increments = committed New-Orders" $((d1 - d0)) "$no"
    expect_eq "$name: new HISTORY rows = Payments" $((h1 - h0)) "$pay"
    # each committed New-Order adds a NEW_ORDER row, each Delivery takes
    # one per district it did not skip; with more new orders in every
    # district than the run has events, no Delivery may skip
    sk=$(awk '/District deliveries skipped:/ { print $4 }' "$OUT")
    expect_eq "$name: NEW_ORDER rows added = New-Orders - 10 x Deliveries + skipped districts" \
        $(($(count new_order1) - n0)) $((no - 10 * dl + ${sk:-0}))
    [ "$least" -le "$EVENTS" ] || expect_eq "$name: skipped districts ($least+ new orders in each)" "$sk" 0
    grep -q "^    NOPM (New-Orders committed/min): *[0-9]" "$OUT" || fail "$name: no NOPM line"
    grep -q "^    TPM (transactions/min): *[0-9]" "$OUT" || fail "$name: no TPM line"
    case "$KIND" in
    maria)
        # every transaction commits once, except the rolled-back New-Orders
        expect_eq "$name: Com_commit = transactions - rolled back" "$D_COMMIT" $((R_TXN - rb))
        expect_eq "$name: Com_rollback = rolled back + ignored errors" "$D_ROLLBACK" $((rb + R_IGN)) ;;
    pg)
        ss="FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest')"
        ins_h=$(adminq "SELECT coalesce(sum(calls),0) $ss AND query ILIKE 'INSERT INTO history1%'")
        ins_o=$(adminq "SELECT coalesce(sum(calls),0) $ss AND query ILIKE 'INSERT INTO orders1%'")
        # a statement counts when it completed, also in a transaction
        # that was then retried
        expect_range "$name: pg_stat_statements history inserts" "$ins_h" "$pay" $((pay + R_IGN))
        expect_range "$name: pg_stat_statements orders inserts" "$ins_o" $((no + rb)) $((no + rb + R_IGN)) ;;
    esac
}

run_and_compare clients $RUNOPTS --rand-seed=19
check_passes "after the run"

if [ "$TARGET" = pgsql ]; then
    run_and_compare pipeline --threads=2 --pipeline=8
    check_passes "after the --pipeline run"
    run_and_compare serializable --threads=2 --clients=8 --pgsql-isolation=serializable
    retried=$(awk '/retried transactions:/ { print $3 }' "$OUT")
    expect_range "serializable: retried transactions" "${retried:-0}" 1 100000
    check_passes "after the serializable run"
fi

if [ "$KIND" = sqlite ]; then
    echo "--- sbench compare with tpcc as its workload on $TARGET"
    o0=$(count orders1) h0=$(count history1)
    res=$SBT_TMP/tpcc-compare-$TARGET
    rm -rf "$res"
    OUT=$SBT_TMP/wl-$TARGET-compare.out
    # shellcheck disable=SC2086
    if "$SBENCH" compare --quiet --prepare=off --results="$res" --target="x:$SB_DRV --db-server-counters=off" \
        --target="y:$SB_DRV --db-server-counters=off" --threads=1 --repeats=2 --events=150 --time=0 \
        --warmup-time=0 tpcc $OPTS >"$OUT" 2>&1; then rc=0; else rc=$?; fi
    expect_eq "compare tpcc: exit status" "$rc" 0
    o1=$(count orders1) h1=$(count history1)
    # shellcheck disable=SC2046
    set -- $(python3 - "$res" <<'PY'
import glob, json, sys
res = sys.argv[1]
no = pay = txn = 0
by_run = {}
for path in glob.glob(res + "/runs/*.json"):
    if path.endswith(".record.json"):
        continue
    for line in open(path):
        d = json.loads(line)
        if d.get("type") == "final":
            t = d["types"]
            no += t["new_order"]["count"]
            pay += t["payment"]["count"]
            by_run[path.rsplit("/", 1)[1][:-5]] = d["transactions"]
s = json.load(open(res + "/summary.json"))
same = all(by_run.get(r["id"]) == r["transactions"] for r in s["runs"]) and len(s["runs"]) == len(by_run)
print(len(by_run), no, pay, sum(by_run.values()), int(same))
PY
)
    expect_eq "compare tpcc: runs" "${1:-}" 4
    expect_eq "compare tpcc: transactions of the runs" "${4:-}" 600
    expect_eq "compare tpcc: new ORDERS rows = the runs' committed New-Orders" $((o1 - o0)) "${2:-}"
    expect_eq "compare tpcc: new HISTORY rows = the runs' Payments" $((h1 - h0)) "${3:-}"
    expect_eq "compare tpcc: summary's transactions = the runs' reports" "${5:-}" 1
    check_passes "after sbench compare"
fi

echo "--- --tpcc-keying on $TARGET"
# 2 terminals, Stock-Level only (keying 2 s, think time mean 5 s) for 6 s:
# each terminal keys 2 s, runs its first transaction, thinks, and has time
# for at most one more: 2 to 4 transactions (thousands without keying)
t0=$(date +%s)
sb keying $OPTS --tpcc-keying=on --threads=2 --time=6 --mix=0,0,0,0,100 tpcc run
t1=$(date +%s)
[ "$rc" = 0 ] || { fail "keying: run exited $rc"; show_out 30; }
expect_range "keying: Stock-Levels of 2 terminals in 6 s" "$(report_type stock_level)" 2 4
expect_range "keying: the run took --time (s)" $((t1 - t0)) 5 20
checks=$((checks + 1))
if grep -q "^TPC-C rules this run does not follow:" "$OUT" && ! grep -q "^TPC-C rules.*no keying" "$OUT"; then
    echo "ok   keying: the rules line no longer names keying"
else
    fail "keying: rules line: $(grep '^TPC-C rules' "$OUT")"
fi

# concurrent_deliveries NAME THREADS E: E Deliveries (and nothing else) by
# THREADS threads on the one warehouse, against what the NEW_ORDER rows
# before the run say they must do.  Every Delivery visits each district
# once and, with no New-Order running, a district empties only once: a
# district with C rows is skipped max(0, E - C) times, keeps max(0, C - E)
# rows, and when one district alone holds fewer than E rows, exactly the
# E - C Deliveries that found it empty skipped.  A Delivery that skipped
# while the district still held rows (a lost race) leaves rows behind and
# counts more skips.  The limit of clause 2.7.4.2: at most 1% of the
# Deliveries, or one, whichever is greater.
concurrent_deliveries() {
    name=$1 th=$2 e=$3
    before=$(district_rows)
    sb "deliveries-$name" $OPTS --threads="$th" --events="$e" --time=0 --mix=0,0,0,100,0 tpcc run
    [ "$rc" = 0 ] || { fail "$name: run exited $rc"; show_out 30; return; }
    after=$(district_rows)
    # shellcheck disable=SC2046
    set -- $(printf '%s\n' "$before" | awk -v e="$e" '{ if ($2 < e) { under++; c = $2 }; sk += ($2 < e) ? e - $2 : 0 }
        END { print sk, (under == 0) ? 0 : (under == 1) ? e - c : "several" }')
    [ "$2" != several ] || die "$name: more than one district under $e rows: no exact answer"
    want_rows=$(printf '%s\n' "$before" | awk -v e="$e" '{ printf "%d %d,", $1, ($2 > e) ? $2 - e : 0 }')
    got_rows=$(printf '%s\n' "$after" | awk '{ printf "%d %d,", $1, $2 }')
    expect_eq "$name: NEW_ORDER rows per district = max(0, rows before - $e)" "$got_rows" "$want_rows"
    expect_eq "$name: District deliveries skipped = sum of max(0, $e - rows before)" \
        "$(awk '/District deliveries skipped:/ { print $4 " of " $6 }' "$OUT")" "$1 of $((e * 10))"
    expect_eq "$name: Deliveries that skipped a district" \
        "$(awk '/Deliveries that skipped a district:/ { print $6 " of " $8 }' "$OUT")" "$2 of $e"
    expect_eq "$name: delivery_skipped events" "$(report_type delivery_skipped)" "$2"
    if [ "$2" -le 1 ] || [ $(($2 * 100)) -le "$e" ]; then verdict=met; else verdict="OVER THE LIMIT"; fi
    expect_eq "$name: 1% (or one) limit of clause 2.7.4.2" \
        "$(sed -n 's/^    Deliveries that skipped a district: .*(limit 1% or 1, whichever is greater: \(.*\))$/\1/p' "$OUT")" "$verdict"
    # a skipped Delivery is a Delivery: in the mix's Delivery line and
    # in the Delivery percentile, which the type's count says it has
    expect_eq "$name: mix's Delivery line" "$(awk '$1 == "delivery" && $2 ~ /%$/ { print $2 }' "$OUT")" "100.00%"
    checks=$((checks + 1))
    if grep -q "^    Delivery 90th percentile: *[0-9.]* ms" "$OUT"; then
        echo "ok   $name: Delivery 90th percentile over all $e Deliveries"
    else
        fail "$name: $(grep 'Delivery 90th' "$OUT")"
    fi
}

echo "--- concurrent deliveries on $TARGET"
# 4 and 8 threads, every district holding more new orders than the run
# delivers: no Delivery may skip.  Then district 3 cut to its 5 oldest new
# orders: 8 threads, E - 5 Deliveries skip it and only it.
concurrent_deliveries four-threads 4 100
concurrent_deliveries eight-threads 8 100
check_passes "after concurrent Deliveries"
m=$(dbq "SELECT MIN(no_o_id) FROM new_order1 WHERE no_w_id = 1 AND no_d_id = 3")
dbq "DELETE FROM new_order1 WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id > $((m + 4))" >/dev/null
concurrent_deliveries one-district-empties 8 60

echo "--- skipped deliveries on $TARGET"
# Districts 1-5 keep at most their 2 oldest new orders (district 3 has
# none left after the run above); then 6 Deliveries by one thread: each
# district is skipped max(0, 6 - its NEW_ORDER rows) times, the Deliveries
# from the emptiest district's rows + 1 on skip (here all 6: district 3 is
# empty), and the rows left behind are the sum of max(0, rows - 6): all
# from the SQL counts of NEW_ORDER, before and after.
for d in 1 2 3 4 5; do
    m=$(dbq "SELECT COALESCE(MIN(no_o_id), 0) FROM new_order1 WHERE no_d_id = $d")
    dbq "DELETE FROM new_order1 WHERE no_d_id = $d AND no_o_id > $((m + 1))" >/dev/null
done
E=6
want=$(dbq "SELECT d_id, (SELECT COUNT(*) FROM new_order1 WHERE no_w_id = 1 AND no_d_id = d_id) FROM district1 WHERE d_w_id = 1" |
    tr '|\t' '  ' | awk -v e=$E '{ c = $2; if (min == "" || c < min) min = c; left += (c > e) ? c - e : 0; sk += (c < e) ? e - c : 0; nd++ }
        END { print ((e > min) ? e - min : 0), left, sk, nd * e }')
set -- $want
sb skipped $OPTS --threads=1 --events=$E --time=0 --mix=0,0,0,100,0 tpcc run
[ "$rc" = 0 ] || { fail "skipped deliveries: run exited $rc"; show_out 30; }
got=$(awk '/Deliveries that skipped a district:/ { print $6 }' "$OUT")
expect_eq "skipped: Deliveries that skipped a district = from the SQL counts of NEW_ORDER" "$got" "$1"
expect_eq "skipped: of $E Deliveries" "$(awk '/Deliveries that skipped a district:/ { print $8 }' "$OUT")" $E
expect_eq "skipped: District deliveries skipped = sum of max(0, $E - NEW_ORDER rows)" \
    "$(awk '/District deliveries skipped:/ { print $4 }' "$OUT")" "$3"
expect_eq "skipped: of $4 district deliveries" "$(awk '/District deliveries skipped:/ { print $6 }' "$OUT")" "$4"
expect_eq "skipped: delivery_skipped events" "$(report_type delivery_skipped)" "$1"
expect_eq "skipped: NEW_ORDER rows left behind" "$(count new_order1)" "$2"
grep -q "OVER THE LIMIT" "$OUT" && echo "ok   skipped: over the 1% limit said" || fail "skipped: no OVER THE LIMIT"
checks=$((checks + 1))
grep -q "^TPC-C rules this run does not follow: no keying/think times" "$OUT" &&
    echo "ok   the rules this run does not follow" || fail "no 'rules this run does not follow' line"
checks=$((checks + 1))

echo "--- bad input on $TARGET"
sb bad-mix $OPTS --mix=50,50 tpcc run
checks=$((checks + 1))
if [ "$rc" != 0 ] && [ "$(grep -c "invalid --mix" "$OUT")" = 1 ] && ! grep -q "traceback" "$OUT"; then
    echo "ok   --mix=50,50 refused: $(grep -m1 'invalid --mix' "$OUT" | cut -c1-100)"
else
    fail "--mix=50,50: exit $rc"; show_out
fi
sb bad-scale --items=$ITEMS --warehouses=3 --events=10 tpcc run
checks=$((checks + 1))
if [ "$rc" != 0 ] && grep -q "holds 1 warehouses" "$OUT"; then
    echo "ok   --warehouses=3 on a 1-warehouse database refused"
else
    fail "--warehouses=3 on 1 warehouse: exit $rc"; show_out
fi

sb cleanup $OPTS tpcc cleanup
expect_eq "cleanup exit status" "$rc" 0
left=0
for t in warehouse item district customer history orders new_order stock order_line; do
    left=$((left + $(table_exists "${t}1")))
done
expect_eq "tpcc tables after cleanup" "$left" 0

echo "tpcc.sh $TARGET: $checks checks, $failures failed, $(($(date +%s) - start)) s"
[ "$failures" -eq 0 ]
