#!/bin/bash
# capacity.sh: `sbench capacity` on a server of known capacity.  The null
# driver with --null-slots=2 --null-delay-us=10000 is an M/D/2 server under
# --rate's Poisson arrivals.  Its service time as sbench sees it (the
# driver's 10 ms and the client's own time per event) is measured in the
# same test by a closed loop of 2 clients on the 2 slots (mean latency);
# the true capacity for p99 < 50 ms in runs of 1 s is then computed apart
# (tests/measure/mdc_capacity.py: the M/D/2 queue simulated, the rate at
# which half the runs keep their p99 below the limit).  Checked:
#   - the reported interval (6 runs a step, 96.9%) contains the truth, and
#     what limited it is the server (compare's bottleneck rules: the
#     client's one thread mostly waits for answers);
#   - p99 < 5 ms (below the service time: no rate can): "no rate meets";
#   - --rate-max=40/s (far below the truth): "not reached within the
#     search range";
#   - a bad --slo: one line on stderr, exit 2.
# Environment: SBT_BUILD (required).  About a minute.
set -u
SB=${SBT_BUILD:?}/cli/sbench
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-capacity.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export TMPDIR=$tmp
fail=0
SERVER=(--db-driver=null --null-slots=2 --null-delay-us=10000 --point-selects=1 oltp_point_select)

"$SB" --clients=2 --threads=1 --time=2 --report-format=json --output=closed.json "${SERVER[@]:0:4}" \
    oltp_point_select run >closed.out 2>&1 || { echo "FAIL: closed loop exited $?"; cat closed.out; exit 1; }
d=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["latency_ms"]["avg"] / 1000)' closed.json)
truth=$(python3 "$here/mdc_capacity.py" 2 "$d" 1 99 0.050)
echo "service time as measured: $d s; true capacity for p99 < 50 ms in 1 s runs: $truth/s"

"$SB" capacity --slo='p99<50ms' --rate-min=50 --rate-max=800 --repeats=6 --step-time=1 --precision=25 \
    --max-steps=8 --quiet --clients=32 --threads=1 "${SERVER[@]}" >cap.out 2>cap.err ||
    { echo "FAIL: capacity exited $?"; cat cap.out cap.err; fail=1; }
cat cap.out
read -r lvl lo hi < <(sed -n 's/^Capacity: .* (\([0-9.]*\)% interval \([0-9.]*\) to \([0-9.]*\)\/s).*/\1 \2 \3/p' cap.out)
if [ -n "${lo:-}" ] && awk -v l="$lo" -v h="$hi" -v t="$truth" -v c="$lvl" 'BEGIN { exit !(l <= t && t <= h && c >= 95) }'; then
    echo "ok: the ${lvl}% interval $lo to $hi/s contains the true capacity $truth/s"
else
    echo "FAIL: interval '${lo:-?} to ${hi:-?}' (level ${lvl:-?}) against the true capacity $truth/s"; fail=1
fi
# the slots limit it, not the client (whose one thread waits for answers)
if grep -q '^What limited it .*: server-bound' cap.out; then echo "ok: server-bound"
else echo "FAIL: what limited it is not server-bound"; fail=1; fi

"$SB" capacity --slo='p99<5ms' --rate-min=20 --rate-max=20 --repeats=2 --step-time=1 --quiet --clients=32 \
    --threads=1 "${SERVER[@]}" >none.out 2>&1
if grep -q '^Capacity: no rate meets the SLO' none.out; then echo "ok: p99 < 5 ms with 10 ms service: no rate meets"
else echo "FAIL: p99 < 5 ms:"; cat none.out; fail=1; fi

"$SB" capacity --slo='p99<50ms' --rate-min=40 --rate-max=40 --repeats=2 --step-time=1 --quiet --clients=32 \
    --threads=1 "${SERVER[@]}" >range.out 2>&1
if grep -q '^Capacity: not reached within the search range' range.out; then echo "ok: --rate-max=40/s: not reached"
else echo "FAIL: --rate-max=40:"; cat range.out; fail=1; fi

"$SB" capacity --slo='p99<50' --rate-max=40 "${SERVER[@]}" >bad.out 2>bad.err; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && [ ! -s bad.out ]; then echo "ok: bad --slo refused: $(cat bad.err)"
else echo "FAIL: bad --slo: exit $rc"; cat bad.out bad.err; fail=1; fi
[ $fail = 0 ] && echo "PASS: capacity"
exit $fail
