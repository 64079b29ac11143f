#!/bin/sh
# meta.sh [BUILD_DIR]: sdk/lua/sbench.lua, the lua-language-server
# definitions of the workload API, against the API itself: every function
# of the live sbench table and every method of the objects it returns
# (tests/cli/meta_walk.lua, run by sbench) is declared, every declaration
# exists (a function in one and not the other fails), `sysbench` is
# declared as the same table, and the file is Lua that parses.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/cli/author-lib.sh"
META=$src/sdk/lua/sbench.lua
"$SB" --db-driver=null --null-dialect=postgresql --verbosity=0 "$src/tests/cli/meta_walk.lua" >live.txt 2>err.txt ||
    { echo "FAIL: the walk exited $?"; cat err.txt; exit 1; }
expect_eq "sysbench is sbench" "$(grep -c '^alias sysbench$' live.txt)" 1
grep -v '^alias' live.txt | grep -v '^sbench [0-9]' | grep . | sort -u >live.names
sed -n -e 's/^function \(sbench\.[A-Za-z0-9_.]*\)(.*/\1/p' -e 's/^function \([A-Z][A-Za-z]*:[A-Za-z0-9_]*\)(.*/\1/p' "$META" | sort -u >meta.names
expect_eq "functions live and not declared" "$(comm -23 live.names meta.names | tr '\n' ' ')" ""
expect_eq "functions declared and not live" "$(comm -13 live.names meta.names | grep -v '^Result:' | tr '\n' ' ')" ""
expect_eq "the result's methods declared" "$(grep -c '^Result:' meta.names)" "$(grep -c '^Result:' live.names)"
expect_eq "functions compared" "$(wc -l <live.names | tr -d ' ')" "$(wc -l <meta.names | tr -d ' ')"
expect_eq "sysbench declared as sbench" "$(grep -c '^sysbench = sbench$' "$META")" 1
lua=$(command -v lua5.4 || command -v lua) || { echo "FAIL: no lua5.4 (scripts/install-deps.sh installs it)"; exit 1; }
expect_eq "the file parses as Lua" "$("$lua" -e "assert(loadfile('$META'))" 2>&1; echo "exit $?")" "exit 0"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
