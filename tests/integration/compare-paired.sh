#!/bin/bash
# compare-paired.sh: the paired test of interleaved runs, on the null
# driver (no server).  A/A: one model server (--null-delay-us=300) under
# four names, 8 interleaved repeats at 1 and 2 threads: 12 verdicts, each
# the exact signed-rank test on 8 pairs, whose size is 10/256 = 3.9%
# (tests/unit/compare_stats_test.c checks it over 20000 simulated pairs):
# 0.47 false positives expected, 4 or more with probability < 0.001, so
# more than 3 fails; after the Benjamini-Hochberg correction at most one.
# Power: a server that takes 1.5x as long per statement (450 us against
# 300) is found slower, by the paired test, with an estimate between the
# model's -33.3% (if the client took no time) and 0.  ~60 s.
. "$(dirname "$0")/compare-lib.sh" "$1"
t="--db-driver=null --null-delay-us=300"
"$SB" compare --prepare=off --target="a:$t" --target="b:$t" --target="c:$t" --target="d:$t" --threads=1,2 \
    --events=200 --time=0 --warmup-time=0 --repeats=8 --results=aa --quiet oltp_point_select >aa.md 2>aa.err
expect_eq "A/A: exit status" "$?" 0
expect_eq "A/A: 12 verdicts, all by the signed-rank test on 8 pairs" \
    "$(pyq aa/summary.json 'sum(v["test"] == "signed-rank" and v["pairs"] == 8 for v in d["verdicts"])')" 12
raw=$(pyq aa/summary.json 'sum(v["p_value"] <= 0.05 for v in d["verdicts"])')
adj=$(pyq aa/summary.json 'sum(v["significant"] for v in d["verdicts"])')
echo "     A/A false positives: $raw of 12 uncorrected (exact size 3.9%), $adj after Benjamini-Hochberg"
checks=$((checks + 1))
if [ "$raw" -le 3 ]; then echo "ok   A/A: $raw <= 3 of 12 false positives"; else fail "A/A: $raw of 12 false positives"; fi
checks=$((checks + 1))
if [ "$adj" -le 1 ]; then echo "ok   A/A: $adj <= 1 after the correction"; else fail "A/A: $adj significant after correction"; fi
expect_grep "A/A: the verdict says which test" "signed-rank test on 8 interleaved pairs)" aa.md
expect_grep "A/A: the report states the correction" "Benjamini-Hochberg" aa/summary.json
# power on a known difference
"$SB" compare --prepare=off --target="fast:$t" --target="slow:--db-driver=null --null-delay-us=450" --threads=1 \
    --events=1000 --time=0 --warmup-time=0 --repeats=8 --results=known --quiet oltp_point_select >known.md 2>known.err
expect_eq "known: exit status" "$?" 0
expect_eq "known: paired test" "$(pyq known/summary.json 'd["verdicts"][0]["test"]')" signed-rank
expect_eq "known: slow is significantly slower" \
    "$(pyq known/summary.json 'd["verdicts"][0]["significant"] and d["verdicts"][0]["high_pct"] < 0')" True
expect_eq "known: estimate between the model's -33.3% and 0" \
    "$(pyq known/summary.json '-33.4 < d["verdicts"][0]["change_pct"] < 0')" True
expect_grep "known: the verdict line" "^- 1 threads: slow is [0-9.]*% slower than fast (95% CI .*; signed-rank test on 8 interleaved pairs)" known.md
finish
