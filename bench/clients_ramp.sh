#!/usr/bin/env bash
# bench/clients_ramp.sh: many clients from one machine through PgBouncer
# (transaction pooling), ramped with --clients-profile, and what an idle
# client costs the client: memory and CPU.
#
# Starts a throwaway PostgreSQL and a PgBouncer in front of it (pool of 20
# server connections), prepares oltp_point_select, then runs sbench with
# --clients=N --threads=THREADS twice:
#   1. idle: --clients-profile=hold:1:TIME --rate=10: N clients connected
#      (each opens its connection in thread_init), one running 10 events a
#      second; once the threads started (the connects done), the client's
#      CPU seconds a second read from /proc over TIME - 6 s, and its peak
#      RSS; the same with --clients=THREADS; the difference per idle
#      client (memory) and per 1,000 idle clients (a share of one core).
#      (Before: the CPU of a run of 2 x TIME less one of TIME, with the one
#      client at full speed: its ~3 CPU s and the 10,000 SCRAM connects'
#      35-50 CPU s varied between runs by more than the idle clients cost.)
#   2. ramp: --clients-profile='ramp:1-N:RAMP;hold:N:HOLD', every active
#      client running point selects: tps, the per-phase summary, max RSS.
# Prints markdown tables (with the machine's load), and appends them to
# OUT when set.
#
# Environment (defaults in brackets): N [10000]  THREADS [2]  TIME [20]
#   RAMP [30]  HOLD [20]  PG_PORT [45632]  PGB_PORT [46632]  OUT
#   KEEP_TMP=1  SBENCH (a binary to use instead of building a release one).  Needs root (PgBouncer runs as postgres) and pgbouncer.
set -eu -o pipefail
given_sbench=${SBENCH:-}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=${N:-10000}
THREADS=${THREADS:-2}
TIME=${TIME:-20}
RAMP=${RAMP:-30}
HOLD=${HOLD:-20}
for v in N THREADS TIME RAMP HOLD; do
    case ${!v} in '' | *[!0-9]* | 0) die "$v must be a positive integer, got '${!v}'" ;; esac
done
[ "$TIME" -ge 8 ] || die "TIME must be at least 8 (the CPU is read over TIME - 6 s)"
need /usr/bin/time pgbouncer psql awk
# one socket a client, and some to spare (a hard limit of 20000, as on the
# project's machines, allowed no more than N=9744 when 2 a client were asked)
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((N + 512)) ]; then
    ulimit -n $((N + 512)) 2>/dev/null || die "need $((N + 512)) open files, ulimit -n is $(ulimit -n)"
fi
if [ -n "$given_sbench" ]; then SBENCH=$given_sbench; else build_sbench; fi
make_tmp
trap 'stop_all' EXIT
trap 'exit 130' INT TERM
PG_PORT=$(pick_port PG_PORT "${PG_PORT:-45632}" 0)
PGB_PORT=$(pick_port PGB_PORT "${PGB_PORT:-46632}" 0)
stop_all() {
    "$ROOT/scripts/pgbouncer-server.sh" stop "$TMPD/pgb" >/dev/null 2>&1 || true
    stop_servers
}
start_pg
log "starting PgBouncer on 127.0.0.1:$PGB_PORT (max $N clients)"
SBT_PGBOUNCER_MAX_CLIENTS=$((N + 100)) "$ROOT/scripts/pgbouncer-server.sh" start "$TMPD/pgb" "$PGB_PORT" \
    127.0.0.1 "$PG_PORT" >"$TMPD/pgb-start.log" 2>&1 || { cat "$TMPD/pgb-start.log" >&2; die "PgBouncer did not start"; }

direct=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$PG_PORT" --pgsql-user=sbtest
        --pgsql-password="$PGPW" --pgsql-db=sbtest)
pooled=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$PGB_PORT" --pgsql-user=sbtest
        --pgsql-password="$PGPW" --pgsql-db=sbtest --db-ps-mode=disable --db-server-counters=off
        --db-server-settings=off)
(cd "$TMPD" && "$SBENCH" "${direct[@]}" --tables=1 --table-size=10000 oltp_point_select prepare \
    >"$TMPD/prepare.log" 2>&1) || { cat "$TMPD/prepare.log" >&2; die "prepare failed"; }

# run NAME CLIENTS PROFILE [OPTION...]: sbench through PgBouncer under
# /usr/bin/time; prints "maxrss_kb cpu_s tps"
run() {
    local name=$1 clients=$2 profile=$3
    shift 3
    log "$name: --clients=$clients --clients-profile='$profile'"
    (cd "$TMPD" && /usr/bin/time -f '%M %U %S' -o "$TMPD/$name.time" "$SBENCH" "${pooled[@]}" \
        --threads="$THREADS" --clients="$clients" --clients-profile="$profile" --point-selects=1 \
        --report-format=json --output="$TMPD/$name.json" "$@" oltp_point_select run \
        >"$TMPD/$name.log" 2>&1) || { tail -5 "$TMPD/$name.log" >&2; die "$name failed (log: $TMPD/$name.log)"; }
    awk '{ printf "%s %.3f ", $1, $2 + $3 }' "$TMPD/$name.time"
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["tps"])' "$TMPD/$name.json"
}

# idle NAME CLIENTS: CLIENTS connected, one running 10 events a second;
# once its threads started, the run's CPU seconds a second (from /proc,
# over TIME - 6 s) and its peak RSS: prints "cpu_per_s vmhwm_kb"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
idle() {
    local name=$1 clients=$2 pid i=0 c0 c1 t0 t1 hwm
    log "$name: --clients=$clients --clients-profile='hold:1:$TIME' --rate=10"
    (cd "$TMPD" && exec "$SBENCH" "${pooled[@]}" --threads="$THREADS" --clients="$clients" \
        --clients-profile="hold:1:$TIME" --rate=10 --point-selects=1 oltp_point_select run \
        >"$TMPD/$name.log" 2>&1) &
    pid=$!
    until grep -q '^Threads started!' "$TMPD/$name.log"; do
        kill -0 "$pid" 2>/dev/null || { tail -5 "$TMPD/$name.log" >&2; die "$name ended before its threads started"; }
        i=$((i + 1))
        [ $i -lt 6000 ] || die "$name: its threads did not start within 600 s"
        sleep 0.1
    done
    sleep 2
    c0=$(cpu_ticks "$pid") t0=$(date +%s.%N)
    sleep $((TIME - 6))
    c1=$(cpu_ticks "$pid") t1=$(date +%s.%N)
    hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    wait "$pid" || { tail -5 "$TMPD/$name.log" >&2; die "$name failed (log: $TMPD/$name.log)"; }
    awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" -v m="$hwm" \
        'BEGIN { printf "%.4f %s\n", (c1 - c0) / hz / (t1 - t0), m }'
}

read -r base_cpu base_rss < <(idle idle-base "$THREADS")
read -r idle_cpu idle_rss < <(idle idle "$N")
[ -n "${base_rss:-}" ] && [ -n "${idle_rss:-}" ] || die "an idle run failed (logs in $TMPD)"
read -r ramp_rss _ ramp_tps < <(run ramp "$N" "ramp:1-$N:$RAMP;hold:$N:$HOLD")
per_kb=$(awk -v a="$idle_rss" -v b="$base_rss" -v n="$N" -v t="$THREADS" 'BEGIN { printf "%.1f", (a - b) / (n - t) }')
cpu_pct=$(awk -v a="$idle_cpu" -v b="$base_cpu" -v n="$N" -v t="$THREADS" \
    'BEGIN { printf "%.2f", (a - b) * 100 / ((n - t) / 1000) }')
phases=$(python3 -c '
import json, sys
f = json.loads(open(sys.argv[1]).read().splitlines()[-1])
for p in f.get("phases", []):
    print("| %s | %.0f-%.0f s | %.0f | %.0f | %.1f |" % (p["name"], p["start"], p["end"], p["clients"], p["tps"],
                                                   p["latency_ms"]["p99"]))
' "$TMPD/ramp.json")
{
    echo "### $N clients through PgBouncer (transaction pooling), --threads=$THREADS"
    echo
    echo "Machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
    echo
    echo "| measure | value |"
    echo "|---|---|"
    echo "| max RSS, $THREADS clients / $N idle clients | $(kb_to_mb "$base_rss") MB / $(kb_to_mb "$idle_rss") MB |"
    echo "| memory per idle client | $per_kb KB |"
    echo "| CPU of the run, $THREADS clients / $N idle clients | $(awk -v c="$base_cpu" 'BEGIN { printf "%.1f", c * 100 }')% / $(awk -v c="$idle_cpu" 'BEGIN { printf "%.1f", c * 100 }')% of a core |"
    echo "| CPU per 1,000 idle clients | $cpu_pct% of a core |"
    echo "| max RSS of the ramp to $N active clients | $(kb_to_mb "$ramp_rss") MB |"
    echo
    echo "| phase | time | mean clients | tps | p99 ms |"
    echo "|---|---|---:|---:|---:|"
    echo "$phases"
} | tee -a "${OUT:-/dev/null}"
