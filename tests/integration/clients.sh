#!/bin/sh
# clients.sh: --clients=64 on --threads=2 against a running PostgreSQL
# (e.g. one started by scripts/pg-server.sh, max_connections=300).  For
# oltp_read_only and oltp_read_write: sbench exits 0 with transactions > 0,
# the server sees exactly 64 sbench sessions during the run, and its
# xact_commit grows by at least the transactions sbench reports.
#
# Environment:
#   SBT_PGHOST      TCP host of the server (e.g. 127.0.0.1)        required
#   SBT_PGPORT      its port                                       required
#   SBT_PGPASSWORD  password of role sbtest                        required
#   SBT_BUILD       meson build directory                          required
#   SBT_TMP         scratch directory (default: /tmp)
set -eu

: "${SBT_PGHOST:?set SBT_PGHOST}" "${SBT_PGPORT:?set SBT_PGPORT}"
: "${SBT_PGPASSWORD:?set SBT_PGPASSWORD}" "${SBT_BUILD:?set SBT_BUILD}"
BUILD=$(cd "$SBT_BUILD" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
S=$BUILD/core/sbench
[ -x "$S" ] || { echo "clients.sh: no $S (build first)" >&2; exit 1; }
[ -f "$BUILD/drivers/pgsql/sbench-pgsql.so" ] || { echo "clients.sh: no pgsql driver built" >&2; exit 1; }
command -v psql >/dev/null 2>&1 || { echo "clients.sh: psql not found" >&2; exit 1; }

TMP=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-clients.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
unset PGHOST PGPORT PGUSER PGDATABASE PGSSLMODE PGPASSFILE || true
export PGPASSWORD="$SBT_PGPASSWORD"
THREADS=2 CLIENTS=64

sb() {
    "$S" --driver-path="$BUILD/drivers/pgsql" --workload-path="$SRC/workloads" \
        --db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" \
        --pgsql-user=sbtest --pgsql-db=sbtest --tables=2 --table-size=1000 "$@"
}
q() {
    psql -X -A -t -q -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "$1"
}
commits() { q "SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest'"; }

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

sb oltp_read_write cleanup >"$TMP/cleanup.out" 2>&1 || true
sb oltp_read_write prepare >"$TMP/prepare.out" 2>&1 || { cat "$TMP/prepare.out" >&2; echo "FAIL: prepare" >&2; exit 1; }

for w in oltp_read_only oltp_read_write; do
    sleep 1.5 # let the server flush earlier sessions' counters
    c0=$(commits)
    sb "$w" --threads=$THREADS --clients=$CLIENTS --time=4 --db-server-counters=off run >"$TMP/$w.out" 2>"$TMP/$w.err" &
    pid=$!
    seen=0
    while kill -0 "$pid" 2>/dev/null; do
        n=$(q "SELECT count(*) FROM pg_stat_activity WHERE datname = 'sbtest' AND application_name = 'sbench'" || echo 0)
        [ "$n" -gt "$seen" ] && seen=$n
        sleep 0.3
    done
    rc=0
    wait "$pid" || rc=$?
    sleep 1.5
    c1=$(commits)
    tx=$(sed -n 's/^ *transactions: *\([0-9][0-9]*\).*/\1/p' "$TMP/$w.out")
    echo "$w: exit $rc, transactions ${tx:-?}, sessions seen $seen, xact_commit delta $((c1 - c0))"
    [ "$rc" -eq 0 ] || { fail "$w: exit status $rc"; cat "$TMP/$w.err" >&2; }
    grep -q "Number of threads: $THREADS, clients: $CLIENTS" "$TMP/$w.out" || fail "$w: header does not show threads and clients"
    [ -n "$tx" ] && [ "$tx" -gt 0 ] || fail "$w: no transactions"
    [ "$seen" -eq "$CLIENTS" ] || fail "$w: the server saw $seen sbench sessions, expected $CLIENTS"
    [ -n "$tx" ] && [ $((c1 - c0)) -ge "$tx" ] || fail "$w: xact_commit grew by $((c1 - c0)) < $tx transactions"
done

sb oltp_read_write cleanup >"$TMP/cleanup.out" 2>&1 || fail "cleanup"
[ "$failures" -eq 0 ] || { echo "clients.sh: $failures failure(s)" >&2; exit 1; }
echo "clients.sh: all passed"
