#!/bin/sh
# odbc-ini.sh: writes an odbcinst.ini (drivers) and an odbc.ini (DSNs
# sbtest_pg, sbtest_maria, sbtest_sqlite) into $SBT_ODBC_DIR for the ODBC
# driver tests, and prints the `export ODBCSYSINI=... ODBCINI=...` line that
# makes unixODBC read them.  Passwords are not written: tests pass them with
# --odbc-password / --odbc-password-file.
#
# Environment:
#   SBT_ODBC_DIR                  directory to write into (created if needed)
#   SBT_PGHOST, SBT_PGPORT        PostgreSQL server (host name or 127.0.0.1)
#   SBT_MYSQL_SOCKET, SBT_MYSQL_PORT   MariaDB server (socket preferred)
#   SBT_SQLITE_DB                 SQLite database file
#   SBT_PGPASSWORD, SBT_MYSQL_PASSWORD are accepted but deliberately unused.
#   SBT_ODBC_LIBDIR               where the ODBC drivers live (optional)
set -eu

: "${SBT_ODBC_DIR:?SBT_ODBC_DIR must name a directory to write into}"
pghost=${SBT_PGHOST:-127.0.0.1}
pgport=${SBT_PGPORT:-5432}
mysock=${SBT_MYSQL_SOCKET:-}
myport=${SBT_MYSQL_PORT:-3306}
sqlitedb=${SBT_SQLITE_DB:-$SBT_ODBC_DIR/sbtest.sqlite}

# Finds a driver library: from its Debian package when dpkg knows it, else
# in the usual multiarch directory.
find_lib() { # $1 package, $2 file name
    p=$(dpkg -L "$1" 2>/dev/null | grep "/$2\$" | head -n 1 || true)
    if [ -z "$p" ]; then
        for d in ${SBT_ODBC_LIBDIR:-} /usr/lib/x86_64-linux-gnu/odbc \
                 /usr/lib/$(uname -m)-linux-gnu/odbc /usr/lib64 /usr/lib; do
            if [ -n "$d" ] && [ -e "$d/$2" ]; then p="$d/$2"; break; fi
        done
    fi
    if [ -z "$p" ]; then
        echo "odbc-ini.sh: ODBC driver $2 (package $1) not found" >&2
        exit 1
    fi
    echo "$p"
}

psql_lib=$(find_lib odbc-postgresql psqlodbcw.so)
maria_lib=$(find_lib odbc-mariadb libmaodbc.so)
sqlite_lib=$(find_lib libsqliteodbc libsqlite3odbc.so)

mkdir -p "$SBT_ODBC_DIR"

# Threading = 0: the drivers are thread-safe, so unixODBC must not
# serialize calls (old unixODBC versions defaulted to 3).
cat > "$SBT_ODBC_DIR/odbcinst.ini" <<INI
[PostgreSQL Unicode]
Description = PostgreSQL ODBC driver (Unicode)
Driver = $psql_lib
Threading = 0

[MariaDB]
Description = MariaDB Connector/ODBC
Driver = $maria_lib
Threading = 0

[SQLite3]
Description = SQLite3 ODBC driver
Driver = $sqlite_lib
Threading = 0
INI

if [ -n "$mysock" ]; then
    mysql_where="Server = localhost
Socket = $mysock"
else
    mysql_where="Server = 127.0.0.1
Port = $myport"
fi

cat > "$SBT_ODBC_DIR/odbc.ini" <<INI
[sbtest_pg]
Driver = PostgreSQL Unicode
Servername = $pghost
Port = $pgport
Database = sbtest
SSLmode = disable

[sbtest_maria]
Driver = MariaDB
$mysql_where
Database = sbtest

[sbtest_sqlite]
Driver = SQLite3
Database = $sqlitedb
Timeout = 10000
INI

echo "export ODBCSYSINI=$SBT_ODBC_DIR ODBCINI=$SBT_ODBC_DIR/odbc.ini"
