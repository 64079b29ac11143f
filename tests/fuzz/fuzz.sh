#!/bin/bash
# fuzz.sh: builds the libFuzzer targets with clang directly
# (-fsanitize=fuzzer,address,undefined) and runs each for a bounded time,
# starting from its seed corpus in the tree (tests/fuzz/corpus/<target>/):
#   options      lib/options.c (argv parsing, resolve, masked echo)      60 s
#   db_literal   core/db.c placeholder scan + literal emulation           30 s
#   pgsql_wire   drivers/pgsql/pgsql_wire_proto.c (backend messages)      60 s
#   mysql_wire   drivers/mysql/mysql_wire_proto.c + mysql_wire_row.c      60 s
#   hdr_read     results/hdr_read.c (interval log, V2 decode) + hdr_log.c    60 s
#   json_read    results/json_get.c, merge_load.c, compare_load.c (reports)  60 s
# A crash, sanitizer report, leak or failed oracle fails the test; the input
# is kept in $SBT_TMP (or /tmp) under fuzz-artifacts and printed in base64.
# The long runs (tests/fuzz/README.md) are the same script with a time:
#   FUZZ_TIME=1800 nice tests/fuzz/fuzz.sh pgsql_wire
# The readers' seeds are written by make_reader_corpus.py from real outputs.
# Usage: fuzz.sh [TARGET...]   (default: all of the above)
# Environment: FUZZ_TIME (seconds per target, instead of the table's),
# FUZZ_KEEP (a directory: the grown corpora and logs are kept there),
# FUZZ_UNIT_TIMEOUT (seconds one input may take, default 10; a long run
# under nice on a loaded machine needs more: starved, a 0.1 s input took 10).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang >/dev/null || { echo "FAIL: clang not installed"; exit 1; }
work=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-fuzz.XXXXXX")
art=${SBT_TMP:-/tmp}/fuzz-artifacts
mkdir -p "$art"
trap 'rm -rf "$work"' EXIT
pq_inc=$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
CF="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
CF="$CF -I$src/core -I$src/include -I$src/drivers/pgsql -I$src/drivers/mysql -I$pq_inc"
common="$src/drivers/common/buf.c $src/lib/text.c"
fails=0

build() { # name sources...
    local name=$1; shift
    timeout 300 clang $CF "$@" -lm -o "$work/$name" 2>"$work/$name.build" ||
        { cat "$work/$name.build"; echo "FAIL: building $name"; fails=$((fails + 1)); return 1; }
}
run() { # name seconds
    local name=$1 secs=${FUZZ_TIME:-$2} t0=$SECONDS
    local corpus=$work/$name.corpus
    mkdir -p "$work/$name.art" "$corpus"
    cp "$src/tests/fuzz/corpus/$name/"* "$corpus/" 2>/dev/null ||
        { echo "FAIL: $name: no seed corpus in tests/fuzz/corpus/$name"; fails=$((fails + 1)); return; }
    timeout -k 10 $((secs + 120)) "$work/fuzz_$name" -max_total_time="$secs" -timeout="${FUZZ_UNIT_TIMEOUT:-10}" \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/$name.art/" "$corpus" >"$work/$name.log" 2>&1
    local rc=$?
    local runs
    # a slow unit is a note (a loaded machine makes them), not a finding:
    # kept with the logs, not failed on; a timeout (-timeout) does fail
    mkdir -p "$work/$name.slow"
    mv "$work/$name.art"/slow-unit-* "$work/$name.slow/" 2>/dev/null
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
    if [ -n "${FUZZ_KEEP:-}" ]; then
        mkdir -p "$FUZZ_KEEP/$name"
        cp -r "$corpus" "$work/$name.log" "$FUZZ_KEEP/$name/"
    fi
    if [ "$rc" -ne 0 ] || [ -n "$(ls "$work/$name.art")" ]; then
        echo "FAIL: $name: status $rc after $((SECONDS - t0))s"
        grep -E 'ERROR|runtime error|SUMMARY|#[0-9]+ .*(core|drivers|tests)/' "$work/$name.log" | head -n 20
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

target() { # name: build it and run it for its time
    case $1 in
    options)
        build fuzz_options "$src/tests/fuzz/fuzz_options.c" "$src/lib/options.c" "$src/lib/secret_mask.c" &&
            run options 60 ;;
    db_literal)
        build fuzz_db_literal "$src/tests/fuzz/fuzz_db_literal.c" "$src/core/db.c" "$src/core/db_sql.c" \
            "$src/core/db_stmt.c" "$src/core/db_bulk.c" "$src/core/stats.c" "$src/core/event_types.c" \
            "$src/core/histogram.c" $common &&
            run db_literal 30 ;;
    pgsql_wire)
        build fuzz_pgsql_wire "$src/tests/fuzz/fuzz_pgsql_wire.c" \
            "$src/drivers/pgsql/pgsql_wire_proto.c" "$src/drivers/pgsql/pgsql_types.c" $common &&
            run pgsql_wire 60 ;;
    mysql_wire)
        build fuzz_mysql_wire "$src/tests/fuzz/fuzz_mysql_wire.c" \
            "$src/drivers/mysql/mysql_wire_proto.c" "$src/drivers/mysql/mysql_wire_row.c" $common &&
            run mysql_wire 60 ;;
    hdr_read)
        build fuzz_hdr_read "$src/tests/fuzz/fuzz_hdr_read.c" "$src/results/hdr_read.c" \
            "$src/core/hdr_log.c" "$src/core/histogram.c" -lz &&
            run hdr_read 60 ;;
    json_read)
        # merge_load.c and compare_load.c with what they link to (the
        # comparison's spec is Lua; run_meta.c wants SB_VERSION)
        build fuzz_json_read -D_GNU_SOURCE -DSB_VERSION='"fuzz"' $(pkg-config --cflags json-c lua5.4) \
            "$src/tests/fuzz/fuzz_json_read.c" "$src/merge/merge_load.c" "$src/merge/merge_sections.c" "$src/compare/compare_load.c" \
            "$src/compare/compare_check.c" "$src/results/json_get.c" "$src/results/readfile.c" "$src/results/hdr_read.c" "$src/results/report_check.c" \
            "$src/core/histogram.c" "$src/core/report_sections.c" "$src/merge/merge_sampled.c" "$src/core/sampled.c" \
            "$src/core/stats.c" "$src/core/shard_id.c" "$src/merge/merge_sum.c" "$src/merge/merge_shard.c" "$src/compare/compare_json.c" \
            "$src/compare/compare_spec.c" "$src/compare/compare_exec.c" "$src/compare/compare_probe.c" "$src/lib/options.c" "$src/lib/secret_mask.c" \
            "$src/compare/compare_history.c" "$src/compare/compare_rounds.c" "$src/compare/compare_server_probe.c" "$src/compare/compare_seq.c" "$src/compare/compare_stats.c" \
            "$src/core/event_types.c" "$src/core/run_meta.c" "$src/lib/jsonw.c" "$src/core/sysinfo.c" \
            -ljson-c -llua5.4 -lz &&
            run json_read 60 ;;
    *)
        echo "FAIL: no fuzz target '$1'"; fails=$((fails + 1)) ;;
    esac
}

[ $# -gt 0 ] || set -- options db_literal pgsql_wire mysql_wire hdr_read json_read
for t in "$@"; do
    target "$t"
done
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
