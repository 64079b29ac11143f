#!/bin/sh
# compare.sh: the same workload on PostgreSQL and MariaDB in one go
# (examples/compare_pg_mariadb.sh), and both reports are complete and
# comparable: the same sections and labels, 16 queries per oltp_read_only
# transaction, reads:other = 14:2.
. "$(dirname "$0")/wl-lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
for t in pgsql mysql; do
    wl_setup $t
    opts="--tables=1 --table-size=500 --threads=2"
    sb clean $opts oltp_read_only cleanup
    sb prepare $opts oltp_read_only prepare
    [ "$rc" = 0 ] || { fail "$t prepare exited $rc"; show_out; continue; }
    sb run $opts --events=300 --time=0 oltp_read_only run
    [ "$rc" = 0 ] || { fail "$t run exited $rc"; show_out; }
    cp "$OUT" "$SBT_TMP/compare-$t.txt"
    parse_report "$OUT"
    expect_eq "$t: queries per transaction" $((R_TOTAL / R_TXN)) 16
    expect_eq "$t: reads per transaction" $((R_READ / R_TXN)) 14
    expect_eq "$t: other per transaction" $((R_OTHER / R_TXN)) 2
    sb cleanup $opts oltp_read_only cleanup
done
labels() { sed -n 's/^ *\([A-Za-z0-9][A-Za-z (/)0-9]*\):.*/\1/p' "$1" | grep -v '^Connection time' ; }
labels "$SBT_TMP/compare-pgsql.txt" > "$SBT_TMP/labels-pg"
labels "$SBT_TMP/compare-mysql.txt" > "$SBT_TMP/labels-my"
# the server cross-check has driver-specific lines; everything else matches
grep -v -e '^ *commits' -e '^ *rollbacks' -e '^ *selects' -e '^ *statements' "$SBT_TMP/labels-pg" > "$SBT_TMP/l1"
grep -v -e '^ *commits' -e '^ *rollbacks' -e '^ *selects' -e '^ *statements' "$SBT_TMP/labels-my" > "$SBT_TMP/l2"
checks=$((checks + 1))
if cmp -s "$SBT_TMP/l1" "$SBT_TMP/l2"; then echo "ok   same report sections and labels"; else
    fail "report labels differ"; diff "$SBT_TMP/l1" "$SBT_TMP/l2" | head; fi
for l in "SQL statistics" "transactions" "Latency (ms)" "95th percentile" "Threads fairness"; do
    checks=$((checks + 1))
    grep -q "^$l\$\|^ *$l" "$SBT_TMP/l1" && echo "ok   has '$l'" || fail "no '$l' in the report"
done
# the example script runs too
out=$(PGHOST=$SBT_PGHOST PGPORT=$SBT_PGPORT PGPASSWORD=$SBT_PGPASSWORD MYSQL_HOST=127.0.0.1 \
      MYSQL_PORT=$SBT_MYSQL_PORT MYSQL_PWD=$SBT_MYSQL_PASSWORD SBENCH=$SBENCH \
      SIZE="--tables=1 --table-size=300" RUN="--threads=2 --time=2" \
      "$here/../../examples/compare_pg_mariadb.sh" oltp_point_select 2>&1)
checks=$((checks + 1))
if echo "$out" | grep -q "^tps  *[0-9.][0-9.]*  *[0-9.][0-9.]*$"; then echo "ok   example prints tps side by side"
else fail "examples/compare_pg_mariadb.sh output:"; echo "$out" | head; fi
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
