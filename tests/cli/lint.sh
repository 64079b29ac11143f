#!/bin/sh
# lint.sh [BUILD_DIR]: `sbench lint WORKLOAD` rule by rule, on workloads
# whose answer is set in them (tests/lint/): each RULE_bad.lua marks every
# line the lint must report with `-- lint: RULE`, and the lint must report
# exactly those (line and rule) and exit 1; each RULE_good.lua has the same
# kind of code without the trap, and the lint must say nothing and exit 0.
# No false alarm on every workload sbench ships (workloads/, examples/) and
# on sysbench 1.0.20's own scripts (/usr/share/sysbench).  Before a run the
# same findings are warnings on stderr (the blocking-call rule only under
# --clients), and --lint=off silences them; a missing file is exit 2.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(cd "$(dirname "$0")/.." && pwd)/cli/author-lib.sh"

for f in "$src"/tests/lint/*_bad.lua; do
    want=$(awk '/-- lint: / { sub(/.*-- lint: /, ""); print NR ":" $1 }' "$f" | sort)
    got=$("$SB" lint "$f" 2>&1 | sed -n 's/^[^:]*:\([0-9]*\): \([a-z-]*\): .*/\1:\2/p' | sort)
    "$SB" lint "$f" >/dev/null 2>&1
    rc=$?
    expect_eq "$(basename "$f"): the lines and rules marked" "$(echo $got)" "$(echo $want)"
    expect_eq "$(basename "$f"): exit status" "$rc" 1
done
for f in "$src"/tests/lint/*_good.lua; do
    out=$("$SB" lint "$f" 2>&1)
    expect_eq "$(basename "$f"): nothing found (exit $?)" "$out" ""
done

[ -d /usr/share/sysbench ] || { echo "FAIL: /usr/share/sysbench missing (scripts/install-deps.sh installs sysbench)"; exit 1; }
n=0 loud=""
for f in "$src"/workloads/*.lua "$src"/examples/*.lua /usr/share/sysbench/*.lua; do
    n=$((n + 1))
    out=$("$SB" lint "$f" 2>&1) || loud="$loud $(basename "$f")"
    [ -z "$out" ] || loud="$loud $(basename "$f")"
done
expect_eq "no finding on the $n shipped and sysbench scripts" "$loud" ""

# before a run: warnings on stderr; the blocking rule only under --clients
run() { "$SB" --db-driver=null --events=2 --time=0 --verbosity=1 "$@" run </dev/null >out.txt 2>err.txt; }
run "$src/tests/lint/options_bad.lua"
expect_eq "before a run: the findings as warnings" "$(grep -c '^sbench: lint: warning: .*option-un' err.txt)" 2
run --lint=off "$src/tests/lint/options_bad.lua"
expect_eq "--lint=off: no warning" "$(grep -c 'lint' err.txt)" 0
run "$src/tests/lint/blocking_bad.lua"
expect_eq "blocking calls without --clients: no warning" "$(grep -c 'blocking-call' err.txt)" 0
run --clients=2 --threads=1 "$src/tests/lint/blocking_bad.lua"
expect_eq "blocking calls under --clients: warned" "$(grep -c 'blocking-call' err.txt)" 2

"$SB" lint "$tmp/no-such.lua" >out.txt 2>err.txt
expect_eq "a missing workload: exit 2" "$?" 2
expect_eq "a missing workload: one line on stderr" "$(wc -l <err.txt | tr -d ' ')" 1
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
