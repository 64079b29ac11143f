#!/bin/bash
# compare-resume.sh: an interrupted comparison resumes where it stopped.
# Two SQLite targets (no server), 2 thread counts x 3 repeats x 1 s = 12
# runs.  (1) SIGKILL mid-way: the run in flight dies with compare (no
# sbench left behind), the finished runs stay; started again, it says
# how many were done, prepares nothing again, runs only the missing ones
# and leaves the finished runs' files untouched.  (2) SIGTERM mid-way:
# exit status 1 and one line saying how to resume; the cut-short run is
# no repeat.
. "$(dirname "$0")/compare-lib.sh" "$1"
cat >r.lua <<LUA
return {
    targets = {
        { name = "s1", options = { db_driver = "sqlite", sqlite_db = "$T/s1.db" } },
        { name = "s2", options = { db_driver = "sqlite", sqlite_db = "$T/s2.db" } },
    },
    workloads = { { name = "oltp_point_select", options = { tables = 1, table_size = 200 } } },
    threads = { 1, 2 }, time = 1, warmup = 0, repeats = 3,
}
LUA
R=$T/r-results
records() { ls "$R"/runs/*.record.json 2>/dev/null | wc -l | tr -d ' '; }
wait_records() { # N: until N runs are done (at most 120 s)
    for _ in $(seq 1 600); do [ "$(records)" -ge "$1" ] && return 0; sleep 0.2; done
    return 1
}
"$SB" compare r.lua --results="$R" >first.md 2>first.err &
pid=$!
wait_records 3 || fail "no 3 runs done within 120 s"
# kill while a run is in flight (its command line names the directory)
for _ in $(seq 1 100); do pgrep -f -- "--output=$R/runs" >/dev/null && break; sleep 0.05; done
expect_eq "a run is in flight" "$(pgrep -f -- "--output=$R/runs" | wc -l | tr -d ' ')" 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.5
expect_eq "no sbench run left behind" "$(pgrep -f -- "--output=$R/runs" | wc -l | tr -d ' ')" 0
done1=$(records)
stat -c '%n %i %Y' "$R"/runs/*.record.json "$R"/runs/*_r[0-9].json | sort >before.txt
grep -c '^compare: \[' first.err >/dev/null
"$SB" compare r.lua --results="$R" >second.md 2>second.err
expect_eq "second start: exit status" "$?" 0
expect_grep "says where it resumes" "resuming in $R: $done1 of 12 runs done" second.err
expect_eq "runs started the second time" "$(grep -c '^compare: \[' second.err)" $((12 - done1))
expect_eq "no prepare the second time" "$(grep -c 'prepare on' second.err)" 0
expect_eq "all runs done" "$(records)" 12
stat -c '%n %i %Y' $(cut -d' ' -f1 before.txt) | sort >after.txt
checks=$((checks + 1))
if cmp -s before.txt after.txt; then echo "ok   the $done1 finished runs' files are untouched"
else fail "finished runs were redone:"; diff before.txt after.txt | head; fi
"$SB" compare r.lua --results="$R" >third.md 2>third.err
expect_eq "third start: nothing to do, exit status" "$?" 0
expect_eq "third start: no run" "$(grep -c '^compare: \[' third.err)" 0

# SIGTERM
rm -rf "$R"
"$SB" compare r.lua --results="$R" >t1.md 2>t1.err &
pid=$!
wait_records 2 || fail "no 2 runs done within 120 s"
sleep 0.3
kill -TERM $pid
wait $pid
expect_eq "SIGTERM: exit status" "$?" 1
expect_grep "SIGTERM: says how to resume" "interrupted; [0-9]* of 12 runs done, run the same command again to resume" t1.err
n=$(records)
expect_eq "SIGTERM: records = reports" "$(ls "$R"/runs/*_r[0-9].json | wc -l | tr -d ' ')" "$n"
"$SB" compare r.lua --results="$R" >t2.md 2>t2.err
expect_eq "SIGTERM, resumed: exit status" "$?" 0
expect_eq "SIGTERM, resumed: runs" "$(grep -c '^compare: \[' t2.err)" $((12 - n))
finish
