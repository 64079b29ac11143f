#!/bin/sh
# workloads.sh TARGET: every workload end to end on one target (pgsql,
# mysql, odbc-pg, odbc-maria, odbc-sqlite, sqlite), with numbers checked
# against the database itself:
#   - prepare: row counts (psql / mariadb / sqlite3) = tables * table_size;
#     a second prepare without --force fails with a clear message and leaves
#     the tables intact; with --force it succeeds;
#   - run (--events=200, fixed --rand-seed): the report is consistent
#     (read+write+other = total = queries, transactions = events, the
#     workload's query mix per transaction) and agrees with the server's
#     counters (see check_server_counts in wl-lib.sh; SQLite: triggers
#     count the written rows); row counts after the run fit the writes;
#   - cleanup: no sbtest table remains, an unrelated table (keepme) does.
# Environment: see wl-lib.sh.  Exits non-zero on any failed check; a
# missing server is a failure.
set -u
[ $# -eq 1 ] || { echo "usage: $0 pgsql|mysql|odbc-pg|odbc-maria|odbc-sqlite|sqlite" >&2; exit 2; }
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
wl_setup "$1"

TABLES=2 SIZE=500 THREADS=2 EVENTS=200
# sqliteodbc: two deferred transactions that both want to write deadlock,
# and sqliteodbc waits out its whole busy timeout (10 s) before one fails;
# the native sqlite driver resolves it at once.  One thread for ODBC+SQLite.
[ "$TARGET" = odbc-sqlite ] && THREADS=1
COMMON="--tables=$TABLES --table-size=$SIZE --threads=$THREADS"

dbq "DROP TABLE IF EXISTS keepme" >/dev/null 2>&1
dbq "CREATE TABLE keepme (id INTEGER PRIMARY KEY)" >/dev/null || die "cannot create table keepme"
dbq "INSERT INTO keepme VALUES (1)" >/dev/null
# Leftovers of an earlier failed run would make prepare refuse.
# shellcheck disable=SC2086
"$SBENCH" $SB_DRV $COMMON oltp_read_write cleanup >/dev/null 2>&1
# shellcheck disable=SC2086
"$SBENCH" $SB_DRV --threads=$THREADS bulk_insert cleanup >/dev/null 2>&1

run_workload() {
    w=$1
    echo "--- $w on $TARGET"
    tables=$TABLES opts=$COMMON
    # bulk_insert has no --tables/--table-size: one table per thread
    [ "$w" = bulk_insert ] && tables=$THREADS opts="--threads=$THREADS"
    sb "$w-prepare" $opts "$w" prepare
    [ "$rc" = 0 ] || { fail "$w prepare exited $rc"; show_out; return; }
    case "$w" in
    bulk_insert) want_rows=0 ;;  # prepare only creates the tables
    *) want_rows=$((TABLES * SIZE)) ;;
    esac
    before=$(rows_total "$tables")
    expect_eq "$w: rows after prepare" "$before" "$want_rows"
    [ "$KIND" = sqlite ] && wl_triggers "$tables"

    snap_before
    sb "$w-run" $opts --events=$EVENTS --time=0 --rand-seed=4242 "$w" run
    [ "$rc" = 0 ] || { fail "$w run exited $rc"; show_out; }
    snap_after
    parse_report "$OUT"
    after=$(rows_total "$tables")

    # The report on its own.
    expect_eq "$w: read+write+other = total" $((R_READ + R_WRITE + R_OTHER)) "$R_TOTAL"
    expect_eq "$w: queries = total" "$R_QUERIES" "$R_TOTAL"
    expect_eq "$w: total number of events" "$R_EVENTS" "$EVENTS"
    expect_eq "$w: reconnects" "$R_RECONN" 0
    if [ "$w" = bulk_insert ]; then
        expect_eq "$w: transactions = events" "$R_TXN" "$EVENTS"
        # every event is one row; the rows leave in multi-row INSERTs
        expect_eq "$w: rows after run = events" "$after" "$EVENTS"
        expect_range "$w: INSERT statements" "$R_WRITE" 1 "$THREADS"
        trx=0 margin=$THREADS
        [ "$TARGET" = odbc-pg ] && margin=$((margin + 20 * THREADS))
        # bulk INSERTs autocommit: count them as transactions
        [ "$KIND" = maria ] && R_TXN=$R_WRITE
    else
        set -- $(mix "$w")
        r=$1 wr=$2 o=$3 trx=$4 nprep=$5
        expect_eq "$w: transactions = events" "$R_TXN" "$EVENTS"
        # A restarted event (ignored error) sends its queries again.
        expect_range "$w: reads" "$R_READ" $((R_TXN * r)) $(((R_TXN + R_IGN) * r))
        expect_range "$w: writes" "$R_WRITE" $((R_TXN * wr)) $(((R_TXN + R_IGN) * wr))
        expect_range "$w: others" "$R_OTHER" $((R_TXN * o)) $(((R_TXN + R_IGN) * (o + 1)))
        # pg: xact_commit also counts, per connection, its session setup
        # and the protocol-level Parse (prepare) and Close of each prepared
        # statement, each in its own implicit transaction: at most
        # 1 + 2 * prepared statements per connection, whatever --events is
        # (measured: 2 threads, oltp_point_select: +10 for 10 or 200 events).
        margin=$((THREADS * (1 + 2 * nprep)))
        # psqlODBC runs its own session-setup statements (DateStyle,
        # extra_float_digits, version and type queries...), each in its own
        # transaction: up to 20 per connection (measured 9 to 17).
        [ "$TARGET" = odbc-pg ] && margin=$((margin + 20 * THREADS))
        case "$w" in
        oltp_insert) expect_eq "$w: rows after run = rows before + writes" "$after" $((before + R_WRITE)) ;;
        oltp_delete) expect_range "$w: rows deleted" $((before - after)) 1 "$R_WRITE" ;;
        *) expect_eq "$w: rows after run (unchanged)" "$after" "$before" ;;
        esac
    fi
    case "$KIND" in
    sqlite)
        if [ "$w" = oltp_delete ]; then
            # deleting an id deleted before touches no row
            expect_eq "$w: rows deleted (triggers)" "$D_WR" $((before - after))
        else
            # SQLite runs write transactions one at a time: every UPDATE
            # and DELETE finds its row, every INSERT adds one (bulk: many)
            [ "$w" = bulk_insert ] && expect_eq "$w: rows inserted (triggers)" "$D_WR" "$EVENTS" ||
                expect_eq "$w: rows written (triggers) = report write" "$D_WR" "$R_WRITE"
        fi ;;
    *) check_server_counts "$trx" "$margin" "$w" ;;
    esac

    sb "$w-cleanup" $opts "$w" cleanup
    [ "$rc" = 0 ] || { fail "$w cleanup exited $rc"; show_out; }
    expect_eq "$w: sbtest tables after cleanup" "$(sbtest_tables)" 0
    expect_eq "$w: keepme after cleanup" "$(table_exists keepme)" 1
}

# prepare twice: refused without --force, tables intact; --force works.
check_force() {
    echo "--- prepare twice on $TARGET"
    sb force-1 $COMMON oltp_read_only prepare
    [ "$rc" = 0 ] || { fail "first prepare exited $rc"; show_out; return; }
    dbq "UPDATE sbtest1 SET k = -7 WHERE id = 3" >/dev/null
    sb force-2 $COMMON oltp_read_only prepare
    checks=$((checks + 1))
    if [ "$rc" = 0 ]; then
        fail "second prepare without --force succeeded"
    elif ! grep -q "already exists.*--force" "$OUT"; then
        fail "second prepare: no clear message"; show_out
    else
        echo "ok   second prepare refused: $(grep -m1 'already exists' "$OUT" | cut -c1-110)"
    fi
    expect_eq "tables intact after refused prepare: rows" "$(rows_total $TABLES)" $((TABLES * SIZE))
    expect_eq "tables intact after refused prepare: marked row" "$(dbq 'SELECT k FROM sbtest1 WHERE id = 3')" -7
    sb force-3 $COMMON --force=on oltp_read_only prepare
    expect_eq "prepare --force exit status" "$rc" 0
    expect_eq "rows after prepare --force" "$(rows_total $TABLES)" $((TABLES * SIZE))
    expect_eq "marked row gone after prepare --force" "$(dbq 'SELECT count(*) FROM sbtest1 WHERE k = -7')" 0
    sb force-4 $COMMON oltp_read_only cleanup
    expect_eq "sbtest tables after cleanup" "$(sbtest_tables)" 0
}

start=$(date +%s)
for w in ${SBT_WORKLOADS:-oltp_read_write oltp_read_only oltp_write_only oltp_point_select \
        oltp_insert oltp_update_index oltp_update_non_index oltp_delete \
        select_random_points select_random_ranges bulk_insert}; do
    run_workload "$w"
done
check_force
expect_eq "keepme still holds its row" "$(dbq 'SELECT count(*) FROM keepme')" 1
dbq "DROP TABLE keepme" >/dev/null
echo "workloads.sh $TARGET: $checks checks, $failures failed, $(($(date +%s) - start)) s"
[ "$failures" -eq 0 ]
