#!/usr/bin/env bash
# bench/connections.sh: throughput and client memory against the number of
# connections, sbench vs sysbench, oltp_point_select on a throwaway
# PostgreSQL and MariaDB.
#
# For each database in DBS and each C in CONNS: sbench with
# --threads=THREADS --clients=C when sbench has --clients (else
# --threads=C), and sysbench with --threads=C; TIME s each.  Prints a
# markdown table per database of tps, client max RSS and RSS per
# connection; a run that failed (sysbench may not manage 1000 threads)
# says so in the table instead of stopping the script.
#
# Environment (defaults in brackets): DBS ["pgsql mysql"]
#   CONNS ["1 10 100 1000"]  THREADS [2]  TIME [5]  TABLES [4]
#   TABLE_SIZE [10000]  PG_PORT [45432]  MY_PORT [43306] (a busy default
#   moves to a free port)  LOGDIR [bench/last-run-connections]  OUT (also
#   write the tables to this file)  KEEP_TMP=1
# Exit status: 0, or 3 when some run failed (the table says which).
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

DBS=${DBS:-pgsql mysql}
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
for d in $DBS; do case $d in pgsql | mysql) ;; *) die "unknown database '$d' (pgsql, mysql)" ;; esac; done
need /usr/bin/time timeout awk sed
case " $DBS " in *" pgsql "*) need psql ;; esac
case " $DBS " in *" mysql "*) need mariadb ;; esac
[ -x "$SYSBENCH" ] || die "sysbench not found at $SYSBENCH (set SYSBENCH=...)"

# Every client connection is a socket; sysbench also holds one per thread.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((maxc * 2 + 256)) ]; then
    ulimit -n $((maxc * 2 + 256)) 2>/dev/null ||
        die "need $((maxc * 2 + 256)) open files for $maxc connections, ulimit -n is $(ulimit -n)"
fi

explicit_pg=0 explicit_my=0
[ -n "${PG_PORT:-}" ] && explicit_pg=1
[ -n "${MY_PORT:-}" ] && explicit_my=1
PG_PORT=${PG_PORT:-45432}
MY_PORT=${MY_PORT:-43306}

build_sbench
CLIENTS_OPT=0
if "$SBENCH" --help 2>&1 | grep -q -- --clients; then CLIENTS_OPT=1; fi

rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
make_tmp
trap 'stop_servers' EXIT
trap 'exit 130' INT TERM

need_conns=$((maxc + 50))
pgq() { PGPASSWORD=$PGPW psql -X -qtA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U sbtest -d sbtest -c "$1"; }
myq() { MYSQL_PWD=$MYPW mariadb --no-defaults -h 127.0.0.1 -P "$MY_PORT" -u sbtest -N -B -e "$1"; }

case " $DBS " in *" pgsql "*)
    PG_PORT=$(pick_port PG_PORT "$PG_PORT" "$explicit_pg")
    start_pg
    # pg-server.sh sets max_connections = 1100; for more, raise it (ALTER
    # SYSTEM wins over postgresql.conf) and restart.
    if [ "$(pgq 'SHOW max_connections')" -lt "$need_conns" ]; then
        log "raising max_connections to $need_conns and restarting PostgreSQL"
        pgq "ALTER SYSTEM SET max_connections = $need_conns" >/dev/null ||
            die "ALTER SYSTEM SET max_connections failed"
        "$ROOT/scripts/pg-server.sh" stop "$TMPD/pg" >/dev/null || die "stopping PostgreSQL for the restart failed"
        PG_STARTED=0   # read by stop_servers (lib.sh)
        start_pg
        got=$(pgq 'SHOW max_connections')
        [ "$got" -ge "$need_conns" ] || die "max_connections is $got after the restart, wanted $need_conns"
    fi
    ;;
esac
case " $DBS " in *" mysql "*)
    MY_PORT=$(pick_port MY_PORT "$MY_PORT" "$explicit_my")
    # mariadb-server.sh sets --max-connections=1200; its extra arguments
    # come after that one and win
    if [ "$need_conns" -gt 1200 ]; then
        export SBT_MYSQL_SERVER_ARGS="${SBT_MYSQL_SERVER_ARGS:-} --max-connections=$need_conns"
    fi
    start_my
    got=$(myq 'SELECT @@max_connections')
    [ "$got" -ge "$need_conns" ] || die "MariaDB max_connections is $got, wanted $need_conns"
    ;;
esac

run_tool() {   # TOOL DB LOGNAME LIMIT ARGS...
    local bin
    bin=$(tool_bin "$1")
    local db=$2 name=$3 lim=$4
    shift 4
    # shellcheck disable=SC2046
    (cd "$TMPD" && timed "$LOGDIR/$name.log" "$lim" "$bin" $(conn_opts "$db") "$@")
}

# per_conn RSS_KB C: KB of client RSS per connection.
per_conn() { [ -n "$1" ] && awk -v k="$1" -v c="$2" 'BEGIN { printf "%.0f", k / c }' || echo; }

FAILED=0
: >"$TMPD/tables.md"

for db in $DBS; do
    case $db in
    pgsql) server="PostgreSQL $(pgq 'SHOW server_version' | cut -d' ' -f1)" ;;
    mysql) server="MariaDB $(myq 'SELECT VERSION()' | cut -d- -f1)" ;;
    esac
    log "$db: prepare $TABLES x $TABLE_SIZE rows"
    run_tool sbench "$db" "$db-prepare" 600 --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 oltp_point_select prepare ||
        { tail -n 5 "$LOGDIR/$db-prepare.log" >&2; die "sbench prepare on $db failed (log: $LOGDIR/$db-prepare.log)"; }
    ROWS=()
    declare -A RSS1=() RSSN=()
    for c in $CONNS; do
        cells=""
        for tool in sbench sysbench; do
            if [ "$tool" = sbench ] && [ "$CLIENTS_OPT" = 1 ]; then
                opts="--threads=$THREADS --clients=$c"
            else
                opts="--threads=$c"
            fi
            log "$db C=$c: $tool $opts, ${TIME}s"
            name=$db-$tool.c$c
            f=$LOGDIR/$name.log
            # Opening 1000 connections takes a while on a small machine.
            # shellcheck disable=SC2086
            if run_tool "$tool" "$db" "$name" $((TIME * 3 + 120 + c / 5)) $opts --tables="$TABLES" \
                --table-size="$TABLE_SIZE" --time="$TIME" oltp_point_select run && [ -n "$(tx_rate "$f")" ]; then
                rss=$(time_field "$f" 4)
                cells="$cells | $(tx_rate "$f") | $(kb_to_mb "$rss") | $(per_conn "$rss" "$c")"
                [ "$c" = 1 ] && RSS1[$tool]=$rss
                [ "$c" = "$maxc" ] && RSSN[$tool]=$rss
            else
                FAILED=1
                why=$(grep -m1 -i -E 'FATAL|error|timed out' "$f" | cut -c1-60 | tr '|' '/' || true)
                cells="$cells | failed${why:+: $why} | | "
                log "$db C=$c: $tool failed (log: $f)"
                tail -n 5 "$f" >&2
            fi
        done
        ROWS+=("| $c$cells |")
    done
    {
        echo
        echo "### $server"
        echo
        echo "| connections | sbench tps | sbench RSS MB | sbench KB/conn | sysbench tps | sysbench RSS MB | sysbench KB/conn |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        printf '%s\n' "${ROWS[@]}"
        if [ "$maxc" -gt 1 ]; then
            line=""
            for tool in sbench sysbench; do
                if [ -n "${RSS1[$tool]:-}" ] && [ -n "${RSSN[$tool]:-}" ]; then
                    line="$line $tool $(awk -v a="${RSS1[$tool]}" -v b="${RSSN[$tool]}" -v n="$maxc" \
                        'BEGIN { printf "%.0f", (b - a) / (n - 1) }') KB,"
                fi
            done
            if [ -n "$line" ]; then
                echo
                echo "Client RSS per added connection (1 to $maxc connections):${line%,}."
            fi
        fi
    } >>"$TMPD/tables.md"
    unset RSS1 RSSN
done

{
    echo "## Connections: oltp_point_select, ${TIME} s per run"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n1), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
    echo "$TABLES tables x $TABLE_SIZE rows; client and servers on the same machine."
    if [ "$CLIENTS_OPT" = 1 ]; then
        echo "sbench multiplexes C connections over $THREADS threads (\`--threads=$THREADS --clients=C\`); sysbench needs one thread per connection (\`--threads=C\`)."
    else
        echo "sbench has no --clients option yet: both tools use one thread per connection (--threads=C)."
    fi
} >"$TMPD/head.md"
cat "$TMPD/head.md" "$TMPD/tables.md" >"$TMPD/connections.md"
cat "$TMPD/connections.md"
[ -z "${OUT:-}" ] || cp "$TMPD/connections.md" "$OUT"
log "logs in $LOGDIR"
[ "$FAILED" = 0 ] || exit 3
