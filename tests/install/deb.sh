#!/bin/bash
# deb.sh: the Debian packages (debian/), built, checked, installed into this
# machine, used, and removed again without a trace:
#   - `dpkg-buildpackage -us -uc -b` in a copy of the source tree (the
#     build runs the packages' own server-less tests), then lintian, which
#     must report no error and no warning;
#   - the PostgreSQL driver's package pulls in no MariaDB or ODBC library;
#   - `apt-get install ./*.deb` (the dbgsym packages aside), then the
#     installed sbench: --help lists each driver and workload at the place
#     its package installed it, oltp_read_write prepare/run/cleanup on
#     SQLite and on the test PostgreSQL (counts against the workload's mix
#     and, for the rows, against sqlite3/psql), the man pages, the driver
#     SDK (tests/install/sdk.sh /usr) and the bash completion loaded on
#     demand from /usr/share (tests/cli/completion.sh /usr/bin);
#   - `apt-get purge`: no file of the packages is left, nor any other path
#     named *sbench* under /usr, /etc and /var/lib that was not there before.
# Needs root, the SBT_PG* server of scripts/test.sh, and no sbench package
# installed before (it would be removed).  Takes 4-6 minutes on 2 cores,
# most of it the package build (~2.5 min) and lintian (~30 s).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/sbench-deb.XXXXXX)
chmod 755 "$tmp"
pkgs="sbench sbench-driver-pgsql sbench-driver-mysql sbench-driver-odbc sbench-dev"
installed=0
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q "$@"; }
pg() { PGPASSWORD=$SBT_PGPASSWORD psql -X -q -t -A -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest "$@"; }
cleanup() {
    # whatever failed, the machine is left as it was found
    [ "$installed" -eq 1 ] && apt_get purge $pkgs >/dev/null 2>&1
    [ -n "${SBT_PGPORT:-}" ] && pg -d postgres -c 'DROP DATABASE IF EXISTS sbench_deb' >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || { bad "must run as root (it installs the packages)"; finish; }
for t in dpkg-buildpackage lintian apt-get psql; do
    command -v "$t" >/dev/null || { bad "$t is not installed (scripts/install-deps.sh --test)"; finish; }
done
for v in SBT_PGHOST SBT_PGPORT SBT_PGPASSWORD; do
    [ -n "${!v:-}" ] || { bad "$v is not set (run through scripts/test.sh)"; finish; }
done
already=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | grep ' installed$' | cut -d' ' -f1 | tr '\n' ' ')
[ -z "$already" ] || { bad "already installed: $already(this test installs and purges them)"; finish; }

# what is there before, to compare after the purge
snapshot() { find /usr /etc /var/lib -xdev -iname '*sbench*' 2>/dev/null | grep -v "^$tmp" | sort; }
snapshot >"$tmp/before"

# ---- build ----
mkdir "$tmp/src"
if [ -d "$src/.git" ]; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) | tar -x -C "$tmp/src"
else
    tar -C "$src" --exclude='./build*' --exclude=node_modules -c . | tar -x -C "$tmp/src"
fi
t0=$(date +%s)
if (cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=2" dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
    ok "dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s): $(cd "$tmp" && ls *.deb | grep -v dbgsym | tr '\n' ' ')"
else
    bad "dpkg-buildpackage failed:"; tail -40 "$tmp/build.log"; finish
fi
debs=$(cd "$tmp" && ls sbench*.deb | grep -v dbgsym)
for p in $pkgs; do
    ls "$tmp/${p}_"*.deb >/dev/null 2>&1 || bad "no package $p"
done

t0=$(date +%s)
lintian "$tmp"/*.changes >"$tmp/lintian.log" 2>&1
grep -v 'running with root privileges' "$tmp/lintian.log" >"$tmp/lintian.tags"
if ! grep -q '^[EW]: ' "$tmp/lintian.tags"; then
    ok "lintian: no error, no warning ($(($(date +%s) - t0)) s; $(grep -c '^[IP]: ' "$tmp/lintian.tags") info/pedantic tags)"
else
    bad "lintian:"; grep '^[EW]: ' "$tmp/lintian.tags"
fi

# a PostgreSQL user pulls in neither MariaDB's nor ODBC's client library
deps=$(for p in sbench sbench-driver-pgsql; do dpkg-deb -f "$tmp/${p}_"*.deb Depends; done)
if echo "$deps" | grep -q 'libpq' && ! echo "$deps" | grep -qiE 'mariadb|mysql|odbc'; then
    ok "sbench + sbench-driver-pgsql depend on libpq, not on MariaDB or ODBC: $(echo $deps)"
else
    bad "dependencies of sbench + sbench-driver-pgsql: $deps"
fi

# ---- install ----
# every path the packages hold, and whether it was there before
for d in $debs; do dpkg-deb -c "$tmp/$d"; done | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' |
    grep -v '^\.\?$' | sort -u >"$tmp/files"
while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files" >"$tmp/existed"
installed=1
if (cd "$tmp" && apt_get install $(printf './%s ' $debs)) >"$tmp/install.log" 2>&1; then
    ok "apt-get install ./*.deb"
else
    bad "apt-get install:"; tail -20 "$tmp/install.log"; finish
fi

run() { (cd "$tmp/work" && env -i PATH=/usr/bin:/bin HOME="$tmp" timeout 120 sbench "$@"); }
mkdir "$tmp/work"
help=$(run --help 2>&1)
libdir=$(dirname "$(dpkg-query -L sbench | grep '/sbench-sqlite.so$')")
for d in null sqlite pgsql mysql odbc; do
    pkg=sbench; case $d in pgsql | mysql | odbc) pkg=sbench-driver-$d ;; esac
    if echo "$help" | grep -qE "^  $d +$libdir/sbench-$d.so$" && dpkg-query -L "$pkg" | grep -qx "$libdir/sbench-$d.so"; then
        ok "sbench --help: driver $d at $libdir/sbench-$d.so, from package $pkg"
    else
        bad "sbench --help: driver $d (package $pkg)"; echo "$help" | sed -n '/^Drivers found/,/^$/p'
    fi
done
wl=$(echo "$help" | sed -n '/^Workloads found/,/^$/p' | awk '/^  [^ ]/ { print $2 }')
nwl=$(echo "$wl" | grep -c .)
if [ "$nwl" -ge 11 ] && echo "$wl" | grep -qx /usr/share/sbench/oltp_read_write.lua &&
   [ -z "$(echo "$wl" | grep -vxF -f <(dpkg-query -L sbench))" ]; then
    ok "sbench --help: $nwl workloads, each a file of package sbench in /usr/share/sbench"
else
    bad "sbench --help workloads:"; echo "$wl"
fi
[ -f /usr/share/man/man1/sbench.1.gz ] && zcat /usr/share/man/man1/sbench.1.gz | grep -q '^\.SH GENERAL OPTIONS' &&
    [ -f /usr/share/man/man1/sbench-drvcheck.1.gz ] && ok "man pages sbench(1), sbench-drvcheck(1)" || bad "man pages"

# oltp_read_write: 14 reads, 4 writes, BEGIN and COMMIT per event; one
# thread, so no retry adds statements
check_rw() {  # check_rw NAME EVENTS LOG
    local r w o e
    r=$(sed -n 's/^ *read: *\([0-9]*\)$/\1/p' "$3"); w=$(sed -n 's/^ *write: *\([0-9]*\)$/\1/p' "$3")
    o=$(sed -n 's/^ *other: *\([0-9]*\)$/\1/p' "$3"); e=$(sed -n 's/^ *total number of events: *\([0-9]*\)$/\1/p' "$3")
    if [ "$e" = "$2" ] && [ "$r" = $((14 * $2)) ] && [ "$w" = $((4 * $2)) ] && [ "$o" = $((2 * $2)) ]; then
        ok "$1: oltp_read_write run, $e events: $r reads, $w writes, $o other"
    else
        bad "$1: oltp_read_write run: events '$e' reads '$r' writes '$w' other '$o' (want $2, $((14 * $2)), $((4 * $2)), $((2 * $2)))"
        tail -30 "$3"
    fi
}
opts="--tables=2 --table-size=500 --threads=1"
if run $opts oltp_read_write prepare >"$tmp/sq-prep.log" 2>&1 &&
   [ "$(python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(sum(c.execute(f"SELECT COUNT(*) FROM sbtest{i}").fetchone()[0] for i in (1, 2)))' "$tmp/work/sbtest.db")" = 1000 ]; then
    ok "SQLite: prepare, 2 x 500 rows in sbtest.db"
else
    bad "SQLite: prepare"; tail -5 "$tmp/sq-prep.log"
fi
run $opts --time=0 --events=300 oltp_read_write run >"$tmp/sq-run.log" 2>&1
check_rw SQLite 300 "$tmp/sq-run.log"
run $opts oltp_read_write cleanup >/dev/null 2>&1 &&
    [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE \"sbtest%\"").fetchone()[0])' "$tmp/work/sbtest.db")" = 0 ] &&
    ok "SQLite: cleanup dropped the tables" || bad "SQLite: cleanup"

pg -d postgres -c 'DROP DATABASE IF EXISTS sbench_deb' -c 'CREATE DATABASE sbench_deb' >/dev/null 2>&1 ||
    bad "creating database sbench_deb on $SBT_PGHOST:$SBT_PGPORT"
pgopts="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbench_deb"
printf '%s\n' "$SBT_PGPASSWORD" >"$tmp/pgpw" && chmod 600 "$tmp/pgpw"
pgopts="$pgopts --pgsql-password-file=$tmp/pgpw $opts"
if run $pgopts oltp_read_write prepare >"$tmp/pg-prep.log" 2>&1 &&
   [ "$(pg -d sbench_deb -c 'SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)')" = 1000 ]; then
    ok "PostgreSQL: prepare, 2 x 500 rows (psql)"
else
    bad "PostgreSQL: prepare"; tail -5 "$tmp/pg-prep.log"
fi
run $pgopts --time=0 --events=300 oltp_read_write run >"$tmp/pg-run.log" 2>&1
check_rw PostgreSQL 300 "$tmp/pg-run.log"
run $pgopts oltp_read_write cleanup >/dev/null 2>&1 &&
    [ "$(pg -d sbench_deb -c "SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'")" = 0 ] &&
    ok "PostgreSQL: cleanup dropped the tables" || bad "PostgreSQL: cleanup"

# the SDK and the completion as the packages installed them
for t in "install/sdk.sh /usr" "cli/completion.sh /usr/bin"; do
    if bash "$src/tests/"$t >"$tmp/sub.log" 2>&1; then
        ok "tests/$t: $(tail -n 1 "$tmp/sub.log")"
    else
        bad "tests/$t:"; grep -v '^ok ' "$tmp/sub.log"
    fi
done

# ---- remove ----
if apt_get purge $pkgs >"$tmp/purge.log" 2>&1; then
    installed=0
    ok "apt-get purge"
else
    bad "apt-get purge:"; tail -10 "$tmp/purge.log"
fi
# a path of the packages that is there now but was not before (directories
# such as /usr/bin that other packages hold too were there before)
left=""
while read -r f; do
    [ -e "$f" ] && ! grep -qxF "$f" "$tmp/existed" && left="$left $f"
done <"$tmp/files"
[ -z "$left" ] && ok "no file or directory of the packages is left ($(wc -l <"$tmp/files") paths checked, $(wc -l <"$tmp/existed") of them there before)" ||
    bad "left behind:$left"
snapshot >"$tmp/after"
new=$(comm -13 "$tmp/before" "$tmp/after")
[ -z "$new" ] && ok "no new path named *sbench* under /usr, /etc, /var/lib" || bad "new paths after the purge: $new"
still=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | grep -v 'not-installed$')
[ -z "$still" ] && ok "dpkg knows none of the packages any more" || bad "dpkg still has: $still"

finish
