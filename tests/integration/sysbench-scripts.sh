#!/bin/sh
# sysbench-scripts.sh TARGET (pgsql | mysql): the stock sysbench 1.0 Lua
# scripts (Debian's sysbench package, /usr/share/sysbench) run unmodified
# under sbench: oltp_read_write and oltp_point_select prepare / run /
# cleanup, with the report checked against the server's own counters; and
# sbench's oltp prewarm command against sysbench's on the same tables; a
# statement with a placeholder on a missing table fails at prepare (MySQL).
. "$(dirname "$0")/wl-lib.sh"
wl_setup "$1"
dir=/usr/share/sysbench
[ -f "$dir/oltp_read_write.lua" ] || die "sysbench's scripts are not installed in $dir (apt-get install sysbench)"
THREADS=2 EVENTS=200
opts="--tables=2 --table-size=500 --threads=$THREADS"
for w in oltp_read_write oltp_point_select; do
    sb "$w-clean0" $opts "$dir/$w.lua" cleanup
    sb "$w-prepare" $opts "$dir/$w.lua" prepare
    [ "$rc" = 0 ] || { fail "$w prepare exited $rc"; show_out; continue; }
    expect_eq "$w: rows after prepare" "$(rows_total 2)" 1000
    snap_before
    sb "$w-run" $opts --events=$EVENTS --time=0 --rand-seed=7 "$dir/$w.lua" run
    [ "$rc" = 0 ] || { fail "$w run exited $rc"; show_out; }
    snap_after
    parse_report "$OUT"
    expect_eq "$w: transactions" "$R_TXN" "$EVENTS"
    if [ "$w" = oltp_read_write ]; then
        # 14 reads, 4 writes, BEGIN + COMMIT per transaction; restarted
        # events send their queries again
        expect_range "$w: reads" "$R_READ" $((R_TXN * 14)) $(((R_TXN + R_IGN) * 14))
        expect_range "$w: writes" "$R_WRITE" $((R_TXN * 4)) $(((R_TXN + R_IGN) * 4))
        trx=1
    else
        expect_eq "$w: reads" "$R_READ" "$EVENTS"
        trx=0
    fi
    # pg: session setup and the Parse/Close of each prepared statement are
    # implicit transactions (see workloads.sh); the stock scripts prepare up
    # to 9 statements per table plus BEGIN and COMMIT
    margin=$((THREADS * (1 + 2 * (2 * 9 + 2))))
    if [ "$KIND" = pg ]; then
        # the stock scripts send BEGIN/COMMIT as prepared statements, which
        # pg_stat_statements does not track: compare reads, writes and
        # xact_commit
        expect_eq "$w: pg_stat_statements SELECT calls = report read" "$D_SEL" "$R_READ"
        expect_eq "$w: pg_stat_statements DML calls = report write" "$D_WR" "$R_WRITE"
        if [ "$trx" = 1 ]; then want=$R_TXN; else want=$R_READ; fi
        expect_range "$w: pg_stat_database xact_commit delta" "$D_COMMIT" "$want" $((want + margin))
    else
        check_server_counts "$trx" "$margin" "$w"
    fi
    sb "$w-cleanup" $opts "$dir/$w.lua" cleanup
    [ "$rc" = 0 ] || { fail "$w cleanup exited $rc"; show_out; }
    expect_eq "$w: sbtest tables after cleanup" "$(sbtest_tables)" 0
done
# ---- prewarm: sysbench 1.0.20's oltp command (MySQL only), sbench's workload
# against sysbench's own script run by sysbench on the same tables ----
P="--tables=3 --table-size=1000 --threads=2"
sb prewarm-prepare $P oltp_read_only prepare
[ "$rc" = 0 ] || { fail "prepare for prewarm exited $rc"; show_out; }
if [ "$KIND" = maria ]; then
    # Com_analyze and the rows the reads scan, as the server counts them
    counts() { adminq "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_analyze','Handler_read_rnd_next')" | awk '{printf "%s ", $2}'; }
    c0=$(counts)
    sb prewarm $P oltp_read_only prewarm
    c1=$(counts)
    [ "$rc" = 0 ] || { fail "sbench prewarm exited $rc"; show_out; }
    # each table's line looked for anywhere: two threads printing at once
    # run their lines together ('...sbtest2Prewarming table sbtest1')
    sb_lines=$(grep -o 'Prewarming table sbtest[0-9]*' "$OUT" | sort | tr '\n' ' ')
    # shellcheck disable=SC2086
    sysbench $SY_DRV $P "$dir/oltp_read_only.lua" prewarm >"$SBT_TMP/sy-prewarm.out" 2>&1; sy_rc=$?
    c2=$(counts)
    expect_eq "prewarm: exit status (sysbench's)" "$rc" "$sy_rc"
    expect_eq "prewarm: the tables named (sysbench's lines)" "$sb_lines" "$(grep -o 'Prewarming table sbtest[0-9]*' "$SBT_TMP/sy-prewarm.out" | sort | tr '\n' ' ')"
    d_sb=$(echo "$c0 $c1" | awk '{print $3 - $1, $4 - $2}')
    d_sy=$(echo "$c1 $c2" | awk '{print $3 - $1, $4 - $2}')
    expect_eq "prewarm: ANALYZE TABLE count and rows read (server counters) = sysbench's" "$d_sb" "$d_sy"
    expect_range "prewarm: ANALYZE TABLE per table" "${d_sb% *}" 3 3
    expect_range "prewarm: rows read >= both reads of every row" "${d_sb#* }" 6000 1000000
else
    sb prewarm $P oltp_read_only prewarm
    expect_eq "prewarm on $TARGET: exit 1, one line saying MySQL only" \
        "$rc $(grep -c 'prewarm is MySQL only' "$OUT")" "1 1"
fi
sb prewarm-cleanup $P oltp_read_only cleanup

# ---- con:prepare of a statement with a placeholder on a missing table: on
# MySQL the server refuses it at prepare, and sysbench fails at thread_init ----
if [ "$KIND" = maria ]; then
    cat > "$SBT_TMP/prep_missing.lua" <<'LUA'
function thread_init()
   con = sysbench.sql.driver():connect()
   stmt = con:prepare("SELECT c FROM no_such_table WHERE id = ?")
end
function event() end
LUA
    sb prep-missing --events=5 "$SBT_TMP/prep_missing.lua" run
    # shellcheck disable=SC2086
    sysbench $SY_DRV --events=5 "$SBT_TMP/prep_missing.lua" run >"$SBT_TMP/sy-prep.out" 2>&1; sy_rc=$?
    expect_eq "prepare on a missing table: exit status (sysbench's)" "$rc" "$sy_rc"
    expect_eq "prepare on a missing table: error 1146 before the threads start (both)" \
        "$(grep -c 1146 "$OUT") $(grep -c 'Threads started' "$OUT")" \
        "$(grep -c 1146 "$SBT_TMP/sy-prep.out") $(grep -c 'Threads started' "$SBT_TMP/sy-prep.out")"
fi
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
