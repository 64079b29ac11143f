#!/bin/bash
# rate_profile.sh: --rate-profile's arrivals follow the profile.  Null
# driver, no server.  Two runs with one-second windows (JSON): the
# one-client loop (--threads=2) through a ramp, a spike, a pause (rate 0)
# and a hold; the client loop (--clients=8 --threads=2) through a sine, a
# step and a file of time,rate points.  Each window's count is checked
# against the arrivals the profile asks for in that window, computed here
# on its own (the rate curve integrated numerically over the window's real
# span, from the JSON's seconds), within 4.5 Poisson standard deviations
# plus 30 ms of the rate at each edge (a late reporter on a busy machine);
# the run's total within 4.5 standard deviations; the final JSON line's
# per-phase summaries add up to the final count, each with the rate the
# profile asks over its span and its count within the same bounds, every
# line valid against docs/report.schema.json.  A run at a constant
# rate fails every check (the windows differ tenfold).  --clients-profile:
# each window against the events its active clients can run (a 20 ms
# answer each), both loops; idle clients under --rate cost no spinning
# thread.  Bad specs: one line on stderr, a non-zero exit, no report.
# Environment: SBT_BUILD (required).
set -u
SB=${SBT_BUILD:?}/cli/sbench
schema=$(cd "$(dirname "$0")/../../docs" && pwd)/report.schema.json
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-rate-profile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
echo 'function event() end' > noop.lua
printf '# time,rate\n0,100\n2,900\n' > points.csv

check() { # name spec json: windows against the profile
    python3 - "$@" <<'PY'
import json, math, sys
name, spec, path = sys.argv[1:4]
# the profile's rate curve, written apart from core/rate_profile.c
segs = []  # (start, end, f(t - start))
t0 = 0.0
def add(length, f):
    global t0
    segs.append((t0, t0 + length, f)); t0 += length
for ph in spec.replace(',s', ';s').replace(',f', ';f').split(';'):
    kind, *a = ph.split(':')
    if kind == 'hold':
        add(float(a[1]), lambda x, r=float(a[0]): r)
    elif kind == 'ramp':
        lo, hi = map(float, a[0].split('-')); d = float(a[1])
        add(d, lambda x, lo=lo, hi=hi, d=d: lo + (hi - lo) * x / d)
    elif kind == 'step':
        for r in a[0].split(','):
            add(float(a[1]), lambda x, r=float(r): r)
    elif kind == 'spike':
        base, peak, at, ln = map(float, a)
        add(2 * at + ln, lambda x, b=base, p=peak, at=at, ln=ln: p if at <= x < at + ln else b)
    elif kind == 'sine':
        mean, ampl, per = map(float, a)
        add(per, lambda x, m=mean, am=ampl, p=per: m + am * math.sin(2 * math.pi * x / p))
    elif kind == 'file':
        pts = [tuple(map(float, l.split(','))) for l in open(a[0]) if l[0].isdigit()]
        def f(x, pts=pts):
            for (ta, ra), (tb, rb) in zip(pts, pts[1:]):
                if ta <= x <= tb:
                    return ra + (rb - ra) * (x - ta) / (tb - ta)
            return pts[-1][1]
        add(pts[-1][0], f)
# the phases' spans (step: one phase of several segments)
segs_phase, i = [], 0
for ph in spec.replace(',s', ';s').replace(',f', ';f').split(';'):
    k = len(ph.split(':')[1].split(',')) if ph.startswith('step') else 1
    segs_phase.append((segs[i][0], segs[i + k - 1][1], None)); i += k
def rate(t):
    for s, e, f in segs:
        if s <= t < e:
            return f(t - s)
    return segs[-1][2](segs[-1][1] - segs[-1][0] - 1e-9)
def mass(a, b, n=2000):
    h = (b - a) / n
    return sum(rate(a + (i + 0.5) * h) for i in range(n)) * h
lines = [json.loads(l) for l in open(path)]
wins = [l for l in lines if l['type'] == 'interval']
final = [l for l in lines if l['type'] == 'final'][0]
bad, end = 0, 0.0
for w in wins:
    start, end = end, end + w['seconds']
    want = mass(start, end)
    slop = 4.5 * math.sqrt(want) + 0.03 * (rate(start) + rate(end)) + 2
    got = w['transactions']
    ok = abs(got - want) <= slop
    # the phase the window's middle falls in, by the test's own profile
    mid = (start + end) / 2
    names = spec.replace(',s', ';s').replace(',f', ';f').split(';')
    at = [n for (s, e, f), n in zip(segs_phase, names) if s <= mid < e]
    if w.get('phase') != (at[0] if at else None):
        print(f"{name}: FAIL: window {start:.2f}-{end:.2f} s says phase {w.get('phase')}, not {at}"); ok = False
    bad += not ok
    print(f"{name}: window {start:5.2f}-{end:5.2f} s: {got} events, profile asks {want:7.1f} +- {slop:5.1f}"
          + ("" if ok else "  FAIL"))
want = mass(0, end)
got = final['transactions']
ok = abs(got - want) <= 4.5 * math.sqrt(want) + 0.03 * rate(end) + 2
bad += not ok
print(f"{name}: whole run {end:5.2f} s: {got} events, profile asks {want:.1f}" + ("" if ok else "  FAIL"))
if len(wins) < int(segs[-1][1]):
    print(f"{name}: FAIL: {len(wins)} windows for a profile of {segs[-1][1]} s"); bad += 1
# the final line's phases: they cover the run (their counts add up to the
# final count exactly), each asks the profile's mean rate over its span and
# got its arrivals within the Poisson bounds
import jsonschema
schema = json.load(open(sys.argv[4]))
for l in lines:
    try:
        jsonschema.validate(l, schema)
    except jsonschema.ValidationError as e:
        print(f"{name}: FAIL: a {l['type']} line against docs/report.schema.json: {e.message}"); bad += 1
phases = final.get('phases', [])
names = [p['name'] for p in phases]
if len(phases) != len(spec.replace(',s', ';s').replace(',f', ';f').split(';')):
    print(f"{name}: FAIL: phases {names} for {spec}"); bad += 1
if sum(p['transactions'] for p in phases) != got:
    print(f"{name}: FAIL: the phases' transactions add up to {sum(p['transactions'] for p in phases)}, not {got}")
    bad += 1
for p in phases:
    want = mass(p['start'], p['end'])
    slop = 4.5 * math.sqrt(want) + 0.03 * (rate(p['start']) + rate(p['end'])) + 2
    span = p['end'] - p['start']
    ok = abs(p['transactions'] - want) <= slop and abs(p['asked_rate'] * span - want) <= 0.01 * want + 1
    bad += not ok
    print(f"{name}: phase {p['name']} {p['start']:.2f}-{p['end']:.2f} s: {p['transactions']} events, "
          f"asked {p['asked_rate'] * span:.1f}, profile {want:.1f} +- {slop:.1f}" + ("" if ok else "  FAIL"))
sys.exit(1 if bad else 0)
PY
}

A='ramp:200-1200:3;spike:300:1500:1:1;hold:0:1;hold:400:1'
"$SB" --db-driver=null --threads=2 --rate-profile="$A" --report-interval=1 --report-format=json \
    --output=a.json noop.lua run >a.out 2>&1 || { echo "FAIL: run A exited $?"; cat a.out; fail=1; }
check loop "$A" a.json "$schema" || fail=1
B='sine:600:400:4,step:100,700:1,file:points.csv'
"$SB" --db-driver=null --threads=2 --clients=8 --rate-profile="$B" --report-interval=1 --report-format=json \
    --output=b.json noop.lua run >b.out 2>&1 || { echo "FAIL: run B exited $?"; cat b.out; fail=1; }
check clients "$B" b.json "$schema" || fail=1

# --clients-profile (closed loop): each answer of the null driver takes
# 20 ms, so an active client runs at most 50 events a second: a window may
# hold no more than 50 per active client-second (+2 per client: one event
# in flight at each edge, and the window's length is the reporting
# thread's reading, not the clients' own), and at
# least 70% of it (a busy machine).  Step 2, 8, 4 of --clients=8 on two
# threads (the client loop), and 1, 4 of --threads=4 (the one-client loop).
clients_check() { # name spec json
    python3 - "$@" <<'PY'
import json, sys
name, spec, path = sys.argv[1:4]
rates, each = spec.split(':')[1:]
active = [int(r) for r in rates.split(',')]
each = float(each)
def clients(t):
    return active[min(int(t // each), len(active) - 1)]
wins = [json.loads(l) for l in open(path) if '"interval"' in l]
bad, end = 0, 0.0
for w in wins:
    start, end = end, end + w['seconds']
    n = 200
    cs = sum(clients(start + (i + 0.5) * (end - start) / n) for i in range(n)) * (end - start) / n
    hi, lo = cs * 50 + 2 * max(active), cs * 50 * 0.7
    got = w['transactions']
    ok = lo <= got <= hi
    bad += not ok
    print(f"{name}: window {start:5.2f}-{end:5.2f} s: {got} events for {cs:4.1f} client-seconds, "
          f"expected {lo:.0f} to {hi:.0f}" + ("" if ok else "  FAIL"))
if len(wins) < len(active) * each:
    print(f"{name}: FAIL: {len(wins)} windows"); bad += 1
sys.exit(1 if bad else 0)
PY
}
C='step:2,8,4:2'
"$SB" --db-driver=null --null-delay-us=20000 --point-selects=1 --threads=2 --clients=8 --clients-profile="$C" \
    --report-interval=1 --report-format=json --output=c.json oltp_point_select run >c.out 2>&1 ||
    { echo "FAIL: run C exited $?"; cat c.out; fail=1; }
clients_check clients "$C" c.json || fail=1
D='step:1,4:2'
"$SB" --db-driver=null --null-delay-us=20000 --point-selects=1 --threads=4 --clients-profile="$D" \
    --report-interval=1 --report-format=json --output=d.json oltp_point_select run >d.out 2>&1 ||
    { echo "FAIL: run D exited $?"; cat d.out; fail=1; }
clients_check threads "$D" d.json || fail=1
"$SB" --db-driver=null --clients=4 --clients-profile='hold:5:2' oltp_point_select run >bad.out 2>bad.err
if [ $? -ne 0 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q 'clients-profile.*--clients (4)' bad.err; then
    echo "ok: 5 clients of --clients=4 refused: $(cat bad.err)"
else
    echo "FAIL: --clients-profile above --clients:"; cat bad.err; fail=1
fi

# --rate with --clients-profile, one active client of 400 on 2 threads:
# the thread the profile leaves without a client has arrivals due that no
# client of its may take; it waits for the profile to change (10 ms polls)
# instead of spinning a core (it did: ~100% of a core while idle).  The
# bound is far above what waiting costs (~1%) and far below a spin on any
# machine that gives the spinner a tenth of a core.
/usr/bin/time -f '%e %U %S' -o idle.time "$SB" --db-driver=null --point-selects=1 --threads=2 --clients=400 \
    --clients-profile='hold:1:3' --rate=100 oltp_point_select run >idle.out 2>&1 ||
    { echo "FAIL: idle clients under --rate exited $?"; cat idle.out; fail=1; }
if awk '{ exit !($2 + $3 < 0.1 * $1) }' idle.time; then
    echo "ok: 399 idle clients under --rate: $(awk '{ printf "%.2f CPU s in %.1f s", $2 + $3, $1 }' idle.time)"
else
    echo "FAIL: 399 idle clients under --rate took $(awk '{ printf "%.2f CPU s in %.1f s", $2 + $3, $1 }' idle.time)"
    fail=1
fi

# ... and the one active client still gets all of --rate's arrivals: the
# run's rate is --rate whatever the profile leaves active (it got half,
# ~150 of 300, when each thread kept its fixed share); 3 s at 100/s is 300
# arrivals, Poisson: 300 +- 4 sd is [231, 369]
tx=$(sed -n 's/^ *transactions: *\([0-9]*\) .*/\1/p' idle.out)
if [ -n "$tx" ] && [ "$tx" -ge 231 ] && [ "$tx" -le 369 ]; then
    echo "ok: one active client of 2 threads under --rate=100 for 3 s: $tx transactions in [231, 369]"
else echo "FAIL: one active client under --rate=100 for 3 s: '$tx' transactions, want [231, 369]"; fail=1; fi

for spec in 'ramp:1-2' 'sine:100:200:4' 'hold:5:3;' 'file:missing.csv' 'step:1,x:2'; do
    "$SB" --db-driver=null --rate-profile="$spec" noop.lua run >bad.out 2>bad.err; rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q -- '--rate-profile' bad.err &&
       ! grep -q 'transactions' bad.out; then
        echo "ok: '$spec' refused: $(cat bad.err)"
    else
        echo "FAIL: '$spec': exit $rc, stderr:"; cat bad.err; fail=1
    fi
done
[ $fail = 0 ] && echo "PASS: rate_profile"
exit $fail
