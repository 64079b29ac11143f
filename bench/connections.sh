#!/usr/bin/env bash
# bench/connections.sh: throughput and client memory against the number of
# connections, sbench vs sysbench, oltp_point_select on a throwaway PostgreSQL.
#
# For each C in CONNS: sbench with --threads=THREADS --clients=C when sbench
# has --clients (else --threads=C), and sysbench with --threads=C; TIME s
# each.  Prints a markdown table of tps and client max RSS.
#
# Environment (defaults in brackets): CONNS ["1 10 100 1000"]  THREADS [2]
#   TIME [5]  TABLES [4]  TABLE_SIZE [10000]  PG_PORT [45432, a busy default
#   moves to a free port]  LOGDIR [bench/last-run-connections]  OUT (also
#   write the table to this file)  KEEP_TMP=1
# Exit status: 0, or 3 when some run failed (the table says which).
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

CONNS=${CONNS:-1 10 100 1000}
THREADS=${THREADS:-2}
TIME=${TIME:-5}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
LOGDIR=${LOGDIR:-$ROOT/bench/last-run-connections}
for v in THREADS TIME TABLES TABLE_SIZE; do
    case ${!v} in '' | *[!0-9]* | 0) die "$v must be a positive integer, got '${!v}'" ;; esac
done
maxc=0
for c in $CONNS; do
    case $c in '' | *[!0-9]* | 0) die "CONNS must hold positive integers, got '$c'" ;; esac
    [ "$c" -gt "$maxc" ] && maxc=$c
done
need /usr/bin/time timeout psql awk sed
[ -x "$SYSBENCH" ] || die "sysbench not found at $SYSBENCH (set SYSBENCH=...)"

# Every client connection is a socket; sysbench also holds one per thread.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((maxc * 2 + 256)) ]; then
    ulimit -n $((maxc * 2 + 256)) 2>/dev/null ||
        die "need $((maxc * 2 + 256)) open files for $maxc connections, ulimit -n is $(ulimit -n)"
fi

explicit_pg=0
[ -n "${PG_PORT:-}" ] && explicit_pg=1
PG_PORT=${PG_PORT:-45432}

build_sbench
CLIENTS_OPT=0
if "$SBENCH" --help 2>&1 | grep -q -- --clients; then CLIENTS_OPT=1; fi

rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
make_tmp
trap 'stop_servers' EXIT
trap 'exit 130' INT TERM
PG_PORT=$(pick_port PG_PORT "$PG_PORT" "$explicit_pg")
start_pg

# pg-server.sh sets max_connections = 300; raise it (ALTER SYSTEM wins over
# postgresql.conf) and restart.
need_conns=$((maxc + 50))
[ "$need_conns" -ge 300 ] || need_conns=300   # never below what pg-server.sh sets
log "raising max_connections to $need_conns and restarting PostgreSQL"
PGPASSWORD=$PGPW psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U sbtest -d sbtest \
    -c "ALTER SYSTEM SET max_connections = $need_conns" >/dev/null ||
    die "ALTER SYSTEM SET max_connections failed"
"$ROOT/scripts/pg-server.sh" stop "$TMPD/pg" >/dev/null || die "stopping PostgreSQL for the restart failed"
PG_STARTED=0   # read by stop_servers (lib.sh)
start_pg
got=$(PGPASSWORD=$PGPW psql -X -qtA -h 127.0.0.1 -p "$PG_PORT" -U sbtest -d sbtest -c 'SHOW max_connections')
[ "$got" -ge "$need_conns" ] || die "max_connections is $got after the restart, wanted $need_conns"

run_tool() {   # TOOL LOGNAME LIMIT ARGS...
    local bin
    bin=$(tool_bin "$1")
    local name=$2 lim=$3
    shift 3
    # shellcheck disable=SC2046
    (cd "$TMPD" && timed "$LOGDIR/$name.log" "$lim" "$bin" $(conn_opts pgsql) "$@")
}

log "prepare $TABLES x $TABLE_SIZE rows"
run_tool sbench prepare 600 --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 oltp_point_select prepare ||
    { tail -n 5 "$LOGDIR/prepare.log" >&2; die "sbench prepare failed (log: $LOGDIR/prepare.log)"; }

FAILED=0
ROWS=()
for c in $CONNS; do
    for tool in sbench sysbench; do
        if [ "$tool" = sbench ] && [ "$CLIENTS_OPT" = 1 ]; then
            opts="--threads=$THREADS --clients=$c"
        else
            opts="--threads=$c"
        fi
        log "C=$c: $tool $opts, ${TIME}s"
        name=$tool.c$c
        # Opening 1000 connections takes a while on a small machine.
        # shellcheck disable=SC2086
        if run_tool "$tool" "$name" $((TIME * 3 + 120 + c / 5)) $opts --tables="$TABLES" \
            --table-size="$TABLE_SIZE" --time="$TIME" oltp_point_select run; then
            f=$LOGDIR/$name.log
            tps=$(tx_rate "$f")
            rss=$(time_field "$f" 4)
            wall=$(time_field "$f" 1)
            [ -n "$tps" ] || { tps="no report"; FAILED=1; }
            ROWS+=("| $c | $tool | \`$opts\` | $tps | $(kb_to_mb "$rss") | $(awk -v k="$rss" -v c="$c" 'BEGIN { printf "%.1f", k / c }') | $wall |")
        else
            FAILED=1
            ROWS+=("| $c | $tool | \`$opts\` | FAILED (see $name.log) | | | |")
            tail -n 5 "$LOGDIR/$name.log" >&2
        fi
    done
done

{
    echo "## Connections: oltp_point_select on PostgreSQL $(PGPASSWORD=$PGPW psql -X -qtA -h 127.0.0.1 -p "$PG_PORT" -U sbtest -d sbtest -c 'SHOW server_version' | cut -d' ' -f1), ${TIME} s per run"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n1)."
    if [ "$CLIENTS_OPT" = 1 ]; then
        echo "sbench multiplexes C connections over $THREADS threads (--clients); sysbench needs one thread per connection."
    else
        echo "sbench has no --clients option yet: both tools use one thread per connection (--threads=C)."
    fi
    echo
    echo "| connections | client | options | tps | client max RSS MB | RSS KB/connection | wall s |"
    echo "| ---: | --- | --- | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${ROWS[@]}"
} >"$TMPD/connections.md"
cat "$TMPD/connections.md"
[ -z "${OUT:-}" ] || cp "$TMPD/connections.md" "$OUT"
log "logs in $LOGDIR"
[ "$FAILED" = 0 ] || exit 3
