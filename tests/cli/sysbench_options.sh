#!/bin/bash
# sysbench_options.sh: sysbench 1.0's old option names and its general
# options sbench takes for its command lines, compared with sysbench 1.0.20
# itself on the same script (one that touches no database; sbench on its
# null driver): --num-threads, --max-requests, --max-time, --tx-rate (the
# same WARNING lines, the same threads and events), --config-file (the same
# values, the command line winning; a bad line or file refused with one
# line), --thread-stack-size/--validate (accepted, a note), an option a
# script without options of its own is given (a note naming it), a --rate
# the machine cannot deliver (sysbench's FATAL line, exit 1) and one it can,
# and sysbench.report_default's line (sysbench's "err/s N", no colon).
# Usage: sysbench_options.sh [BUILD_DIR]   (default: $SBT_BUILD, else ./build)
set -u
build=${1:-${SBT_BUILD:-build}}
build=$(cd "$build" && pwd) || { echo "sysbench_options: no build dir"; exit 1; }
S=$build/cli/sbench
SYSB=${SBT_SYSBENCH:-/usr/bin/sysbench}
[ -x "$S" ] || { echo "FAIL: $S not found"; exit 1; }
[ -x "$SYSB" ] || { echo "FAIL: $SYSB not found (apt-get install sysbench): nothing to compare with"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-sysopts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset SBENCH_PATH SBENCH_DRIVER_PATH LUA_PATH LUA_PATH_5_4

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -n 20 | sed 's/^/     /'; }
same() { if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1" "sysbench: $2
sbench:   $3"; fi; }
# run TOOL ARGS: stdout in $out, stderr in $err, status in $rc
run() { local t=$1; shift; out=$(timeout 60 "$t" "$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err"); }
# the figures a user greps: threads and events
figures() { echo "$1" | sed -n -e 's/^Number of threads: *//p' -e 's/^ *total number of events: *//p' | tr '\n' ' '; }

cat > noop.lua <<'LUA'
function event() end
LUA
cat > opts.lua <<'LUA'
sysbench.cmdline.options = { size = { "a size", 10 } }
function event() end
LUA

# ---- the deprecated aliases ----
A="--num-threads=2 --max-requests=100 --max-time=30 --tx-rate=10000"
run "$SYSB" $A noop.lua run; sy_out=$out sy_err=$err sy_rc=$rc
run "$S" --db-driver=null $A noop.lua run
same "aliases: exit status" "$sy_rc" "$rc"
same "aliases: threads, events" "$(figures "$sy_out")" "$(figures "$out")"
# sysbench prints them on stdout; sbench's notes go to stderr (docs/lua-api.md)
same "aliases: the WARNING lines (sbench: on stderr)" "$(echo "$sy_out$sy_err" | grep '^WARNING')" "$(echo "$err" | grep '^WARNING')"
# a script with options of its own takes them too (sysbench 1.0 workloads refused them before)
run "$S" --db-driver=null $A opts.lua run
same "aliases, script with options: threads, events" "$(figures "$sy_out")" "$(figures "$out")"

# ---- --config-file ----
printf 'threads=3\n# a comment\n\nevents=50\n  time=30  \n' > conf.txt
run "$SYSB" --config-file=conf.txt --threads=2 noop.lua run; sy_out=$out
run "$S" --db-driver=null --config-file=conf.txt --threads=2 noop.lua run
same "config-file: the command line wins, the file fills the rest" "$(figures "$sy_out")" "$(figures "$out")"
printf 'threads=2\nnot an option line\n' > bad.txt
run "$S" --db-driver=null --config-file=bad.txt noop.lua run
if [ "$rc" = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && [[ "$err" == *"bad.txt', line 2"* ]]; then
    ok "config-file: a line that is no option: exit 2, one line naming the line"
else bad "config-file: bad line (status $rc)" "$err"; fi
run "$S" --db-driver=null --config-file=missing.txt noop.lua run
if [ "$rc" = 2 ] && [[ "$err" == *"missing.txt"* ]]; then ok "config-file: a missing file: exit 2"
else bad "config-file: missing file (status $rc)" "$err"; fi

# ---- accepted for sysbench's command lines ----
for o in --thread-stack-size=128K --validate=on; do
    run "$SYSB" $o --events=10 noop.lua run; sy_rc=$rc
    run "$S" --db-driver=null $o --events=10 noop.lua run
    if [ "$rc" = "$sy_rc" ] && [ "$(figures "$out")" = "1 10 " ] && [[ "$err" == *"note: ${o%%=*}"* ]]; then
        ok "$o: exit $rc as sysbench, the run made, a note"
    else bad "$o: status $rc (sysbench $sy_rc)" "$err"; fi
done
run "$S" --db-driver=null --thread-stack-size=lots --events=10 noop.lua run
if [ "$rc" = 2 ]; then ok "--thread-stack-size=lots refused"; else bad "--thread-stack-size=lots: status $rc"; fi

# ---- a script without options of its own: given unknown options, says so ----
run "$S" --db-driver=null --no-such-opt=5 --events=10 noop.lua run
if [ "$rc" = 0 ] && [[ "$err" == *"--no-such-opt is no option"* ]]; then
    ok "unknown option to a script without options: passed on, with a note"
else bad "unknown option to a script without options (status $rc)" "$err"; fi
run "$S" --db-driver=null --no-such-opt=5 --events=10 opts.lua run
if [ "$rc" = 2 ] && [[ "$err" == *"unknown option --no-such-opt"* ]]; then ok "unknown option to a script with options: refused"
else bad "unknown option to a script with options (status $rc)" "$err"; fi

# ---- --rate that cannot be delivered: sysbench's queue of 100000 arrivals fills ----
# each event spins 1 ms of CPU (slower still on a busy machine): at 10^6/s the
# backlog passes 100000 within 0.1 s of running, however fast the machine
cat > slow.lua <<'LUA'
function event() local t = os.clock() while os.clock() - t < 0.001 do end end
LUA
queue_full="The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate"
run "$SYSB" --time=30 --rate=1000000 slow.lua run; sy_rc=$rc sy_out=$out sy_msg=$(echo "$out$err" | grep -c "FATAL: $queue_full")
run "$S" --db-driver=null --time=30 --rate=1000000 slow.lua run
same "--rate=1000000 undeliverable: exit status, one FATAL line" "$sy_rc 1" "$rc $(echo "$err" | grep -c "FATAL: .*$queue_full")"
same "--rate: sysbench's header line" "$(echo "$sy_out" | grep -c '^Target transaction rate: 1000000/sec$')" \
    "$(echo "$out" | grep -c '^Target transaction rate: 1000000/sec$')"
# the same limit under --clients (the client loop keeps its own arrivals):
# 4 clients of 1 ms each deliver 4000/s at most, far from 10^6/s
run "$S" --db-driver=null --time=30 --rate=1000000 --clients=4 --threads=1 slow.lua run
same "--rate=1000000 --clients=4 undeliverable: exit status, one FATAL line" "1 1" \
    "$rc $(echo "$err" | grep -c "FATAL: .*$queue_full")"
# a rate the machine delivers with room to spare: no FATAL, exit 0 (both)
run "$SYSB" --time=2 --rate=50 --threads=2 noop.lua run; sy_rc=$rc
run "$S" --db-driver=null --time=2 --rate=50 --threads=2 noop.lua run
same "--rate=50 delivered: exit status, FATAL lines" "$sy_rc 0" "$rc $(echo "$err" | grep -c FATAL)"

# the limit is --rate-backlog-max (0: none); sbench pgbench -R passes 0, as
# pgbench keeps going however far behind (its "schedule lag" shows it)
run "$S" --db-driver=null --time=2 --rate=1000000 --rate-backlog-max=0 slow.lua run
same "--rate-backlog-max=0: no limit, exit 0" "0 0" "$rc $(echo "$err" | grep -c FATAL)"
printf '\\sleep 1 ms\nSELECT 1;\n' > sleep.sql
run "$S" pgbench --db-driver=null -R 1000000 -T 2 -f sleep.sql
same "sbench pgbench -R 1000000: exit 0, no FATAL, the lag reported (pgbench's)" "0 0 1" \
    "$rc $(echo "$err" | grep -c FATAL) $(echo "$out" | grep -c '^rate limit schedule lag')"

# ---- sysbench.report_default: sysbench 1.0.20 prints "err/s N" (no colon),
# its default interval line "err/s: N"; the line's shape, numbers masked ----
cat > hook.lua <<'LUA'
function event() end
sysbench.hooks.report_intermediate = function(stat) sysbench.report_default(stat) end
LUA
shape() { echo "$1" | grep '^\[ 1s \]' | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
run "$SYSB" --time=2 --report-interval=1 hook.lua run; sy_shape=$(shape "$out")
run "$S" --db-driver=null --time=2 --report-interval=1 hook.lua run
same "report_default's interval line" "$sy_shape" "$(shape "$out")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
