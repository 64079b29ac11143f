#!/bin/sh
# pgbench_report.sh: `sbench pgbench`'s report and logs against pgbench 15
# itself on the same PostgreSQL server:
#   - the report's lines (labels and order, numbers aside) as pgbench's for
#     the same options: plain; -P -L --max-tries --failures-detailed -r;
#     -C; two weighted built-ins with -r, and with --max-tries
#     --failures-detailed (each script's failures by kind, retries);
#   - the figures against a recomputation from sbench's own per-transaction
#     log of a script whose service time is set (\sleep 1 or 30 ms): latency
#     average and stddev, transactions above -L 15, -r's \sleep average;
#   - -l: as many lines as transactions processed, pgbench's fields (count
#     and integer types) with and without --max-tries, one file per thread
#     named PREFIX.PID[.THREAD]; --aggregate-interval: pgbench's 15 fields,
#     the counts summing to the transactions; --sampling-rate 0.2: about a
#     fifth of them; SIGINT during a run: every processed transaction logged;
#   - the log options pgbench refuses together refused in one line.
# Environment: see wl-lib.sh.  A missing server or pgbench is a failure.
set -u
. "$(cd "$(dirname "$0")" && pwd)/wl-lib.sh"
pgbench_setup
W=$(mktemp -d "$SBT_TMP/pgbrep.XXXXXX")

PGB -i -s 1 -q >/dev/null 2>&1 || die "pgbench -i failed"

# The report from "transaction type"/"scaling factor" on, numbers as N.
labels() {
    sed -n '/^\(transaction type\|scaling factor\)/,$p' "$1" | grep -v '^progress:' |
        sed -E 's/-?[0-9]+(\.[0-9]+)?/N/g'
}
same_report() { # WHAT OPTIONS...
    what=$1; shift
    PGB "$@" >"$W/pgb.out" 2>/dev/null || { fail "pgbench $*: failed"; return; }
    SBP "$@" >"$W/sb.out" 2>&1 || { fail "sbench pgbench $*: exit $?"; tail -3 "$W/sb.out"; return; }
    checks=$((checks + 1))
    if [ "$(labels "$W/pgb.out")" = "$(labels "$W/sb.out")" ]; then
        echo "ok   report lines as pgbench's: $what ($(labels "$W/sb.out" | wc -l) lines)"
    else
        fail "report lines of $what differ from pgbench's:"
        diff "$W/pgb.out" "$W/sb.out" | sed 's/^/     | /' | head -40
    fi
}
same_report "plain" -n -c 2 -j 2 -t 10
same_report "-P -L --max-tries --failures-detailed -r" -n -c 2 -t 10 -P 30 -L 50 --max-tries=3 \
    --failures-detailed -r
same_report "-C" -n -c 2 -t 5 -C -S
# 2 x 60 transactions: each script is drawn at least once but with
# probability about (3/4)^120 (with 2 x 10 a run could draw one script
# only, and the report's shape then depends on the draw)
same_report "two scripts, -r" -n -c 2 -t 60 -b simple-update@1 -b select-only@3 -r
same_report "two scripts, --max-tries --failures-detailed -r" -n -c 2 -t 60 -b simple-update@1 \
    -b select-only@3 --max-tries=2 --failures-detailed -r

# -P's progress lines (on stderr, as pgbench's)
plabels() { grep '^progress:' "$1" | sed -E 's/-?[0-9]+(\.[0-9]+)?/N/g' | sort -u; }
PGB -n -c 2 -T 2 -S -P 1 -R 200 --max-tries=2 >/dev/null 2>"$W/pgb-p.err"
SBP -n -c 2 -T 2 -S -P 1 -R 200 --max-tries=2 >/dev/null 2>"$W/sb-p.err"
expect_eq "-P -R --max-tries: progress lines as pgbench's" "$(plabels "$W/sb-p.err")" "$(plabels "$W/pgb-p.err")"

# --- the figures, on a script whose service time is known
cat >"$W/sleep.sql" <<'EOF'
\set d 1 + 29 * random(0, 1)
\sleep :d ms
SELECT 1;
EOF
SBP -n -c 2 -j 2 -t 25 -r -L 15 -l --log-prefix="$W/fig" -f "$W/sleep.sql" >"$W/run-fig.txt" 2>&1 ||
    { tail -3 "$W/run-fig.txt"; fail "sbench pgbench on sleep.sql failed"; }
# shellcheck disable=SC2046
set -- $(cat "$W"/fig.* | awk '{ n++; s += $3; q += $3 * $3; if ($3 > 15000) late++ }
    END { m = s / n; printf "%d %.3f %.3f %d", n, m / 1000, sqrt(q / n - m * m) / 1000, late }')
n_log=$1 avg_log=$2 sd_log=$3 late_log=${4:-0}
avg_rep=$(sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' "$W/run-fig.txt")
sd_rep=$(sed -n 's/^latency stddev = \([0-9.]*\) ms$/\1/p' "$W/run-fig.txt")
late_rep=$(sed -n 's/^number of transactions above the 15.0 ms latency limit: \([0-9]*\)\/.*/\1/p' "$W/run-fig.txt")
sleep_avg=$(awk '$3 == "\\sleep" { print int($1) }' "$W/run-fig.txt")
expect_eq "-l: lines of the log" "$n_log" 50
# the histogram's buckets are within 1%; a transaction's time in the log
# is the client's, a little above the core's event time
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b + 0.2) }'; }
checks=$((checks + 1))
if within "$avg_rep" "$avg_log" 0.03 && within "$sd_rep" "$sd_log" 0.05; then
    echo "ok   latency average/stddev $avg_rep/$sd_rep ms = the log's $avg_log/$sd_log ms"
else
    fail "latency average/stddev $avg_rep/$sd_rep ms, the log's $avg_log/$sd_log ms"
fi
expect_eq "-L 15: transactions above it, as counted in the log" "$late_rep" "$late_log"
expect_range "-r: the \\sleep of 1 or 30 ms averages between them (ms)" "$sleep_avg" 1 30

# --- -l: the fields of pgbench's own log
fields() { # FILE: the number of fields and which are integers, per line, unique
    awk '{ s = NF ":"; for (i = 1; i <= NF; i++) s = s ($i ~ /^-?[0-9]+$/ ? "i" : "x"); print s }' "$@" | sort -u
}
for opts in "-t 20" "-t 20 --max-tries=2"; do
    rm -f "$W"/pl.* "$W"/sl.*
    # shellcheck disable=SC2086
    PGB -n -c 3 -j 2 -S $opts -l --log-prefix="$W/pl" >/dev/null 2>&1 || fail "pgbench -l failed"
    # shellcheck disable=SC2086
    SBP -n -c 3 -j 2 -S $opts -l --log-prefix="$W/sl" >"$W/run-sl.txt" 2>&1 || fail "sbench pgbench -l failed"
    expect_eq "-l $opts: fields as pgbench's log" "$(fields "$W"/sl.*)" "$(fields "$W"/pl.*)"
    expect_eq "-l $opts: files as pgbench's (PREFIX.PID, PREFIX.PID.1)" \
        "$(cd "$W" && ls sl.* | sed 's/[0-9][0-9]*/P/' | sort | tr '\n' ' ')" \
        "$(cd "$W" && ls pl.* | sed 's/[0-9][0-9]*/P/; s/^pl/sl/' | sort | tr '\n' ' ')"
    expect_eq "-l $opts: lines = transactions (60)" "$(cat "$W"/sl.* | wc -l)" 60
done
rm -f "$W"/pa.* "$W"/sa.*
PGB -n -c 2 -T 2 -S -l --aggregate-interval=1 --log-prefix="$W/pa" >/dev/null 2>&1 || fail "pgbench --aggregate-interval failed"
SBP -n -c 2 -T 2 -S -l --aggregate-interval=1 --log-prefix="$W/sa" >"$W/run-sa.txt" 2>&1 || fail "sbench --aggregate-interval failed"
expect_eq "--aggregate-interval: fields as pgbench's" "$(fields "$W"/sa.*)" "$(fields "$W"/pa.*)"
expect_eq "--aggregate-interval: counts = transactions processed" "$(cat "$W"/sa.* | awk '{ s += $2 } END { print s }')" \
    "$(sed -n 's/^number of transactions actually processed: //p' "$W/run-sa.txt")"
rm -f "$W"/ss.*
SBP -n -c 1 -t 500 -S -l --sampling-rate=0.2 --log-prefix="$W/ss" >/dev/null 2>&1 || fail "sbench --sampling-rate failed"
expect_range "--sampling-rate=0.2 of 500: lines" "$(cat "$W"/ss.* | wc -l)" 50 150

# --- SIGINT: nothing lost
rm -f "$W"/si.*
# (a background job of sh starts with SIGINT ignored: restore it first)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    "$SBENCH" pgbench $CONN -n -c 4 -j 2 -T 60 -S -l --log-prefix="$W/si" sbtest >"$W/run-si.txt" 2>&1 &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
expect_eq "SIGINT: the run interrupted (exit status 130)" "$?" 130
expect_eq "SIGINT: log lines = transactions processed" "$(cat "$W"/si.* | wc -l)" \
    "$(sed -n 's/^number of transactions actually processed: //p' "$W/run-si.txt")"

# --- an expression's error aborts that client only, as pgbench
printf '%s\n' '\set x 10 / (:client_id - 1)' 'SELECT 1;' >"$W/abort.sql"
PGB -n -c 3 -t 5 -f "$W/abort.sql" >"$W/pgb.out" 2>/dev/null
SBP -n -c 3 -t 5 -f "$W/abort.sql" >"$W/run-ab.txt" 2>"$W/run-ab.err"
expect_eq "client 1's division by zero: the others' transactions as pgbench's" \
    "$(grep '^number of transactions actually processed' "$W/run-ab.txt")" \
    "$(grep '^number of transactions actually processed' "$W/pgb.out")"
expect_eq "client 1's division by zero: one line naming it, the run marked aborted" \
    "$(grep -c '^pgbench: error: client 1 aborted in command 0 (set) of script 0; .*division by zero$' "$W/run-ab.err") $(grep -c 'Run was aborted' "$W/run-ab.err")" "1 1"

# --- -D with a comma in the value: the statement pgbench sends
psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "SET client_min_messages = warning; DROP TABLE IF EXISTS dtest; CREATE TABLE dtest (a int, b int, who text)" >/dev/null
printf '%s\n' "INSERT INTO dtest VALUES (:v, :who);" >"$W/d.sql"
PGB -n -t 1 -f "$W/d.sql" -D v=1,2 -D "who='pgbench'" >/dev/null 2>&1 || fail "pgbench -D v=1,2 failed"
SBP -n -t 1 -f "$W/d.sql" -D v=1,2 -D "who='sbench'" >"$W/run-d.txt" 2>&1 || { fail "sbench pgbench -D v=1,2 failed"; tail -3 "$W/run-d.txt"; }
expect_eq "-D v=1,2: the rows inserted" "$(psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "SELECT string_agg(a || ',' || b || ',' || who, ' ' ORDER BY who) FROM dtest")" \
    "1,2,pgbench 1,2,sbench"
psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "DROP TABLE dtest" >/dev/null

# --- refused as pgbench refuses them
for bad in "-l --sampling-rate=0.5 --aggregate-interval=1" "--sampling-rate=0.5" "-l --sampling-rate=2"; do
    # shellcheck disable=SC2086
    SBP -t 1 $bad >"$W/bad.out" 2>&1; brc=$?
    checks=$((checks + 1))
    # the workload's check (FATAL: ...) or pgbench's option check (sbench pgbench: ...)
    if [ "$brc" != 0 ] && [ "$(grep -c '^FATAL: .*sampling\|^sbench pgbench: .*sampling' "$W/bad.out")" = 1 ] &&
        ! grep -q traceback "$W/bad.out"; then
        echo "ok   $bad refused: $(grep sampling "$W/bad.out")"
    else
        fail "$bad: exit $brc"; sed 's/^/     | /' "$W/bad.out"
    fi
done

rm -rf "$W"
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
