#!/bin/bash
# compare-knee.sh: the knee of a sweep is where the data show it, on model
# servers whose capacity is known (no database).  Target cap4 is the null
# driver with --null-slots=4 --null-delay-us=20000: 4 statements at once,
# 20 ms each, so at most 200 point selects a second: throughput doubles
# from 2 to 4 threads and is flat past 4, the true knee is 4 (the service
# time is long so that a loaded client's own time between statements,
# ~0.3 ms, is no visible part of it).  Target free has no shared limit
# (each connection 50 a second): it scales over the whole
# sweep (2, 4, 8 threads), no knee.  At 3 repeats no difference can be
# shown: no knee, said with the reason.  ~55 s.
. "$(dirname "$0")/compare-lib.sh" "$1"
cap="--db-driver=null --null-delay-us=20000 --null-slots=4"
free="--db-driver=null --null-delay-us=20000"
"$SB" compare --prepare=off --target="cap4:$cap" --target="free:$free" --threads=2,4,8 --time=1 \
    --warmup-time=0 --repeats=5 --results=knee --quiet oltp_point_select >knee.md 2>knee.err
expect_eq "exit status" "$?" 0
sw() { pyq knee/summary.json "[s for s in d['sweeps'] if s['target'] == '$1'][0]$2"; }
expect_eq "cap4: the knee is at the server's 4 slots" "$(sw cap4 "['knee']['threads']")" 4
expect_eq "cap4: the intervals exclude a 20% gain past it" "$(sw cap4 "['precision_pct'] < 20")" True
# the capacity itself, N / service time: 200 a second; the medians at 4 and 8 threads under it
# (3% for a 1 s run's edges: a round of 4 statements in flight when the clock starts or stops) and near it (a busy machine's client adds a little time between statements)
cap_ok=$(pyq knee/summary.json "all(160 < p['tps']['median'] <= 206 for p in d['points'] if p['target'] == 'cap4' and p['threads'] >= 4)")
echo "     cap4 medians: $(pyq knee/summary.json "[(p['threads'], round(p['tps']['median'], 1)) for p in d['points'] if p['target'] == 'cap4']")"
expect_eq "cap4: throughput at and past the knee is the model's 200/s" "$cap_ok" True
expect_grep "cap4: the knee line" "^- cap4 stops scaling at 4 threads: more threads (up to 8) add no significant throughput" knee.md
expect_eq "free: no knee" "$(sw free "['knee']")" None
expect_grep "free: scales over the sweep" "^- free scales up to 8 threads" knee.md
expect_grep "the chart marks the knee" "set label 'knee: cap4' at 4," knee/charts/charts.gp
expect_eq "the chart marks no knee for free" "$(grep -c "knee: free" knee/charts/charts.gp)" 0
# 3 repeats cannot show a difference: no knee, and why
"$SB" compare --prepare=off --target="cap4:$cap" --threads=2,4 --time=1 --warmup-time=0 --repeats=3 \
    --results=few --quiet oltp_point_select >few.md 2>few.err
expect_eq "3 repeats: exit status" "$?" 0
expect_grep "3 repeats: no knee within this sweep's precision" "^- cap4: no knee within this sweep's precision (.*3 repeats cannot show a difference" few.md
expect_eq "3 repeats: no knee in the summary" "$(pyq few/summary.json "d['sweeps'][0]['knee']")" None
finish
