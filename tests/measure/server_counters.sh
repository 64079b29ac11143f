#!/bin/bash
# server_counters.sh: the final report's "Server's own counters
# (cross-check)" against sbench's own counts, on the PostgreSQL and the
# MariaDB of SBT_*: oltp_read_write, --tables=2 --table-size=1000
# --events=300 --threads=2.
#
# PostgreSQL (pg_stat_database.xact_commit counts every transaction of the
# database, not only sbench's events):
#   commits = transactions                      one COMMIT per event
#           + threads * (1 + 2 * 9 * tables)    per worker connection: its
#                       startup transaction, and per prepared statement one
#                       PREPARE (autocommit: the statements are prepared at
#                       the end of thread_init, before the clock starts, as
#                       sysbench does) and one DEALLOCATE at disconnect:
#                       oltp_read_write prepares 9 statements per table.
#           + nothing for sbench's own counter reads: they run on one
#                       connection and the driver leaves them out.
#   rollbacks = retried + failed transactions   one ROLLBACK each
# MariaDB (global Com_* status counters; the test is not run in parallel):
#   Com_commit = transactions exactly; Com_rollback = retried + failed;
#   Com_select = reads exactly; Questions >= queries.
# Environment: SBT_BUILD, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD,
# SBT_MYSQL_SOCKET, SBT_MYSQL_PASSWORD (required).
set -u
: "${SBT_BUILD:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
: "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PASSWORD:?}"
SB=$SBT_BUILD/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/server_counters.XXXXXX")
cd "$tmp" || exit 1
TABLES=2 THREADS=2
W=(--tables=$TABLES --table-size=1000)
PG=(--db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" --pgsql-user=sbtest
    --pgsql-password="$SBT_PGPASSWORD" --pgsql-db=sbtest "${W[@]}")
MY=(--db-driver=mysql --mysql-socket="$SBT_MYSQL_SOCKET" --mysql-user=sbtest
    --mysql-password="$SBT_MYSQL_PASSWORD" --mysql-db=sbtest "${W[@]}")
finish() {
    "$SB" "${PG[@]}" oltp_read_write cleanup >/dev/null 2>&1
    "$SB" "${MY[@]}" oltp_read_write cleanup >/dev/null 2>&1
    rm -rf "$tmp"
}
trap finish EXIT
fail=0
run() { # name, options...
    local name=$1; shift
    "$SB" "$@" oltp_read_write cleanup >/dev/null 2>&1
    "$SB" "$@" oltp_read_write prepare >"$name.prep" 2>&1 || { echo "FAIL: $name prepare"; cat "$name.prep"; return 1; }
    "$SB" "$@" --events=300 --threads=$THREADS --time=0 oltp_read_write run >"$name.txt" 2>"$name.err" ||
        { echo "FAIL: $name run"; cat "$name.err"; return 1; }
    sed -n "/Server's own counters/,\$p" "$name.txt"
}
check() { # name, dbms
    python3 - "$1.txt" "$2" "$TABLES" "$THREADS" <<'PY'
import re, sys
text, dbms, tables, threads = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
errs = []
def num(pat, default=None):
    m = re.search(pat, text, re.M)
    if not m:
        if default is None: errs.append(f"no match for {pat!r}")
        return default if default is not None else 0
    return int(m.group(1))
tx = num(r"^\s+transactions:\s+(\d+)")
reads = num(r"^\s+read:\s+(\d+)")
queries = num(r"^\s+queries:\s+(\d+)")
retried = num(r"^\s+retried transactions:\s+(\d+)", 0)
failed = num(r"^\s+failed transactions:\s+(\d+)", 0)
if "Server's own counters" not in text: errs.append("no \"Server's own counters\" section")
commits = num(r"^\s+commits:\s+(\d+) \(sbench counted (\d+) transactions\)")
m = re.search(r"^\s+commits:\s+\d+ \(sbench counted (\d+) transactions\)", text, re.M)
if m and int(m.group(1)) != tx: errs.append(f"'sbench counted {m.group(1)}' != transactions {tx}")
rollbacks = num(r"^\s+rollbacks:\s+(\d+)")
if tx != 300: errs.append(f"transactions {tx} != --events=300")
if rollbacks != retried + failed:
    errs.append(f"rollbacks {rollbacks} != retried {retried} + failed {failed}")
if dbms == "pgsql":
    base = tx + threads * (1 + 2 * 9 * tables)
    extra = commits - base
    print(f"pgsql: commits {commits} = transactions {tx} + {threads}*(1+9*{tables}) + {extra} (counter reader)")
    if extra != 0:
        errs.append(f"commits {commits} != {base} (the counter reads must not count)")
else:
    selects = num(r"^\s+selects:\s+(\d+) \(sbench counted (\d+) reads\)")
    stmts = num(r"^\s+statements:\s+(\d+)")
    print(f"mysql: Com_commit {commits} vs transactions {tx}; Com_select {selects} vs reads {reads}; "
          f"Questions {stmts} vs queries {queries}; Com_rollback {rollbacks} vs retried+failed {retried + failed}")
    if commits != tx: errs.append(f"Com_commit {commits} != transactions {tx}")
    if selects != reads: errs.append(f"Com_select {selects} != reads {reads}")
    if stmts < queries: errs.append(f"Questions {stmts} < queries {queries}")
for e in errs: print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
}
echo "== PostgreSQL"
run pg "${PG[@]}" && check pg pgsql || fail=1
echo "== MariaDB"
run my "${MY[@]}" && check my mysql || fail=1
[ $fail -eq 0 ] && echo "server_counters: all checks passed" || echo "server_counters: FAILED"
exit $fail
