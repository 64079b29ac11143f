#!/usr/bin/env bash
# bench/tpcc_load.sh: how fast `sbench tpcc prepare` loads W warehouses on a
# throwaway PostgreSQL and MariaDB, side by side with sysbench-tpcc's
# prepare when a copy of it is at hand (this script fetches nothing: point
# SYSBENCH_TPCC at a directory holding its tpcc.lua, e.g. a checkout of
# github.com/Percona-Lab/sysbench-tpcc).  Without one it reports sbench's
# own rows/s and seconds per warehouse only, and says so.
#
# For each database: sbench prepare (--threads=THREADS), `tpcc check`
# (every condition must pass: a fast load that loads the wrong data does
# not count), cleanup; then sysbench-tpcc's prepare with the same
# --threads and --scale=W when present.  Prints a markdown table: seconds,
# rows/s, and sysbench-tpcc's time / sbench's time (the issue's target is
# at least 2x).
#
# Environment (defaults in brackets): DBS ["pgsql mysql"]  W [4]
#   THREADS [2]  SYSBENCH_TPCC (directory with tpcc.lua, optional)
#   PG_PORT [45432]  MY_PORT [43306]  LOGDIR [bench/last-run-tpcc]
#   KEEP_TMP=1
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

DBS=${DBS:-pgsql mysql}
W=${W:-4}
THREADS=${THREADS:-2}
LOGDIR=${LOGDIR:-$ROOT/bench/last-run-tpcc}
explicit_pg=0 explicit_my=0
[ -n "${PG_PORT:-}" ] && explicit_pg=1
[ -n "${MY_PORT:-}" ] && explicit_my=1
PG_PORT=${PG_PORT:-45432}
MY_PORT=${MY_PORT:-43306}
for v in W THREADS; do
    case ${!v} in '' | *[!0-9]* | 0) die "$v must be a positive integer, got '${!v}'" ;; esac
done
for d in $DBS; do case $d in pgsql | mysql) ;; *) die "unknown database '$d' (pgsql, mysql)" ;; esac; done
TPCC_LUA=""
if [ -n "${SYSBENCH_TPCC:-}" ]; then
    [ -f "$SYSBENCH_TPCC/tpcc.lua" ] || die "SYSBENCH_TPCC=$SYSBENCH_TPCC holds no tpcc.lua"
    TPCC_LUA=$SYSBENCH_TPCC/tpcc.lua
    need "$SYSBENCH"
fi

build_sbench
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
make_tmp
trap 'stop_servers' EXIT
trap 'exit 130' INT TERM

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

rows=()
for db in $DBS; do
    case $db in
    pgsql) PG_PORT=$(pick_port PG_PORT "$PG_PORT" "$explicit_pg"); start_pg ;;
    mysql) MY_PORT=$(pick_port MY_PORT "$MY_PORT" "$explicit_my"); start_my ;;
    esac
    # shellcheck disable=SC2046
    set -- $(conn_opts "$db")
    log "$db: sbench tpcc prepare --warehouses=$W --threads=$THREADS"
    t0=$(date +%s%N)
    "$SBENCH" "$@" --warehouses="$W" --threads="$THREADS" tpcc prepare >"$LOGDIR/$db-sbench-prepare.log" 2>&1 ||
        { tail -n 20 "$LOGDIR/$db-sbench-prepare.log" >&2; die "$db: sbench prepare failed"; }
    t1=$(date +%s%N)
    "$SBENCH" "$@" --warehouses="$W" tpcc check >"$LOGDIR/$db-sbench-check.log" 2>&1 ||
        { tail -n 20 "$LOGDIR/$db-sbench-check.log" >&2; die "$db: tpcc check failed after the load"; }
    loaded=$(sed -n 's/^Loaded \([0-9]*\) rows.*/\1/p' "$LOGDIR/$db-sbench-prepare.log")
    "$SBENCH" "$@" --warehouses="$W" tpcc cleanup >/dev/null 2>&1
    s_sb=$(secs "$t0" "$t1")
    rate=$(awk -v r="$loaded" -v s="$s_sb" 'BEGIN { printf "%.0f", r / s }')
    per_w=$(awk -v s="$s_sb" -v w="$W" 'BEGIN { printf "%.2f", s / w }')
    s_st="n/a" ratio="n/a (no sysbench-tpcc at hand: SYSBENCH_TPCC unset)"
    if [ -n "$TPCC_LUA" ]; then
        log "$db: sysbench-tpcc prepare --scale=$W --threads=$THREADS"
        t0=$(date +%s%N)
        (cd "$SYSBENCH_TPCC" && "$SYSBENCH" "$@" --threads="$THREADS" --scale="$W" --tables=1 \
            tpcc.lua prepare) >"$LOGDIR/$db-sysbench-tpcc-prepare.log" 2>&1 ||
            { tail -n 20 "$LOGDIR/$db-sysbench-tpcc-prepare.log" >&2; die "$db: sysbench-tpcc prepare failed"; }
        t1=$(date +%s%N)
        (cd "$SYSBENCH_TPCC" && "$SYSBENCH" "$@" --threads="$THREADS" --scale="$W" --tables=1 \
            tpcc.lua cleanup) >/dev/null 2>&1 || true
        s_st=$(secs "$t0" "$t1")
        ratio=$(awk -v a="$s_st" -v b="$s_sb" 'BEGIN { printf "%.2fx", a / b }')
    fi
    rows+=("| $db | $W | $THREADS | $s_sb | $per_w | $rate | $s_st | $ratio |")
    stop_servers
    make_tmp
done

echo
echo "tpcc prepare, $W warehouses, $THREADS threads (sbench: prepare until indexes and foreign keys are in; check passed)"
echo
echo "| database | warehouses | threads | sbench s | s/warehouse | rows/s | sysbench-tpcc s | sysbench-tpcc / sbench |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
