#!/bin/sh
# trace-null.sh [BUILD_DIR]: `sbench WORKLOAD trace` without a server (the
# null driver), its records against the engine's own counts in the JSON
# report of the same run (an account kept apart, above the driver):
#   1. oltp_point_select, 5 events on 2 threads, every 4th statement of a
#      connection failing with 40001: the successful EXECUTEs traced are the
#      report's reads (one per event), the failed ones its ignored errors and
#      the decisions traced ("the event restarts"), each a ROLLBACK traced;
#   2. oltp_read_write under --trace-rollback, 2 events: no COMMIT reaches
#      the driver (each sent as ROLLBACK, marked), 18 EXECUTEs an event;
#   3. the text lines on stdout are the JSON lines of --trace-output, one
#      for one; a --trace-output that cannot be written is one line on
#      stderr and exit 2.
set -u
. "$(cd "$(dirname "$0")/.." && pwd)/cli/author-lib.sh"
# count FILE PYTHON-EXPR: how many JSON lines r of FILE make the expression true
count() {
    python3 -c 'import json,sys
n=0
for line in open(sys.argv[1]):
    r=json.loads(line)
    n+=bool(eval(sys.argv[2]))
print(n)' "$1" "$2"
}
report() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
common="--db-driver=null --null-dialect=postgresql --tables=1 --table-size=100 --verbosity=1 --report-format=json"

# 1. failures and the failure policy's decisions
"$SB" $common --null-fail-every=4 --threads=2 --events=5 --trace-output=t1.jsonl --output=r1.json \
    oltp_point_select trace >t1.txt 2>t1.err || { echo "FAIL: trace 1 exited $?"; cat t1.err; exit 1; }
expect_eq "EXECUTEs answered = the report's reads" \
    "$(count t1.jsonl 'r.get("kind")=="execute" and r["status"]=="ok"')" "$(report r1.json 'r["queries"]["read"]')"
expect_eq "the report's reads = events" "$(report r1.json 'r["queries"]["read"]')" 5
failed=$(count t1.jsonl 'r.get("kind")=="execute" and r["status"]=="retry" and r["sqlstate"]=="40001"')
expect_eq "EXECUTEs failed = the report's ignored errors" "$failed" "$(report r1.json 'r["ignored_errors"]')"
expect_eq "decisions traced = failures" \
    "$(count t1.jsonl 'r.get("kind")=="event_failed" and r["decision"]=="rolled back, the event restarts"')" "$failed"
expect_eq "ROLLBACKs traced = failures" "$(count t1.jsonl 'r.get("sql")=="ROLLBACK"')" "$failed"
expect_eq "text lines = JSON lines" "$(grep -c '^\[' t1.txt)" "$(grep -c . t1.jsonl)"

# 2. --trace-rollback: no COMMIT reaches the driver
"$SB" $common --trace-rollback --events=2 --trace-output=t2.jsonl --output=r2.json \
    oltp_read_write trace >t2.txt 2>t2.err || { echo "FAIL: trace 2 exited $?"; cat t2.err; exit 1; }
expect_eq "COMMITs sent" "$(count t2.jsonl 'r.get("kind")=="commit" or (r.get("sql") or "").upper().startswith("COMMIT")')" 0
expect_eq "COMMITs sent as ROLLBACK" "$(count t2.jsonl '(r.get("note") or "").endswith("COMMIT sent as ROLLBACK")')" \
    "$(report r2.json 'r["transactions"]')"
expect_eq "EXECUTEs = 18 an event" "$(count t2.jsonl 'r.get("kind")=="execute"')" 36

# 3. an unwritable --trace-output
"$SB" $common --events=1 --trace-output="$tmp/no/such/dir/t.jsonl" oltp_point_select trace >t3.txt 2>t3.err
expect_eq "unwritable --trace-output: exit status" "$?" 2
expect_eq "unwritable --trace-output: one line on stderr" "$(grep -c 'trace-output' t3.err)" 1
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
