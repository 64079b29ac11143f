#!/bin/sh
# io_uring.sh: the clients' io_uring loop (--io=uring) against its poll()
# loop (--io=poll), on PostgreSQL and MariaDB, with facts known apart from
# sbench's own report:
#   - system calls per query, counted by strace -c (the kernel's view of
#     the process, every thread, startup included): 20,000 point selects
#     with 16 clients on one thread make fewer system calls than queries
#     with io_uring (one io_uring_enter per pass hands every client's send
#     and receive to the kernel) and at least 1.5 per query with poll() (a
#     send and a receive per statement); exactly 20,000 queries on both;
#   - 5,000 point selects with 32 clients on 2 threads: as many as the
#     server counted;
#   - statements whose request (a 3 MiB parameter and literal) and answer
#     (a 300 kB value, 2,000 rows) are far larger than a socket buffer or
#     one read (io_big.lua checks every value) complete on both paths;
#   - an answer over --db-max-result-bytes on the io_uring path ends the
#     connection with the same one-line error as on the poll() path;
#   - the JSON report's run.io names the path strace saw: "io_uring" when
#     the run made io_uring_enter calls, "poll" when it made none, and
#     "blocking" for one client per thread; on PostgreSQL with
#     --pgsql-wire=off (libpq receives each answer itself: recvfrom calls
#     counted by strace, one or more a query) "io_uring_poll", with the
#     wire path (no recvfrom but at connect) "io_uring".
# Environment: see wl-lib.sh.  Needs strace.  About 40 s.
set -u
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
command -v strace >/dev/null || die "strace not found (scripts/install-deps.sh --test installs it)"
BIG=$WL_HERE/io_big.lua

# syscalls EVENTS IO [CLIENTS]: CLIENTS (default 16) on one thread; the
# system calls of the whole run (every thread), its queries, its
# io_uring_enter calls and its JSON report's run.io, as
# "CALLS QUERIES ENTERS IO".
syscalls() {
    st=$SBT_TMP/io-$TARGET-$2-$1-${3:-16}.strace
    OUT=$SBT_TMP/io-$TARGET-$2-$1-${3:-16}.out
    # shellcheck disable=SC2086
    strace -f -c -o "$st" "$SBENCH" $SB_DRV ${SYS_EXTRA:-} --db-server-counters=off --db-server-settings=off \
        --tables=1 --table-size=2000 --threads=1 --clients="${3:-16}" --events="$1" --time=0 --io="$2" \
        --report-format=json --output="$OUT.json" \
        oltp_point_select run >"$OUT" 2>&1 || { echo "x x x x"; return; }
    # strace -c's total line: "100.00 secs usecs/call calls [errors] total"
    calls=$(awk '$NF == "total" { n = 0; for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/) v[++n] = $i; print (n >= 3 ? v[n-1] : v[n]) }' "$st")
    enters=$(awk '$NF == "io_uring_enter" { n = 0; for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/) v[++n] = $i; print (n >= 3 ? v[n-1] : v[n]) }' "$st")
    R_QUERIES=$(tail -n 1 "$OUT.json" | json_field queries.total)
    echo "${calls:-x} ${R_QUERIES:-x} ${enters:-0} $(tail -n 1 "$OUT.json" | json_field run.io)"
}

# recvfroms EVENTS IO [CLIENTS]: the recvfrom calls in the strace of that
# syscalls run (the driver's own receives; the ring's go through
# io_uring_enter), or 0.
recvfroms() {
    st=$SBT_TMP/io-$TARGET-$2-$1-${3:-16}.strace
    awk '$NF == "recvfrom" { n = 0; for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/) v[++n] = $i; print (n >= 3 ? v[n-1] : v[n]); f = 1 } END { if (!f) print 0 }' "$st"
}

# json_field PATH: the dotted member of the JSON object on stdin, or x.
json_field() {
    python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("x" if v is None else v)' "$1" 2>/dev/null || echo x
}

for target in pgsql mysql; do
    wl_setup "$target"
    echo "--- $target"
    sb prep --tables=1 --table-size=2000 oltp_point_select cleanup
    sb prep --tables=1 --table-size=2000 oltp_point_select prepare
    [ "$rc" = 0 ] || { fail "$target: prepare exited $rc"; show_out; continue; }
    for io in uring poll; do
        set -- $(syscalls 20000 "$io")
        calls=$1 q=$2 enters=$3 run_io=$4
        expect_eq "$target --io=$io: queries of --events=20000" "$q" 20000
        if [ "$enters" -gt 0 ] 2>/dev/null; then seen=io_uring; else seen=poll; fi
        expect_eq "$target --io=$io: run.io against strace ($enters io_uring_enter calls)" "$run_io" "$seen"
        expect_eq "$target --io=$io: run.io" "$run_io" "$([ "$io" = uring ] && echo io_uring || echo poll)"
        per=$(awk -v a="$calls" 'BEGIN { if (a + 0 > 0) printf "%.3f", a / 20000; else print "x" }')
        echo "     $target --io=$io: $calls system calls in all: $per per query, startup included"
        if [ "$io" = uring ]; then
            expect_range "$target --io=uring: system calls per query x1000" \
                "$(awk -v p="$per" 'BEGIN { printf "%d", p * 1000 }')" 0 999
        else
            expect_range "$target --io=poll: system calls per query x1000" \
                "$(awk -v p="$per" 'BEGIN { printf "%d", p * 1000 }')" 1500 100000
        fi
    done
    # one client per thread: the driver's own calls, whatever --io says
    set -- $(syscalls 2000 auto 1)
    expect_eq "$target one client: queries of --events=2000" "$2" 2000
    expect_eq "$target one client: io_uring_enter calls" "$3" 0
    expect_eq "$target one client: run.io" "$4" blocking
    # run.io against who received the answers (strace): io_uring when the
    # ring did (few recvfrom, at connect), io_uring_poll when the driver
    # did (libpq: a recvfrom or more per query) and the ring only waited
    if [ "$target" = pgsql ]; then
        for wire in on off; do
            SYS_EXTRA=--pgsql-wire=$wire
            set -- $(syscalls 2000 uring)
            SYS_EXTRA=
            r=$(recvfroms 2000 uring)
            expect_eq "pgsql --pgsql-wire=$wire --io=uring: queries of --events=2000" "$2" 2000
            if [ "$wire" = on ]; then
                expect_range "pgsql --pgsql-wire=on --io=uring: recvfrom calls (connects only)" "$r" 0 999
                expect_eq "pgsql --pgsql-wire=on --io=uring: run.io" "$4" io_uring
            else
                expect_range "pgsql --pgsql-wire=off --io=uring: recvfrom calls (the driver's, >= 1 a query)" "$r" 2000 1000000
                expect_eq "pgsql --pgsql-wire=off --io=uring: run.io" "$4" io_uring_poll
            fi
        done
    fi
    # the server counts what the io_uring path sent: as many point selects
    snap_before
    sb count --tables=1 --table-size=2000 --threads=2 --clients=32 --events=5000 --time=0 --io=uring \
        oltp_point_select run
    snap_after
    expect_eq "$target --io=uring: exit status" "$rc" 0
    R_TXN=
    parse_report "$OUT"
    expect_eq "$target --io=uring: transactions" "${R_TXN:-x}" 5000
    check_server_counts 0 96 "oltp_point_select"

    for io in uring poll; do
        sb big-$io --tables=1 --threads=1 --clients=4 --events=12 --time=0 --io=$io "$BIG" run
        expect_eq "$target --io=$io: large requests and answers (io_big.lua)" "$rc" 0
        [ "$rc" = 0 ] || show_out
        R_TXN=
        parse_report "$OUT"
        expect_eq "$target --io=$io: io_big.lua events" "${R_TXN:-x}" 12
    done
    for io in uring poll; do
        sb toobig-$io --tables=1 --threads=1 --clients=2 --time=1 --io=$io --db-max-result-bytes=65536 \
            --db-reconnect=off "$BIG" run
        checks=$((checks + 1))
        if [ "$rc" != 0 ] && grep -q "an answer over --db-max-result-bytes (65536 bytes)" "$OUT"; then
            echo "ok   $target --io=$io: an answer over --db-max-result-bytes: exit $rc, $(grep -m1 -o 'connection to the server lost[^(]*\|Lost connection[^(]*' "$OUT")"
        else
            fail "$target --io=$io: an answer over --db-max-result-bytes: exit $rc"; show_out
        fi
    done
    sb cleanup --tables=1 oltp_point_select cleanup
done
echo "io_uring.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
