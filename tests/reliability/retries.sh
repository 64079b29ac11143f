#!/bin/bash
# retries.sh: retried and failed transactions are counted exactly.  Runs
# hot_rows.lua (two +1 updates per transaction on a few hot rows):
#  - PostgreSQL, --pgsql-isolation=serializable --threads=4 --events=400:
#    "retried transactions" > 0, transactions == 400 and sum(v) == 2 * 400;
#  - the same with --max-retries=1: "failed transactions" > 0, transactions
#    + failed == 400 and sum(v) == 2 * transactions (a failed transaction
#    leaves nothing behind, a committed one is counted once);
#  - MariaDB, two rows updated in random order by 4 threads (InnoDB
#    deadlocks): "ignored errors" > 0 (retried with more events, at most 3
#    rounds, if a round had none) and sum(v) == 2 * transactions.
# Needs the servers of scripts/test.sh (SBT_PG*, SBT_MYSQL_*, SBT_BUILD).
source "$(dirname "$0")/lib.sh"
W=$SRC/tests/reliability/hot_rows.lua
PG="$(pg_args) --pgsql-isolation=serializable --hot-ordered=on"
MY="$(my_args) --hot-rows=2"

pg_q() { pg_sql -c "$1"; }
my_q() { my_sql -e "$1"; }

# hot_run NAME SQLFN EVENTS SBENCH_ARGS...: fresh table, a run; sets
# TRX RETRIED FAILED IGN SUM; returns non-zero when the run itself failed.
hot_run() {
    local name=$1 sqlfn=$2 events=$3; shift 3
    timeout 60 "$S" "$@" "$W" cleanup >/dev/null 2>&1
    timeout 60 "$S" "$@" "$W" prepare >"$T/$name.prep" 2>&1 || { cat "$T/$name.prep"; fail "$name: prepare"; return 1; }
    local t0=$SECONDS
    timeout -k 5 120 "$S" "$@" --threads=4 --events="$events" --time=90 "$W" run >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$?
    TRX=$(rep transactions "$T/$name.out")
    RETRIED=$(rep 'retried transactions' "$T/$name.out")
    FAILED=$(rep 'failed transactions' "$T/$name.out")
    IGN=$(rep 'ignored errors' "$T/$name.out")
    SUM=$($sqlfn "SELECT sum(v) FROM hot" </dev/null)
    timeout 60 "$S" "$@" "$W" cleanup >/dev/null 2>&1
    echo "$name: status $rc, ${TRX:-?} transactions, ${RETRIED:-0} retried, ${FAILED:-0} failed, ${IGN:-?} ignored errors, sum(v) ${SUM:-?}, $((SECONDS - t0))s"
    if [ "$rc" -ne 0 ]; then fail "$name: status $rc"; cat "$T/$name.err"; return 1; fi
    [ -n "$TRX" ] && [ -n "$SUM" ] || { fail "$name: no transactions line or no sum"; return 1; }
    RETRIED=${RETRIED:-0} FAILED=${FAILED:-0}
    return 0
}

# --- PostgreSQL serializable ------------------------------------------------
if hot_run pgsql_serializable pg_q 400 $PG; then
    [ "$RETRIED" -gt 0 ] || fail "pgsql_serializable: no retried transactions"
    [ "$TRX" -eq 400 ] || fail "pgsql_serializable: $TRX transactions, expected 400"
    [ "$SUM" -eq $((2 * TRX)) ] || fail "pgsql_serializable: sum(v) $SUM != 2 * $TRX"
    [ "$FAILED" -eq 0 ] || fail "pgsql_serializable: $FAILED failed transactions without --max-retries"
fi

# --- PostgreSQL serializable, --max-retries=1 ---------------------------------
if hot_run pgsql_max_retries pg_q 400 $PG --max-retries=1; then
    [ "$FAILED" -gt 0 ] || fail "pgsql_max_retries: no failed transactions"
    [ $((TRX + FAILED)) -eq 400 ] || fail "pgsql_max_retries: $TRX + $FAILED failed != 400 events"
    [ "$SUM" -eq $((2 * TRX)) ] || fail "pgsql_max_retries: sum(v) $SUM != 2 * $TRX"
fi

# --- MariaDB deadlocks -------------------------------------------------------
events=1000
for round in 1 2 3; do
    hot_run "mysql_deadlock_$round" my_q $events $MY || break
    [ "$SUM" -eq $((2 * TRX)) ] || fail "mysql_deadlock_$round: sum(v) $SUM != 2 * $TRX"
    [ "$IGN" -gt 0 ] && break
    [ "$round" -eq 3 ] && fail "mysql_deadlock: no ignored errors in 3 rounds"
    events=$((events * 4))
done

finish
