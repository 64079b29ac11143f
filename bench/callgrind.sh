#!/usr/bin/env bash
# bench/callgrind.sh: the client's instructions per event, quickly, for a
# commit message.  For each database in CG_DBS and workload in CG_WORKLOADS,
# and for the "empty" case (a workload whose event() does nothing: the
# framework's own cost per event), runs each tool of TOOLS under
# `valgrind --tool=callgrind` for CG_EVENTS_SMALL and CG_EVENTS events with
# one thread and a fixed seed, and prints the marginal instructions per event
#   (Ir(CG_EVENTS) - Ir(CG_EVENTS_SMALL)) / (CG_EVENTS - CG_EVENTS_SMALL)
# which leaves startup (Lua, TLS/SCRAM, prepare) out.  callgrind counts
# instructions, not time, so the numbers repeat whatever else the machine does.
#
# Starts its own PostgreSQL and MariaDB (as bench/run.sh does) when CG_DBS
# names them, and prepares TABLES x TABLE_SIZE rows with sbench.
#
# Environment (defaults in brackets):
#   CG_DBS ["pgsql mysql"]  CG_WORKLOADS ["oltp_point_select oltp_read_write"]
#   CG_EVENTS [5000]  CG_EVENTS_SMALL [500]  TABLES [1]  TABLE_SIZE [10000]
#   TOOLS ["sbench sysbench"]  EMPTY [1]: also the empty event
#   SBENCH: an sbench binary to measure instead of building this tree
#   (e.g. another checkout's, for a before/after pair)
#   CG_ARGS: extra sbench options (e.g. --clients=2)
# Output: a markdown table on stdout; logs in $LOGDIR [bench/last-callgrind].
set -eu -o pipefail
given_sbench=${SBENCH:-}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
[ -n "$given_sbench" ] && SBENCH=$given_sbench

CG_DBS=${CG_DBS-pgsql mysql}
CG_WORKLOADS=${CG_WORKLOADS:-oltp_point_select oltp_read_write}
CG_EVENTS=${CG_EVENTS:-5000}
CG_EVENTS_SMALL=${CG_EVENTS_SMALL:-500}
TABLES=${TABLES:-1}
TABLE_SIZE=${TABLE_SIZE:-10000}
TOOLS=${TOOLS:-sbench sysbench}
EMPTY=${EMPTY:-1}
CG_ARGS=${CG_ARGS:-}
LOGDIR=${LOGDIR:-$ROOT/bench/last-callgrind}
for v in CG_EVENTS CG_EVENTS_SMALL TABLES TABLE_SIZE; do
    case ${!v} in '' | *[!0-9]*) die "$v must be a positive integer, got '${!v}'" ;; esac
done
[ "$CG_EVENTS" -gt "$CG_EVENTS_SMALL" ] || die "CG_EVENTS must be larger than CG_EVENTS_SMALL"
need valgrind awk sed
if [ -z "$given_sbench" ]; then build_sbench; fi
[ -x "$SBENCH" ] || die "no sbench binary at $SBENCH"
case " $TOOLS " in *" sysbench "*) [ -x "$SYSBENCH" ] || die "sysbench not found at $SYSBENCH" ;; esac

rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
make_tmp
trap 'stop_servers' EXIT
trap 'exit 130' INT TERM
PG_PORT=${PG_PORT:-45532}
MY_PORT=${MY_PORT:-43406}
case " $CG_DBS " in *" pgsql "*) PG_PORT=$(pick_port PG_PORT "$PG_PORT" 0); start_pg ;; esac
case " $CG_DBS " in *" mysql "*) MY_PORT=$(pick_port MY_PORT "$MY_PORT" 0); start_my ;; esac

# the empty event: what the framework costs per event with no statement
cat >"$TMPD/empty_event.lua" <<'EOF'
function event()
end
EOF

cg_ir() {   # TOOL DB WL EVENTS -> prints the total Ir of the run
    local tool=$1 db=$2 wl=$3 n=$4 bin extra="" own="" conn=""
    local name=$db.$(basename "$wl" .lua).$tool.$n
    bin=$(tool_bin "$tool")
    [ "$tool" = sysbench ] && extra="--smc-check=all"   # LuaJIT generates code
    [ "$tool" = sbench ] && own="--db-server-counters=off $CG_ARGS"
    [ "$db" = empty ] || conn="$(conn_opts "$db") --tables=$TABLES --table-size=$TABLE_SIZE"
    # shellcheck disable=SC2086
    (cd "$TMPD" && timeout -k 10 900 valgrind --tool=callgrind $extra \
        --log-file="$LOGDIR/$name.vg" --callgrind-out-file="$TMPD/cg.out.%p" \
        "$bin" $conn --threads=1 --events="$n" --time=0 --rand-seed=1 $own "$wl" run \
        >"$LOGDIR/$name.log" 2>&1 </dev/null) || { log "$tool $wl on $db failed (log: $LOGDIR/$name.log)"; return 1; }
    local tx
    tx=$(sed -n 's/^ *total number of events: *\([0-9][0-9]*\).*/\1/p' "$LOGDIR/$name.log" | head -n1)
    [ "$tx" = "$n" ] || { log "$tool $wl on $db ran '$tx' events, not $n"; return 1; }
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' "$LOGDIR/$name.vg" | tail -n1
}

for db in $CG_DBS; do
    log "$db: preparing $TABLES x $TABLE_SIZE rows"
    # shellcheck disable=SC2046
    (cd "$TMPD" && "$SBENCH" $(conn_opts "$db") --tables="$TABLES" oltp_point_select cleanup \
        >"$LOGDIR/$db.cleanup.log" 2>&1) || true
    # shellcheck disable=SC2046
    (cd "$TMPD" && "$SBENCH" $(conn_opts "$db") --tables="$TABLES" --table-size="$TABLE_SIZE" \
        oltp_point_select prepare >"$LOGDIR/$db.prepare.log" 2>&1) ||
        die "prepare on $db failed (log: $LOGDIR/$db.prepare.log)"
done

echo "| database | workload | tool | Ir, $CG_EVENTS_SMALL events | Ir, $CG_EVENTS events | marginal Ir/event |"
echo "|---|---|---|---:|---:|---:|"
status=0
cases=""
for db in $CG_DBS; do for wl in $CG_WORKLOADS; do cases="$cases $db:$wl"; done; done
[ "$EMPTY" = 1 ] && cases="$cases empty:$TMPD/empty_event.lua"
for c in $cases; do
    db=${c%%:*} wl=${c#*:}
    for tool in $TOOLS; do
        log "$db $(basename "$wl"): $tool, $CG_EVENTS_SMALL and $CG_EVENTS events"
        if a=$(cg_ir "$tool" "$db" "$wl" "$CG_EVENTS_SMALL") && b=$(cg_ir "$tool" "$db" "$wl" "$CG_EVENTS"); then
            m=$(awk -v a="$a" -v b="$b" -v n="$CG_EVENTS" -v s="$CG_EVENTS_SMALL" \
                'BEGIN { printf "%.0f", (b - a) / (n - s) }')
            echo "| $db | $(basename "$wl" .lua) | $tool | $a | $b | $m |"
        else
            echo "| $db | $(basename "$wl" .lua) | $tool | failed | | |"
            status=3
        fi
    done
done
exit $status
