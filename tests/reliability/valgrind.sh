#!/bin/bash
# valgrind.sh: one short multi-threaded SQLite run (--threads=2
# --events=200; its prepare and cleanup too) under valgrind memcheck
# --leak-check=full --errors-for-leak-kinds=definite: no definite leak and
# no memory error (status 99 from valgrind fails); then the quick matrix of
# tests/hostile/hostile.sh (a fake server that misbehaves) with sbench under
# memcheck.  No server needed.
# BEGIN IMMEDIATE: with deferred transactions the two threads' read-to-write
# upgrades race (SQLITE_BUSY, restarts), and under valgrind's one-thread-at-
# a-time scheduling on a loaded machine that once ran past the 300 s limit;
# this test is about memory, rel_retries and the workloads cover restarts.
source "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || { echo "FAIL: valgrind not installed"; exit 1; }
cd "$T" || exit 1
# MariaDB Connector/C runs its nonblocking calls (the mysql driver's timed
# connect, --clients) on a stack of its own within 2 MB of the thread's:
# with memcheck's default --max-stackframe (2 MB) the switch to it looks
# like a deep frame and every read on it "invalid" (230 in one hostile
# case, every frame in libmariadb or the libc it calls; 0 with 100 kB,
# still above sbench's largest frame)
SUPP="--max-stackframe=100000"
VG="valgrind -q $SUPP --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=30"
DB="--sqlite-db=$T/vg.db --tables=1 --table-size=1000 --sqlite-begin=immediate"
for c in prepare run cleanup; do
    timeout -k 5 300 $VG --log-file="$T/vg.$c.log" "$S" $DB --threads=2 --events=200 --time=0 \
        oltp_read_write $c >"$T/$c.out" 2>"$T/$c.err" </dev/null
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "valgrind $c: status $rc"; head -n 60 "$T/vg.$c.log"; head -n 5 "$T/$c.err"
    elif grep -q 'definitely lost\|Invalid \|uninitialised' "$T/vg.$c.log"; then
        fail "valgrind $c: report"; head -n 60 "$T/vg.$c.log"
    else
        ok "valgrind $c: clean"
    fi
done

# a hostile server (tests/hostile/hostile.sh --quick) with sbench under
# memcheck: every case still ends in status 1 (99 is a memcheck error)
if WRAP="valgrind -q $SUPP --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99" \
    HOSTILE_NO_ULIMIT=1 HOSTILE_LIMIT=45 timeout 1200 bash "$SRC/tests/hostile/hostile.sh" \
    --quick "$SBT_BUILD" >"$T/hostile.out" 2>&1; then
    ok "hostile server under valgrind: $(grep -c '^ok' "$T/hostile.out") cases clean"
else
    fail "hostile server under valgrind:"; grep -v '^ok' "$T/hostile.out" | head -n 30
fi
finish
