#!/bin/bash
# secrets.sh: the password given with --pgsql-password (and --mysql-password)
# appears in no output: stdout, stderr, --output files (JSON and CSV),
# --db-debug=on, --help with the password given, `WORKLOAD help`, and the
# messages of failed connections (dead port, wrong user).  Needs the servers
# of scripts/test.sh (SBT_PG*, SBT_MYSQL_*, SBT_BUILD).
source "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
PW=$SBT_PGPASSWORD
MPW=$SBT_MYSQL_PASSWORD
PG=$(pg_args)
MY=$(my_args)
O="--tables=1 --table-size=1000"
# CSV has rows only per --report-interval window (none without it), so the
# CSV runs use --report-interval=1.
n=0
# sb NAME EXPECT(ok|fail) ARGS...: runs sbench with all output kept in NAME.*
sb() {
    local name=$1 want=$2; shift 2
    n=$((n + 1))
    local t0=$SECONDS
    timeout -k 5 60 "$S" "$@" >"$T/out.$name" 2>"$T/err.$name" </dev/null
    local rc=$?
    echo "$name: status $rc, $((SECONDS - t0))s"
    [ "$rc" -ge 124 ] && fail "$name: status $rc (hang or crash)"
    [ "$want" = ok ] && [ "$rc" -ne 0 ] && { fail "$name: status $rc"; tail -n 3 "$T/err.$name"; }
    [ "$want" = fail ] && [ "$rc" -eq 0 ] && fail "$name: succeeded, expected a failure"
    return 0
}

timeout 60 "$S" $PG $O oltp_read_write cleanup >/dev/null 2>&1
sb pg_prepare ok $PG $O --db-debug=on oltp_read_write prepare
sb pg_json ok $PG $O --threads=2 --time=2 --report-interval=1 --report-format=json --output="$T/r.json" oltp_read_write run
sb pg_csv ok $PG $O --threads=2 --time=2 --report-interval=1 --report-format=csv --output="$T/r.csv" oltp_read_write run
sb pg_json_stdout ok $PG $O --threads=1 --events=20 --time=0 --report-format=json oltp_read_write run
sb pg_debug ok $PG $O --threads=1 --events=5 --time=0 --db-debug=on --verbosity=5 oltp_read_write run
sb pg_help ok $PG --help
sb pg_wl_help ok $PG oltp_read_write help
# --pgsql-conninfo: a libpq keyword string and a URI (the password inside
# them masked in every output, the string's own keywords honoured: its
# application_name is the session's), a string libpq refuses, a dead port
cat > "$T/appname.lua" <<'LUA'
function event()
  local c = sysbench.sql.driver():connect()
  print("session: " .. c:query_row("SELECT current_setting('application_name') || ' ' || current_database()"))
  c:disconnect()
end
LUA
CI="host=$SBT_PGHOST port=$SBT_PGPORT user=sbtest password=$PW dbname=sbtest application_name=ci_app"
sb pg_conninfo ok --db-driver=pgsql --pgsql-conninfo="$CI" $O --threads=1 --time=1 --report-format=json \
    --output="$T/ci.json" --db-debug=on oltp_point_select run
sb pg_conninfo_app ok --db-driver=pgsql --pgsql-conninfo="$CI" --events=1 --time=0 "$T/appname.lua" run
grep -q "^session: ci_app sbtest$" "$T/out.pg_conninfo_app" && ok "the string's application_name is the session's" ||
    fail "the string's application_name is not the session's: $(grep session "$T/out.pg_conninfo_app")"
grep -q '"pgsql-conninfo":"host=[^"]* password=\*\*\* dbname=sbtest' "$T/ci.json" &&
    ok "the JSON names the target with the password masked" || fail "ci.json: $(grep -o '"pgsql-conninfo":"[^"]*"' "$T/ci.json")"
sb pg_conninfo_uri ok --db-driver=pgsql --pgsql-conninfo="postgresql://sbtest:$PW@$SBT_PGHOST:$SBT_PGPORT/sbtest" \
    $O --threads=1 --time=1 --report-format=json --db-debug=on oltp_point_select run
sb pg_conninfo_bad fail --db-driver=pgsql --pgsql-conninfo="host=x password='$PW" oltp_point_select run
grep -q "^sbench: pgsql driver: --pgsql-conninfo: not a libpq connection string or URI" "$T/err.pg_conninfo_bad" &&
    ok "a string libpq refuses: one line" || fail "pg_conninfo_bad: $(head -c 300 "$T/err.pg_conninfo_bad")"
sb pg_conninfo_dead fail --db-driver=pgsql --pgsql-conninfo="postgresql://sbtest:$PW@127.0.0.1:1/sbtest" \
    --db-connect-timeout=3 --db-debug=on oltp_point_select run
# an ODBC connection string's PWD= (SQLite's ODBC driver ignores it)
sb odbc_connstr_prepare ok --db-driver=odbc --odbc-connstr="DRIVER=SQLite3;Database=$T/odbc.db;PWD=$PW" $O oltp_point_select prepare
sb odbc_connstr ok --db-driver=odbc --odbc-connstr="DRIVER=SQLite3;Database=$T/odbc.db;PWD=$PW" $O --time=1 \
    --report-format=json --output="$T/odbc.json" oltp_point_select run
grep -q '"odbc-connstr":"DRIVER=SQLite3;Database=[^"]*;PWD=\*\*\*"' "$T/odbc.json" &&
    ok "an ODBC connection string's PWD masked in the JSON" || fail "odbc.json: $(grep -o '"odbc-connstr":"[^"]*"' "$T/odbc.json" | cut -c1-40)"
sb pg_cleanup ok $PG $O --db-debug=on oltp_read_write cleanup
sb pg_deadport fail --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=1 --pgsql-user=sbtest \
    --pgsql-password="$PW" --pgsql-db=sbtest --db-debug=on --db-connect-timeout=3 oltp_read_write run
sb pg_baduser fail --db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" \
    --pgsql-user=nosuchuser --pgsql-password="$PW" --pgsql-db=sbtest --db-debug=on oltp_read_write run
sb pg_baddb fail $PG --pgsql-db=nosuchdb --db-debug=on oltp_read_write run
sb pg_badopt fail $PG --no-such-option=1 oltp_read_write run

sb my_prepare ok $MY $O --db-debug=on oltp_point_select prepare
sb my_json ok $MY $O --threads=2 --time=1 --report-format=json --output="$T/m.json" --db-debug=on oltp_point_select run
sb my_csv ok $MY $O --threads=2 --time=2 --report-interval=1 --report-format=csv --output="$T/m.csv" --db-debug=on oltp_point_select run
sb my_help ok $MY --help
sb my_cleanup ok $MY $O oltp_point_select cleanup
# --mysql-defaults-file: Connector/C's option file ([client] and the
# --mysql-defaults-group group) decides what no option gives: its
# init-command runs in every session, an option given overrides it, its
# password appears nowhere
CNF=$(mktemp -d)  # outside $T: the file holds the password by design
trap 'rm -rf "$CNF"; rel_cleanup' EXIT
printf '[client]\nhost=127.0.0.1\nport=%s\nuser=sbtest\npassword=%s\ndatabase=sbtest\n[sbench]\ninit-command=SET @from_file=1\n' \
    "$SBT_MYSQL_PORT" "$MPW" >"$CNF/my.cnf"
cat > "$T/myfile.lua" <<'LUA'
function event()
  local c = sysbench.sql.driver():connect()
  print("session: " .. c:query_row("SELECT CONCAT(IFNULL(@from_file, 'none'), ' ', DATABASE())"))
  c:disconnect()
end
LUA
sb my_defaults_file ok --db-driver=mysql --mysql-defaults-file="$CNF/my.cnf" --mysql-defaults-group=sbench \
    --events=1 --time=0 --db-debug=on "$T/myfile.lua" run
sb my_defaults_file_db ok --db-driver=mysql --mysql-defaults-file="$CNF/my.cnf" --mysql-db=mysql \
    --events=1 --time=0 "$T/myfile.lua" run
grep -q "^session: 1 sbtest$" "$T/out.my_defaults_file" && grep -q "^session: none mysql$" "$T/out.my_defaults_file_db" &&
    ok "the option file's group and an option given over it" ||
    fail "option file: $(grep session "$T/out.my_defaults_file" "$T/out.my_defaults_file_db")"
sb my_defaults_missing fail --db-driver=mysql --mysql-defaults-file="$T/no-such.cnf" oltp_point_select run
sb my_baduser fail --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$SBT_MYSQL_PORT" \
    --mysql-user=nosuchuser --mysql-password="$MPW" --db-debug=on oltp_point_select run
sb my_deadport fail --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 \
    --mysql-user=sbtest --mysql-password="$MPW" --db-connect-timeout=3 oltp_point_select run

for f in r.json r.csv m.json m.csv; do [ -s "$T/$f" ] || fail "--output file $f missing"; done
# every file written: stdout/stderr of each run, the --output files, and
# anything else sbench left in the directory
hits=$(grep -rlF -e "$PW" -e "$MPW" "$T" 2>/dev/null)
if [ -n "$hits" ]; then
    for h in $hits; do fail "password in $(basename "$h"): $(grep -F -e "$PW" -e "$MPW" "$h" | head -n 2 | cut -c1-200)"; done
else
    ok "$n runs, $(ls "$T" | wc -l) files: no password anywhere"
fi
# the JSON meta records options: the password option must be there masked or absent
grep -q 'pgsql-password' "$T/r.json" && ! grep -q '"pgsql-password":"\*' "$T/r.json" &&
    echo "note: r.json mentions pgsql-password: $(grep -o '"pgsql-password":"[^"]*"' "$T/r.json" | head -n 1)"
finish
