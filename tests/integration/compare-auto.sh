#!/bin/bash
# compare-auto.sh: `sbench compare --repeats=auto` on the null driver's
# model servers (no server needed).  The rate of false calls of the
# sequential rule over many sequences is tests/unit/compare_seq_test.c's;
# this is the wiring, on cases whose answer is known:
#  - a known difference: a server that takes twice as long per statement
#    (600 us against 300) is found slower, stopping before the maximum
#    (at most 12: the first look is at 6 repeats, 7 looks), with as many
#    runs on disk as the summary counts, the verdict's test stating its
#    looks, summary.json valid against its schema;
#  - A/A: one model server under two names is not called different;
#  - the same command again runs nothing more (settled is read from disk).
. "$(dirname "$0")/compare-lib.sh" "$1"
root=$(cd "$(dirname "$0")/../.." && pwd)
known() {
    "$SB" compare --prepare=off --target="fast:--db-driver=null --null-delay-us=300" \
        --target="slow:--db-driver=null --null-delay-us=600" --threads=1 --events=300 --time=0 --warmup-time=0 \
        --repeats=auto:12 --results=known --quiet oltp_point_select >known.md 2>known.err
}
known
expect_eq "known: exit status" "$?" 0
n=$(pyq known/summary.json 'd["verdicts"][0]["n_a"]')
expect_eq "known: stopped before the maximum, both targets alike" \
    "$(pyq known/summary.json '6 <= d["verdicts"][0]["n_a"] == d["verdicts"][0]["n_b"] < 12')" True
expect_eq "known: the runs on disk" "$(ls known/runs/*.record.json | wc -l | tr -d ' ')" $((2 * n))
expect_eq "known: complete, planned = the runs of the settled point" \
    "$(pyq known/summary.json 'd["complete"] and d["runs_planned"] == d["runs_done"] == 2 * d["verdicts"][0]["n_a"]')" True
expect_grep "known: the method states the looks" "Bonferroni over its 7 looks" known/summary.json
expect_grep "known: the header says auto" "^$((2 * n)) of $((2 * n)) runs done; until settled, at most 12 repeats" known.md
expect_eq "known: slow is significantly slower" \
    "$(pyq known/summary.json 'd["verdicts"][0]["significant"] and d["verdicts"][0]["high_pct"] < 0')" True
expect_eq "known: estimate between the model's -50% and 0" \
    "$(pyq known/summary.json '-50.1 < d["verdicts"][0]["change_pct"] < 0')" True
expect_eq "known: 7 looks, level 1 - 0.05/7" \
    "$(pyq known/summary.json 'd["verdicts"][0]["looks"] == 7 and abs(d["verdicts"][0]["level"] - (1 - 0.05 / 7)) < 0.003')" True
expect_grep "known: the verdict line" "^- 1 threads: slow is [0-9.]*% slower than fast (95% CI .*; Mann-Whitney test, sequential over 7 looks)" known.md
checks=$((checks + 1))
if python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
' known/summary.json "$root/docs/compare.schema.json"; then echo "ok   known: summary.json valid"; else fail "schema"; fi
known
expect_eq "known again: exit status" "$?" 0
expect_eq "known again: no run added" "$(ls known/runs/*.record.json | wc -l | tr -d ' ')" $((2 * n))

"$SB" compare --prepare=off --target="a:--db-driver=null --null-delay-us=300" \
    --target="b:--db-driver=null --null-delay-us=300" --threads=1 --events=300 --time=0 --warmup-time=0 \
    --repeats=auto:10 --results=aa --quiet oltp_point_select >aa.md 2>aa.err
expect_eq "A/A: exit status" "$?" 0
expect_eq "A/A: no difference called" "$(pyq aa/summary.json 'd["verdicts"][0]["significant"]')" False
echo "     A/A: stopped at $(pyq aa/summary.json 'd["verdicts"][0]["n_a"]') of at most 10 repeats"
# the comparison file's form: repeats = "auto:8", auto_width = 3
cat >auto.lua <<'LUA'
return { targets = { { name = "fast", options = { db_driver = "null", null_delay_us = 300 }, prepare = false },
                     { name = "slow", options = { db_driver = "null", null_delay_us = 600 }, prepare = false } },
         workloads = { "oltp_point_select" }, threads = { 1 }, time = 0, events = 300, warmup = 0,
         repeats = "auto:8", auto_width = 3 }
LUA
"$SB" compare auto.lua --results=file --quiet >file.md 2>file.err
expect_eq "file: exit status" "$?" 0
expect_eq "file: auto, at most 8, width 3%" \
    "$(pyq file/summary.json 'd["spec"]["repeats_auto"] and d["spec"]["repeats"] == 8 and d["spec"]["auto_width_pct"] == 3')" True
expect_eq "file: 4 looks, slow significantly slower" \
    "$(pyq file/summary.json 'd["verdicts"][0]["looks"] == 4 and d["verdicts"][0]["significant"] and d["verdicts"][0]["high_pct"] < 0')" True
"$SB" compare --prepare=off --target="a:--db-driver=null" --repeats=auto:3 --results=bad oltp_point_select \
    >bad.out 2>&1
expect_eq "auto:3: exit status 2" "$?" 2
expect_grep "auto:3: one line" "invalid value 'auto:3' for --repeats" bad.out
finish
