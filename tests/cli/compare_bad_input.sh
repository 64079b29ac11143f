#!/bin/bash
# compare_bad_input.sh: bad input to sbench compare and sbench report gets
# one clear line and a non-zero exit, and runs nothing: an unknown target
# name (--baseline, a saved target), a target that cannot connect (named,
# with the driver's message, before any prepare or run; its password in no
# output or file), a results directory of a different comparison, a
# damaged comparison file, options compare sets itself, bad lists and
# values, a directory that is not a results directory.  No server needed
# (the dead target is a closed port).
. "$(dirname "$0")/../integration/compare-lib.sh" "$1"
secret='S3cret-compare-pw'
null="--db-driver=null"
# expect STATUS PATTERN -- ARGS...: exit status, stderr matches, one line
expect() {
    want=$1 pat=$2
    shift 3
    "$SB" "$@" >out.txt 2>err.txt
    rc=$?
    checks=$((checks + 1))
    if [ "$rc" = "$want" ] && grep -q -- "$pat" err.txt && [ "$(wc -l <err.txt)" -le 2 ]; then
        echo "ok   sbench ${*:1:2}...: exit $rc, $(head -1 err.txt)"
    else
        fail "sbench $*: exit $rc (want $want), stderr:"
        sed 's/^/     | /' err.txt | head -5
    fi
}
ok_cmp=(compare --prepare=off --target="a:$null" --target="b:$null" --events=50 --time=0 --warmup-time=0 --repeats=1 --quiet)

expect 2 "unknown target 'nosuch' for --baseline" -- "${ok_cmp[@]}" --baseline=nosuch --results=x1 oltp_point_select
[ ! -e x1 ] && echo "ok   nothing created for an unknown --baseline" || fail "x1 created"
# a good comparison, then a saved target that does not exist in it
"$SB" "${ok_cmp[@]}" --results=good oltp_point_select >/dev/null 2>&1
expect 1 "no target 'nosuch' in good (its targets: a, b)" -- compare --prepare=off --target="old:@good/nosuch" \
    --target="b:$null" --events=50 --time=0 --warmup-time=0 --repeats=1 --quiet --results=x2 oltp_point_select
expect 2 "unknown target 'zz' for --baseline" -- report good --baseline=zz

# a target that cannot connect: said before anything else runs
expect 1 "target 'dead' cannot be used: .*127.0.0.1" -- compare --target="ok:$null" \
    --target="dead:--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=1 --pgsql-password=$secret" \
    --threads=1 --time=1 --repeats=1 --results=x3 --quiet oltp_point_select
grep -q "1 target failed the connection or options check; nothing was run" err.txt && echo "ok   says nothing was run" ||
    fail "no 'nothing was run' line"
expect_eq "no prepare and no run after a failed check" "$(ls x3/logs x3/runs | grep -c '\.out$')" 0
checks=$((checks + 1))
if grep -rq -- "$secret" x3 out.txt err.txt; then fail "the password is in the output or the results directory"
else echo "ok   the password is nowhere"; fi

# a results directory from a different comparison
expect 1 "results directory good holds a different comparison (its threads differ)" -- \
    compare --prepare=off --target="a:$null" --target="b:$null" --threads=2 --events=50 --time=0 \
    --warmup-time=0 --repeats=1 --quiet --results=good oltp_point_select
expect 1 "results directory good holds a different comparison (its targets differ)" -- \
    compare --prepare=off --target="a:$null" --target="c:$null" --events=50 --time=0 \
    --warmup-time=0 --repeats=1 --quiet --results=good oltp_point_select

# comparison files
echo 'return { targets = { { name = "a" } ' >broken.lua
expect 2 "comparison file broken.lua" -- compare broken.lua
echo 'return 42' >num.lua
expect 2 "num.lua: the file must return a table" -- compare num.lua
expect 2 "comparison file 'missing.lua' cannot be read" -- compare missing.lua
printf 'return { targets = { {name="a", options={db_driver="null"}}, {name="a", options={db_driver="null"}} }, workloads={"oltp_point_select"} }' >dup.lua
expect 2 "two targets are named 'a'" -- compare dup.lua
printf 'return { targets = { {name="a b", options={db_driver="null"}} }, workloads={"oltp_point_select"} }' >name.lua
expect 2 "invalid target name 'a b'" -- compare name.lua

# command lines
expect 2 "target 'a': --threads is set by compare itself" -- compare --target="a:$null --threads=4" oltp_point_select
expect 2 "invalid --threads list '1,x'" -- compare --target="a:$null" --threads=1,x oltp_point_select
expect 2 "invalid value '0' for --repeats" -- compare --target="a:$null" --repeats=0 oltp_point_select
expect 2 "--target needs NAME:OPTIONS" -- compare --target=nocolon oltp_point_select
expect 2 "missing WORKLOAD" -- compare --target="a:$null"
expect 2 "invalid value 'x' for --fail-slower" -- compare --target="a:$null" --fail-slower=x oltp_point_select
expect 2 "each run needs a length" -- compare --target="a:$null" --time=0 oltp_point_select
expect 1 "notadir is not a results directory of sbench compare" -- report notadir
# damaged run files in a results directory: one line naming the file, no
# summary written (sbench report reads them through results/json_get.c)
run=runs/oltp_point_select_t1_a_r1
cp -r good cut && head -c -20 good/$run.json >cut/$run.json && rm -f cut/summary.json
expect 1 "run oltp_point_select_t1_a_r1: cut/$run.json: the last line does not end: the file is truncated" -- report cut
[ ! -e cut/summary.json ] && echo "ok   no summary from a truncated report" || fail "cut/summary.json written"
cp -r good badline && sed -i '1s/^{/{{/' badline/$run.json
expect 1 "badline/$run.json:1: .* at column 2" -- report badline
cp -r good badrec && printf '{"id": ' >badrec/$run.record.json
expect 1 "badrec/$run.record.json: not JSON: the text ends inside the value" -- report badrec
cp -r good badcount && python3 - badcount/$run.json <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
final = json.loads(lines[-1])
final["latency_ms"]["count"] = str(final["latency_ms"]["count"])
lines[-1] = json.dumps(final)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect 1 "badcount/$run.json:[0-9]*: \"latency_ms.count\" is missing or not a count" -- report badcount
expect 2 "unknown option '--bogus' for sbench report" -- report good --bogus=1
finish
