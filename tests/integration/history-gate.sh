#!/bin/bash
# history-gate.sh: change points and `sbench history gate` on real run
# histories of the null driver's model server of fixed capacity
# (--null-slots=2: 2 statements at once, 1 ms each, 2000 a second).
#  - A/A: 30 runs, nothing changed: the gate passes (--fail-slower=10;
#    tests/unit/history_stats_test.c measures its false-alarm rate over
#    thousands of simulated histories: at most 5%).
#  - A step: 30 runs, the server 17.6% slower per statement from the 21st
#    on (SBENCH_NULL_SERVER_DELAY_US=1176: the server changed, the
#    benchmark's options did not; capacity -15%): the trend names run 21 as
#    the first after the change, its 95% interval holds -15% (within the
#    model server's 1 point of timer slack), what changed
#    is the server's version; the gate fails (exit status 3).
#  - Runs on a saturated machine: with --saturated-load=X the runs set aside
#    are exactly those whose recorded load per CPU (history export) is X or
#    more, and the sessions analysed are the others.
# No database server; ~1 min.
. "$(dirname "$0")/compare-lib.sh" "$1"
history() { # STORE N_BEFORE N_AFTER: runs into STORE, the server slower after N_BEFORE
    for i in $(seq 1 $(($2 + $3))); do
        d=1000
        [ "$i" -gt "$2" ] && d=1176
        SBENCH_NULL_SERVER_DELAY_US=$d "$SB" --history="$1" --db-driver=null --null-slots=2 --threads=4 \
            --events=1000 oltp_point_select run >/dev/null 2>run.err || { fail "run $i: $(tail -1 run.err)"; return; }
    done
}
history aa.db 30 0
"$SB" history gate --history=aa.db --fail-slower=10 --saturated-load=off >aa.out 2>&1
expect_eq "A/A: the gate passes" "$?" 0
expect_grep "A/A: 30 sessions analysed" "30 sessions of 30 runs" aa.out
grep -E "^change at|^gate" aa.out | sed 's/^/     /'

history step.db 20 10
"$SB" history trend --history=step.db --saturated-load=off >trend.out 2>&1
expect_eq "step: trend exit status" "$?" 0
expect_grep "step: the change is named at run 21" "^change at run 21 " trend.out
checks=$((checks + 1))
step=$(sed -n 's/^change at run 21 .*): \(-[0-9.]*\)% (95% CI \(-[0-9.]*\)% to \(-[0-9.]*\)%;.*/\1 \2 \3/p' trend.out)
# the model server's sleeps are not exact (timer slack, a busy machine's
# scheduling: 1000 us sleeps ~1050-1100 us), so the step the runs really
# see is -15% within a point either way: the interval must meet [-16, -14]
if [ -n "$step" ] && python3 -c "import sys; e, lo, hi = map(float, sys.argv[1:]); sys.exit(not (lo <= -14 and hi >= -16))" $step; then
    echo "ok   step: the 95% interval ($step) holds -15% (within the model server's 1 point)"
else fail "step: interval '$step' does not meet -15% +- 1 point: $(grep '^change' trend.out)"; fi
expect_grep "step: what changed is the server" "version of server: null (delay 1000 us) -> null (delay 1176 us)" trend.out
"$SB" history gate --history=step.db --fail-slower=5 --saturated-load=off >gate.out 2>&1
expect_eq "step: the gate fails" "$?" 3
expect_grep "step: the gate names the run" "FAIL: the newest runs sit after a slowdown of .* from run 21 on" gate.out

# set aside: a threshold at the median of the loads the runs recorded
"$SB" history export --history=step.db --format=json >runs.json
x=$(pyq runs.json 'sorted(r["host_load"] for r in d)[15]')
want=$(pyq runs.json "' '.join(str(r['id']) for r in d if r['host_load'] >= $x)")
"$SB" history gate --history=step.db --fail-slower=5 --saturated-load="$x" >aside.out 2>&1
got=$(sed -n 's/^set aside, taken on a saturated machine[^:]*: //p' aside.out | grep -o 'run [0-9]*' | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//')
expect_eq "set aside: the runs with load per CPU >= $x" "$got" "$want"
expect_grep "set aside: the others analysed" "$((30 - $(echo $want | wc -w))) sessions of $((30 - $(echo $want | wc -w))) runs" aside.out
finish
