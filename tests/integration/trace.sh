#!/bin/sh
# trace.sh TARGET (pgsql | mysql): `sbench WORKLOAD trace` prints what the
# server received.  A short oltp_read_write trace (--trace-rollback, two
# clients) runs as a user whose statements the server logs (PostgreSQL:
# log_statement=all for that role only; MariaDB: the general log, read for
# that user only); every statement and bound value of the JSON lines
# (--trace-output) must be in the server's own log, in the same order on
# each connection, and no logged statement missing from the trace
# (tests/integration/trace_check.py); a second trace under
# --db-ps-mode=disable, whose values sbench writes into the SQL itself, the
# same way.  --trace-rollback must change nothing:
# the table's checksum after the trace is the one before.
. "$(dirname "$0")/wl-lib.sh"
wl_setup "$1"
HERE=$(cd "$(dirname "$0")" && pwd)
opts="--tables=1 --table-size=200 --rand-seed=7"
sb cleanup $opts oltp_read_write cleanup
sb prepare $opts oltp_read_write prepare
[ "$rc" = 0 ] || { show_out; die "prepare exited $rc"; }
checksum() { dbq "SELECT count(*), sum(k), sum(length(c)) FROM sbtest1"; }
before=$(checksum)
JSON=$SBT_TMP/trace-$TARGET.jsonl
LOGCOPY=$SBT_TMP/trace-$TARGET.serverlog
case "$KIND" in
pg)
    dbq "DROP ROLE IF EXISTS sbtrace" >/dev/null 2>&1
    dbq "CREATE ROLE sbtrace LOGIN SUPERUSER PASSWORD '$SBT_PGPASSWORD'" >/dev/null || die "CREATE ROLE sbtrace"
    dbq "ALTER ROLE sbtrace SET log_statement = 'all'" >/dev/null || die "ALTER ROLE sbtrace"
    PGLOG=$SBT_PGSOCKET/log
    [ -r "$PGLOG" ] || die "no server log at $PGLOG"
    start=$(wc -c <"$PGLOG")
    user="--pgsql-user=sbtrace" ;;
maria)
    dbq "DROP USER IF EXISTS 'sbtrace'@'%', 'sbtrace'@'localhost'" >/dev/null
    dbq "CREATE USER 'sbtrace'@'localhost' IDENTIFIED BY '$SBT_MYSQL_PASSWORD'" >/dev/null || die "CREATE USER"
    dbq "GRANT ALL ON sbtest.* TO 'sbtrace'@'localhost'" >/dev/null || die "GRANT"
    dbq "SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1" >/dev/null || die "general log"
    user="--mysql-user=sbtrace" ;;
esac
# shellcheck disable=SC2086
sb trace $opts $user --threads=1 --clients=2 --events=4 --trace-rollback --trace-output="$JSON" oltp_read_write trace
[ "$rc" = 0 ] || { fail "trace exited $rc"; show_out 30; }
TEXT_OUT=$OUT
# and the literal SQL sbench writes itself (--db-ps-mode=disable): the
# values inside the text, as the server got them
# shellcheck disable=SC2086
sb trace-literal $opts $user --events=2 --db-ps-mode=disable --trace-rollback --trace-output="$JSON.literal" oltp_read_write trace
[ "$rc" = 0 ] || { fail "trace --db-ps-mode=disable exited $rc"; show_out 30; }
case "$KIND" in
pg)
    tail -c +"$((start + 1))" "$PGLOG" >"$LOGCOPY"
    dbq "DROP ROLE IF EXISTS sbtrace" >/dev/null ;;
maria)
    dbq "SET GLOBAL general_log = 0" >/dev/null
    dbq "SELECT thread_id, command_type, REPLACE(REPLACE(CONVERT(argument USING utf8mb4), '\\\\', '\\\\\\\\'), '\n', '\\\\n') FROM mysql.general_log WHERE user_host LIKE 'sbtrace%' ORDER BY event_time" >"$LOGCOPY"
    dbq "TRUNCATE mysql.general_log; DROP USER IF EXISTS 'sbtrace'@'localhost'" >/dev/null ;;
esac
checks=$((checks + 1))
if out=$(python3 "$HERE/trace_check.py" "$KIND" "$JSON,$JSON.literal" "$LOGCOPY" 2>&1); then
    echo "ok   the trace against the server's log: $out"
else
    fail "the trace against the server's log: $out"
fi
# the text lines on stdout are the same statements
n_text=$(grep -c '^\[thread .* conn .*\] .* ms  ' "$TEXT_OUT")
n_json=$(grep -c '"conn"' "$JSON")
expect_eq "text lines = JSON lines" "$n_text" "$n_json"
expect_eq "--trace-rollback left the table as it was" "$(checksum)" "$before"
sb cleanup2 $opts oltp_read_write cleanup
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
