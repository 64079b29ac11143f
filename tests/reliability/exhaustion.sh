#!/bin/bash
# exhaustion.sh: resources that run out.  Each case must end with status 1
# and one line naming what ran out, and leave no file that looks whole:
#   - `ulimit -n 64` with --clients=200 on PostgreSQL: "Too many open files";
#   - the server's connection limit reached (a role limited to 3
#     connections, --clients=8): PostgreSQL's "too many connections";
#   - a full disk (a 64 KB tmpfs) for --output and --hdr-log: --output is
#     never written (its temporary file is removed), --hdr-log's bytes are
#     kept as FILE.partial, never as FILE, when the disk fills mid-run, and
#     no file is left when it is full from the start.
# Needs the servers of scripts/test.sh (SBT_PG*, SBT_BUILD) and root (mount).
source "$(dirname "$0")/lib.sh"
PG=$(pg_args)
O="--tables=1 --table-size=1000"
timeout 60 "$S" $PG $O oltp_point_select cleanup >/dev/null 2>&1
timeout 120 "$S" $PG $O oltp_point_select prepare >"$T/prep.out" 2>&1 ||
    { fail "prepare"; tail -n 5 "$T/prep.out"; finish; }

# check NAME RC PATTERN: status 1 and the pattern in stderr
check() {
    local name=$1 rc=$2 pat=$3
    if [ "$rc" -ne 1 ]; then
        fail "$name: status $rc, expected 1"; tail -n 3 "$T/$name.err"
    elif ! grep -q "$pat" "$T/$name.err"; then
        fail "$name: no line with '$pat'"; tail -n 3 "$T/$name.err"
    else
        ok "$name: $(grep -m1 "$pat" "$T/$name.err" | cut -c1-150)"
    fi
}

(ulimit -n 64; exec timeout -k 5 60 "$S" $PG $O --clients=200 --threads=2 --time=2 \
    oltp_point_select run) >"$T/fds.out" 2>"$T/fds.err" </dev/null
check fds $? "Too many open files"

# sbtest is a superuser, which connection limits leave out: a role of
# its own, limited to 3 connections
pg_sql -c "DROP ROLE IF EXISTS sbtest_lim" -c "CREATE ROLE sbtest_lim LOGIN PASSWORD 'lim-pw-1' CONNECTION LIMIT 3" \
    -c "GRANT SELECT ON sbtest1 TO sbtest_lim" >/dev/null
LIM="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest_lim --pgsql-password=lim-pw-1 --pgsql-db=sbtest"
timeout -k 5 60 "$S" $LIM $O --clients=8 --threads=2 --time=2 --db-server-counters=off \
    oltp_point_select run >"$T/maxconn.out" 2>"$T/maxconn.err" </dev/null
rc=$?
pg_sql -c "REVOKE ALL ON sbtest1 FROM sbtest_lim" -c "DROP ROLE sbtest_lim" >/dev/null
check maxconn $rc "too many connections"

D=$T/full
mkdir -p "$D"
if mount -t tmpfs -o size=64k tmpfs "$D"; then
    # fill the tmpfs to the last byte, then free exactly one page: the
    # log's header (~340 bytes) fits, its windows do not.  A window's line
    # is at least 74 bytes (an empty histogram), and --report-interval=0.1
    # for 10 s writes ~100 of them (>= 51 even if the reporter is starved
    # for half the run), more than the page holds on any machine.  (With a
    # 60 KB fill and 1 s windows the whole log could fit in the last page:
    # then nothing failed and h.log was rightly kept.)
    dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null
    truncate -s -4096 "$D/fill"
    timeout -k 5 60 "$S" --db-driver=null --time=10 --report-interval=0.1 --threads=2 \
        --hdr-log="$D/h.log" oltp_point_select run >"$T/hdr.out" 2>"$T/hdr.err" </dev/null
    rc=$?
    if [ -e "$D/h.log" ] || [ ! -s "$D/h.log.partial" ]; then
        fail "hdr: h.log exists or no h.log.partial: $(ls -l "$D" | tr '\n' '|')"
    else
        check hdr $rc "writing --hdr-log file .* failed"
    fi
    rm -f "$D"/h.log*
    # no room at all: --output's temporary file is created, its first write
    # fails
    dd if=/dev/zero of="$D/fill2" bs=4k 2>/dev/null
    timeout -k 5 60 "$S" --db-driver=null --time=2 --report-interval=1 --report-format=json \
        --output="$D/r.json" oltp_point_select run >"$T/out.out" 2>"$T/out.err" </dev/null
    rc=$?
    if [ -n "$(ls "$D" | grep -v '^fill2\?$')" ]; then
        fail "output: files left: $(ls "$D")"
    else
        check out $rc "writing --output file .* failed"
    fi
    # and with no room when the run starts, --hdr-log fails before anything
    # is measured: exit 1, no file at all
    timeout -k 5 60 "$S" --db-driver=null --time=2 --hdr-log="$D/h0.log" \
        oltp_point_select run >"$T/hdr0.out" 2>"$T/hdr0.err" </dev/null
    rc=$?
    if [ -n "$(ls "$D" | grep -v '^fill2\?$')" ]; then
        fail "hdr0: files left: $(ls "$D")"
    else
        check hdr0 $rc "cannot write HdrHistogram log"
    fi
    umount "$D"
else
    fail "cannot mount a tmpfs (run as root)"
fi
timeout 60 "$S" $PG $O oltp_point_select cleanup >/dev/null 2>&1
finish
