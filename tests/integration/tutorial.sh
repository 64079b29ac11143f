#!/bin/sh
# tutorial.sh: every command of docs/writing-a-workload.md, as written
# there (the lines "$ sbench ..." of its sh blocks), run in order in a
# scratch directory with $PG set to the test server's options: each must
# exit 0.  Then what the page says they do, checked: `sbench new` wrote a
# file that lint finds clean, the trace shows 3 events' statements, the
# SQLite run counted its 2000 events and printed the kv: section, the
# table --from-tables read has its 1000 keys in the options.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/cli/author-lib.sh"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
PG="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest --pgsql-sslmode=disable"
sbench() { "$SB" "$@"; }
# a clean start on the server: what an earlier run may have left
"$SB" $PG kv.lua cleanup >/dev/null 2>&1
"$SB" $PG --tables=2 oltp_read_only cleanup >/dev/null 2>&1
sed -n '/^```sh$/,/^```$/p' "$src/docs/writing-a-workload.md" | sed -n 's/^\$ //p' >commands.txt
n=0
while IFS= read -r cmd; do
    n=$((n + 1))
    eval "$cmd" >"out.$n" 2>"err.$n" </dev/null
    rc=$?
    expect_eq "step $n: $(echo "$cmd" | cut -c1-90)" "exit $rc" "exit 0"
    [ "$rc" = 0 ] || tail -5 "err.$n" | sed 's/^/     | /'
done <commands.txt
expect_eq "commands run" "$n" "$(grep -c . commands.txt)"
expect_eq "kv.lua written, lint clean" "$(ls kv.lua):$(cat out.2)" "kv.lua:"
expect_eq "the trace: 3 events' EXECUTEs" "$(grep -c ' EXECUTE s[12] ' out.3)" 3
expect_eq "the SQLite run: its events" "$(sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p' out.5)" 2000
expect_eq "the SQLite run: the kv: section" "$(grep -c '^kv:$' out.5)" 1
expect_eq "the PostgreSQL trace: JSON lines" "$(grep -c '"kind":"execute"' kv-trace.jsonl)" 2
expect_eq "--from-tables: sbtest1's keys in the options" \
    "$(grep -c 'sbtest1_max_key = {"Largest key of sbtest1 to read", 1000}' mine.lua)" 1
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
