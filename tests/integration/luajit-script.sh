#!/bin/sh
# luajit-script.sh TARGET (pgsql | mysql): a workload written for sysbench's
# LuaJIT (luajit_workload.lua: bit, string.format of non-integral numbers,
# ffi.C.sb_counter_inc, usleep, unpack, table.getn, math.pow) runs unchanged
# under sbench.  sysbench 1.0.20 and sbench each prepare their own table and
# run the same 200 events on it; then
#   - the two tables hold the same rows (EXCEPT both ways), after prepare
#     and after the run;
#   - the rows are those computed independently in Python;
#   - the reports' counters (read, write, other, transactions, ignored
#     errors, reconnects, events) are the same in both tools and equal the
#     numbers the script's counting implies.
. "$(dirname "$0")/wl-lib.sh"
wl_setup "$1"
command -v sysbench >/dev/null || die "sysbench is not installed (apt-get install sysbench)"
command -v python3 >/dev/null || die "python3 is not installed"
W=$WL_HERE/luajit_workload.lua
ROWS=500 EVENTS=200
case "$KIND" in
pg) SYSB="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest" ;;
maria) SYSB="--db-driver=mysql --mysql-socket=$SBT_MYSQL_SOCKET --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest" ;;
esac

# sysb NAME ARGS...: runs sysbench 1.0.20; output in $OUT, status in $rc.
sysb() {
    name=$1; shift
    OUT=$SBT_TMP/lj-$TARGET-sysbench-$name.out
    # shellcheck disable=SC2086
    if sysbench $SYSB "$@" >"$OUT" 2>&1; then rc=0; else rc=$?; fi
}

# rows TABLE: id|k|h|f|c, ordered by id
rows() { dbq "SELECT id, k, h, f, c FROM $1 ORDER BY id" | tr '\t' '|'; }
# differ A B: rows in one table and not in the other, both ways
differ() {
    a=$(dbq "SELECT count(*) FROM (SELECT id, k, h, f, c FROM $1 EXCEPT SELECT id, k, h, f, c FROM $2) x")
    b=$(dbq "SELECT count(*) FROM (SELECT id, k, h, f, c FROM $2 EXCEPT SELECT id, k, h, f, c FROM $1) x")
    echo "$a $b"
}
# expected EVENTS: the rows Python computes after that many events (LuaJIT's
# rules: 32-bit wrap-around for bit, truncation for %d/%x, %.14g for %s)
expected() {
    python3 - "$ROWS" "$1" <<'PY'
import sys
rows, events = int(sys.argv[1]), int(sys.argv[2])
r = {}
for i in range(1, rows + 1):
    k = ((i * 2654435761) ^ (i >> 3)) & 0xffff
    h = ("%08x" if i % 2 == 0 else "%08X") % ((i ^ 0x5bd1e995) & 0xffffffff)
    f = "%d:%x:%s" % (int(i / 3), int(i * 2.5), "%.14g" % (i / 2))
    c = "-".join("%d" % 2 ** (j + i % 7) for j in range(1, i % 4 + 2))
    r[i] = [i, k, h, f, c]
for n in range(1, events + 1):
    i = n % rows + 1
    r[i][1] = (((n << 7) + ((-n) >> 2)) & 0x7fffffff) % 100000
    r[i][3] = "%.14g" % (n / 4)
for i in range(1, rows + 1):
    print("|".join(str(v) for v in r[i]))
PY
}

T_SYS=ljtest_sysbench T_SB=ljtest_sbench
sysb prepare --rows=$ROWS --table_name=$T_SYS "$W" prepare
[ "$rc" = 0 ] || { fail "sysbench prepare exited $rc"; show_out; }
sb prepare --rows=$ROWS --table_name=$T_SB "$W" prepare
[ "$rc" = 0 ] || { fail "sbench prepare exited $rc"; show_out; }
expect_eq "rows after prepare" "$(dbq "SELECT count(*) FROM $T_SB")" "$ROWS"
expect_eq "after prepare: rows only in sysbench's / only in sbench's table" "$(differ $T_SYS $T_SB)" "0 0"
# same_as_python EVENTS WHAT: sbench's table against expected EVENTS
same_as_python() {
    checks=$((checks + 1))
    expected "$1" >"$SBT_TMP/lj-expected"
    rows $T_SB >"$SBT_TMP/lj-got"
    if cmp -s "$SBT_TMP/lj-expected" "$SBT_TMP/lj-got"; then
        echo "ok   $2: $ROWS rows as computed in Python"
    else
        fail "$2: rows differ from Python's (< Python, > table)"
        diff "$SBT_TMP/lj-expected" "$SBT_TMP/lj-got" | head -10
    fi
}
same_as_python 0 "after prepare"

sysb run --rows=$ROWS --table_name=$T_SYS --events=$EVENTS --time=0 --threads=1 "$W" run
[ "$rc" = 0 ] || { fail "sysbench run exited $rc"; show_out; }
parse_report "$OUT"
want_sys="$R_READ $R_WRITE $R_OTHER $R_TXN $R_IGN $R_RECONN $R_EVENTS"
sb run --rows=$ROWS --table_name=$T_SB --events=$EVENTS --time=0 --threads=1 "$W" run
[ "$rc" = 0 ] || { fail "sbench run exited $rc"; show_out; }
parse_report "$OUT"
got_sb="$R_READ $R_WRITE $R_OTHER $R_TXN $R_IGN $R_RECONN $R_EVENTS"
# per event: a SELECT and an UPDATE, plus one READ, WRITE and OTHER from
# sb_counter_inc; SB_CNT_TRX on every 10th event, ERROR and RECONNECT on
# every 25th
implied="$((2 * EVENTS)) $((2 * EVENTS)) $EVENTS $((EVENTS + EVENTS / 10)) $((EVENTS / 25)) $((EVENTS / 25)) $((EVENTS + EVENTS / 10))"
expect_eq "sysbench's counters (read write other transactions ignored reconnects events)" "$want_sys" "$implied"
expect_eq "sbench's counters, the same" "$got_sb" "$want_sys"
expect_eq "after run: rows only in sysbench's / only in sbench's table" "$(differ $T_SYS $T_SB)" "0 0"
same_as_python $EVENTS "after run"

sysb cleanup --table_name=$T_SYS "$W" cleanup
sb cleanup --table_name=$T_SB "$W" cleanup
[ "$rc" = 0 ] || { fail "sbench cleanup exited $rc"; show_out; }
expect_eq "tables after cleanup" "$(table_exists $T_SB)$(table_exists $T_SYS)" "00"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
