#!/bin/sh
# install-deps.sh: installs, with apt-get, what sbench needs to build, and
# (with --test) the servers, ODBC drivers and peers the test suite uses, and
# the tools its package and completion tests drive (debhelper, lintian,
# bash-completion).
# Does nothing for packages already installed.  Needs root (or sudo).
set -eu
build="meson ninja-build pkg-config gcc liblua5.4-dev libpq-dev libssl-dev libsqlite3-dev
default-libmysqlclient-dev unixodbc-dev zlib1g-dev libjson-c-dev liburing-dev"
test="postgresql-15 postgresql-contrib mariadb-server mariadb-client unixodbc
odbc-postgresql odbc-mariadb libsqliteodbc sysbench lua5.4 pgbouncer nodejs
bash-completion debhelper lintian fakeroot
prometheus python3-jsonschema openssl clang libclang-rt-14-dev valgrind time
openmpi-bin python3-yaml gnuplot-nox chromium poppler-utils fio strace universal-ctags"
want=$build
[ "${1:-}" = "--test" ] && want="$build $test"
missing=""
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
# the servers must not be started by the package scripts
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
