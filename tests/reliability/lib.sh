# lib.sh: shared helpers of tests/reliability/*.sh (sourced, bash).
# Needs SBT_BUILD; the server tests also need SBT_PG* / SBT_MYSQL_* as
# scripts/test.sh exports them.  Every helper bounds its run time.
set -u
: "${SBT_BUILD:?set SBT_BUILD (the meson build directory)}"
SBT_BUILD=$(cd "$SBT_BUILD" && pwd)
S=$SBT_BUILD/cli/sbench
[ -x "$S" ] || { echo "FAIL: $S not found (build first)"; exit 1; }
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
unset SBENCH_PATH SBENCH_DRIVER_PATH MYSQL_PWD PGPASSWORD PGHOST PGPORT PGUSER PGDATABASE 2>/dev/null || true

T=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-rel.XXXXXX")
chmod 755 "$T"
BG_PIDS=""
rel_cleanup() {
    for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
    for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap rel_cleanup EXIT

FAILS=0
fail() { echo "FAIL: $* [t=${SECONDS}s]"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $* [t=${SECONDS}s]"; }
finish() {
    if [ "$FAILS" -gt 0 ]; then echo "$FAILS failure(s)"; exit 1; fi
    echo "all passed"; exit 0
}

# Time bounds scaled to the machine: the seconds a trivial run takes here
# and now (sbench's start, a driver loaded, one event, the report, exit),
# measured once as this file is sourced.  within BASE K VALUE: VALUE
# (seconds, fractions allowed) is at most BASE + K trivial runs, so a busy
# or slow machine is not a failure while a hang still is; bound BASE K
# prints that bound.
trivial_t0=$(date +%s%N)
timeout 60 "$S" --db-driver=null --events=1 --time=0 oltp_point_select run >/dev/null 2>&1
TRIVIAL_S=$(awk -v d=$(($(date +%s%N) - trivial_t0)) 'BEGIN { printf "%.3f", d / 1e9 }')
within() {
    awk -v b="$1" -v k="$2" -v v="$3" -v t="$TRIVIAL_S" 'BEGIN { exit !(v + 0 <= b + k * t) }'
}
bound() { awk -v b="$1" -v k="$2" -v t="$TRIVIAL_S" 'BEGIN { printf "%.1f", b + k * t }'; }

# value of a "label:   N" line of a text report
rep() { sed -n "s/^ *$1: *\([0-9][0-9]*\).*/\1/p" "$2" | head -n 1; }

pg_args() {
    echo "--db-driver=pgsql --pgsql-host=${SBT_PGHOST:?} --pgsql-port=${SBT_PGPORT:?}" \
         "--pgsql-user=sbtest --pgsql-password=${SBT_PGPASSWORD:?} --pgsql-db=sbtest"
}
my_args() {
    echo "--db-driver=mysql --mysql-socket=${SBT_MYSQL_SOCKET:?} --mysql-user=sbtest" \
         "--mysql-password=${SBT_MYSQL_PASSWORD:?} --mysql-db=sbtest"
}
# SQL as sbtest (password through the environment, never argv)
pg_sql() {
    PGPASSWORD=$SBT_PGPASSWORD timeout 20 psql -X -q -At -v ON_ERROR_STOP=1 \
        -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest "$@"
}
my_sql() {
    MYSQL_PWD=$SBT_MYSQL_PASSWORD timeout 20 mariadb --no-defaults -N -B \
        --socket="$SBT_MYSQL_SOCKET" -usbtest sbtest "$@"
}
pg_bindir() {
    local d best=""
    if command -v pg_config >/dev/null 2>&1; then
        d=$(pg_config --bindir 2>/dev/null || true)
        [ -n "$d" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return; }
    fi
    for d in /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && best=$d; done
    echo "$best"
}
