#!/bin/bash
# lost-backoff.sh: the back-off after lost connections (core/lost.c) means
# the same on the poll() and the io_uring loop (issue #39): a client whose
# fresh connection is lost again with nothing done on it backs off; other
# clients' losses in the same batch of answers are not its streak.  On the
# null driver, no server needed, each case run with --io=poll and
# --io=uring:
#  1. every 3rd statement of a connection lost (--null-fail-every=3
#     --null-fail-status=lost), 32 clients on 2 threads, 20000 events:
#     every reconnected connection answers twice before its next loss, so
#     no back-off at all (no "backing off" line); reconnects exactly as
#     the failure schedule gives them from each client's events
#     ((e - 1) / 2 for e events); the io_uring run within 5x the poll
#     run's wall time + 5 s (it was past 60 s where poll took 0.6 s).
#  2. every statement lost (--null-fail-every=1), 4 clients on 1 thread,
#     --time=2: each client's own streak, so each of the 4 says "2 times"
#     and "4 times" once (the 4th loss of each comes after 4 x (10+20) ms
#     of sleep, its 8th after 4 x (10+20+...+320) ms = 2.5 s: those lines
#     are left unchecked, as after --time the sleeps end at once); no
#     event succeeds: exit 1.  One streak per thread, as before the fix,
#     says "2 times" once.
# ~10 s.  Usage: lost-backoff.sh [BUILD_DIR] (default $SBT_BUILD).
set -u
B=${1:-${SBT_BUILD:?set SBT_BUILD or pass the build directory}}
B=$(cd "$B" && pwd) || exit 1
SB=$B/cli/sbench
[ -x "$SB" ] || { echo "lost-backoff.sh: no $SB (build first)"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/lost-backoff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

if ! "$SB" --db-driver=null --events=1 --time=0 --clients=2 --threads=1 --io=uring \
    oltp_point_select run >/dev/null 2>"$tmp/probe.err"; then
    echo "SKIP: no io_uring here: $(head -1 "$tmp/probe.err")"
    exit 77
fi

now_ms() { date +%s%3N; }

# every3 IO TIMEOUT_S: case 1 on IO; sets ms (its wall time)
every3() {
    local io=$1 limit=$2 t0 rc
    t0=$(now_ms)
    timeout "$limit" "$SB" --db-driver=null --null-fail-every=3 --null-fail-status=lost \
        --clients=32 --threads=2 --events=20000 --time=0 --io="$io" \
        --report-format=json --output="$tmp/$io.json" oltp_point_select run \
        >"$tmp/$io.out" 2>"$tmp/$io.err"
    rc=$?
    ms=$(($(now_ms) - t0))
    if [ $rc -ne 0 ]; then
        fail "every 3rd lost, --io=$io: exit $rc after $ms ms (limit $limit s)"
        sed 's/^/    /' "$tmp/$io.err" | head -3
        return
    fi
    local lines
    lines=$(grep -c 'backing off' "$tmp/$io.err")
    [ "$lines" -eq 0 ] || fail "every 3rd lost, --io=$io: $lines back-off lines, expected none:" \
        "$(grep -m1 'backing off' "$tmp/$io.err")"
    python3 - "$tmp/$io.json" "$io" <<'PY' || failed=$((failed + 1))
import json, sys
path, io = sys.argv[1:]
final = [json.loads(l) for l in open(path) if l.strip()][-1]
per_client = final["clients_fairness"]["events"]
want = sum((e - 1) // 2 for e in per_client if e > 0)  # 2 answers, then a loss
errs = []
if final["transactions"] != 20000 or sum(per_client) != 20000:
    errs.append(f"events {final['transactions']} (clients {sum(per_client)}), expected 20000")
if len(per_client) != 32:
    errs.append(f"{len(per_client)} clients, expected 32")
if final["reconnects"] != want:
    errs.append(f"reconnects {final['reconnects']}, expected {want} from the clients' events")
if errs:
    print(f"FAIL: every 3rd lost, --io={io}: " + "; ".join(errs))
    sys.exit(1)
print(f"ok: every 3rd lost, --io={io}: 20000 events, {want} reconnects, no back-off")
PY
}

echo "== 1. every 3rd statement lost: no back-off"
every3 poll 120
poll_ms=$ms
limit=$(((5 * poll_ms + 999) / 1000 + 5))
every3 uring "$limit"
echo "   wall time: poll $poll_ms ms, io_uring $ms ms (limit $limit s)"

echo "== 2. every statement lost: each client's own streak"
for io in poll uring; do
    timeout 60 "$SB" --db-driver=null --null-delay-us=100 --null-fail-every=1 \
        --null-fail-status=lost --clients=4 --threads=1 --time=2 --io="$io" \
        oltp_point_select run >"$tmp/all-$io.out" 2>"$tmp/all-$io.err"
    rc=$?
    n2=$(grep -c 'lost 2 times in a row with nothing done in between, backing off' "$tmp/all-$io.err")
    n4=$(grep -c 'lost 4 times in a row with nothing done in between, backing off' "$tmp/all-$io.err")
    if [ $rc -eq 1 ] && [ "$n2" -eq 4 ] && [ "$n4" -eq 4 ] &&
        grep -q 'no event succeeded' "$tmp/all-$io.err"; then
        echo "ok: every statement lost, --io=$io: 4 clients backed off at 2 and 4 losses, exit 1"
    else
        fail "every statement lost, --io=$io: exit $rc, lines at 2: $n2, at 4: $n4" \
            "(expected exit 1, 4, 4)"
        sed 's/^/    /' "$tmp/all-$io.err" | cut -c1-160 | head -5
    fi
done

[ $failed -eq 0 ] && echo "all lost-backoff checks passed" && exit 0
echo "$failed lost-backoff check(s) failed"
exit 1
