#!/bin/sh
# pipeline.sh: --pipeline=N against PostgreSQL (libpq pipeline mode).
#  1. The same seeded oltp_read_write run with and without --pipeline ends
#     in the same database (checksum of every row of both tables) with the
#     same statement mix, the pipelined run really had statements in flight
#     behind others, says so in its report, and its counts match the
#     server's (pg_stat_statements, pg_stat_database).
#  2. --pipeline with client coroutines (--threads=2 --clients=8): counts
#     match the server's.
#  3. A script's view: reading a result waits for it; a failed statement
#     in the middle of a pipelined transaction surfaces at COMMIT as an SQL
#     error naming that statement, and the transaction is rolled back; a
#     failure still in flight when event() returns stops the run with that
#     error.
# Needs the servers scripts/test.sh starts (SBT_* variables, wl-lib.sh).
. "$(dirname "$0")/wl-lib.sh"
wl_setup pgsql

opts="--tables=2 --table-size=500 --threads=1 --rand-seed=7 --rand-type=uniform"
checksum() {
    dbq "SELECT md5(string_agg(t || ':' || id || ':' || k || ':' || c || ':' || pad, ',' ORDER BY t, id))
         FROM (SELECT 1 AS t, * FROM sbtest1 UNION ALL SELECT 2, * FROM sbtest2) s"
}

# ---- 1. same final state, same mix, counts vs the server ----
sums="" mixes=""
for depth in 0 8; do
    sb "clean-$depth" $opts oltp_read_write cleanup
    sb "prepare-$depth" $opts oltp_read_write prepare
    [ "$rc" = 0 ] || { fail "prepare exited $rc"; show_out; continue; }
    snap_before
    sb "rw-$depth" $opts --pipeline=$depth --events=200 --time=0 oltp_read_write run
    [ "$rc" = 0 ] || { fail "run --pipeline=$depth exited $rc"; show_out; }
    snap_after
    parse_report "$OUT"
    expect_eq "--pipeline=$depth: transactions" "$R_TXN" 200
    mixes="$mixes $R_READ/$R_WRITE/$R_OTHER"
    sums="$sums $(checksum)"
    if [ "$depth" -gt 0 ]; then
        checks=$((checks + 1))
        if grep -q "^Pipelining: up to $depth statements in flight per connection" "$OUT"; then
            echo "ok   header says pipelining is on"
        else
            fail "the report's header does not say pipelining is on"; show_out 40
        fi
        n=$(sed -n 's/^Pipelining (--pipeline=[0-9]*): \([0-9]*\) statements.*/\1/p' "$OUT")
        # 20 statements per transaction, each sent behind the BEGIN at least
        expect_range "statements sent while others were in flight" "${n:-x}" 1000 4000
        # xact_commit also counts the session setup and each statement's
        # Parse and Close (own implicit transactions): 1 + 2 * 18 per
        # connection at most (see workloads.sh)
        check_server_counts 1 37 "pipelined oltp_read_write"
    fi
done
set -- $mixes
expect_eq "read/write/other with and without --pipeline" "${2:-missing}" "$1"
set -- $sums
expect_eq "checksum of all rows after the same seeded run, --pipeline=0 vs 8" "${2:-missing}" "$1"

# ---- 2. with client coroutines ----
snap_before
sb rw-clients --tables=2 --table-size=500 --threads=2 --clients=8 --pipeline=8 --events=400 --time=0 oltp_read_write run
[ "$rc" = 0 ] || { fail "--clients=8 --pipeline=8 exited $rc"; show_out; }
snap_after
parse_report "$OUT"
expect_eq "--clients=8 --pipeline=8: transactions" "$R_TXN" 400
check_server_counts 1 $((8 * 37)) "pipelined oltp_read_write, 8 clients on 2 threads"
sb clean-end $opts oltp_read_write cleanup

# ---- 3. what a script sees ----
dbq "DROP TABLE IF EXISTS pipe_t; CREATE TABLE pipe_t (id int PRIMARY KEY, v int); INSERT INTO pipe_t VALUES (3, 3)" >/dev/null
cat >"$SBT_TMP/pipe_view.lua" <<'EOF'
local con
function thread_init() con = sbench.sql.driver():connect() end
function event()
   con:query("BEGIN")
   for i = 10, 14 do con:query("INSERT INTO pipe_t VALUES (" .. i .. ", " .. i .. ")") end
   local row = con:query("SELECT count(*), sum(v) FROM pipe_t"):fetch_row()
   print("PIPE-READ " .. row[1] .. " " .. row[2])
   con:query("COMMIT")
   con:begin()
   con:query("INSERT INTO pipe_t VALUES (20, 20)")
   con:query("INSERT INTO pipe_t VALUES (3, 3)")
   con:query("INSERT INTO pipe_t VALUES (21, 21)")
   local ok, err = pcall(con.commit, con)
   print("PIPE-ERR " .. tostring(ok) .. " " .. tostring(err.sql_state) .. " [" .. tostring(err.query) .. "]")
   con:rollback()
end
EOF
sb view --threads=1 --events=1 --time=0 --pipeline=8 "$SBT_TMP/pipe_view.lua" run
[ "$rc" = 0 ] || { fail "pipe_view.lua exited $rc"; show_out; }
expect_eq "a result read in the middle of a pipeline" "$(sed -n 's/^PIPE-READ //p' "$OUT")" "6 63"
expect_eq "a failure in the middle surfaces at COMMIT" "$(sed -n 's/^PIPE-ERR //p' "$OUT")" \
    "false 23505 [INSERT INTO pipe_t VALUES (3, 3)]"
expect_eq "rows after the failed transaction (rolled back)" "$(dbq "SELECT count(*) || ' ' || sum(v) FROM pipe_t")" "6 63"

cat >"$SBT_TMP/pipe_end.lua" <<'EOF'
local con
function thread_init() con = sbench.sql.driver():connect() end
function event()
   con:query("INSERT INTO pipe_t VALUES (30, 30)")
   con:query("INSERT INTO pipe_t VALUES (3, 3)")
end
EOF
sb end --threads=1 --events=1 --time=0 --pipeline=8 --db-ignore-sqlstates=40001 "$SBT_TMP/pipe_end.lua" run
checks=$((checks + 1))
if [ "$rc" != 0 ] && grep -q "23505" "$OUT" && grep -q "INSERT INTO pipe_t VALUES (3, 3)" "$OUT"; then
    echo "ok   a failure still in flight at the end of event() stops the run with its error"
else
    fail "pipe_end.lua: exit $rc, expected a fatal 23505 naming the failed INSERT"; show_out
fi
# autocommit: the first INSERT ran on its own, as it would without --pipeline
expect_eq "the autocommitted INSERT before the failure" "$(dbq "SELECT count(*) FROM pipe_t WHERE id = 30")" 1
dbq "DROP TABLE pipe_t" >/dev/null

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
