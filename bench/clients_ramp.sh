#!/usr/bin/env bash
# bench/clients_ramp.sh: many clients from one machine through PgBouncer
# (transaction pooling), ramped with --clients-profile, and what an idle
# client costs the client: memory and CPU.
#
# Starts a throwaway PostgreSQL and a PgBouncer in front of it (pool of 20
# server connections), prepares oltp_point_select, then runs sbench with
# --clients=N --threads=THREADS twice:
#   1. idle: --clients-profile=hold:1:TIME: N clients connected (each opens
#      its connection in thread_init), one running events: the client's max
#      RSS less that of the same run with --clients=THREADS, per client; and
#      the CPU seconds a second while running (a run of 2 x TIME less one of
#      TIME, so the connects are left out), less the same with
#      --clients=THREADS, per 1,000 clients (a share of one core);
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
need /usr/bin/time pgbouncer psql awk
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((N * 2 + 512)) ]; then
    ulimit -n $((N * 2 + 512)) 2>/dev/null || die "need $((N * 2 + 512)) open files, ulimit -n is $(ulimit -n)"
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

# run NAME CLIENTS PROFILE: sbench through PgBouncer under /usr/bin/time;
# prints "maxrss_kb cpu_s tps"
run() {
    local name=$1 clients=$2 profile=$3
    log "$name: --clients=$clients --clients-profile='$profile'"
    (cd "$TMPD" && /usr/bin/time -f '%M %U %S' -o "$TMPD/$name.time" "$SBENCH" "${pooled[@]}" \
        --threads="$THREADS" --clients="$clients" --clients-profile="$profile" --point-selects=1 \
        --report-format=json --output="$TMPD/$name.json" oltp_point_select run \
        >"$TMPD/$name.log" 2>&1) || { tail -5 "$TMPD/$name.log" >&2; die "$name failed (log: $TMPD/$name.log)"; }
    awk '{ printf "%s %.3f ", $1, $2 + $3 }' "$TMPD/$name.time"
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["tps"])' "$TMPD/$name.json"
}

# CPU while running, without the connects (SCRAM costs CPU): the
# difference between a run of 2 x TIME and one of TIME, over TIME
read -r base_rss base_cpu _ < <(run idle-base "$THREADS" "hold:1:$TIME")
read -r _ base_cpu2 _ < <(run idle-base2 "$THREADS" "hold:1:$((2 * TIME))")
read -r idle_rss idle_cpu _ < <(run idle "$N" "hold:1:$TIME")
read -r _ idle_cpu2 _ < <(run idle2 "$N" "hold:1:$((2 * TIME))")
read -r ramp_rss _ ramp_tps < <(run ramp "$N" "ramp:1-$N:$RAMP;hold:$N:$HOLD")
per_kb=$(awk -v a="$idle_rss" -v b="$base_rss" -v n="$N" -v t="$THREADS" 'BEGIN { printf "%.1f", (a - b) / (n - t) }')
cpu_pct=$(awk -v a="$idle_cpu" -v a2="$idle_cpu2" -v b="$base_cpu" -v b2="$base_cpu2" -v n="$N" -v t="$THREADS" \
    -v s="$TIME" 'BEGIN { printf "%.2f", ((a2 - a) - (b2 - b)) / s * 100 / ((n - t) / 1000) }')
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
    echo "| CPU per 1,000 idle clients | $cpu_pct% of a core |"
    echo "| max RSS of the ramp to $N active clients | $(kb_to_mb "$ramp_rss") MB |"
    echo
    echo "| phase | time | mean clients | tps | p99 ms |"
    echo "|---|---|---:|---:|---:|"
    echo "$phases"
} | tee -a "${OUT:-/dev/null}"
