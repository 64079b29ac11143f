#!/bin/sh
# query-timeout.sh: --db-query-timeout on PostgreSQL on every I/O path the
# pgsql driver has: blocking and --clients (poll and io_uring loops), each
# with the wire fast path and with libpq (--pgsql-wire=off).  The
# statement is SELECT pg_sleep(5) under --db-query-timeout=1; the right
# answer comes from the server, not from sbench: it cancels the statement
# with SQLSTATE 57014 (statement_timeout), the run fails with that error
# once (exit 1), and it ends before the 5 s the statement would take
# uncancelled.  Every path must give the same outcome.
. "$(dirname "$0")/wl-lib.sh"
wl_setup pgsql
J=$SBT_TMP/query-timeout
mkdir -p "$J"
cat > "$J/sleep.lua" <<'LUA'
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT pg_sleep(5)") end
LUA

for mode in "" "--clients=1 --io=poll" "--clients=1 --io=uring" \
            "--pgsql-wire=off" "--pgsql-wire=off --clients=1 --io=poll" "--pgsql-wire=off --clients=1 --io=uring"; do
    name=$(echo "blocking $mode" | tr -c 'a-z0-9\n' _)
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    sb "$name" $mode --db-query-timeout=1 --events=1 --time=0 "$J/sleep.lua" run
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    expect_eq "[$mode] exit status" "$rc" 1
    expect_eq "[$mode] the server's statement_timeout cancel (57014), reported once" \
        "$(grep -c "state = '57014': canceling statement due to statement timeout" "$OUT")" 1
    # uncancelled, pg_sleep(5) alone takes 5000 ms
    expect_range "[$mode] ms until exit (cancelled before pg_sleep's 5000)" "$ms" 0 4999
done

echo "query-timeout: $checks checks, $failures failures"
[ "$failures" = 0 ]
