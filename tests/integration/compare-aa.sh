#!/bin/bash
# compare-aa.sh: A/A.  The same null-driver target under two names
# (--null-delay-us=300, a model server answering in 0.3 ms) at 8 thread
# counts, 5 interleaved repeats of 400 events each: every point is an
# independent A/A comparison.  Each must say "no significant difference";
# the exact test's false-positive rate at 5 repeats is 3.17%, so 8 points
# give 0.25 false positives on average and 3 or more happen with
# probability 0.0016: more than 2 fails the test.  The rate observed is
# printed (tests/unit/compare_stats_test.c checks it over 20000 simulated
# comparisons).  No server; ~1-2 min.
. "$(dirname "$0")/compare-lib.sh" "$1"
cat >aa.lua <<'LUA'
local t = { db_driver = "null", null_delay_us = 300 }
return {
    title = "A/A: one target, two names",
    targets = { { name = "a", options = t, prepare = false }, { name = "a2", options = t, prepare = false } },
    workloads = { "oltp_point_select" },
    threads = { 1, 2, 3, 4, 5, 6, 7, 8 },
    time = 0, events = 400, warmup = 0, repeats = 5,
}
LUA
"$SB" compare aa.lua --quiet >aa.md 2>aa.err
expect_eq "exit status" "$?" 0
res=aa-results
expect_eq "runs" "$(pyq $res/summary.json 'd["runs_done"]')" 80
expect_eq "verdicts" "$(pyq $res/summary.json 'len(d["verdicts"])')" 8
fp=$(pyq $res/summary.json 'sum(v["significant"] for v in d["verdicts"])')
echo "     false positives: $fp of 8 points ($(pyq $res/summary.json 'round(100*sum(v["significant"] for v in d["verdicts"])/8, 1)')%; exact size of the test 3.17%)"
checks=$((checks + 1))
if [ "$fp" -le 2 ]; then echo "ok   A/A false positives $fp <= 2 of 8"; else fail "A/A false positives: $fp of 8"; fi
# (a point significant before the Benjamini-Hochberg correction and not
# after reads "no significant difference after correction for 8 verdicts")
expect_eq "verdict lines say no significant difference" \
    "$(grep -cE 'threads: no significant difference (at 5 and 5 repeats|after correction for 8 verdicts)' aa.md)" $((8 - fp))
expect_eq "the lines after correction are the verdicts significant before it" \
    "$(grep -c 'threads: no significant difference after correction' aa.md)" \
    "$(pyq $res/summary.json 'sum(v["significant_unadjusted"] and not v["significant"] for v in d["verdicts"])')"
# p-values of an A/A comparison are spread over [0, 1], not all near 0 or 1
expect_eq "median p-value above 0.1" "$(pyq $res/summary.json 'sorted(v["p_value"] for v in d["verdicts"])[4] > 0.1')" True
# a target against itself at 3 repeats: too few to show any difference
"$SB" compare --prepare=off --target='x:--db-driver=null' --target='y:--db-driver=null' --events=200 --time=0 \
    --warmup-time=0 --repeats=3 --results=three --quiet oltp_point_select >three.md 2>&1
expect_grep "3 repeats: no difference can be shown" "no significant difference at 3 and 3 repeats (.*use 4 or more)" three.md
finish
