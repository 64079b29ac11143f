#!/bin/bash
# compare-bottleneck.sh: what limited each point is named right, on cases
# whose answer is known.  The null driver with no delay: the client does
# all the work, its one thread never waits for a server: "client-bound"
# (whatever the core count; the old rule, sbench's share of all cores,
# never fired here).  PostgreSQL answering SELECT pg_sleep(0.01): the
# client's threads wait 10 ms per event for the server and do almost
# nothing: "server-bound", never "client-bound" nor a client warning; the
# server's own evidence (its sampler) names pg_sleep's wait event.
# Then the checks before the first run: a target option no driver knows,
# and a misspelt key of a comparison file, refused before anything runs;
# a failed run explained by its FATAL: line.  The null driver's model
# server at its known capacity (--null-slots=2 --null-delay-us=10000: 200
# statements a second) beside 2 CPU hogs per core: a server that only
# sleeps is "server-bound", not "machine saturated" (#39: the client's
# threads wait for a CPU at each wake-up on the busy machine, which the
# machine rule took for the limit); with host I/O (--io=uring) the model
# server's thread is found and counted as the server's, not the client's.
# Needs SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.  ~55 s.
. "$(dirname "$0")/compare-lib.sh" "$1"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
export PGPASSWORD=$SBT_PGPASSWORD
pg="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=disable"
cat >sleep.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT pg_sleep(0.01)") end
function thread_done() con:disconnect() end
LUA
"$SB" compare --prepare=off --target="null:--db-driver=null" --target="pg:$pg" --threads=1,2 --time=1 \
    --warmup-time=0 --repeats=2 --results=bn --quiet "$T/sleep.lua" >bn.md 2>bn.err
expect_eq "exit status" "$?" 0
bn() { pyq bn/summary.json "[p['bottleneck']['verdict'] for p in d['points'] if p['target'] == '$1']"; }
expect_eq "null driver: client-bound at 1 and 2 threads" "$(bn null)" "['client-bound', 'client-bound']"
expect_eq "pg_sleep(0.01): server-bound at 1 and 2 threads" "$(bn pg)" "['server-bound', 'server-bound']"
expect_eq "pg_sleep: the busiest client thread was busy under 20% of the time" \
    "$(pyq bn/summary.json "all(p['bottleneck']['busiest_thread_cpu_share'] + p['bottleneck']['busiest_thread_delay_share'] < 0.2 for p in d['points'] if p['target'] == 'pg')")" True
expect_eq "pg_sleep: the rate is the sleep's, ~100 a second per thread" \
    "$(pyq bn/summary.json "all(50 < p['tps']['median'] / p['threads'] <= 101 for p in d['points'] if p['target'] == 'pg')")" True
# the server's own evidence (--server-metrics): the sessions sampled in
# pg_sleep's wait event, named in the pg point's limits; none for null
expect_eq "pg_sleep: the server's evidence names Timeout:PgSleep" \
    "$(pyq bn/summary.json "[('Timeout:PgSleep' in (p['bottleneck']['server_evidence'] or ''), 'evidence' in p['bottleneck']['text']) for p in d['points'] if p['target'] == 'pg' and p['threads'] == 2]")" \
    "[(True, True)]"
expect_eq "null driver: no server evidence" \
    "$(pyq bn/summary.json "[p['bottleneck']['server_evidence'] for p in d['points'] if p['target'] == 'null']")" "[None, None]"
expect_eq "one client_bound warning per null point, none for pg" \
    "$(pyq bn/summary.json "sorted((w['target'], w['threads']) for w in d['warnings'] if w['kind'] == 'client_bound')")" \
    "[('null', 1), ('null', 2)]"
expect_grep "the warning says client-bound" "client-bound: the busiest sbench thread was on a CPU or waiting for one" bn.md
expect_eq "the run records hold the thread figures" \
    "$(pyq bn/summary.json "all(r['client_threads_measured'] >= r['threads'] for r in d['runs'])")" True
# one warning per kind and point, with a count
expect_eq "warnings are grouped (one per kind and point)" \
    "$(pyq bn/summary.json "len(set((w['kind'], w['threads'], w['target']) for w in d['warnings'])) == len(d['warnings'])")" True

# the model server at its capacity, the machine saturated by CPU hogs (killed at the latest by
# their timeout): the model spends no CPU (its answers wait on timers), so the limit is the server
hogs=""
for _ in $(seq $((2 * $(nproc)))); do timeout 60 sh -c 'while :; do :; done' & hogs="$hogs $!"; done
"$SB" compare --prepare=off --target="cap:--db-driver=null --null-slots=2 --null-delay-us=10000" \
    --target="hio:--db-driver=null --clients=32 --io=uring" --threads=8 --time=2 --warmup-time=0 --repeats=3 \
    --results=cap --quiet oltp_point_select >cap.md 2>cap.err
rc=$?
kill $hogs 2>/dev/null; wait $hogs 2>/dev/null
expect_eq "model server: exit status" "$rc" 0
capq() { pyq cap/summary.json "[$1 for p in d['points'] if p['target'] == '$2'][0]"; }
pyq cap/summary.json "[(p['target'], round(p['tps']['median']), p['bottleneck']) for p in d['points']]" | sed 's/^/     /'
expect_eq "model server: the machine was saturated (>= 90% busy)" "$(capq "p['bottleneck']['machine_busy_share'] >= 0.9" cap)" True
expect_eq "model server: at its capacity (2 slots / 10 ms = 200/s)" "$(capq "150 <= p['tps']['median'] <= 205" cap)" True
expect_eq "model server: server-bound, not machine saturated" "$(capq "p['bottleneck']['verdict']" cap)" server-bound
expect_eq "model server: measured as spending no CPU" "$(capq "p['bottleneck']['server_cpu_cores']" cap)" 0.0
expect_eq "no machine_saturated warning for the model server" \
    "$(pyq cap/summary.json "sum(w['kind'] == 'machine_saturated' and w['target'] == 'cap' for w in d['warnings'])")" 0
expect_eq "host I/O: the model server's thread counted as the server's in every run" \
    "$(pyq cap/summary.json "all(r.get('server_model_threads') == 1 and r['server_cpu_cores'] > 0 for r in d['runs'] if r['id'].endswith(tuple('_hio_r%d' % i for i in (1, 2, 3))))")" True

# --rate above what 2 connections of a 30 ms server can do (66 a second): the schedule lags, and
# the warning blames the connections, not the client's CPU
"$SB" compare --prepare=off --target="slow:--db-driver=null --null-delay-us=30000 --rate=100" --threads=2 --time=2 \
    --warmup-time=0 --repeats=1 --results=lag --quiet oltp_point_select >lag.md 2>lag.err
expect_eq "rate: exit status" "$?" 0
expect_grep "rate: the lag is blamed on the connections" \
    "events started late under --rate (.*): not the client's CPU (.*), the 2 connections were waiting" lag.md

# checked before the first run: an option no driver or workload knows
"$SB" compare --prepare=off --target="good:--db-driver=null" --target="bad:--db-driver=null --bogus=1" \
    --threads=1 --time=1 --repeats=1 --results=opt --quiet oltp_point_select >opt.md 2>opt.err
expect_eq "unknown option: exit status" "$?" 1
expect_grep "unknown option: named with its target and a did-you-mean" \
    "target 'bad' cannot run workload 'oltp_point_select': sbench: unknown option --bogus; did you mean" opt.err
expect_eq "unknown option: nothing ran" "$(ls opt/runs | wc -l | tr -d ' ')" 0
# a misspelt key of a comparison file
cat >typo.lua <<'LUA'
return { targets = { { name = "a", options = { db_driver = "null" }, prepare = false } },
         workloads = { "oltp_point_select" }, threads = { 1 }, time = 1, repeatz = 4 }
LUA
"$SB" compare typo.lua --quiet >typo.md 2>typo.err
expect_eq "repeatz: exit status" "$?" 2
expect_grep "repeatz: did you mean repeats" "typo.lua: unknown key 'repeatz'; did you mean 'repeats'?" typo.err
expect_eq "repeatz: no results directory" "$(ls -d typo-results 2>/dev/null | wc -l | tr -d ' ')" 0
# a failed run is explained by its FATAL: line, not by its last line (a traceback)
echo 'function event() local x = nil; return x.field end' >boom.lua
"$SB" compare --prepare=off --target="a:--db-driver=null" --threads=1 --events=10 --time=0 --warmup-time=0 \
    --repeats=1 --results=boom --quiet "$T/boom.lua" >boom.md 2>boom.err
expect_eq "failed run: exit status" "$?" 1
expect_grep "failed run: its FATAL: line" "FATAL: thread 0: .*boom.lua:1: attempt to index a nil value" boom.err
finish
