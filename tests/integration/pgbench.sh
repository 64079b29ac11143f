#!/bin/sh
# pgbench.sh TARGET: the pgbench workload (workloads/pgbench.lua) on one
# target (pgsql, mysql, sqlite, odbc-pg), checked against pgbench 15 itself and
# against the database:
#   - malformed scripts (unknown meta-command, bad expression, unbalanced
#     \if, \else alone, undefined variable, wrong arguments, unknown
#     function) refused before the run: exit 1, one line naming FILE:LINE;
#   - prepare (pgbench -i, init steps dtgvp, 2 threads): 100,000 accounts,
#     10 tellers, 1 branch per unit of scale, balances 0, primary keys;
#   - tpcb-like with 2 threads x 2 clients where the driver multiplexes:
#     sum(abalance) = sum(bbalance) = sum(tbalance) = sum(delta of history),
#     history rows = transactions in the report = 4 x --transactions;
#   - simple-update and select-only mixed by weight: the history rows are
#     the simple-update transactions of the report's types;
#   - tests/pgbench/meta.sql (every meta-command, portable SQL) run by
#     sbench on TARGET gives the rows pgbench gives on PostgreSQL
#     (same --random-seed, -D, clients, transactions);
#   - pgsql only: tests/pgbench/fast.sql, a script the C runner
#     (lua/l_pgscript.c) takes whole, gives pgbench's rows for the same
#     seed on 2 threads and on 2 clients sharing a thread;
#     tests/pgbench/expr.sql (116 \set expressions: integer and
#     double arithmetic, overflow edges, booleans and NULL, every function
#     including random*, hash*, permute with a fixed seed) stored by pgbench
#     and by sbench: the same text row for row; the tpcb-like run of
#     pgbench and of sbench from the same initial state with the same seed
#     and -M prepared: the same pg_stat_statements (query, calls, rows) and
#     the same final tables; -M simple and extended give the same tables.
# Environment: see wl-lib.sh.  A missing server or pgbench is a failure.
set -u
[ $# -eq 1 ] || { echo "usage: $0 pgsql|mysql|sqlite|odbc-pg" >&2; exit 2; }
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
wl_setup "$1"
HERE=$(cd "$(dirname "$0")/../pgbench" && pwd)
command -v pgbench >/dev/null || die "pgbench is not installed"
SEED=4242 TX=25

PGB() { # pgbench against the test server, database sbtest
    pgbench -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest "$@" sbtest
}
pgq() { psql -X -qAt -v ON_ERROR_STOP=1 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "$1"; }
export PGPASSWORD=$SBT_PGPASSWORD
v=$(pgq "SELECT 1") || die "PostgreSQL at $SBT_PGHOST:$SBT_PGPORT does not answer (pgbench's reference runs need it)"

case "$TARGET" in
pgsql | mysql) CLIENTS="--threads=2 --clients=4" NCLI=4 ;;
*) CLIENTS="--threads=2" NCLI=2 ;;
esac

# --- malformed scripts: refused before the run, naming file and line
for case in unknown_meta:2 bad_expr:2 unbalanced_if:2 else_alone:3 undefined_var:4 bad_args:1 bad_func:1; do
    f=${case%%:*} line=${case#*:}
    sb "bad-$f" --time=1 pgbench run "--file=$HERE/bad/$f.sql"
    checks=$((checks + 1))
    if [ "$rc" = 0 ]; then
        fail "bad script $f: exit 0"; show_out 5
    elif [ "$(grep -c "$f.sql:$line: " "$OUT")" != 1 ] || grep -q "traceback\|Threads started" "$OUT"; then
        fail "bad script $f: not one line naming $f.sql:$line before the run"; show_out 5
    else
        echo "ok   bad script $f: $(grep "$f.sql" "$OUT")"
    fi
done
sb bad-mode --time=1 pgbench run --query-mode=fast
expect_eq "bad -M: exit status" "$rc" 1
sb bad-builtin --time=1 pgbench run --builtin=tpcc
expect_eq "unknown builtin: exit status" "$rc" 1

# --- prepare
"$SBENCH" $SB_DRV pgbench cleanup >/dev/null 2>&1
sb prepare --threads=2 pgbench prepare --scale=2
[ "$rc" = 0 ] || { show_out; die "prepare exited $rc"; }
expect_eq "accounts" "$(dbq "SELECT COUNT(*) FROM pgbench_accounts")" 200000
expect_eq "accounts per branch" "$(dbq "SELECT COUNT(*) FROM pgbench_accounts WHERE bid = 2 AND aid > 100000")" 100000
expect_eq "tellers" "$(dbq "SELECT COUNT(*) FROM pgbench_tellers")" 20
expect_eq "branches" "$(dbq "SELECT COUNT(*) FROM pgbench_branches")" 2
expect_eq "balances" "$(dbq "SELECT COUNT(*) FROM pgbench_accounts WHERE abalance <> 0")" 0
dup=$(dbq "INSERT INTO pgbench_branches(bid, bbalance) VALUES (1, 0)" 2>&1)
checks=$((checks + 1))
case "$dup" in *[Dd]uplicate* | *UNIQUE* | *unique*) echo "ok   primary key on branches" ;; *) fail "no primary key on branches: '$dup'" ;; esac

# invariants NAME TXNS
invariants() {
    s="$(dbq "SELECT SUM(abalance) FROM pgbench_accounts") $(dbq "SELECT SUM(bbalance) FROM pgbench_branches")"
    s="$s $(dbq "SELECT SUM(tbalance) FROM pgbench_tellers") $(dbq "SELECT COALESCE(SUM(delta), 0) FROM pgbench_history")"
    a=${s%% *}
    expect_eq "$1: sums of abalance bbalance tbalance delta" "$s" "$a $a $a $a"
    expect_eq "$1: history rows" "$(dbq "SELECT COUNT(*) FROM pgbench_history")" "$2"
}

# --- tpcb-like
# shellcheck disable=SC2086
sb tpcb $CLIENTS --time=0 --forever pgbench run --transactions=$TX --random-seed=$SEED
[ "$rc" = 0 ] || { show_out; die "tpcb-like run exited $rc"; }
parse_report "$OUT"
expect_eq "tpcb-like: transactions in the report" "$R_TXN" $((NCLI * TX))
invariants tpcb-like $((NCLI * TX))

# --- simple-update and select-only by weight (history emptied first, as pgbench)
# shellcheck disable=SC2086
sb mix $CLIENTS --time=0 --forever pgbench run --transactions=$TX --builtin=simple-update@1,select-only@3 --query-mode=prepared
[ "$rc" = 0 ] || { show_out; die "mixed run exited $rc"; }
nsu=$(awk '$1 == "simple-update" && /per sec/ { print $2 }' "$OUT")
nso=$(awk '$1 == "select-only" && /per sec/ { print $2 }' "$OUT")
expect_eq "mix: simple-update + select-only" "$((${nsu:-0} + ${nso:-0}))" $((NCLI * TX))
expect_eq "mix: history rows = simple-update transactions" "$(dbq "SELECT COUNT(*) FROM pgbench_history")" "${nsu:-none}"
expect_eq "mix: accounts sum = history sum" "$(dbq "SELECT (SELECT SUM(abalance) FROM pgbench_accounts) - (SELECT SUM(delta) FROM pgbench_history) - (SELECT SUM(bbalance) FROM pgbench_branches)")" 0

# --- meta.sql: sbench on TARGET vs pgbench on PostgreSQL
META_DDL="CREATE TABLE meta_out (client INT, base INT, n INT, branch INT, sh INT, doubled INT, plus INT, seven INT, h INT, scale INT, k INT)"
pgq "DROP TABLE IF EXISTS meta_out" >/dev/null 2>&1
pgq "$META_DDL" || die "cannot create meta_out on PostgreSQL"
PGB -n -M extended -c 2 -t 5 -D k=9 --random-seed=$SEED -f "$HERE/meta.sql" >"$SBT_TMP/pgb-meta.out" 2>&1 ||
    { sed 's/^/     | /' "$SBT_TMP/pgb-meta.out"; die "pgbench on meta.sql failed"; }
ROWSQ="SELECT client, base, n, branch, sh, doubled, plus, seven, h, scale, k FROM meta_out ORDER BY client, base, n, branch, sh, doubled, plus, seven, h"
want=$(pgq "$ROWSQ" | tr '|' ' ')
[ "$KIND" = pg ] && pgq "DROP TABLE meta_out"
:
dbq "DROP TABLE IF EXISTS meta_out" >/dev/null 2>&1
dbq "$META_DDL"
for mode in extended prepared; do
    dbq "DELETE FROM meta_out"
    sb "meta-$mode" --threads=2 --time=0 --forever pgbench run --transactions=5 --define=k=9 \
        --random-seed=$SEED --query-mode=$mode --no-vacuum "--file=$HERE/meta.sql"
    [ "$rc" = 0 ] || { show_out; fail "meta.sql -M $mode exited $rc"; continue; }
    got=$(dbq "$ROWSQ" | tr '|\t' '  ')
    checks=$((checks + 1))
    if [ "$got" = "$want" ] && [ -n "$want" ]; then
        echo "ok   meta.sql -M $mode: $(echo "$got" | wc -l) rows as pgbench's"
    else
        fail "meta.sql -M $mode: rows differ from pgbench's"
        printf '%s\n' "$want" >"$SBT_TMP/meta-want"; printf '%s\n' "$got" >"$SBT_TMP/meta-got"
        diff "$SBT_TMP/meta-want" "$SBT_TMP/meta-got" | head -10
    fi
done
dbq "DROP TABLE meta_out"

if [ "$TARGET" = pgsql ]; then
    # --- fast.sql: the C runner (lua/l_pgscript.c) gives pgbench's rows,
    # on threads and on clients sharing a thread (statements that yield)
    pgq "DROP TABLE IF EXISTS fast_out; CREATE TABLE fast_out (client INT, n INT, m INT, w INT, b INT, c INT)" >/dev/null
    FQ="SELECT client, n, m, w, b, c FROM fast_out ORDER BY client, n, m, w, b, c"
    PGB -n -M prepared -c 2 -t 40 --random-seed=$SEED -f "$HERE/fast.sql" >"$SBT_TMP/pgb-fast.out" 2>&1 ||
        { tail -5 "$SBT_TMP/pgb-fast.out"; die "pgbench on fast.sql failed"; }
    pgq "$FQ" >"$SBT_TMP/fast-want"
    for how in "--threads=2" "--threads=1 --clients=2"; do
        pgq "TRUNCATE fast_out"
        # shellcheck disable=SC2086
        sb fast $how --time=0 --forever --verbosity=5 pgbench run --transactions=40 \
            --random-seed=$SEED --query-mode=prepared --no-vacuum "--file=$HERE/fast.sql"
        [ "$rc" = 0 ] || show_out
        pgq "$FQ" >"$SBT_TMP/fast-got"
        checks=$((checks + 1))
        if ! grep -q "fast.sql: its commands run in C" "$OUT"; then
            fail "fast.sql $how: the C runner did not take the script"; grep "sbench pgbench: script" "$OUT"
        elif cmp -s "$SBT_TMP/fast-want" "$SBT_TMP/fast-got" && [ "$(wc -l <"$SBT_TMP/fast-got")" = 80 ]; then
            echo "ok   fast.sql $how (C runner): 80 rows as pgbench's"
        else
            fail "fast.sql $how: rows differ from pgbench's"; diff "$SBT_TMP/fast-want" "$SBT_TMP/fast-got" | head -10
        fi
    done
    pgq "DROP TABLE fast_out" >/dev/null

    # --- expressions: pgbench and sbench store the same text
    pgq "DROP TABLE IF EXISTS expr_out; CREATE TABLE expr_out (client INT, n INT, v TEXT)" >/dev/null
    EXQ="SELECT client, n, v FROM expr_out ORDER BY client, n, v" # not ctid: where concurrent inserts land varies
    PGB -n -M simple -c 2 -t 2 -D k=7 --random-seed=$SEED -f "$HERE/expr.sql" >"$SBT_TMP/pgb-expr.out" 2>&1 ||
        { tail -5 "$SBT_TMP/pgb-expr.out"; die "pgbench on expr.sql failed"; }
    pgq "$EXQ" >"$SBT_TMP/expr-want"
    pgq "TRUNCATE expr_out"
    sb expr --threads=2 --time=0 --forever pgbench run --transactions=2 --define=k=7 \
        --random-seed=$SEED --no-vacuum "--file=$HERE/expr.sql"
    [ "$rc" = 0 ] || show_out
    pgq "$EXQ" >"$SBT_TMP/expr-got"
    checks=$((checks + 1))
    if cmp -s "$SBT_TMP/expr-want" "$SBT_TMP/expr-got" && [ -s "$SBT_TMP/expr-want" ]; then
        echo "ok   expr.sql: $(wc -l <"$SBT_TMP/expr-got") values as pgbench's"
    else
        fail "expr.sql: values differ from pgbench's"; diff "$SBT_TMP/expr-want" "$SBT_TMP/expr-got" | head -20
    fi
    pgq "DROP TABLE expr_out"

    # --- tpcb-like: pgbench and sbench from the same state, same seed
    state() {
        pgq "SELECT md5(string_agg(aid || ':' || abalance, ',' ORDER BY aid)) FROM pgbench_accounts WHERE abalance <> 0"
        pgq "SELECT string_agg(tid || ':' || tbalance, ',' ORDER BY tid) FROM pgbench_tellers"
        pgq "SELECT string_agg(bid || ':' || bbalance, ',' ORDER BY bid) FROM pgbench_branches"
        pgq "SELECT md5(string_agg(tid || ':' || bid || ':' || aid || ':' || delta, ',' ORDER BY tid, bid, aid, delta)) FROM pgbench_history"
    }
    stmts() {
        adminq "SELECT query || ' | ' || calls || ' | ' || rows FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'sbtest' AND query ~* '^(update|select abalance|insert|begin|end)' ORDER BY query"
    }
    fresh() { sb "prepare-$1" --threads=2 pgbench prepare --scale=1 >/dev/null; [ "$rc" = 0 ] || { show_out; die "prepare exited $rc"; }; }
    fresh pgbench
    adminq "SELECT pg_stat_statements_reset()" >/dev/null
    PGB -n -M prepared -c 2 -t $TX --random-seed=$SEED >"$SBT_TMP/pgb-tpcb.out" 2>&1 ||
        { tail -5 "$SBT_TMP/pgb-tpcb.out"; die "pgbench tpcb-like failed"; }
    st_want=$(stmts) state_want=$(state)
    for mode in prepared simple extended; do
        fresh "$mode"
        adminq "SELECT pg_stat_statements_reset()" >/dev/null
        sb "tpcb-$mode" --threads=2 --time=0 --forever pgbench run --transactions=$TX \
            --random-seed=$SEED --query-mode=$mode --no-vacuum
        [ "$rc" = 0 ] || show_out
        expect_eq "tpcb-like -M $mode: final tables as pgbench's" "$(state)" "$state_want"
        if [ "$mode" = prepared ]; then
            expect_eq "tpcb-like -M prepared: pg_stat_statements as pgbench's" "$(stmts)" "$st_want"
        fi
    done
    invariants "tpcb-like (pgbench's seed)" $((2 * TX))

    # --- sbench pgbench: pgbench's own command line, the same tables
    CONN="-h $SBT_PGHOST -p $SBT_PGPORT -U sbtest"
    # shellcheck disable=SC2086
    "$SBENCH" pgbench -i -s 1 $CONN sbtest >"$SBT_TMP/cli-init.out" 2>&1 || { tail -5 "$SBT_TMP/cli-init.out"; fail "sbench pgbench -i failed"; }
    # shellcheck disable=SC2086
    "$SBENCH" pgbench -n -M prepared -c 2 -j 1 -t $TX --random-seed=$SEED $CONN sbtest >"$SBT_TMP/cli-run.out" 2>&1 ||
        { tail -5 "$SBT_TMP/cli-run.out"; fail "sbench pgbench run failed"; }
    expect_eq "sbench pgbench: final tables as pgbench's" "$(state)" "$state_want"
    expect_eq "sbench pgbench: processed line" "$(grep '^number of transactions actually processed' "$SBT_TMP/cli-run.out")" \
        "$(grep '^number of transactions actually processed' "$SBT_TMP/pgb-tpcb.out")"
    for line in "transaction type" "query mode" "number of clients" "number of threads" "number of failed"; do
        expect_eq "sbench pgbench: report line '$line'" "$(grep "^$line" "$SBT_TMP/cli-run.out")" "$(grep "^$line" "$SBT_TMP/pgb-tpcb.out")"
    done
    # pgbench's own -i and sbench's give the same tables
    PGB -i -s 1 -q >/dev/null 2>&1 || fail "pgbench -i failed"
    init_state() { pgq "SELECT count(*), sum(aid), sum(bid), sum(abalance), count(*) FILTER (WHERE filler = '') FROM pgbench_accounts" ; pgq "SELECT count(*), sum(bid) FROM pgbench_tellers"; }
    want_init=$(init_state)
    # shellcheck disable=SC2086
    "$SBENCH" pgbench -i -s 1 $CONN sbtest >/dev/null 2>&1
    expect_eq "sbench pgbench -i: tables as pgbench -i's" "$(init_state)" "$want_init"
    # shellcheck disable=SC2086
    "$SBENCH" pgbench -i -I dtGvp -s 1 $CONN sbtest >/dev/null 2>&1
    expect_eq "sbench pgbench -i -I dtGvp (server-side): tables as pgbench -i's" "$(init_state)" "$want_init"
    # shellcheck disable=SC2086
    "$SBENCH" pgbench -v -t 2 $CONN sbtest >"$SBT_TMP/cli-v.out" 2>&1
    expect_eq "sbench pgbench -v" "$(grep '^number of transactions actually processed' "$SBT_TMP/cli-v.out")" \
        "number of transactions actually processed: 2/2"
    "$SBENCH" pgbench --help >"$SBT_TMP/cli-help.out" 2>&1; hrc=$?
    expect_eq "sbench pgbench --help: exit 0, lists -c, -r and -d, the refused --tablespace" \
        "$hrc $(grep -c '^  -c, --client=VALUE$' "$SBT_TMP/cli-help.out") $(grep -c '^  -r, --report-per-command$' "$SBT_TMP/cli-help.out") $(grep -c '^  -d, --debug$' "$SBT_TMP/cli-help.out") $(grep -c '^  --tablespace: ' "$SBT_TMP/cli-help.out")" "0 1 1 1 1"
    # option errors exit 1 with one line, as pgbench's (the whole list of
    # pgbench's checks: pgbench_conformance.sh)
    for bad in "--progress-timestamp" "-t 5 -T 5" "-Z" "-c 0" "-F 1" "--rate=0"; do
        # shellcheck disable=SC2086
        "$SBENCH" pgbench $bad $CONN sbtest >"$SBT_TMP/cli-bad.out" 2>&1; brc=$?
        checks=$((checks + 1))
        if [ "$brc" = 1 ] && [ "$(wc -l <"$SBT_TMP/cli-bad.out")" = 1 ]; then
            echo "ok   sbench pgbench $bad refused: $(cat "$SBT_TMP/cli-bad.out")"
        else
            fail "sbench pgbench $bad: exit $brc, $(wc -l <"$SBT_TMP/cli-bad.out") lines"
        fi
    done
else
    # --- sbench pgbench on another driver (--db-driver and its options pass through)
    # shellcheck disable=SC2086
    "$SBENCH" pgbench $SB_DRV -i -s 1 >"$SBT_TMP/cli-init.out" 2>&1 || { tail -5 "$SBT_TMP/cli-init.out"; fail "sbench pgbench -i failed"; }
    rm -f "$SBT_TMP"/cli-txlog.*
    # shellcheck disable=SC2086
    "$SBENCH" pgbench $SB_DRV -c 2 -j 2 -t $TX -N -r -l --log-prefix="$SBT_TMP/cli-txlog" >"$SBT_TMP/cli-run.out" 2>&1 ||
        { tail -5 "$SBT_TMP/cli-run.out"; fail "sbench pgbench run failed"; }
    expect_eq "sbench pgbench -N: processed" "$(grep '^number of transactions actually processed' "$SBT_TMP/cli-run.out")" \
        "number of transactions actually processed: $((2 * TX))/$((2 * TX))"
    expect_eq "sbench pgbench -N: history rows" "$(dbq "SELECT COUNT(*) FROM pgbench_history")" $((2 * TX))
    expect_eq "sbench pgbench -N -l: log lines = transactions" "$(cat "$SBT_TMP"/cli-txlog.* | wc -l)" $((2 * TX))
    expect_eq "sbench pgbench -N -r: a latency line per command of simple-update" \
        "$(sed -n '/^statement latencies/,$p' "$SBT_TMP/cli-run.out" | grep -c '^ *[0-9.]* *0  ')" 9
    expect_eq "sbench pgbench -N: accounts sum = history sum" "$(dbq "SELECT (SELECT SUM(abalance) FROM pgbench_accounts) - (SELECT SUM(delta) FROM pgbench_history)")" 0
fi

# --- prepare's options where the database has them, refused where not
if [ "$KIND" = pg ]; then
    sb prepare-opts --threads=2 pgbench prepare --scale=1 --partitions=3 --partition-method=hash \
        --foreign-keys --unlogged-tables --fillfactor=90
    [ "$rc" = 0 ] || show_out
    expect_eq "--partitions=3: partitions of pgbench_accounts" \
        "$(dbq "SELECT count(*) FROM pg_inherits WHERE inhparent = 'pgbench_accounts'::regclass")" 3
    expect_eq "--partitions: rows in every partition" \
        "$(dbq "SELECT count(*) FROM (SELECT tableoid FROM pgbench_accounts GROUP BY tableoid HAVING count(*) > 20000) p")" 3
    expect_eq "--unlogged-tables" "$(dbq "SELECT relpersistence FROM pg_class WHERE relname = 'pgbench_tellers'")" u
    expect_eq "--fillfactor=90" "$(dbq "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'pgbench_branches'")" fillfactor=90
    expect_eq "--foreign-keys: constraints" "$(dbq "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conparentid = 0 AND conname LIKE 'pgbench_%'")" 5
    # shellcheck disable=SC2086
    sb tpcb-fk $CLIENTS --time=0 --forever pgbench run --transactions=10
    [ "$rc" = 0 ] || show_out
    invariants "partitioned, foreign keys" $((NCLI * 10))
else
    for opt in --unlogged-tables --partitions=2 --init-steps=dtG; do
        sb "refuse$opt" pgbench prepare $opt
        checks=$((checks + 1))
        if [ "$rc" = 1 ] && grep -q "only PostgreSQL\|PostgreSQL's" "$OUT"; then echo "ok   $opt refused on $TARGET"
        else fail "$opt on $TARGET: exit $rc"; show_out 3; fi
    done
fi

# --- a PostgreSQL-only statement: runs on PostgreSQL, elsewhere a clear error naming the line
sb pg-only --time=0 --forever pgbench run --transactions=1 --no-vacuum "--file=$HERE/pg_only.sql"
checks=$((checks + 1))
if [ "$KIND" = pg ]; then
    if [ "$rc" = 0 ]; then echo "ok   pg_only.sql runs on $TARGET"; else fail "pg_only.sql on $TARGET: exit $rc"; show_out 3; fi
elif [ "$rc" != 0 ] && [ "$(grep -c "pg_only.sql:5: " "$OUT")" = 1 ] && ! grep -q traceback "$OUT"; then
    echo "ok   pg_only.sql on $TARGET: $(grep "pg_only.sql:5" "$OUT")"
else
    fail "pg_only.sql on $TARGET: exit $rc, no one line naming pg_only.sql:5"; show_out 5
fi

# --- cleanup
sb cleanup pgbench cleanup
expect_eq "cleanup: exit status" "$rc" 0
expect_eq "cleanup: no pgbench table left" "$(table_exists pgbench_accounts)$(table_exists pgbench_history)" 00

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
