#!/bin/sh
# Integration test of sbench-mysql.so against a running MySQL/MariaDB server
# (for instance one started by scripts/mariadb-server.sh).
#
# Environment:
#   SBT_BUILD           build directory (default: build)
#   SBT_MYSQL_PORT      TCP port on 127.0.0.1 (required)
#   SBT_MYSQL_SOCKET    unix socket of the same server (required)
#   SBT_MYSQL_PASSWORD  password of user sbtest (default 'sbtest-pw-S3cret')
#   SBT_MYSQL_DEAD_PORT a port where nothing listens (default 1)
#
# Runs drvcheck over TCP (statements through the wire-protocol fast path,
# checked to be taken, and again through Connector/C with
# --mysql-wire=off), over the socket, with MYSQL_PWD and with a password
# file; runs mysql_extra (retry and connection-loss
# classification on a real server, long values, types, bulk escaping);
# then checks that a wrong password, a dead port, a missing socket and bad
# option values fail with a one-line message that names what was tried and
# never contains the password.  Exits non-zero on any failure.
set -eu

BUILD=${SBT_BUILD:-build}
PORT=${SBT_MYSQL_PORT:?set SBT_MYSQL_PORT}
SOCK=${SBT_MYSQL_SOCKET:?set SBT_MYSQL_SOCKET}
PW=${SBT_MYSQL_PASSWORD:-sbtest-pw-S3cret}
DRV=$BUILD/drivers/mysql/sbench-mysql.so
CHECK=$BUILD/tests/drvcheck
EXTRA=$BUILD/drivers/mysql/mysql_extra
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mysql-driver-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

for f in "$DRV" "$CHECK" "$EXTRA"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "mysql-driver.sh: missing $f (build first)" >&2; exit 1; }
done

failures=0
n=0
WRONG_PW="Wr0ng-pw-Zq9x"

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run NAME EXPECTED_STATUS CMD...: runs CMD with output in $TMP/out and
# checks the exit status and that neither password appears in the output.
run() {
    name=$1
    want=$2
    shift 2
    n=$((n + 1))
    set +e
    "$@" >"$TMP/out" 2>&1
    rc=$?
    set -e
    if [ "$want" = ok ] && [ "$rc" -ne 0 ]; then
        fail "$name: exit status $rc"
        sed 's/^/    /' "$TMP/out" >&2
        return 0
    fi
    if [ "$want" = fail ] && [ "$rc" -eq 0 ]; then
        fail "$name: succeeded but should fail"
        return 0
    fi
    if grep -F -q -e "$PW" -e "$WRONG_PW" "$TMP/out"; then
        fail "$name: a password appears in the output"
    fi
    echo "ok: $name"
}

# expect NAME FRAGMENT: the last run's output contains FRAGMENT.
expect() {
    if ! grep -F -q -e "$2" "$TMP/out"; then
        fail "$1: output lacks '$2'"
        sed 's/^/    /' "$TMP/out" >&2
    fi
}

# one_line NAME: the last run's FAILED message is one line.
one_line() {
    lines=$(grep -c 'FAILED' "$TMP/out" || true)
    total=$(wc -l <"$TMP/out")
    if [ "$lines" -ne 1 ] || [ "$total" -ne 1 ]; then
        fail "$1: expected exactly one line of output, got $total"
        sed 's/^/    /' "$TMP/out" >&2
    fi
}

TCP="--mysql-host=127.0.0.1 --mysql-port=$PORT"

# --- conformance ---
# shellcheck disable=SC2086
run "drvcheck over TCP" ok "$CHECK" "$DRV" $TCP "--mysql-password=$PW"
expect "drvcheck over TCP" "checks passed"
# the wire-protocol fast path was taken; and the same through Connector/C
WIRE_LOG='statements went over the wire protocol fast path'
if grep -Eq "log\[0\]: [1-9][0-9]* $WIRE_LOG" "$TMP/out"; then
    echo "ok: tcp: statements took the wire protocol fast path"
else
    fail "tcp: no statement took the wire protocol fast path"
fi
# on the fast path the driver takes host I/O, so drvcheck's check of it ran
if grep -Fq "host_io refused" "$TMP/out"; then
    fail "tcp: host_io refused on the wire fast path: host I/O not checked"
fi
# shellcheck disable=SC2086
run "drvcheck over TCP, --mysql-wire=off (Connector/C)" ok "$CHECK" "$DRV" $TCP \
    "--mysql-password=$PW" --mysql-wire=off
expect "drvcheck over TCP, --mysql-wire=off (Connector/C)" "checks passed"
if grep -Fq "$WIRE_LOG" "$TMP/out"; then
    fail "--mysql-wire=off: statements still took the fast path"
fi
run "drvcheck over the socket" ok "$CHECK" "$DRV" "--mysql-socket=$SOCK" "--mysql-password=$PW"
expect "drvcheck over the socket" "checks passed"
# shellcheck disable=SC2086
run "drvcheck with MYSQL_PWD" ok env "MYSQL_PWD=$PW" "$CHECK" "$DRV" $TCP
printf '%s\nsecond line is ignored\n' "$PW" >"$TMP/pwfile"
# shellcheck disable=SC2086
run "drvcheck with a password file" ok "$CHECK" "$DRV" $TCP "--mysql-password-file=$TMP/pwfile"
# shellcheck disable=SC2086
run "drvcheck with a host list" ok "$CHECK" "$DRV" "--mysql-host=127.0.0.1,localhost" \
    "--mysql-port=$PORT" "--mysql-password=$PW"
# shellcheck disable=SC2086
run "drvcheck with --mysql-ssl=PREFERRED" ok "$CHECK" "$DRV" $TCP "--mysql-password=$PW" \
    --mysql-ssl=PREFERRED
# shellcheck disable=SC2086
run "mysql_extra" ok "$EXTRA" "$DRV" $TCP "--mysql-password=$PW"
expect "mysql_extra" "checks passed"

# --- failures ---
# shellcheck disable=SC2086
run "wrong password" fail "$CHECK" "$DRV" $TCP "--mysql-password=$WRONG_PW"
expect "wrong password" "127.0.0.1:$PORT"
expect "wrong password" "Access denied"
one_line "wrong password"
run "wrong password over the socket" fail "$CHECK" "$DRV" "--mysql-socket=$SOCK" \
    "--mysql-password=$WRONG_PW"
expect "wrong password over the socket" "socket $SOCK"
expect "wrong password over the socket" "Access denied"
one_line "wrong password over the socket"
# shellcheck disable=SC2086
run "wrong MYSQL_PWD" fail env "MYSQL_PWD=$WRONG_PW" "$CHECK" "$DRV" $TCP
expect "wrong MYSQL_PWD" "Access denied"
one_line "wrong MYSQL_PWD"

# A port nobody listens on (1, tcpmux, unless SBT_MYSQL_DEAD_PORT says
# otherwise): connections are refused at once.
dead=${SBT_MYSQL_DEAD_PORT:-1}
run "dead port" fail "$CHECK" "$DRV" --mysql-host=127.0.0.1 "--mysql-port=$dead" \
    "--mysql-password=$PW"
expect "dead port" "127.0.0.1:$dead"
one_line "dead port"
run "missing socket" fail "$CHECK" "$DRV" "--mysql-socket=$TMP/no.sock" "--mysql-password=$PW"
expect "missing socket" "$TMP/no.sock"
one_line "missing socket"
run "bad --mysql-ssl" fail "$CHECK" "$DRV" --mysql-ssl=sometimes
expect "bad --mysql-ssl" "--mysql-ssl"
one_line "bad --mysql-ssl"
run "bad --mysql-ignore-errors" fail "$CHECK" "$DRV" --mysql-ignore-errors=1213,oops
expect "bad --mysql-ignore-errors" "oops"
one_line "bad --mysql-ignore-errors"
run "bad --mysql-port" fail "$CHECK" "$DRV" --mysql-port=70000
expect "bad --mysql-port" "--mysql-port"
run "missing password file" fail "$CHECK" "$DRV" "--mysql-password-file=$TMP/none"
expect "missing password file" "--mysql-password-file"
run "password and password file" fail "$CHECK" "$DRV" "--mysql-password=$PW" \
    "--mysql-password-file=$TMP/pwfile"
expect "password and password file" "only one of"
# The test server has no TLS: REQUIRED must refuse rather than fall back.
# (If it has TLS, this connects; only a plain-text fallback is an error.)
# shellcheck disable=SC2086
run "--mysql-ssl=REQUIRED" any "$CHECK" "$DRV" $TCP "--mysql-password=$PW" --mysql-ssl=REQUIRED
if [ "$rc" -ne 0 ]; then
    expect "--mysql-ssl=REQUIRED" "TLS"
    one_line "--mysql-ssl=REQUIRED"
fi

if [ "$failures" -ne 0 ]; then
    echo "mysql-driver.sh: $failures of $n cases failed" >&2
    exit 1
fi
echo "mysql-driver.sh: all $n cases passed"
