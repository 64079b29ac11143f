#!/bin/bash
# run_exits.sh: every way out of the run command leaves the right files
# (null driver, no server).  --output=F is written as F.tmp and becomes F
# only when the final report is in it:
#  - a run that goes well: exit 0, F ends with the "final" JSON line;
#  - failures before anything was measured (init() fails, every thread's
#    thread_init fails, --hdr-log cannot be created, --prometheus cannot
#    bind a port that is taken, --output in a missing directory): exit 1,
#    neither F nor F.tmp exists (nor the --hdr-log file);
#  - a bad --prometheus address or --percentiles list: exit 2 with one
#    line, before any file is created;
#  - failures after the final report (an event error after some events, a
#    failing done(), a forced shutdown with an event stuck in Lua): exit 1,
#    F holds the final report (nothing measured is lost), no F.tmp.
# Each run is bounded by timeout.
source "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
N="--db-driver=null --threads=2"
W=oltp_point_select

printf 'function init() error("init boom") end\nfunction event() end\n' >init_err.lua
printf 'function thread_init() error("boom in thread_init") end\nfunction event() end\n' >tinit_err.lua
cat >event_err.lua <<'LUA'
local n = 0
function event()
  n = n + 1
  if n > 50 then error("event boom") end
end
LUA
printf 'function event() end\nfunction done() error("done boom") end\n' >done_err.lua
printf 'function event() while true do end end\n' >stuck.lua

# run NAME WANT_STATUS sbench-args...: runs with --output=$T/NAME.json
run() {
    local name=$1 want=$2; shift 2
    timeout 30 "$S" --report-format=json --output="$T/$name.json" "$@" >"$name.out" 2>"$name.err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit $rc, want $want: $(head -c 300 "$name.err" | tr '\n' '|')"
        return 1
    fi
    if [ -e "$T/$name.json.tmp" ]; then
        fail "$name: $name.json.tmp left behind"
        return 1
    fi
    return 0
}
# no_output NAME: neither the file nor its temporary exists
no_output() {
    if [ -e "$T/$1.json" ]; then fail "$1: $1.json exists after a failure"; else ok "$1: no output file, no temporary file"; fi
}
# final_output NAME: the file ends with the final report
final_output() {
    if [ -s "$T/$1.json" ] && tail -n 1 "$T/$1.json" | grep -q '^{"type":"final"'; then
        ok "$1: output file ends with the final report"
    else
        fail "$1: output file missing or without the final report"
    fi
}

run ok 0 $N --events=500 --time=0 $W run && final_output ok

run init_err 1 $N --events=500 --time=0 ./init_err.lua run && no_output init_err
run tinit_err 1 $N --events=500 --time=0 --hdr-log="$T/tinit_err.hlog" ./tinit_err.lua run &&
    no_output tinit_err
# no event ran: the HDR log (a header, an empty window) must not be left either
if ls "$T"/tinit_err.hlog* >/dev/null 2>&1; then fail "tinit_err: left $(ls "$T"/tinit_err.hlog*)"
else ok "tinit_err: no --hdr-log file"; fi
run hdr_err 1 $N --events=500 --time=0 --hdr-log="$T/no/such/dir/h.hlog" $W run && no_output hdr_err
grep -q -- '--hdr-log' hdr_err.err || fail "hdr_err: no --hdr-log message"

# a port that is taken: bind it here, ask sbench for it
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); sys.stdout.close(); time.sleep(60)' >port.txt &
BG_PIDS="$BG_PIDS $!"
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)
if [ -z "$port" ]; then
    fail "could not hold a port for the --prometheus case"
else
    run prom_busy 1 $N --events=500 --time=0 --hdr-log="$T/prom_busy.hlog" --prometheus=127.0.0.1:$port $W run &&
        no_output prom_busy
    grep -q -- '--prometheus' prom_busy.err || fail "prom_busy: no --prometheus message"
fi
timeout 30 "$S" $N --events=500 --time=0 --output="$T/no/such/dir/o.json" $W run >out_dir.out 2>out_dir.err
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "cannot write --output file" out_dir.err; then fail "out_dir: exit $rc: $(head -c 200 out_dir.err)"
elif [ -e "$T/no" ]; then fail "out_dir: created something"
else ok "out_dir: exit 1, nothing created"; fi

for c in "prom_addr --prometheus=nohost:abc" "pcts --percentiles=50,abc" \
         "pcts_many --percentiles=$(seq -s, 1 33)"; do
    set -- $c
    run "$1" 2 $N --events=500 --time=0 "$2" $W run && no_output "$1"
    [ "$(wc -l <"$1.err")" -eq 1 ] || fail "$1: $(wc -l <"$1.err") stderr lines for a usage error"
done

run event_err 1 $N --events=5000 --time=0 ./event_err.lua run && final_output event_err
run done_err 1 $N --events=500 --time=0 ./done_err.lua run && final_output done_err
SECONDS=0
run stuck 1 $N --time=1 --forced-shutdown=1 ./stuck.lua run && final_output stuck
within 10 10 "$SECONDS" || fail "stuck: forced shutdown took ${SECONDS}s (bound $(bound 10 10)s)"
grep -q '"unfinished_on_forced_shutdown":2' stuck.json || fail "stuck: the final report does not count 2 unfinished events"
finish
