#!/bin/bash
# compare-known.sh: a known difference is found, on the PostgreSQL of
# scripts/test.sh.  The same server twice, once limited by --rate=100
# (a fraction of what it does unlimited): the limited target is reported
# slower with a 95% interval that excludes zero; --fail-slower=50 exits 3,
# --fail-slower=99.9 does not.  Then the regression flow of a CI pipeline:
# the first comparison's runs of 'pg' are the saved baseline of a second
# comparison that runs only the new (rate-limited) target, and gates it.
# Needs SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.
. "$(dirname "$0")/compare-lib.sh" "$1"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
export PGPASSWORD=$SBT_PGPASSWORD
pg="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=disable"
wl="--tables=1 --table-size=1000"
"$SB" compare --target="pg:$pg" --target="pg_rate:$pg --rate=100" --prepare=on --threads=1 --time=2 \
    --warmup-time=1 --repeats=4 --results=known --quiet oltp_point_select $wl >known.md 2>known.err
expect_eq "exit status" "$?" 0
expect_grep "verdict: pg_rate is slower" "^- 1 threads: pg_rate is [0-9.]*% slower than pg (95% CI [0-9.]*% to [0-9.]*%)" known.md
expect_eq "interval excludes zero" "$(pyq known/summary.json 'd["verdicts"][0]["high_pct"] < 0 and d["verdicts"][0]["significant"]')" True
"$SB" report known --fail-slower=50 >gate.md 2>&1
expect_eq "report --fail-slower=50: exit status" "$?" 3
expect_grep "gate says FAIL" "Regression gate .*: FAIL" gate.md
expect_eq "summary: gate status" "$(pyq known/summary.json 'd["regression"]["status"]')" fail
"$SB" report known --fail-slower=99.9 >gate2.md 2>&1
expect_eq "report --fail-slower=99.9: exit status" "$?" 0
"$SB" report known --baseline=pg_rate --fail-slower=50 >gate3.md 2>&1
expect_eq "baseline pg_rate: pg is faster, no regression" "$?" 0

# the saved baseline: only 'new' runs, against the runs of 'pg' in known/
"$SB" compare --target="base:@known/pg" --target="new:$pg --rate=100" --prepare=off --threads=1 --time=2 \
    --warmup-time=1 --repeats=4 --results=ci --fail-slower=50 --quiet oltp_point_select $wl >ci.md 2>ci.err
expect_eq "saved baseline, --fail-slower=50: exit status" "$?" 3
expect_eq "only the new target ran" "$(ls ci/runs/*.record.json | wc -l | tr -d ' ')" 4
expect_eq "baseline runs taken from known/" "$(pyq ci/summary.json 'sum(1 for r in d["runs"] if r["target"] == "base")')" 4
expect_grep "CI verdict" "new is [0-9.]*% slower than base" ci.md
"$SB" $pg $wl oltp_point_select cleanup >/dev/null 2>&1
finish
