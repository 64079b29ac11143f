#!/bin/bash
# first_window.sh: the connections and the prepared statements of
# thread_init are made before the clock starts (core/bench.c waits for
# every worker to be ready; core/worker.c and core/clients.c prepare the
# statements whose types thread_init bound), as sysbench does, so that the
# first reporting window holds no setup.  Before, statements were prepared
# at their first execute inside the timed run: with 200 clients the first
# window ran 0 tps with a p95 of ~1.5 s, with 100 threads it ran a few
# percent of the later windows.
#
# Checked exactly, not by timing (a loaded machine, and PostgreSQL's own
# warm-up of new backends, make the first window's speed a poor witness):
# on PostgreSQL, oltp_read_only, --threads=2 --clients=200 (--io=poll, so
# that every send is a system call) and --threads=100, under strace
# (connect and sendto only):
#   - every connect() comes before the first Bind message sent (the first
#     execute of an event: the workloads' statements are all prepared);
#   - every send that carries a Parse message comes before it too, and
#     there are at least as many Parses as connections (each connection
#     prepared its statements);
#   - the run (without strace, default I/O) has events in its first
#     1-second window (the old 0 tps), and the right number of windows.
# Environment: SBT_BUILD, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.
set -u
: "${SBT_BUILD:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
command -v strace >/dev/null || { echo "FAIL: strace is not installed"; exit 1; }
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/first_window.XXXXXX")
cd "$tmp" || exit 1
PG=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
    --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest --tables=1 --table-size=10000)
trap '"$SB" "${PG[@]}" oltp_read_only cleanup >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$SB" "${PG[@]}" oltp_read_only cleanup >/dev/null 2>&1
"$SB" "${PG[@]}" oltp_read_only prepare >prep.txt 2>&1 || { echo "FAIL: prepare"; tail -3 prep.txt; exit 1; }
fail=0
for shape in "--threads=2 --clients=200 --io=poll" "--threads=100"; do
    name=$(echo "$shape" | tr -cd 'a-z0-9')
    # 2 events a connection on average: every connection executes, and the
    # trace stays short
    # shellcheck disable=SC2086
    if ! strace -f --seccomp-bpf -e trace=connect,sendto -e signal=none -s 1 -o "$name.strace" \
        "$SB" "${PG[@]}" $shape --events=400 --time=0 oltp_read_only run >"$name.txt" 2>"$name.err"; then
        echo "FAIL: $shape: run under strace exited $?"; tail -3 "$name.err"; fail=1; continue
    fi
    python3 - "$name.strace" "$shape" <<'PY' || fail=1
import re, sys
# lines: PID connect(FD, {sa_family=AF_INET, ...}) = 0 | -1 EINPROGRESS
#        PID sendto(FD, "P"..., N, ...) = N
first_bind = None
connects = parses = late_connects = late_parses = 0
for line in open(sys.argv[1], errors="replace"):
    if " connect(" in line and "AF_INET" in line:
        connects += 1
        if first_bind is not None:
            late_connects += 1
        continue
    m = re.search(r' sendto\(\d+, "(.)"', line)
    if not m:
        continue
    kind = m.group(1)
    if kind == "B" and first_bind is None:
        first_bind = True
    elif kind == "P":
        parses += 1
        if first_bind is not None:
            late_parses += 1
shape = sys.argv[2]
ok = first_bind is not None and connects > 0 and late_connects == 0 and late_parses == 0 and parses >= connects
print(("ok  " if ok else "FAIL:") + f" {shape}: {connects} connects, {parses} sends with a Parse first; "
      f"after the first Bind: {late_connects} connects, {late_parses} Parses"
      + ("" if first_bind else " (no Bind was sent)"))
sys.exit(0 if ok else 1)
PY
done

# the first window of a real run has events (the old bug: 0 tps at 200
# clients); its speed is the server's warm-up too, so no ratio is asked
shape="--threads=2 --clients=200"
# shellcheck disable=SC2086
if ! "$SB" "${PG[@]}" $shape --time=3 --report-interval=1 --report-format=json --output=run.json \
    oltp_read_only run >run.txt 2>run.err; then
    echo "FAIL: $shape: run exited $?"; tail -3 run.err; fail=1
else
    python3 - run.json "$shape" <<'PY' || fail=1
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
wins = [l for l in lines if l.get("type") == "interval"]
ok = len(wins) >= 3 and wins[0]["tps"] > 0
print(("ok  " if ok else "FAIL:") + f" {sys.argv[2]}: {len(wins)} windows, first window "
      + (f"{wins[0]['tps']:.0f} tps" if wins else "missing"))
sys.exit(0 if ok else 1)
PY
fi
exit $fail
