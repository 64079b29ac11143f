#!/bin/bash
# first_window.sh: the first reporting window is as clean as the others:
# the connections and the prepared statements of thread_init are made
# before the clock starts (core/bench.c waits for every worker to be
# ready; core/worker.c and core/clients.c prepare the statements whose
# types thread_init bound), as sysbench does.  Before, statements were
# prepared at their first execute inside the timed run: with 200 clients
# the first window ran 0 tps with a p95 of ~1.5 s, with 100 threads it ran
# a few percent of the later windows.
# On PostgreSQL, oltp_read_only, 5 windows of 1 s, twice:
#   --threads=2 --clients=200     and     --threads=100
# the first window's tps >= 1/2 of the median of windows 2-4 (the last,
# shorter one left out), and its 95th percentile <= 4x their median's
# plus 2 ms: loose enough for a busy machine, far from the old 0 tps.
# Environment: SBT_BUILD, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.
set -u
: "${SBT_BUILD:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/first_window.XXXXXX")
cd "$tmp" || exit 1
PG=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
    --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest --tables=1 --table-size=10000)
trap '"$SB" "${PG[@]}" oltp_read_only cleanup >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$SB" "${PG[@]}" oltp_read_only cleanup >/dev/null 2>&1
"$SB" "${PG[@]}" oltp_read_only prepare >prep.txt 2>&1 || { echo "FAIL: prepare"; tail -3 prep.txt; exit 1; }
fail=0
for shape in "--threads=2 --clients=200" "--threads=100"; do
    name=$(echo "$shape" | tr -cd 'a-z0-9')
    # shellcheck disable=SC2086
    if ! "$SB" "${PG[@]}" $shape --time=5 --report-interval=1 --report-format=json --output="$name.json" \
        oltp_read_only run >"$name.txt" 2>"$name.err"; then
        echo "FAIL: $shape: run exited $?"; tail -3 "$name.err"; fail=1; continue
    fi
    python3 - "$name.json" "$shape" <<'PY' || fail=1
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
wins = [l for l in lines if l.get("type") == "interval"]
if len(wins) < 4:
    print(f"FAIL: {sys.argv[2]}: {len(wins)} windows"); sys.exit(1)
tps = [w["tps"] for w in wins]
p95 = [w["latency_ms"]["percentiles"]["95"] for w in wins]
ref_tps = statistics.median(tps[1:4])
ref_p95 = statistics.median(p95[1:4])
ok = tps[0] >= 0.5 * ref_tps and p95[0] <= 4 * ref_p95 + 2
print(("ok  " if ok else "FAIL:") + f" {sys.argv[2]}: first window {tps[0]:.0f} tps, p95 {p95[0]:.2f} ms; "
      f"windows 2-4 median {ref_tps:.0f} tps, p95 {ref_p95:.2f} ms")
sys.exit(0 if ok else 1)
PY
done
exit $fail
