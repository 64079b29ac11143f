#!/bin/sh
# ps-mode.sh TARGET (pgsql | mysql): --db-ps-mode=auto (server-side
# prepared statements) and --db-ps-mode=disable (literal SQL) give the same
# query mix (20 per oltp_read_write transaction: 14/4/2) and the same
# database state: after the same seeded run, the sum of k over all rows is
# the same in both modes.
. "$(dirname "$0")/wl-lib.sh"
wl_setup "$1"
opts="--tables=1 --table-size=300 --threads=1 --rand-seed=99 --rand-type=uniform"
sums=""
for mode in auto disable; do
    sb "clean-$mode" $opts oltp_update_index cleanup
    sb "prepare-$mode" $opts oltp_read_write prepare
    [ "$rc" = 0 ] || { fail "prepare ($mode) exited $rc"; show_out; continue; }
    sb "rw-$mode" $opts --db-ps-mode=$mode --events=100 --time=0 oltp_read_write run
    [ "$rc" = 0 ] || { fail "run ($mode) exited $rc"; show_out; }
    parse_report "$OUT"
    expect_eq "$mode: transactions" "$R_TXN" 100
    expect_eq "$mode: queries per transaction" $((R_TOTAL / R_TXN)) 20
    expect_eq "$mode: read/write/other" "$R_READ/$R_WRITE/$R_OTHER" "1400/400/200"
    # one thread, one seed: the same updates in the same order
    sb "ui-$mode" $opts --db-ps-mode=$mode --events=100 --time=0 oltp_update_index run
    [ "$rc" = 0 ] || { fail "update_index ($mode) exited $rc"; show_out; }
    sums="$sums $(dbq "SELECT sum(k) FROM sbtest1")"
    sb "cleanup-$mode" $opts oltp_read_write cleanup
done
set -- $sums
expect_eq "sum(k) after the same seeded runs, auto vs disable" "$1" "${2:-missing}"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
