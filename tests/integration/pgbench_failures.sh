#!/bin/sh
# pgbench_failures.sh: `sbench pgbench`'s failure model against pgbench 15
# itself on the same PostgreSQL server, each case checked against the
# tables too:
#   - a hot row at REPEATABLE READ, -c 4 -t 40, --max-tries 1 (pgbench's
#     default): serialization failures present in both (their number is
#     racy: compared by order of magnitude), processed + failed = 160, the
#     row's counter moved by exactly the transactions processed;
#   - the same with --max-tries=1000: 80/80 processed in both, retries
#     counted, the counter moved by 80;
#   - a deadlock between two clients (advisory locks): --max-tries=1 gives
#     1/2 processed and 1 deadlock failure, --max-tries=2 gives 2/2 with 1
#     retry, as pgbench; -l writes "deadlock" in place of the time;
#     --verbose-errors' lines as pgbench's;
#   - a duplicate-key INSERT: the client aborted with pgbench's line, 1/3
#     processed, exit status 2; --continue-on-error (pgbench 19): 2 other
#     failures, exit 0;
#   - -s 50 with a built-in on a scale-1 database: pgbench's warning, every
#     account updated exists;
#   - a script that leaves BEGIN open: 2/6 processed and both clients
#     aborted as pgbench, nothing committed, exit 2.
#   - --exit-on-abort (pgbench 17): the run ends at the first abort, exit
#     2, pgbench 17's line, no report; --show-script as pgbench's.
# Environment: see wl-lib.sh.  A missing server or pgbench is a failure.
set -u
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
pgbench_setup
W=$(mktemp -d "$SBT_TMP/pgbfail.XXXXXX")
q() { psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "$1"; }

PGB -i -s 1 -q >/dev/null 2>&1 || die "pgbench -i failed"

# A report's figure: the first number after LABEL.
fig() { sed -n "s/^$2[^0-9]*\([0-9][0-9]*\).*/\1/p" "$1" | head -1; }
# RUN NAME TOOL ARGS...: runs pgbench (TOOL=PGB) or sbench (SBP) into
# $W/NAME.out/.err, the exit status in $W/NAME.rc.
run() {
    name=$1; tool=$2; shift 2
    $tool "$@" >"$W/$name.out" 2>"$W/$name.err"
    echo $? >"$W/$name.rc"
}
bbal() { q "SELECT bbalance FROM pgbench_branches WHERE bid = 1"; }
counts() { # FILE: processed failed deadlocks retried retries
    echo "$(fig "$1" "number of transactions actually processed") $(fig "$1" "number of failed transactions")" \
        "$(fig "$1" "number of deadlock failures") $(fig "$1" "number of transactions retried")" \
        "$(fig "$1" "total number of retries")"
}

# --- a hot row at REPEATABLE READ (the snapshot is taken before the sleep)
cat >"$W/hot.sql" <<'EOF'
BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SELECT 1;
\sleep 1 ms
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
END;
EOF
run pg-hot PGB -n -c 4 -j 2 -t 40 --failures-detailed -f "$W/hot.sql"
b0=$(bbal)
run sb-hot SBP -n -c 4 -j 2 -t 40 --failures-detailed -f "$W/hot.sql"
b1=$(bbal)
p_pg=$(fig "$W/pg-hot.out" "number of transactions actually processed")
f_pg=$(fig "$W/pg-hot.out" "number of failed transactions")
p_sb=$(fig "$W/sb-hot.out" "number of transactions actually processed")
f_sb=$(fig "$W/sb-hot.out" "number of failed transactions")
s_sb=$(fig "$W/sb-hot.out" "number of serialization failures")
expect_eq "hot row: exit status (pgbench's, sbench's)" "$(cat "$W/pg-hot.rc") $(cat "$W/sb-hot.rc")" "0 0"
expect_eq "hot row: processed + failed = 160 (pgbench, sbench)" "$((p_pg + f_pg)) $((p_sb + f_sb))" "160 160"
expect_eq "hot row: the row moved by the transactions sbench processed" "$((b1 - b0))" "$p_sb"
expect_eq "hot row: every failure a serialization failure" "$s_sb" "$f_sb"
checks=$((checks + 1))
if [ "$f_pg" -gt 0 ] && [ "$f_sb" -gt 0 ] && [ "$((f_sb * 10))" -ge "$f_pg" ] && [ "$f_sb" -le "$((f_pg * 10))" ]; then
    echo "ok   hot row: failures present in both, same order of magnitude (pgbench $f_pg, sbench $f_sb)"
else
    fail "hot row: failures pgbench $f_pg, sbench $f_sb"
fi

# --- -t with retries: every transaction done in the end
run pg-hot2 PGB -n -c 4 -j 2 -t 20 --max-tries=1000 -f "$W/hot.sql"
b0=$(bbal)
run sb-hot2 SBP -n -c 4 -j 2 -t 20 --max-tries=1000 -f "$W/hot.sql"
b1=$(bbal)
expect_eq "--max-tries=1000 -t 20: processed (pgbench, sbench)" \
    "$(fig "$W/pg-hot2.out" "number of transactions actually processed") $(fig "$W/sb-hot2.out" "number of transactions actually processed")" "80 80"
expect_eq "--max-tries=1000: the row moved by 80" "$((b1 - b0))" 80
r_sb=$(fig "$W/sb-hot2.out" "number of transactions retried")
n_sb=$(fig "$W/sb-hot2.out" "total number of retries")
checks=$((checks + 1))
if [ -n "$r_sb" ] && [ "$r_sb" -gt 0 ] && [ "$n_sb" -ge "$r_sb" ]; then
    echo "ok   --max-tries=1000: $r_sb transactions retried, $n_sb retries"
else
    fail "--max-tries=1000: retried '$r_sb', retries '$n_sb'"; sed 's/^/     | /' "$W/sb-hot2.out"
fi

# --- -P's failed, retried and retries: each window's counts add up to the
# report's totals (exact, not the core's error count), and the row moved by
# exactly the transactions processed (one cut at the end of -T is rolled back)
b0=$(bbal)
run sb-hotp SBP -n -c 4 -j 2 -T 4 -P 1 --max-tries=2 --failures-detailed -f "$W/hot.sql"
b1=$(bbal)
psum() { sed -n "s/^progress: .*, \([0-9]*\) failed, \([0-9]*\) retried, \([0-9]*\) retries$/\1 \2 \3/p" "$1" |
         awk '{ f += $1; r += $2; n += $3 } END { print f + 0, r + 0, n + 0, NR }'; }
set -- $(psum "$W/sb-hotp.err")
expect_eq "-P --max-tries=2: the windows' failed, retried, retries add up to the report's" "$1 $2 $3" \
    "$(fig "$W/sb-hotp.out" "number of failed transactions") $(fig "$W/sb-hotp.out" "number of transactions retried") $(fig "$W/sb-hotp.out" "total number of retries")"
checks=$((checks + 1))
if [ "$4" -ge 3 ] && [ "$2" -gt 0 ] && [ "$3" = "$2" ]; then
    echo "ok   -P --max-tries=2: $4 progress lines, $2 transactions retried once each"
else
    fail "-P --max-tries=2: $4 progress lines, retried $2, retries $3"; sed 's/^/     | /' "$W/sb-hotp.err" | head -20
fi
expect_eq "-P -T 4: the row moved by the transactions processed" "$((b1 - b0))" \
    "$(fig "$W/sb-hotp.out" "number of transactions actually processed")"

# --- a deadlock found after -T's end (1.5 s sleep, deadlock_timeout 1 s,
# -T 2): pgbench ends the victim's client without counting its transaction
# (neither failed nor retried); the other client's commits
cat >"$W/dlate.sql" <<'EOF'
\if :client_id = 0
BEGIN;
SELECT pg_advisory_xact_lock(5);
\sleep 1500 ms
SELECT pg_advisory_xact_lock(6);
END;
\else
BEGIN;
SELECT pg_advisory_xact_lock(6);
\sleep 1500 ms
SELECT pg_advisory_xact_lock(5);
END;
\endif
EOF
for mt in 1 2; do
    run pg-dlate PGB -n -c 2 -j 2 -T 2 --max-tries=$mt --failures-detailed -f "$W/dlate.sql"
    run sb-dlate SBP -n -c 2 -j 2 -T 2 --max-tries=$mt --failures-detailed -f "$W/dlate.sql"
    expect_eq "deadlock after -T's end, --max-tries=$mt: exit, processed failed deadlocks [retried retries] as pgbench's" \
        "$(cat "$W/sb-dlate.rc") $(counts "$W/sb-dlate.out")" "$(cat "$W/pg-dlate.rc") $(counts "$W/pg-dlate.out")"
done

# --- a deadlock between two clients
cat >"$W/dl.sql" <<'EOF'
\if :client_id = 0
BEGIN;
SELECT pg_advisory_xact_lock(3);
\sleep 300 ms
SELECT pg_advisory_xact_lock(4);
END;
\else
BEGIN;
SELECT pg_advisory_xact_lock(4);
\sleep 300 ms
SELECT pg_advisory_xact_lock(3);
END;
\endif
EOF
for mt in 1 2; do
    rm -f "$W"/dlog.*
    run pg-dl PGB -n -c 2 -j 2 -t 1 --max-tries=$mt --failures-detailed --verbose-errors -f "$W/dl.sql"
    run sb-dl SBP -n -c 2 -j 2 -t 1 --max-tries=$mt --failures-detailed --verbose-errors -f "$W/dl.sql" \
        -l --log-prefix="$W/dlog"
    expect_eq "deadlock, --max-tries=$mt: processed failed deadlocks [retried retries] as pgbench's" \
        "$(counts "$W/sb-dl.out")" "$(counts "$W/pg-dl.out")"
    # which client is the victim is the server's choice: its number left out
    verrs() { grep '^pgbench: client' "$1" | sed -E 's/client [0-9]+/client N/g; s/command [0-9]+/command C/'; }
    expect_eq "deadlock, --max-tries=$mt: --verbose-errors' lines as pgbench's" \
        "$(verrs "$W/sb-dl.err")" "$(verrs "$W/pg-dl.err")"
    if [ $mt = 1 ]; then
        expect_eq "deadlock, --max-tries=1: -l's lines (a time, 'deadlock')" \
            "$(awk '{ print ($3 ~ /^[0-9]+$/ ? "time" : $3) }' "$W"/dlog.* | sort | tr '\n' ' ')" "deadlock time "
    else
        expect_eq "deadlock, --max-tries=2: -l's retries fields" \
            "$(awk '{ print $7 }' "$W"/dlog.* | sort | tr '\n' ' ')" "0 1 "
    fi
done

# --- a duplicate key: the client aborted (exit 2), or --continue-on-error
q "DROP TABLE IF EXISTS dupt; CREATE TABLE dupt (a int PRIMARY KEY)" >/dev/null 2>&1
printf '%s\n' 'INSERT INTO dupt VALUES (1);' >"$W/dup.sql"
run pg-dup PGB -n -c 1 -t 3 -f "$W/dup.sql"
q "TRUNCATE dupt"
run sb-dup SBP -n -c 1 -t 3 -f "$W/dup.sql"
expect_eq "duplicate key: exit status (pgbench's, sbench's)" "$(cat "$W/pg-dup.rc") $(cat "$W/sb-dup.rc")" "2 2"
expect_eq "duplicate key: processed and failed as pgbench's" \
    "$(grep -E '^number of (transactions actually processed|failed)' "$W/sb-dup.out")" \
    "$(grep -E '^number of (transactions actually processed|failed)' "$W/pg-dup.out")"
expect_eq "duplicate key: the abort's line as pgbench's" \
    "$(grep '^pgbench: error: client 0' "$W/sb-dup.err")" "$(grep '^pgbench: error: client 0' "$W/pg-dup.err")"
expect_eq "duplicate key: rows" "$(q 'SELECT count(*) FROM dupt')" 1
q "TRUNCATE dupt"
run sb-coe SBP -n -c 1 -t 3 --continue-on-error --failures-detailed -f "$W/dup.sql"
expect_eq "--continue-on-error: exit, processed, failed, other failures" \
    "$(cat "$W/sb-coe.rc") $(fig "$W/sb-coe.out" "number of transactions actually processed") $(fig "$W/sb-coe.out" "number of failed transactions") $(fig "$W/sb-coe.out" "number of other failures")" \
    "0 1 2 2"
q "DROP TABLE dupt"

# --- -s outside -i with a built-in: ignored, with pgbench's warning
run pg-s PGB -n -c 2 -t 5 -s 50 -N
q "TRUNCATE pgbench_history"
run sb-s SBP -n -c 2 -t 5 -s 50 -N
expect_eq "-s 50 -N: the warning as pgbench's" "$(grep warning "$W/sb-s.err")" "$(grep warning "$W/pg-s.err")"
expect_eq "-s 50 -N: scaling factor as pgbench's" "$(grep '^scaling factor' "$W/sb-s.out")" "$(grep '^scaling factor' "$W/pg-s.out")"
expect_eq "-s 50 -N: history rows, all of existing accounts" \
    "$(q 'SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM pgbench_accounts a WHERE a.aid = h.aid)) FROM pgbench_history h')" "10|0"

# --- a script that leaves its BEGIN open
printf '%s\n' 'BEGIN;' 'UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;' >"$W/open.sql"
run pg-open PGB -n -c 2 -j 2 -t 3 -f "$W/open.sql"
b0=$(bbal)
run sb-open SBP -n -c 2 -j 2 -t 3 -f "$W/open.sql"
expect_eq "open BEGIN: exit status (pgbench's, sbench's)" "$(cat "$W/pg-open.rc") $(cat "$W/sb-open.rc")" "2 2"
expect_eq "open BEGIN: processed as pgbench's" "$(grep '^number of transactions actually processed' "$W/sb-open.out")" \
    "$(grep '^number of transactions actually processed' "$W/pg-open.out")"
expect_eq "open BEGIN: clients aborted (pgbench's line)" \
    "$(grep -c 'aborted: end of script reached without completing the last transaction' "$W/sb-open.err")" 2
expect_eq "open BEGIN: nothing committed" "$(bbal)" "$b0"

# --- --exit-on-abort (pgbench 17; pgbench 15 here lacks it): client 0
# divides by zero at once; client 1 would sleep through -T 100.  pgbench
# 17 ends the process there ("Run was aborted due to an error in thread
# N", exit 2, no report); without the option client 1 runs to its end.
printf '%s\n' '\if :client_id = 0' '\set y 1 / 0' '\endif' '\sleep 20 ms' >"$W/eoa.sql"
t0=$(date +%s)
run sb-eoa SBP -n -c 2 -j 2 -T 100 --exit-on-abort -f "$W/eoa.sql"
t1=$(date +%s)
expect_eq "--exit-on-abort: exit status, the division's abort, pgbench 17's line, no report" \
    "$(cat "$W/sb-eoa.rc") $(grep -c 'client 0 aborted in command 1 (set) of script 0.*division by zero' "$W/sb-eoa.err") $(grep -c '^pgbench: error: Run was aborted due to an error in thread [01]$' "$W/sb-eoa.err") $(grep -c 'actually processed' "$W/sb-eoa.out")" \
    "2 1 1 0"
checks=$((checks + 1))
if [ $((t1 - t0)) -lt 60 ]; then
    echo "ok   --exit-on-abort: the run ended at the abort ($((t1 - t0)) s of -T 100)"
else
    fail "--exit-on-abort: the run lasted $((t1 - t0)) s of -T 100"
fi

# --- --show-script=NAME (a prefix too): pgbench's text on stderr, exit 0
for bi in tpcb-like simple-update select-only sel; do
    run pg-show PGB --show-script=$bi
    run sb-show SBP --show-script=$bi
    expect_eq "--show-script=$bi: exit status and stderr as pgbench's" \
        "$(cat "$W/sb-show.rc") $(cat "$W/sb-show.err")" "$(cat "$W/pg-show.rc") $(cat "$W/pg-show.err")"
done

rm -rf "$W"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
