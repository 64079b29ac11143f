#!/bin/bash
# bad_input.sh: table-driven test of bad sbench command lines.  Each case
# gives the expected exit status and a fragment the first stderr line must
# contain.  Every case runs under `timeout 20` in a temporary directory with
# the sqlite or null driver (or a dead mysql/pgsql address: no server needed).
# Fails a case on: wrong status, missing fragment, status >= 124 (hang or
# crash), more than one stderr line for a usage error (status 2).
# Usage: bad_input.sh [BUILD_DIR]   (default: $SBT_BUILD, else ./build)
set -u
build=${1:-${SBT_BUILD:-build}}
build=$(cd "$build" && pwd) || { echo "bad_input: no build dir"; exit 1; }
S=$build/cli/sbench
[ -x "$S" ] || { echo "bad_input: $S not found"; exit 1; }
src=$(cd "$(dirname "$0")/../.." && pwd)

tmp=$(mktemp -d /tmp/sbench-badinput.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset SBENCH_PATH SBENCH_DRIVER_PATH MYSQL_PWD PGPASSWORD

# fixtures
mkdir drv
echo 'this is not an ELF file' > drv/sbench-broken.so
printf 'function event(\n  x = = 1\nend\n' > syntax.lua
cat > event_err.lua <<'LUA'
local n = 0
function event()
  n = n + 1
  if n > 50 then
    local t = nil
    return t.field
  end
end
LUA
cat > tinit_err.lua <<'LUA'
function thread_init()
  error("boom in thread_init")
end
function event() end
LUA
echo 'function thread_init() end' > no_event.lua
printf 'sysbench.cmdline.options = {size = {"bytes", nil, sysbench.cmdline.ARG_SIZE}}\nfunction event() end\n' > typed.lua
printf 'sysbench.cmdline.options = {x = {"bad type", nil, 42}}\nfunction event() end\n' > typed_bad.lua
long=$(head -c 5000 /dev/zero | tr '\0' a)
abi_ok=0
if command -v cc >/dev/null 2>&1; then
    cat > abi.c <<'C'
#include <sbench/driver.h>
static const struct sbd_driver d = { sizeof d, SBD_ABI_MAJOR + 1, 0, "oldabi", "wrong ABI", 0, 0 };
__attribute__((visibility("default"))) const struct sbd_driver *sbench_driver_entry(void) { return &d; }
C
    echo 'int unrelated(void) { return 1; }' > nosym.c
    cc -shared -fPIC -I"$src/include" -o drv/sbench-oldabi.so abi.c 2>/dev/null &&
        cc -shared -fPIC -o drv/sbench-nosym.so nosym.c 2>/dev/null && abi_ok=1
fi

pass=0 fail=0
# check STATUS FRAGMENT [--stdout=TEXT] [--absent=TEXT] [--stdin=FILE] -- ARGS...
check() {
    local want=$1 frag=$2; shift 2
    local out_frag="" absent="" input=/dev/null
    while [ "$1" != "--" ]; do
        case $1 in
            --stdout=*) out_frag=${1#--stdout=} ;;
            --absent=*) absent=${1#--absent=} ;;
            --stdin=*) input=${1#--stdin=} ;;
        esac
        shift
    done
    shift
    local label
    label=$(printf '%s ' "$@" | cut -c1-90)
    timeout 20 "$S" "$@" >out 2>err <"$input"
    local rc=$? why=""
    # the default driver's note (stderr, as every note) is not the error
    grep -v '^sbench: no --db-driver given' err >err.kept; mv err.kept err
    local first
    first=$(head -n 1 err)
    local nerr
    nerr=$(wc -l <err)
    if [ "$rc" -eq 124 ]; then why="hang (timeout)"
    elif [ "$rc" -ge 128 ]; then why="crash (status $rc)"
    elif [ "$rc" -ne "$want" ]; then why="status $rc, expected $want"
    elif [[ "$first" != *"$frag"* ]]; then why="first stderr line lacks '$frag'"
    elif [ "$want" -eq 2 ] && [ "$nerr" -ne 1 ]; then why="$nerr stderr lines for a usage error"
    elif [ -n "$out_frag" ] && ! grep -qF -- "$out_frag" out; then why="stdout lacks '$out_frag'"
    elif [ -n "$absent" ] && grep -qF -- "$absent" out err; then why="'$absent' appears in the output"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1)); echo "ok   [$rc] $label"
    else
        fail=$((fail + 1)); echo "FAIL [$rc] $label: $why"
        echo "     stderr: $(head -c 300 err | head -n 3 | tr '\n' '|')"
    fi
}
W=oltp_point_select
N=--db-driver=null

# command line shape (no workload reads the script from stdin, no command
# only runs the script: tests/cli/sysbench_cmdline.sh compares those with
# sysbench)
check 2 "unknown command 'frob' (commands: prepare, run, cleanup, help, prewarm)" -- $W frob
check 2 "unrecognized command line argument 'extra'" -- $W run extra
check 1 "stdin:2:" --stdin=syntax.lua --
check 1 "stdin:2:" --stdin=syntax.lua -- - run
check 2 "workloads found: " -- nosuch run
check 2 "oltp_read_write" -- nosuch_workload run
check 2 "does not exist" -- /nonexistent/dir/w.lua run
check 2 "does not exist" -- missing.lua run
check 2 "does not exist" -- /tmp run
check 2 "invalid option '-x'" -- -x $W run
check 2 "invalid option '--=...'" -- --=5 $W run
# unknown options, with suggestions
check 2 "did you mean --threads?" -- --thread=2 $W run
check 2 "did you mean --table-size?" -- --tables-size=5 $W run
check 2 "did you mean --sqlite-db?" -- --sqlite-dbb=x $W run
check 2 "did you mean --mysql-host?" -- $N --mysql-hots=x $W run
check 2 "unknown option --completely-unrelated-thing" -- --completely-unrelated-thing=1 $W run
check 2 "invalid value '-1' for --pipeline" -- --pipeline=-1 $W run
check 2 "for --pipeline" -- --pipeline=deep $W run
# drivers
check 2 "drivers found: " -- --db-driver=nope $W run
check 2 "sqlite" -- --db-driver=nope $W run
check 2 "unknown driver ''" -- --db-driver= $W run
check 1 "sbench-broken.so: " -- --driver-path="$tmp/drv" --db-driver=broken $W run
if [ "$abi_ok" = 1 ]; then
    check 1 "built for driver ABI" -- --driver-path="$tmp/drv" --db-driver=oldabi $W run
    check 1 "is not an sbench driver" -- --driver-path="$tmp/drv" --db-driver=nosym $W run
else
    echo "skip (no cc): driver built for another ABI, driver without entry symbol"
fi
# counts
check 2 "invalid value '0' for --threads" -- --threads=0 $W run
check 2 "invalid value '-1' for --threads" -- --threads=-1 $W run
check 2 "invalid value 'abc' for --threads: expected a whole number" -- --threads=abc $W run
check 2 "invalid value '' for --threads" -- --threads= $W run
check 2 "invalid value '1.5' for --threads" -- --threads=1.5 $W run
check 2 "for --threads: must be between" -- --threads=99999999999 $W run
check 2 "invalid value '1e99' for --table-size" -- --table-size=1e99 $W run
check 2 "invalid value '-5' for --table-size" -- --table-size=-5 $W run
check 2 "for --events: expected a whole number" -- --events=99999999999999999999999 $W run
check 2 "invalid value '-1' for --events" -- --events=-1 $W run
check 2 "invalid value '-1' for --time" -- --time=-1 $W run
check 2 "invalid value '10s' for --time" -- --time=10s $W run
check 2 "invalid value 'nan' for --percentile" -- --percentile=nan $W run
check 2 "invalid value '101' for --percentile" -- --percentile=101 $W run
check 2 "invalid value 'inf' for --report-interval" -- --report-interval=inf $W run
check 2 "invalid value '9' for --verbosity" -- --verbosity=9 $W run
check 2 "invalid --report-checkpoints list '5,abc'" -- $N --report-checkpoints=5,abc $W run
check 2 "invalid --report-checkpoints list '-1'" -- $N --report-checkpoints=-1 $W run
check 2 "at most 256 checkpoints" -- $N --report-checkpoints=$(seq -s, 1 257) $W run
check 2 "invalid value '10Q' for --size: expected a size" -- $N ./typed.lua run --size=10Q
check 1 "typed_bad.lua: option 'x' has an unknown type '42'" -- $N ./typed_bad.lua run
check 2 "invalid value 'abc' for --null-rows" -- $N --null-rows=abc $W run
# enumerations and booleans
check 2 "invalid value 'foo' for --rand-type" -- --rand-type=foo $W run
check 2 "invalid value 'maybe' for --db-ps-mode" -- --db-ps-mode=maybe $W run
check 2 "invalid --db-ignore-sqlstates entry '4000': a SQLSTATE is 5 letters or digits" -- $N --db-ignore-sqlstates=23505,4000 $W run
check 2 "invalid --db-ignore-sqlstates list: at most 64" -- $N --db-ignore-sqlstates=$(printf '40001,%.0s' $(seq 65)) $W run
check 2 "invalid value 'perhaps' for --histogram: expected on or off" -- --histogram=perhaps $W run
check 2 "invalid value '2' for --forever" -- --forever=2 $W run
check 2 "for --null-fail-connect" -- $N --null-fail-connect=maybe $W run
check 1 "--sqlite-journal-mode='bogus'" -- --sqlite-journal-mode=bogus --time=1 $W run
# outputs: checked before the run opens any file
check 2 "invalid --percentiles list 'abc'" -- --percentiles=abc $W run
check 2 "invalid --percentiles list '50,0'" -- $N --percentiles=50,0 $W run
check 2 "at most 32 numbers" -- $N --percentiles=$(seq -s, 1 33) $W run
check 2 "--prometheus: invalid prometheus addr address 'nohost:abc'" -- $N --prometheus=nohost:abc $W run
check 2 "--prometheus: invalid" -- $N --prometheus=127.0.0.1:99999 $W run
# contradictions, --forced-shutdown
check 2 "would run forever" -- --time=0 --events=0 $W run
check 2 "would run forever" -- $N --time=0 $W run
check 2 "for --forced-shutdown" -- --forced-shutdown=abc $W run
check 2 "for --forced-shutdown" -- --forced-shutdown=-3 $W run
check 2 "for --forced-shutdown" -- --forced-shutdown=5%% $W run
check 2 "for --forced-shutdown" -- --forced-shutdown=10x $W run
# over-long values
check 2 "value of --sqlite-db is too long" -- --sqlite-db="$long" $W prepare
check 2 "value of --workload-path is too long" -- --workload-path="$long" $W run
has() { [ -f "$build/drivers/$1/sbench-$1.so" ] || { echo "skip (driver $1 not built): $2"; return 1; }; }
# values that must never reach SQL: rejected before any connection
has mysql "storage engine" && check 1 "invalid mysql_storage_engine" -- --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 \
    "--mysql-storage-engine=innodb; DROP TABLE x" $W prepare
has mysql "storage engine" && check 1 "invalid mysql_storage_engine" -- --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 \
    "--mysql-storage-engine=innodb; DROP TABLE x" $W run
check 1 "invalid --tables=0" -- $N --tables=0 --time=1 $W run
# Lua errors
check 1 "syntax.lua:2:" -- $N ./syntax.lua run
check 1 "event_err.lua:6:" --stdout=transactions: -- $N --threads=2 --time=5 ./event_err.lua run
check 1 "tinit_err.lua:2: boom in thread_init" -- $N --threads=4 --time=5 ./tinit_err.lua run
check 1 "defines no event() function" -- $N --time=1 ./no_event.lua run
# secrets never echoed; connection failures
has mysql password && check 1 "Can't connect" --absent=TopSecret123 -- --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 \
    --mysql-password=TopSecret123 $W run
has pgsql password && check 1 "Connection refused" --absent=TopSecret123 -- --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=1 \
    --pgsql-password=TopSecret123 $W run
check 1 "connection refused (--null-fail-connect)" -- $N --null-fail-connect=on $W run
check 1 "connection refused (--null-fail-connect)" -- $N --null-fail-connect=on $W prepare
check 1 "null driver: --null-delay-us must be between 0 and 60000000" -- $N --null-delay-us=-5 $W run
check 1 "null driver: --null-fail-every must be >= 0" -- $N --null-fail-every=-1 $W run
check 1 "null driver: --null-fail-status must be retry, error or lost, not 'sometimes'" -- $N --null-fail-status=sometimes $W run
check 2 "invalid value 'abc' for --null-delay-us" -- $N --null-delay-us=abc $W run

# shards (core/shard*.c): identity, --start-at, what a shard must write
SH="--report-format=json --output=o.json --hdr-log=o.hlog"
check 2 "invalid value '3/3' for --shard" -- $N --shard=3/3 $SH --run-id=r --time=1 $W run
check 2 "invalid value '1' for --shard" -- $N --shard=1 $SH --run-id=r --time=1 $W run
check 2 "writes what 'sbench merge' reads" -- $N --shard=0/2 --run-id=r --time=1 $W run
check 2 "has no run id to share" -- $N --shard=0/2 $SH --time=1 $W run
check 2 "invalid run id 'a b'" -- $N --shard=0/2 $SH "--run-id=a b" --time=1 $W run
check 2 "invalid value 'soon' for --start-at" -- $N --start-at=soon --time=1 $W run
check 2 "--start-at=1000000000 passed" -- $N --start-at=1000000000 --time=1 $W run
check 2 "--events=2 is fewer than the 3 shards" -- $N --shard=2/3 $SH --run-id=r --events=2 --time=0 $W run
check 2 "--shard-count=2 needs JOB_COMPLETION_INDEX" -- $N --shard-count=2 $SH --time=1 $W run
export JOB_COMPLETION_INDEX=1
check 2 "give --shard-count=N" -- $N $SH --run-id=r --time=1 $W run
check 2 "JOB_COMPLETION_INDEX='1' is not a shard index below --shard-count=1" -- $N --shard-count=1 $SH --run-id=r --time=1 $W run
unset JOB_COMPLETION_INDEX
export OMPI_COMM_WORLD_RANK=x OMPI_COMM_WORLD_SIZE=3
check 2 "are not a shard index and count" -- $N $SH --run-id=r --time=1 $W run
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE
[ ! -e o.json ] && [ ! -e o.hlog ] || { fail=$((fail + 1)); echo "FAIL: a refused shard left o.json or o.hlog"; }
# sbench merge (merge/merge*.c); its refusals of inputs: tests/measure/merge_exact.sh
check 2 "sbench merge: no input" -- merge
check 2 "unknown option --frob" -- merge --frob=1 x
check 2 "invalid value 'xml' for --report-format" -- merge --report-format=xml x
check 1 "nosuch: No such file or directory" -- merge nosuch
check 1 "syntax.lua: neither an sbench JSON report nor an HdrHistogram log" -- merge syntax.lua
check 1 "no *.json or *.hlog file in the directory" -- merge drv

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
