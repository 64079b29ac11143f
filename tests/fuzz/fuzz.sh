#!/bin/bash
# fuzz.sh: builds the libFuzzer targets with clang directly
# (-fsanitize=fuzzer,address,undefined) and runs each for a bounded time:
#   fuzz_options     core/options.c (argv parsing, resolve, masked echo)  60 s
#   fuzz_db_literal  core/db.c placeholder scan + literal emulation       30 s
# A crash, sanitizer report or failed oracle fails the test; the input is
# kept in $SBT_TMP (or /tmp) under fuzz-artifacts and printed in base64.
# Usage: fuzz.sh [SECONDS_OPTIONS [SECONDS_DB]]
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang >/dev/null || { echo "FAIL: clang not installed"; exit 1; }
t_opt=${1:-60}
t_db=${2:-30}
work=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-fuzz.XXXXXX")
art=${SBT_TMP:-/tmp}/fuzz-artifacts
mkdir -p "$art"
trap 'rm -rf "$work"' EXIT
CF="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$src/core -I$src/include"
fails=0

build() { # name sources...
    local name=$1; shift
    timeout 300 clang $CF "$@" -lm -o "$work/$name" 2>"$work/$name.build" ||
        { cat "$work/$name.build"; echo "FAIL: building $name"; fails=$((fails + 1)); return 1; }
}
run() { # name seconds corpus-dir
    local name=$1 secs=$2 corpus=$3 t0=$SECONDS
    mkdir -p "$work/$name.art"
    timeout -k 10 $((secs + 120)) "$work/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$work/$name.art/" "$corpus" >"$work/$name.log" 2>&1
    local rc=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
    if [ "$rc" -ne 0 ] || [ -n "$(ls "$work/$name.art")" ]; then
        echo "FAIL: $name: status $rc after $((SECONDS - t0))s"
        grep -E 'ERROR|runtime error|SUMMARY|#[0-9]+ .*(core|tests)/' "$work/$name.log" | head -n 20
        for f in "$work/$name.art"/*; do
            [ -f "$f" ] || continue
            cp "$f" "$art/$name-$(basename "$f")"
            echo "input ($art/$name-$(basename "$f")): $(base64 -w0 <"$f")"
        done
        fails=$((fails + 1))
    else
        echo "ok: $name: ${runs:-?} inputs in $((SECONDS - t0))s, no crash"
    fi
}

# seed corpora
mkdir -p "$work/c_opt" "$work/c_db"
printf -- '--threads=4\n--time=1.5\noltp_read_write\nrun' >"$work/c_opt/a"
printf -- '--pgsql-password=abcdef\n--table_size=9\n--\n--x\n-h' >"$work/c_opt/b"
printf -- '--histogram\n--report-format=csv\n--percentiles=50,99.9\n--threads=99999999999999999999' >"$work/c_opt/c"
printf "\0SELECT c FROM t WHERE id = ? AND c = ? AND x = '?'\0\001\0\0\0\0\0\0\0\7\003it's \\\\ ok\0" >"$work/c_db/a"
printf "\001UPDATE t SET c=? WHERE k=? AND \`a?\`=\"?\"\0\003a\\\\'b\0\002\5" >"$work/c_db/b"

build fuzz_options "$src/tests/fuzz/fuzz_options.c" "$src/core/options.c" &&
    run fuzz_options "$t_opt" "$work/c_opt"
build fuzz_db_literal "$src/tests/fuzz/fuzz_db_literal.c" "$src/core/db.c" "$src/core/db_stmt.c" "$src/core/db_bulk.c" \
    "$src/core/stats.c" "$src/core/event_types.c" "$src/core/histogram.c" "$src/drivers/common/text.c" &&
    run fuzz_db_literal "$t_db" "$work/c_db"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
