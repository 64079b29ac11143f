#!/bin/sh
# odbc-driver.sh: conformance test of the ODBC driver (sbench-odbc.so)
# against PostgreSQL (psqlODBC), MariaDB (Connector/ODBC) and SQLite
# (sqliteodbc): runs tests/drvcheck through a DSN and through a connection
# string for each, then checks the failure cases (no data source given,
# unknown DSN, wrong password never echoed).  Exits non-zero on any failure.
#
# Environment (see odbc-ini.sh, which this script runs):
#   SBT_BUILD                       meson build directory
#   SBT_ODBC_DIR                    scratch directory for odbc*.ini
#   SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD    PostgreSQL, user sbtest, db sbtest
#   SBT_MYSQL_SOCKET, SBT_MYSQL_PORT, SBT_MYSQL_PASSWORD   MariaDB, same
#   SBT_SQLITE_DB                   SQLite database file (created if missing)
#   SBT_PGUSER, SBT_MYSQL_USER      user names (default sbtest)
set -u

: "${SBT_BUILD:?SBT_BUILD must name the build directory}"
: "${SBT_ODBC_DIR:?SBT_ODBC_DIR must name a scratch directory}"
: "${SBT_PGPASSWORD:?}" "${SBT_MYSQL_PASSWORD:?}" "${SBT_SQLITE_DB:?}"
pguser=${SBT_PGUSER:-sbtest}
myuser=${SBT_MYSQL_USER:-sbtest}
here=$(cd "$(dirname "$0")" && pwd)
drvcheck=$SBT_BUILD/tests/drvcheck
so=$SBT_BUILD/drivers/odbc/sbench-odbc.so
for f in "$drvcheck" "$so"; do
    [ -e "$f" ] || { echo "odbc-driver.sh: $f not built" >&2; exit 1; }
done

exports=$("$here/odbc-ini.sh") || { echo "odbc-driver.sh: odbc-ini.sh failed" >&2; exit 1; }
eval "$exports"
export ODBCSYSINI ODBCINI

failures=0
out=$SBT_ODBC_DIR/drvcheck.out
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; sed 's/^/     | /' "$out"; failures=$((failures + 1)); }

# Passes when drvcheck succeeds with the given driver options.
pass() { # $1 name, rest: options
    name=$1; shift
    if "$drvcheck" "$so" "$@" >"$out" 2>&1; then
        ok "$name: $(tail -n 1 "$out" | sed 's/^drvcheck: //')"
    else
        bad "$name"
    fi
}

# Passes when drvcheck fails, its error is one line (besides debug log
# lines) and contains $2, and no output contains $3 (if given).
fail_with() { # $1 name, $2 expected text, $3 forbidden text or "", rest: options
    name=$1 want=$2 secret=$3; shift 3
    if "$drvcheck" "$so" "$@" >"$out" 2>&1; then
        bad "$name: drvcheck succeeded"; return
    fi
    lines=$(grep -v 'log\[[0-9]\]' "$out" | grep -c .)
    if [ "$lines" -ne 1 ]; then
        bad "$name: expected one error line, got $lines"; return
    fi
    if ! grep -v 'log\[[0-9]\]' "$out" | grep -qiF -- "$want"; then
        bad "$name: error does not mention '$want'"; return
    fi
    if [ -n "$secret" ] && grep -qF -- "$secret" "$out"; then
        bad "$name: the password appears in the output"; return
    fi
    ok "$name: $(grep -v 'log\[[0-9]\]' "$out" | sed 's/^drvcheck: FAILED: //')"
}

pwfile=$SBT_ODBC_DIR/mysql.pw
printf '%s\n' "$SBT_MYSQL_PASSWORD" > "$pwfile"
chmod 600 "$pwfile"

if [ -n "${SBT_MYSQL_SOCKET:-}" ]; then
    mywhere="Server=localhost;Socket=$SBT_MYSQL_SOCKET"
else
    mywhere="Server=127.0.0.1;Port=${SBT_MYSQL_PORT:-3306}"
fi
pgcs="Driver=PostgreSQL Unicode;Servername=${SBT_PGHOST:-127.0.0.1};Port=${SBT_PGPORT:-5432};Database=sbtest;SSLmode=disable"
mycs="Driver=MariaDB;$mywhere;Database=sbtest"
slcs="Driver=SQLite3;Database=$SBT_SQLITE_DB;Timeout=10000"

# --- conformance through DSNs and through connection strings ---
pass "postgresql dsn" --odbc-dsn=sbtest_pg --odbc-user="$pguser" --odbc-password="$SBT_PGPASSWORD"
pass "mariadb dsn (password file)" --odbc-dsn=sbtest_maria --odbc-user="$myuser" --odbc-password-file="$pwfile"
pass "sqlite dsn" --odbc-dsn=sbtest_sqlite
pass "postgresql connstr" --odbc-connstr="$pgcs" --odbc-user="$pguser" --odbc-password="$SBT_PGPASSWORD"
pass "mariadb connstr (UID/PWD inside)" --odbc-connstr="$mycs;UID=$myuser;PWD={$SBT_MYSQL_PASSWORD}"
pass "sqlite connstr" --odbc-connstr="$slcs"

# --- failure cases ---
wrong="Wr0ng-pw-$$-x"
fail_with "no data source" "odbc-dsn" "" --odbc-user=sbtest
fail_with "unknown DSN" "not found" "" --odbc-dsn=sbtest_no_such_dsn
fail_with "postgresql wrong password" "cannot connect" "$wrong" \
    --odbc-dsn=sbtest_pg --odbc-user="$pguser" --odbc-password="$wrong"
fail_with "mariadb wrong password" "cannot connect" "$wrong" \
    --odbc-dsn=sbtest_maria --odbc-user="$myuser" --odbc-password="$wrong"
fail_with "postgresql wrong password in connstr" "PWD=***" "$wrong" \
    --odbc-connstr="$pgcs;UID=$pguser;PWD={$wrong;x}"
fail_with "unreadable password file" "odbc-password-file" "" \
    --odbc-dsn=sbtest_pg --odbc-password-file="$SBT_ODBC_DIR/no-such-file"
# --odbc-password-command: the command's output (read from the environment
# at each connection) is appended as PWD=; a wrong one and a failing command
# fail with one line, the wrong one never echoed.
pass "postgresql dsn (password command)" --odbc-dsn=sbtest_pg --odbc-user="$pguser" \
    '--odbc-password-command=printf "%s\n" "$SBT_PGPASSWORD"'
pass "mariadb connstr (password command, --password-ttl=60)" --odbc-connstr="$mycs" --odbc-user="$myuser" \
    '--odbc-password-command=printf "%s\n" "$SBT_MYSQL_PASSWORD"' --password-ttl=60
fail_with "postgresql wrong password from a command" "cannot connect" "$wrong" \
    --odbc-dsn=sbtest_pg --odbc-user="$pguser" "--odbc-password-command=echo '$wrong'"
fail_with "a failing password command" "--odbc-password-command: the command exited with status 3" "" \
    --odbc-dsn=sbtest_pg --odbc-user="$pguser" "--odbc-password-command=exit 3"
fail_with "password and password command" "give only one of" "" \
    --odbc-dsn=sbtest_pg --odbc-password=x "--odbc-password-command=exit 3"

rm -f "$pwfile" "$out"
if [ "$failures" -ne 0 ]; then
    echo "odbc-driver.sh: $failures check(s) failed"
    exit 1
fi
echo "odbc-driver.sh: all checks passed"
