#!/bin/sh
# pgsql-driver.sh: integration test of the pgsql driver against a running
# PostgreSQL (e.g. one started by scripts/pg-server.sh).  Runs drvcheck over
# TCP (prepared statements through the wire-protocol fast path, checked to
# be taken, and again through libpq with --pgsql-wire=off), over the unix
# socket, with the password from PGPASSWORD and from a password file, with
# an isolation level, and checks that a wrong password
# and a dead port fail with a one-line message that names the server and
# never shows the password.  Exits non-zero on the first failure.
#
# Environment:
#   SBT_PGHOST      TCP host of the server (e.g. 127.0.0.1)        required
#   SBT_PGPORT      its port                                       required
#   SBT_PGPASSWORD  password of role sbtest                        required
#   SBT_BUILD       meson build directory                          required
#   SBT_PGSOCKET    unix socket directory of the same server; when unset
#                   and SBT_PGHOST is a directory, that is used, else the
#                   socket case fails (set SBT_PGSOCKET=skip to skip it)
#   SBT_DEADPORT    a TCP port where nothing listens (default 1)
set -eu

: "${SBT_PGHOST:?set SBT_PGHOST}" "${SBT_PGPORT:?set SBT_PGPORT}"
: "${SBT_PGPASSWORD:?set SBT_PGPASSWORD}" "${SBT_BUILD:?set SBT_BUILD}"
DEADPORT=${SBT_DEADPORT:-1}
SOCKET=${SBT_PGSOCKET:-}
case "$SBT_PGHOST" in /*) [ -n "$SOCKET" ] || SOCKET=$SBT_PGHOST ;; esac

DRVCHECK=$SBT_BUILD/tests/drvcheck
DRIVER=$SBT_BUILD/drivers/pgsql/sbench-pgsql.so
[ -x "$DRVCHECK" ] || { echo "pgsql-driver.sh: no $DRVCHECK (build first)" >&2; exit 1; }
[ -f "$DRIVER" ] || { echo "pgsql-driver.sh: no $DRIVER (libpq missing at build time?)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Keep libpq's own environment out of the cases that set things explicitly.
unset PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE PGSSLMODE PGPASSFILE || true
PASSFILE_NONE=$TMP/no-pgpass   # so that ~/.pgpass cannot help
WRONG_PW=wrong-Pw-9d1c7e

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run NAME CMD...: runs CMD, keeps its output in $out and status in $rc.
run() {
    name=$1
    shift
    if out=$("$@" 2>&1); then rc=0; else rc=$?; fi
    printf '%s\n' "$out" >"$TMP/$(echo "$name" | tr ' /' '__').log"
}

no_secret() {
    case "$out" in
    *"$SBT_PGPASSWORD"* | *"$WRONG_PW"*) fail "$1: output shows the password" ;;
    esac
}

expect_pass() {
    name=$1
    shift
    run "$name" "$@"
    if [ "$rc" -ne 0 ]; then
        fail "$name: drvcheck exited $rc:"
        printf '%s\n' "$out" | tail -n 5 >&2
    elif ! printf '%s\n' "$out" | grep -q 'checks passed'; then
        fail "$name: no 'checks passed' line"
    else
        echo "ok: $name"
    fi
    no_secret "$name"
}

# expect_fail NAME FRAGMENT... -- CMD...: drvcheck must exit 1 with exactly
# one output line containing every fragment.
expect_fail() {
    name=$1
    shift
    frags=
    while [ "$1" != -- ]; do
        frags="$frags
$1"
        shift
    done
    shift
    run "$name" "$@"
    ok=1
    [ "$rc" -eq 1 ] || { fail "$name: exit status $rc, expected 1"; ok=0; }
    lines=$(printf '%s\n' "$out" | wc -l)
    [ "$lines" -eq 1 ] || { fail "$name: $lines lines of output, expected 1"; ok=0; }
    old_ifs=$IFS
    IFS='
'
    for f in $frags; do
        case "$out" in
        *"$f"*) ;;
        *) fail "$name: message lacks '$f'"; ok=0 ;;
        esac
    done
    IFS=$old_ifs
    no_secret "$name"
    [ "$ok" -eq 1 ] && echo "ok: $name: $out"
    [ "$ok" -eq 1 ] || printf '  output: %s\n' "$out" >&2
    return 0
}

PW_OPT=--pgsql-password=$SBT_PGPASSWORD

WIRE_LOG='statements went over the wire protocol fast path'
expect_pass "tcp, password option" \
    env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
    --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" "$PW_OPT"
# the driver logs (debug) how many statements the fast path served
if printf '%s\n' "$out" | grep -Eq "log\[0\]: [1-9][0-9]* $WIRE_LOG"; then
    echo "ok: tcp: executes took the wire protocol fast path"
else
    fail "tcp: no execute took the wire protocol fast path"
fi
# on the fast path the driver takes host I/O, so drvcheck's check of it ran
case $out in
*"host_io refused"*) fail "tcp: host_io refused on the wire fast path: host I/O not checked" ;;
*) echo "ok: tcp: host I/O (ABI 1.4) checked" ;;
esac

expect_pass "tcp, --pgsql-wire=off (libpq)" \
    env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
    --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" "$PW_OPT" --pgsql-wire=off
case "$out" in
*"$WIRE_LOG"*) fail "--pgsql-wire=off: executes still took the fast path" ;;
esac

if [ "$SOCKET" = skip ]; then
    echo "skipped: unix socket (SBT_PGSOCKET=skip)"
elif [ -z "$SOCKET" ]; then
    fail "unix socket: set SBT_PGSOCKET to the server's socket directory"
else
    expect_pass "unix socket" \
        env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
        --pgsql-host="$SOCKET" --pgsql-port="$SBT_PGPORT" "$PW_OPT"
fi

expect_pass "password from PGPASSWORD" \
    env PGPASSFILE="$PASSFILE_NONE" PGPASSWORD="$SBT_PGPASSWORD" \
    "$DRVCHECK" "$DRIVER" --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT"

expect_pass "host and port from PGHOST/PGPORT" \
    env PGPASSFILE="$PASSFILE_NONE" PGHOST="$SBT_PGHOST" PGPORT="$SBT_PGPORT" \
    "$DRVCHECK" "$DRIVER" "$PW_OPT"

(umask 077 && printf '%s\n' "$SBT_PGPASSWORD" >"$TMP/pw")
expect_pass "password file, serializable" \
    env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
    --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" \
    --pgsql-password-file="$TMP/pw" --pgsql-isolation=serializable

expect_fail "wrong password" \
    "FAILED: connect" "password authentication failed" "$SBT_PGPORT" -- \
    env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
    --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" \
    --pgsql-password="$WRONG_PW"

case "$SBT_PGHOST" in
/*) dead_where=".s.PGSQL.$DEADPORT" ;;
*) dead_where="port $DEADPORT" ;;
esac
expect_fail "dead port" \
    "FAILED: connect" "$SBT_PGHOST" "$dead_where" -- \
    env PGPASSFILE="$PASSFILE_NONE" "$DRVCHECK" "$DRIVER" \
    --pgsql-host="$SBT_PGHOST" --pgsql-port="$DEADPORT" "$PW_OPT"

expect_fail "bad isolation level" "pgsql-isolation" -- \
    "$DRVCHECK" "$DRIVER" --pgsql-isolation=snapshot

if [ "$failures" -ne 0 ]; then
    rm -f "$TMP/pw"
    trap - EXIT
    echo "pgsql-driver.sh: $failures failure(s); outputs kept in $TMP" >&2
    exit 1
fi
echo "pgsql-driver.sh: all passed"
