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
#     and, for the rows, against Python's sqlite3 and psql), the man pages,
#     the driver SDK and the bash completion loaded on demand from
#     /usr/share (tests/install/installed.sh /usr);
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

# oltp_read_write prepare, run, cleanup on one database, with one thread
# (no retry adds statements).  rw_cycle NAME ROWS TABLES SBENCH_OPTS...:
# ROWS and TABLES are functions that print, read without sbench, the rows
# in sbtest1 + sbtest2 and the number of sbtest tables.  A run of 300
# events must count 14 reads, 4 writes, BEGIN and COMMIT per event.
rw_cycle() {
    local name=$1 rows=$2 tables=$3 r w o e n=300; shift 3
    if run "$@" oltp_read_write prepare >"$tmp/prep.log" 2>&1 && [ "$($rows)" = 1000 ]; then
        ok "$name: prepare, 2 x 500 rows ($rows)"
    else
        bad "$name: prepare"; tail -5 "$tmp/prep.log"
    fi
    run "$@" --time=0 --events=$n oltp_read_write run >"$tmp/run.log" 2>&1
    r=$(sed -n 's/^ *read: *\([0-9]*\)$/\1/p' "$tmp/run.log"); w=$(sed -n 's/^ *write: *\([0-9]*\)$/\1/p' "$tmp/run.log")
    o=$(sed -n 's/^ *other: *\([0-9]*\)$/\1/p' "$tmp/run.log"); e=$(sed -n 's/^ *total number of events: *\([0-9]*\)$/\1/p' "$tmp/run.log")
    if [ "$e" = $n ] && [ "$r" = $((14 * n)) ] && [ "$w" = $((4 * n)) ] && [ "$o" = $((2 * n)) ]; then
        ok "$name: oltp_read_write run, $e events: $r reads, $w writes, $o other"
    else
        bad "$name: oltp_read_write run: events '$e' reads '$r' writes '$w' other '$o' (want $n, $((14 * n)), $((4 * n)), $((2 * n)))"
        tail -30 "$tmp/run.log"
    fi
    run "$@" oltp_read_write cleanup >/dev/null 2>&1 && [ "$($tables)" = 0 ] &&
        ok "$name: cleanup dropped the tables ($tables)" || bad "$name: cleanup"
}
opts="--tables=2 --table-size=500 --threads=1"
sqlite_q() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$tmp/work/sbtest.db" "$1"; }
sqlite_rows() { sqlite_q 'SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)'; }
sqlite_tables() { sqlite_q "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'sbtest%'"; }
rw_cycle SQLite sqlite_rows sqlite_tables $opts

pg -d postgres -c 'DROP DATABASE IF EXISTS sbench_deb' -c 'CREATE DATABASE sbench_deb' >/dev/null 2>&1 ||
    bad "creating database sbench_deb on $SBT_PGHOST:$SBT_PGPORT"
printf '%s\n' "$SBT_PGPASSWORD" >"$tmp/pgpw" && chmod 600 "$tmp/pgpw"
pg_rows() { pg -d sbench_deb -c 'SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)'; }
pg_tables() { pg -d sbench_deb -c "SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"; }
rw_cycle PostgreSQL pg_rows pg_tables --db-driver=pgsql --pgsql-host="$SBT_PGHOST" --pgsql-port="$SBT_PGPORT" \
    --pgsql-user=sbtest --pgsql-db=sbench_deb --pgsql-password-file="$tmp/pgpw" $opts

# the SDK and the completion as the packages installed them
out=$(bash "$src/tests/install/installed.sh" "/usr") && ok "SDK and completion as installed: ${out##*$'\n'}" ||
    { bad "SDK and completion as installed:"; echo "$out" | grep -v '^ok '; }

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
