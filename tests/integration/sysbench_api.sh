#!/bin/bash
# sysbench_api.sh: the Lua API where sbench once differed from sysbench,
# compared with sysbench 1.0.20 itself on the same scripts against the
# MariaDB (and PostgreSQL) scripts/test.sh starts: an SQL error caught by
# pcall (its tostring, string.find/match on it, err:find, "..", and
# sbench's fields besides), an uncaught one (the FATAL line), rs:free()
# twice (the ALERT and the error), bind_param() with and without
# parameters, an assert in event() (one FATAL line, no traceback), and
# sysbench's MySQL options (--mysql-ssl=on, -compression, -debug, -ssl-cipher).
# Needs SBT_MYSQL_* (and SBT_PG* for the PostgreSQL part).
set -u
build=$(cd "${1:-${SBT_BUILD:-build}}" && pwd) || { echo "FAIL: no build dir"; exit 1; }
S=$build/cli/sbench
SYSB=${SBT_SYSBENCH:-/usr/bin/sysbench}
[ -x "$SYSB" ] || { echo "FAIL: $SYSB not found: nothing to compare with"; exit 1; }
: "${SBT_MYSQL_SOCKET:?FAIL: SBT_MYSQL_SOCKET not set (run through scripts/test.sh)}"
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-api.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -n 20 | sed 's/^/     /'; }
same() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "$(diff <(echo "$2") <(echo "$3") | sed 's/^</sysbench:/; s/^>/sbench:  /')"; fi; }
MY="--db-driver=mysql --mysql-socket=$SBT_MYSQL_SOCKET --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest"

cat > err.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  local ok, err = pcall(function() con:query("SELECT * FROM no_such_table_29") end)
  print("R ok", ok)
  print("R tostring", tostring(err))
  print("R string.find", string.find(err, "SQL error, errno = (%d+)"))
  print("R err:find", err:find("state = '"))
  print("R match", string.match(err, "state = '(%w+)'"))
  print("R concat", "E: " .. err)
  local ok2, err2 = pcall(con.query, con, "SELECT * FROM no_such_table_29")
  print("R direct pcall", tostring(err2))
  local rs = con:query("SELECT 1")
  print("R free1", pcall(rs.free, rs))
  print("R free2", pcall(rs.free, rs))
  local st = con:prepare("SELECT ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  print("R bind_param()", select("#", st:bind_param()), st:bind_param())
  print("R bind_param(p)", select("#", st:bind_param(p)), st:bind_param(p))
  con:disconnect()
end
LUA
# the lines the script prints (R ...) and the ALERT, in order
lines() { grep -E '^(R |ALERT)'; }
a=$(timeout 60 "$SYSB" $MY --events=1 err.lua run 2>&1 | lines)
b=$(timeout 60 "$S" $MY --events=1 err.lua run 2>&1 | lines)
same "MariaDB: an SQL error, rs:free twice, bind_param, as sysbench" "$a" "$b"
[ "$(echo "$b" | wc -l)" -ge 12 ] && ok "the script ran to its end ($(echo "$b" | wc -l) lines)" || bad "sbench printed too little" "$b"

cat > fields.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  local ok, err = pcall(function() con:query("SELECT * FROM no_such_table_29") end)
  print("F", type(err), err.sql_errno, err.sql_state, err.query)
end
LUA
b=$(timeout 60 "$S" $MY --events=1 fields.lua run 2>&1 | grep '^F')
same "sbench's fields on the error besides" "$(printf 'F\ttable\t1146\t42S02\tSELECT * FROM no_such_table_29')" "$b"

cat > uncaught.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  con:query("SELECT * FROM no_such_table_29")
end
LUA
a=$(timeout 60 "$SYSB" $MY --events=1 uncaught.lua run 2>&1 | grep "function failed" | sed 's/.*function failed: //')
b=$(timeout 60 "$S" $MY --events=1 uncaught.lua run 2>&1 | grep '^FATAL' | sed 's/^FATAL: thread 0: //; s/ (query: [^)]*)$//')
same "an uncaught SQL error: sysbench's text in the FATAL line" "$a" "$b"
timeout 60 "$S" $MY --events=1 uncaught.lua run 2>&1 | grep -q "^FATAL: .*(query: SELECT \* FROM no_such_table_29)$" &&
    ok "sbench's FATAL line names the statement" || bad "the FATAL line does not name the statement"

printf 'function event()\n  assert(1 == 2)\nend\n' > as.lua
a=$(timeout 60 "$SYSB" --events=1 as.lua run 2>&1 | grep -c . ; timeout 60 "$SYSB" --events=1 as.lua run 2>&1 | grep FATAL | sed 's/.*function failed: //')
b=$(timeout 60 "$S" --db-driver=null --events=1 as.lua run 2>&1 | grep -vc '^$'; timeout 60 "$S" --db-driver=null --events=1 as.lua run 2>&1 | grep FATAL | sed 's/^FATAL: thread 0: //')
same "an assert: the message, one FATAL line" "$(echo "$a" | tail -n 1)" "$(echo "$b" | tail -n 1)"
n=$(timeout 60 "$S" --db-driver=null --events=1 as.lua run 2>&1 | grep -c "stack traceback")
[ "$n" = 0 ] && ok "no traceback without --debug" || bad "a traceback without --debug"
n=$(timeout 60 "$S" --db-driver=null --events=1 --debug as.lua run 2>&1 | grep -c "stack traceback")
[ "$n" = 1 ] && ok "--debug adds the traceback" || bad "no traceback with --debug"

# sysbench's MySQL options: accepted, and --mysql-ssl=on connects to a
# server without TLS, as sysbench does
printf 'function event()\n  local con = sysbench.sql.driver():connect()\n  con:query("SELECT 1")\n  con:disconnect()\nend\n' > q.lua
for o in "--mysql-ssl=on" "--mysql-compression=on" "--mysql-debug=on" "--mysql-ssl=on --mysql-ssl-cipher=AES128-SHA"; do
    timeout 60 "$SYSB" $MY $o --events=5 --time=0 q.lua run >/dev/null 2>&1; a=$?
    timeout 60 "$S" $MY $o --events=5 --time=0 q.lua run >sb.out 2>&1; b=$?
    same "MariaDB without TLS, $o: exit status as sysbench's" "$a" "$b"
    [ "$b" = 0 ] || sed 's/^/     /' sb.out | head -n 3
done
# the interval line's labels (numbers blanked), for SQL and for a test without a database
printf 'function thread_init() con = sysbench.sql.driver():connect() end\nfunction event() con:query("SELECT SLEEP(0.05)") end\n' > iv.lua
shape() { grep '^\[ 1s \]' | head -n 1 | sed 's/[0-9][0-9.]*/N/g'; }
a=$(timeout 60 "$SYSB" $MY --time=2 --report-interval=1 iv.lua run 2>&1 | shape)
b=$(timeout 60 "$S" $MY --time=2 --report-interval=1 iv.lua run 2>&1 | shape)
same "the interval line of an SQL workload: sysbench's labels ($a)" "$a" "$b"
a=$(timeout 60 "$SYSB" --time=2 --report-interval=1 cpu run 2>&1 | shape)
b=$(timeout 60 "$S" --time=2 --report-interval=1 cpu run 2>&1 | shape)
same "the interval line of cpu: sysbench's labels ($a)" "$a" "$b"
if [ -n "${SBT_PGPORT:-}" ]; then
    PG="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest"
    a=$(timeout 60 "$SYSB" $PG --events=1 err.lua run 2>&1 | grep -E '^R (tostring|match|ok)')
    b=$(timeout 60 "$S" $PG --events=1 err.lua run 2>&1 | grep -E '^R (tostring|match|ok)')
    same "PostgreSQL: the error's text and SQLSTATE as sysbench" "$a" "$b"
else
    bad "SBT_PGPORT not set: PostgreSQL part not run"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
