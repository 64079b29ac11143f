#!/bin/bash
# asan_builtins.sh: sysbench's built-in tests (cpu, memory in both scopes
# and access modes, threads, mutex, fileio prepare/run/cleanup) on an
# AddressSanitizer + UBSan build ($SBT_BUILD/asan-tree, shared with
# asan_prepare.sh), multi-threaded: no sanitizer report (leaks included),
# every run exits 0; and a script without options of its own.  No server.
source "$(dirname "$0")/lib.sh"
A=$SBT_BUILD/asan-tree
if [ ! -f "$A/build.ninja" ]; then
    timeout 300 meson setup "$A" "$SRC" -Db_sanitize=address,undefined -Db_lundef=false \
        >"$T/setup.log" 2>&1 || { cat "$T/setup.log"; fail "meson setup"; finish; }
fi
timeout 900 ninja -C "$A" cli/sbench $(cd "$A" && ninja -t targets all 2>/dev/null |
    sed -n 's/^\(drivers\/[^:]*\.so\): .*/\1/p') >"$T/build.log" 2>&1 ||
    { tail -n 30 "$T/build.log"; fail "asan build"; finish; }
AS=$A/cli/sbench
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_path=$T/sanlog-asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$T/sanlog-ubsan
cd "$T" || exit 1
san() {
    local name=$1; shift
    timeout -k 5 120 "$AS" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
    local rc=$? logs
    logs=$(ls "$T"/sanlog-* 2>/dev/null)
    if [ -n "$logs" ]; then
        fail "$name: sanitizer report (status $rc):"; head -n 30 $logs; rm -f $logs
    elif [ "$rc" -ne 0 ]; then
        fail "$name: status $rc"; tail -n 5 "$T/$name.err"
    else
        ok "$name"
    fi
}
R="--threads=3 --time=2"
san cpu $R --cpu-max-prime=2000 cpu run
san memory_global $R --memory-total-size=64M memory run
san memory_local_rnd_read $R --memory-scope=local --memory-access-mode=rnd --memory-oper=read --memory-total-size=16M memory run
san memory_none $R --memory-oper=none --memory-block-size=8 --memory-total-size=1M memory run
san threads $R --thread-locks=2 --thread-yields=100 threads run
san mutex --threads=3 --mutex-num=16 --mutex-locks=500 --mutex-loops=10 mutex run
# a script that declares no options (l_state.c sorted a NULL array: UBSan's
# nonnull-attribute report), under --rate (the arrival schedule's path)
printf 'function event() end\n' > "$T/noopts.lua"
san script_without_options $R --rate=200 "$T/noopts.lua" run
F="--file-num=3 --file-total-size=3M"
san fileio_prepare $F fileio prepare
san fileio_rndrw $R $F --file-test-mode=rndrw --file-fsync-freq=10 fileio run
san fileio_seqwr $R $F --file-test-mode=seqwr --file-fsync-all=on --file-fsync-mode=fdatasync fileio run
san fileio_cleanup $F fileio cleanup
finish
