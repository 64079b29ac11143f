#!/bin/sh
# new.sh [BUILD_DIR]: `sbench new NAME` on SQLite (no server).
#   1. the template: NAME.lua passes `sbench lint`, and prepare / run /
#      cleanup work: the table holds --NAME-rows rows (a SQL recount), the
#      run counts the --events it was given;
#   2. --from-tables on two sysbench tables of known size: the key range
#      written into the options is the tables' (1..100), the workload passes
#      lint, runs, and leaves the tables as they were (the inserts it makes
#      are deleted in the same transaction: the rows and sum(k) recounted
#      are the ones before, but for the updated k);
#   3. bad input: an existing file, a name that is no identifier, a table
#      that does not exist: one line on stderr, exit 2 / 2 / 1, no file.
set -u
. "$(cd "$(dirname "$0")/.." && pwd)/cli/author-lib.sh"
db="--sqlite-db=$tmp/t.db"
events() { sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p' "$1"; }

# 1. the template
"$SB" new kvw >new.out 2>&1
expect_eq "new kvw: exit status" "$?" 0
expect_eq "lint kvw.lua" "$("$SB" lint kvw.lua 2>&1; echo "exit $?")" "exit 0"
"$SB" $db --kvw-rows=200 kvw.lua prepare >p.out 2>&1
expect_eq "prepare: rows in the table (SQL recount)" "$(sqlite3 t.db 'SELECT count(*), min(k), max(k) FROM kvw')" "200|1|200"
"$SB" $db --kvw-rows=200 --events=50 --time=0 kvw.lua run >r.out 2>&1
expect_eq "run: events" "$(events r.out)" 50
"$SB" $db kvw.lua cleanup >c.out 2>&1
expect_eq "cleanup: the table is gone" "$(sqlite3 t.db "SELECT count(*) FROM sqlite_master WHERE name = 'kvw'")" 0
"$SB" new --dialect=mysql kvm >/dev/null 2>&1
expect_eq "--dialect=mysql: the MySQL CREATE TABLE chosen" "$(grep -c 'create_table_sql("mysql" or con:dialect())' kvm.lua)" 1

# 2. from the tables
"$SB" $db --tables=2 --table-size=100 oltp_read_write prepare >o.out 2>&1
before="$(sqlite3 t.db 'SELECT count(*), min(id), max(id) FROM sbtest1; SELECT count(*) FROM sbtest2' | tr '\n' ' ')"
"$SB" $db new fromt --from-tables=sbtest1,sbtest2 >n.out 2>&1
expect_eq "new --from-tables: exit status" "$?" 0
expect_eq "the key range of sbtest1 in the options" \
    "$(grep -c -e 'sbtest1_min_key = {"Smallest key of sbtest1 to read", 1}' -e 'sbtest1_max_key = {"Largest key of sbtest1 to read", 100}' fromt.lua)" 2
expect_eq "lint fromt.lua" "$("$SB" lint fromt.lua 2>&1; echo "exit $?")" "exit 0"
"$SB" $db --events=20 --time=0 fromt.lua run >f.out 2>&1
expect_eq "run fromt.lua: events" "$(events f.out)" 20
expect_eq "the tables' rows after the run" \
    "$(sqlite3 t.db 'SELECT count(*), min(id), max(id) FROM sbtest1; SELECT count(*) FROM sbtest2' | tr '\n' ' ')" "$before"

# 3. bad input
"$SB" new kvw >o.txt 2>e.txt
expect_eq "an existing file: exit 2, one line" "$?:$(wc -l <e.txt | tr -d ' ')" "2:1"
"$SB" new 'no-name' >o.txt 2>e.txt
expect_eq "a name that is no identifier: exit 2, one line" "$?:$(wc -l <e.txt | tr -d ' ')" "2:1"
"$SB" $db new nosuch --from-tables=nosuch >o.txt 2>e.txt
expect_eq "a table that does not exist: exit 1, one line, no file" "$?:$(wc -l <e.txt | tr -d ' '):$(ls nosuch.lua 2>/dev/null)" "1:1:"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
