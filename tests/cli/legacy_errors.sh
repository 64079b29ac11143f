#!/bin/bash
# legacy_errors.sh: what sysbench 0.5-style command lines and legacy
# scripts meet that sbench cannot run, or runs differently, is one clear
# line with the right exit status (no server: the sqlite driver).  Also
# that --test=FILE and --test=NAME name the workload, with a legacy
# script on SQLite.
# Usage: legacy_errors.sh [BUILD_DIR]   (default: $SBT_BUILD, else ./build)
set -u
build=${1:-${SBT_BUILD:-build}}
build=$(cd "$build" && pwd) || { echo "legacy_errors: no build dir"; exit 1; }
S=$build/cli/sbench
[ -x "$S" ] || { echo "legacy_errors: $S not found"; exit 1; }
tmp=$(mktemp -d /tmp/sbench-legacyerr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset SBENCH_PATH SBENCH_DRIVER_PATH

# legacy scripts that misuse the API, each in prepare
cat > bind_bool.lua <<'LUA'
function prepare()
   local s = db_prepare("SELECT 1")
   db_bind_param(s, {true})
end
LUA
cat > bulk_noconn.lua <<'LUA'
function prepare()
   db_bulk_insert_next("(1)")
end
LUA
cat > bad_sql.lua <<'LUA'
function prepare()
   db_query("SELECT * FROM no_such_table")
end
LUA
cat > free_nil.lua <<'LUA'
function prepare()
   db_free_results(nil)
end
LUA
# a legacy script that works, to run with --test=FILE and --test=NAME
cat > lg_ok.lua <<'LUA'
function prepare()
   db_query("CREATE TABLE lgok (id INTEGER PRIMARY KEY, tid INTEGER)")
   print("prepared for " .. test .. " rows=" .. tonumber(lg_rows))
end
function event()
   db_query("INSERT INTO lgok (tid) VALUES (" .. thread_id .. ")")
end
function cleanup()
   db_query("DROP TABLE IF EXISTS lgok")
end
LUA

pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# check STATUS FRAGMENT ARGS...: the exit status, and stderr's first line
# that is not the --test deprecation note contains FRAGMENT; a usage error
# (2) is that one line and nothing else.
check() {
    local want=$1 frag=$2; shift 2
    timeout 20 "$S" --db-driver=sqlite --sqlite-db="$tmp/t.db" "$@" >out 2>err </dev/null
    local got=$?
    grep -v '^sbench: --test is deprecated' err >err1
    local first lines
    first=$(grep -v '^sbench: no --db-driver' err1 | head -n1)
    lines=$(wc -l <err1)
    if [ "$got" != "$want" ]; then
        bad "$*: status $got, want $want; stderr: $(head -c 300 err)"
    elif [[ "$first" != *"$frag"* ]]; then
        bad "$*: first stderr line '$first' lacks '$frag'"
    elif [ "$want" = 2 ] && [ "$lines" != 1 ]; then
        bad "$*: $lines stderr lines for a usage error"
    else
        ok "$* -> $got: $first"
    fi
}

# sysbench's built-in tests are workloads: --test=cpu runs as sysbench 0.5's did
timeout 60 "$S" --test=cpu --cpu-max-prime=100 --events=5 --time=0 run >out 2>err </dev/null
got=$?
if [ "$got" = 0 ] && grep -q '^    total number of events: *5$' out && grep -q '^    events per second:' out; then
    ok "--test=cpu run -> 0: 5 events, CPU speed"
else bad "--test=cpu run: status $got; $(head -c 300 err)"; fi
check 2 "'oltp' was sysbench 0.4's built-in test; its transaction is the oltp_read_write workload's" --test=oltp run
check 2 "workload file '/no/such.lua' does not exist" --test=/no/such.lua run
# with --test the words are the command: a second one is left over, as in
# sysbench ("Unrecognized command line argument")
check 2 "unrecognized command line argument 'run'" --test=lg_ok.lua lg_ok.lua run
# --oltp-* options with a 1.0 workload (legacy scripts take them)
check 2 "--oltp-table-size: the name in sysbench 0.5's legacy OLTP scripts; this workload calls it --table-size" \
    --oltp-table-size=10 oltp_point_select prepare
check 2 "this workload calls it --tables" --oltp-tables-count=2 --test=oltp_read_only run
# misuse of the legacy API: file:line: function: what is wrong
check 1 "bind_bool.lua:3: db_bind_param: parameter 1 is a boolean (numbers and strings only)" --test=bind_bool.lua prepare
check 1 "bulk_noconn.lua:2: db_bulk_insert_next: no database connection" --test=bulk_noconn.lua prepare
check 1 "free_nil.lua:2: db_free_results: a result set from db_execute expected, got nil" free_nil.lua prepare
check 1 "SQL error" bad_sql.lua prepare

# --test=FILE and --test=NAME run a legacy script; its options are globals
check 0 "" --test=lg_ok.lua cleanup
check 0 "" --test=lg_ok.lua --lg-rows=7 prepare
if grep -q "^prepared for lg_ok.lua rows=7\$" out; then ok "--test=FILE: test and --lg-rows as globals"; else bad "--test=FILE prepare printed: $(cat out)"; fi
check 0 "" --workload-path="$tmp" --test=lg_ok --threads=2 --events=50 --time=0 run
if grep -q "total number of events: *50" out; then ok "--test=NAME run: 50 events"; else bad "--test=NAME run: $(tail -n 20 out)"; fi
n=$(sqlite3 "$tmp/t.db" "SELECT count(*) || ' ' || min(tid) || ' ' || max(tid) FROM lgok" 2>&1)
case "$n" in
"50 0 "[01]) ok "rows inserted by the legacy script: $n" ;;
*) bad "rows inserted by the legacy script: $n" ;;
esac
if grep -q "^sbench: --test is deprecated" err; then ok "--test: the deprecation note"; else bad "--test: no deprecation note"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
