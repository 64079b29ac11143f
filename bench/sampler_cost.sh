#!/usr/bin/env bash
# bench/sampler_cost.sh: what the server sampler (--server-metrics) costs
# the workload: the same run with it on and off, alternating which goes
# first, the median of the rounds, on a throwaway PostgreSQL and MariaDB
# (scripts/*-server.sh).  The runs use --report-interval=1, so the sampler
# reads the counters every second and the wait events ~10 times a second.
# Prints a markdown table per database: median tps on and off, the cost
# (1 - on/off), the spread of the rounds, the server's CPU time per
# transaction on and off (/proc of the server's processes: less sensitive
# to a busy machine than the rate), the sampler's query latency and its
# share of the server's statements (from the JSON report of the "on"
# runs).  The target is a cost under 1%; on a loaded machine the rounds'
# spread says whether 1% can be told apart at all, and the load average
# before and after each database's rounds is printed beside the tables.
#
# Environment (defaults in brackets): DBS ["pgsql mysql"]  ROUNDS [5]
#   TIME [10]  THREADS [4]  TABLES [4]  TABLE_SIZE [10000]
#   WORKLOAD [oltp_read_only]  PG_PORT [45432]  MY_PORT [43306] (a busy
#   default moves to a free port)  BUILD_DIR [bench/build-release]
#   LOGDIR [bench/last-run-sampler]  KEEP_TMP=1
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

DBS=${DBS:-pgsql mysql}
ROUNDS=${ROUNDS:-5}
TIME=${TIME:-10}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
WORKLOAD=${WORKLOAD:-oltp_read_only}
LOGDIR=${LOGDIR:-$ROOT/bench/last-run-sampler}
for v in ROUNDS TIME THREADS TABLES TABLE_SIZE; do
    case ${!v} in '' | *[!0-9]* | 0) die "$v must be a positive integer, got '${!v}'" ;; esac
done
for d in $DBS; do case $d in pgsql | mysql) ;; *) die "unknown database '$d' (pgsql, mysql)" ;; esac; done
need python3 timeout
ports_from_env
build_sbench
start_servers "$LOGDIR" "$DBS"

# one run: DB MODE(on|off) ROUND [OPTIONS...] -> LOGDIR/DB-MODE-ROUND.json
one() {
    local db=$1 mode=$2 r=$3 out c0
    shift 3
    out=$LOGDIR/$db-$mode-$r
    c0=$(server_cpu_s "$db")
    # shellcheck disable=SC2046
    timeout -k 10 $((TIME + 60)) "$SBENCH" $(conn_opts "$db") --tables="$TABLES" \
        --table-size="$TABLE_SIZE" --threads="$THREADS" --time="$TIME" --report-interval=1 \
        --server-metrics="$mode" --report-format=json --output="$out.json" "$@" "$WORKLOAD" run \
        >"$out.out" 2>&1 || die "$db $mode round $r failed: $(tail -n 3 "$out.out")"
    # the backends' CPU lands in the postmaster's once they exit
    sleep 0.5
    awk -v a="$c0" -v b="$(server_cpu_s "$db")" 'BEGIN { printf "%.3f\n", b - a }' >"$out.cpu"
}

for db in $DBS; do
    # shellcheck disable=SC2046
    "$SBENCH" $(conn_opts "$db") --tables="$TABLES" --table-size="$TABLE_SIZE" "$WORKLOAD" cleanup >/dev/null 2>&1 || true
    # shellcheck disable=SC2046
    "$SBENCH" $(conn_opts "$db") --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 "$WORKLOAD" prepare \
        >"$LOGDIR/$db-prepare.out" 2>&1 || die "$db prepare failed"
    log "$db: warm-up, then $ROUNDS rounds of $TIME s on and off"
    cut -d' ' -f1-3 /proc/loadavg >"$LOGDIR/$db-load-before"
    one "$db" on 0
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then one "$db" on "$r"; one "$db" off "$r"; else one "$db" off "$r"; one "$db" on "$r"; fi
    done
    # the sampler's own server CPU, nearly alone: 10 events a second
    for r in 1 2 3; do one "$db" on "idle$r" --rate=10; one "$db" off "idle$r" --rate=10; done
    cut -d' ' -f1-3 /proc/loadavg >"$LOGDIR/$db-load-after"
done
for db in $DBS; do # the machine is shared: its load beside the figures
    echo "$db: load average (1, 5, 15 min) before $(cat "$LOGDIR/$db-load-before"), after $(cat "$LOGDIR/$db-load-after") on $(nproc) CPUs"
done
echo

python3 - "$LOGDIR" "$ROUNDS" "$DBS" "$TIME" "$THREADS" "$WORKLOAD" <<'PY'
import json, statistics, sys
d, rounds, dbs, t, th, wl = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5], sys.argv[6]
fin = lambda p: [json.loads(l) for l in open(p) if l.strip()][-1]
print(f"{wl}, --threads={th} --time={t} --report-interval=1, {rounds} rounds alternating on/off, median\n")
print("| database | tps on | tps off | cost | rounds' spread (off) | server CPU µs/tx on | off | CPU cost | sampler queries/s | query ms avg / max | share of the server's statements |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
def cpu_per_tx(db, mode, r, rep):
    return float(open(f"{d}/{db}-{mode}-{r}.cpu").read()) / rep["transactions"] * 1e6
def cpu(db, mode, r):
    return float(open(f"{d}/{db}-{mode}-{r}.cpu").read())
own = {}
for db in dbs:
    on = [fin(f"{d}/{db}-on-{r}.json") for r in range(1, rounds + 1)]
    off = [fin(f"{d}/{db}-off-{r}.json") for r in range(1, rounds + 1)]
    ton, toff = statistics.median(x["tps"] for x in on), statistics.median(x["tps"] for x in off)
    spread = (max(x["tps"] for x in off) - min(x["tps"] for x in off)) / toff * 100
    s = [x["server_metrics"]["sampler"] for x in on]
    con = statistics.median(cpu_per_tx(db, "on", r + 1, x) for r, x in enumerate(on))
    coff = statistics.median(cpu_per_tx(db, "off", r + 1, x) for r, x in enumerate(off))
    print(f"| {db} | {ton:.1f} | {toff:.1f} | {(1 - ton / toff) * 100:+.2f}% | {spread:.1f}% | "
          f"{con:.1f} | {coff:.1f} | {(con / coff - 1) * 100:+.2f}% | "
          f"{statistics.median(x['queries_per_second'] for x in s):.1f} | "
          f"{statistics.median(x['query_ms_avg'] for x in s):.2f} / {max(x['query_ms_max'] for x in s):.2f} | "
          f"{statistics.median(x['statement_share'] for x in s) * 100:.3f}% |")
    # the sampler's server CPU per second: on minus off at 10 events a second
    own[db] = (statistics.median((cpu(db, "on", f"idle{r}") - cpu(db, "off", f"idle{r}")) / float(t)
                                 for r in (1, 2, 3)), coff * toff / 1e6)
print("\nThe sampler's own server CPU (the same runs at --rate=10, on minus off, median of 3), "
      "against the server's CPU at the workload's rate with it off:\n")
print("| database | sampler's server CPU ms/s | server CPU ms/s (off) | share |")
print("| --- | ---: | ---: | ---: |")
for db, (mine, busy) in own.items():
    print(f"| {db} | {mine * 1e3:.1f} | {busy * 1e3:.0f} | {mine / busy * 100:.2f}% |")
PY
