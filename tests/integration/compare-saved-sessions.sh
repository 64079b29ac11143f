#!/bin/bash
# compare-saved-sessions.sh: compare's saved target takes the session as
# the unit (docs/compare.md, "A saved target").  The null driver makes a
# server of fixed capacity (--null-slots=2 --null-delay-us=1000: 2000
# statements a second); every run goes into a run history of its own
# (SBENCH_HISTORY).  A baseline session, then A/A comparisons of a new
# session of the same server against it:
#  - with 1 and 2 earlier sessions in the history the verdict cannot tell,
#    and says why (3 needed);
#  - with 3 to 5, the verdicts use the spread between those sessions and
#    call no difference (each at 5%: two or more of three is a failure,
#    probability 0.7%); the regression gate --fail-slower=5 passes;
#  - a server 30% slower per statement (capacity -23%) against the same
#    baseline is found slower, with an interval that holds the true
#    change, and fails the gate (exit status 3).
# No database server; ~30 s.
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/compare-lib.sh" "$1"
export SBENCH_HISTORY=$T/history.db
null='--db-driver=null --null-slots=2 --null-delay-us=1000'
common=(--threads=4 --events=400 --time=0 --warmup-time=0 --repeats=4 --prepare=off --quiet)
"$SB" compare --target="pg:$null" "${common[@]}" --results=base oltp_point_select >base.md 2>base.err
expect_eq "baseline session: exit status" "$?" 0
sig=0
for try in 1 2 3 4 5; do
    "$SB" compare --target=base:@base/pg --target="new:$null" "${common[@]}" --fail-slower=5 \
        --results=aa$try oltp_point_select >aa$try.md 2>aa$try.err
    rc=$?
    v=aa$try/summary.json
    expect_eq "A/A $try: exit status (the gate passes)" "$rc" 0
    expect_eq "A/A $try: the verdict takes the session as the unit" "$(pyq $v 'd["verdicts"][0]["test"]')" sessions
    if [ "$try" -le 2 ]; then
        expect_eq "A/A $try: cannot tell" "$(pyq $v 'd["verdicts"][0]["achievable"]')" False
        expect_grep "A/A $try: says why" \
            "cannot tell whether new differs from base.*$try earlier sessions\? of this configuration in the history, 3 needed" aa$try.md
    else
        expect_eq "A/A $try: earlier sessions used" "$(pyq $v 'd["verdicts"][0]["sessions"]')" "$try"
        s=$(pyq $v 'int(d["verdicts"][0]["significant"])')
        sig=$((sig + s))
        echo "     A/A $try: $(pyq $v 'd["verdicts"][0]["text"]')"
    fi
done
checks=$((checks + 1))
if [ "$sig" -le 1 ]; then echo "ok   A/A with history: $sig of 3 called a difference"; else fail "A/A: $sig of 3 called a difference"; fi
# a slower server: 1300 us per statement instead of 1000
"$SB" compare --target=base:@base/pg --target='slow:--db-driver=null --null-slots=2 --null-delay-us=1300' \
    "${common[@]}" --fail-slower=5 --results=slow oltp_point_select >slow.md 2>slow.err
expect_eq "slower server: exit status 3 (the gate fails)" "$?" 3
v=slow/summary.json
expect_eq "slower server: significant" "$(pyq $v 'd["verdicts"][0]["significant"]')" True
# -23.08% (1000/1300) is the service time's own change; on a busy machine
# the client's share of each event's time moves the sessions' tps too, so
# the interval must reach a band around it (-28% to -18%) and lie below 0
expect_eq "slower server: the interval reaches -23% +- 5 points (1000/1300) and lies below 0" \
    "$(pyq $v 'd["verdicts"][0]["low_pct"] <= -18 and d["verdicts"][0]["high_pct"] >= -28 and d["verdicts"][0]["high_pct"] < 0')" True
echo "     slower: $(pyq $v 'd["verdicts"][0]["text"]')"
# the summaries (cannot tell, and measured) against compare.schema.json
checks=$((checks + 1))
if python3 - "$root/docs/compare.schema.json" aa1/summary.json aa3/summary.json slow/summary.json <<'PY'; then
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    jsonschema.validate(json.load(open(f)), schema, cls=jsonschema.Draft202012Validator)
PY
    echo "ok   summaries match compare.schema.json"
else fail "a summary does not match compare.schema.json"; fi
finish
