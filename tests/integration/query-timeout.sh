#!/bin/sh
# query-timeout.sh: --db-query-timeout on PostgreSQL on every I/O path the
# pgsql driver has: blocking and --clients (poll and io_uring loops), each
# with the wire fast path and with libpq (--pgsql-wire=off).  The
# statement is SELECT pg_sleep(5) under --db-query-timeout=1; the right
# answer comes from the server, not from sbench: it cancels the statement
# with SQLSTATE 57014 (statement_timeout), the run fails with that error
# once (exit 1), and it ends before the 5 s the statement would take
# uncancelled.  Then a backend that never answers (SIGSTOPped by this
# test after the script told its pid, before the statement): no server
# cancel can come, so the client's own deadline (timeout + 500 ms grace)
# must break the connection: the run goes on with one ignored error and
# one reconnect, on every path (the libpq nonblocking path waited for the
# backend before: until SIGCONT, which this test sends after 20 s).
# Every path must give the same outcome.
. "$(dirname "$0")/wl-lib.sh"
wl_setup pgsql
J=$SBT_TMP/query-timeout
mkdir -p "$J"
cat > "$J/sleep.lua" <<'LUA'
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT pg_sleep(5)") end
LUA

# more clients than threads: the clients loop (poll or io_uring) runs them
MODES='|--threads=1 --clients=2 --io=poll|--threads=1 --clients=2 --io=uring|--pgsql-wire=off|--pgsql-wire=off --threads=1 --clients=2 --io=poll|--pgsql-wire=off --threads=1 --clients=2 --io=uring'
IFS='|'
# shellcheck disable=SC2086
set -- $MODES
unset IFS
for mode in "$@"; do
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

# the backend that never answers
cat > "$J/stopped.lua" <<'LUA'
-- first event: writes its backend's pid, waits (at most 20 s) until the
-- test has stopped that backend, then sends a statement
local dir = os.getenv("QT_DIR")
local n, con = 0, nil
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  n = n + 1
  if n > 1 then return end
  local pid = con:query_row("SELECT pg_backend_pid()")
  local f = assert(io.open(dir .. "/pid", "w")); f:write(pid, "\n"); f:close()
  local t = os.time() + 20
  while os.time() < t do
    local g = io.open(dir .. "/stopped")
    if g then g:close() break end
  end
  con:query("SELECT 1")
end
LUA
export QT_DIR="$J/stop"
for mode in "$@"; do
    name=$(echo "stopped $mode" | tr -c 'a-z0-9\n' _)
    rm -rf "$QT_DIR"; mkdir -p "$QT_DIR"
    (
        i=0
        while [ ! -s "$QT_DIR/pid" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
        pid=$(cat "$QT_DIR/pid" 2>/dev/null)
        [ -n "$pid" ] && kill -STOP "$pid" && echo "$pid" > "$QT_DIR/stopped"
        touch "$QT_DIR/stopped"
        # resumed when sbench is done, or after 20 s (a client without
        # the deadline gets its answer then: too late for the check below)
        i=0
        while [ ! -e "$QT_DIR/done" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
        [ -n "$pid" ] && kill -CONT "$pid"
    ) &
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    sb "$name" $mode --db-query-timeout=1 --events=1 --time=0 "$J/stopped.lua" run
    t1=$(date +%s%N)
    touch "$QT_DIR/done"
    wait
    pid=$(cat "$QT_DIR/stopped" 2>/dev/null)
    ms=$(( (t1 - t0) / 1000000 ))
    expect_eq "[$mode] stopped backend: a pid stopped" "$([ -n "$pid" ] && echo yes)" yes
    expect_eq "[$mode] stopped backend: exit status" "$rc" 0
    expect_eq "[$mode] stopped backend: ignored errors, reconnects" \
        "$(awk '/ignored errors:/ { e = $3 } /reconnects:/ { r = $2 } END { print e "," r }' "$OUT")" 1,1
    # the deadline is 1.5 s after the send; without it, sbench waits for
    # the backend, which this test resumes only after 20 s
    expect_range "[$mode] stopped backend: ms until exit (deadline, not the backend)" "$ms" 0 15000
done

echo "query-timeout: $checks checks, $failures failures"
[ "$failures" = 0 ]
