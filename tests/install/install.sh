#!/bin/bash
# install.sh: builds and installs sbench into a temporary prefix (a second,
# lean build tree: -Dbuildtype=plain), then runs the installed binary with an
# empty environment: --version, --help (drivers under PREFIX/lib*/sbench,
# workloads under PREFIX/share/sbench), oltp_point_select prepare/run/cleanup
# on the default SQLite, the man page, the driver SDK (sdk.sh) and the bash
# completion loaded on demand (cli/completion.sh).  Also checks `meson install --destdir`
# of the main build.  Usage: install.sh [BUILD_DIR] (default $SBT_BUILD).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${SBT_BUILD:-$src/build}}
tmp=$(mktemp -d /tmp/sbench-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if meson install --no-rebuild -C "$build" --destdir "$tmp/dest" >"$tmp/destdir.log" 2>&1 &&
   [ -n "$(find "$tmp/dest" -path '*/bin/sbench' -type f)" ] &&
   [ -n "$(find "$tmp/dest" -path '*/man1/sbench.1*')" ]; then
    ok "meson install --destdir (bin/sbench, man1/sbench.1)"
else
    bad "meson install --destdir"; tail -5 "$tmp/destdir.log"
fi

prefix=$tmp/prefix
if meson setup "$tmp/b" "$src" --prefix="$prefix" -Dbuildtype=plain >"$tmp/setup.log" 2>&1 &&
   ninja -C "$tmp/b" >"$tmp/build.log" 2>&1 &&
   meson install -C "$tmp/b" >"$tmp/install.log" 2>&1; then
    ok "setup, build and install into $prefix"
else
    bad "setup/build/install"; tail -20 "$tmp"/*.log
    echo "$pass passed, $fail failed"; exit 1
fi

S=$prefix/bin/sbench
run() { env -i PATH=/usr/bin:/bin HOME="$tmp" timeout 60 "$S" "$@"; }
v=$(run --version 2>&1)
if [[ "$v" == "sbench "*"driver ABI "* ]]; then ok "--version: $v"; else bad "--version: $v"; fi

help=$(run --help 2>&1)
drvdir=$(ls -d "$prefix"/lib*/sbench "$prefix"/lib/*/sbench 2>/dev/null | head -n 1)
if [ -n "$drvdir" ] && echo "$help" | grep -qE "^  sqlite +$drvdir/sbench-sqlite.so$" &&
   echo "$help" | grep -qE "^  null +$drvdir/sbench-null.so$"; then
    ok "--help lists drivers under $drvdir"
else
    bad "--help drivers (expected under ${drvdir:-PREFIX/lib*/sbench})"; echo "$help" | sed -n '/Drivers found/,$p'
fi
if echo "$help" | grep -qE "^  oltp_point_select +$prefix/share/sbench/oltp_point_select.lua$"; then
    ok "--help lists workloads under $prefix/share/sbench"
else
    bad "--help workloads"; echo "$help" | sed -n '/Workloads found/,$p'
fi
if echo "$help" | grep -q "$src"; then bad "--help mentions the source tree"; else ok "--help does not look into the source tree"; fi

mkdir "$tmp/work" && cd "$tmp/work" || exit 1
opts="--tables=1 --table-size=200"
if run $opts oltp_point_select prepare >prep.log 2>&1; then ok "prepare"; else bad "prepare"; tail -5 prep.log; fi
if run $opts --time=1 oltp_point_select run >run.log 2>&1 && grep -q "transactions:" run.log; then
    ok "run --time=1 (report has transactions:)"
else
    bad "run"; tail -5 run.log
fi
if run $opts oltp_point_select cleanup >clean.log 2>&1; then ok "cleanup"; else bad "cleanup"; tail -5 clean.log; fi
[ -f sbtest.db ] && ok "default database sbtest.db in the working directory" || bad "no sbtest.db in the working directory"

man=$(ls "$prefix"/share/man/man1/sbench.1* 2>/dev/null | head -n 1)
if [ -n "$man" ]; then ok "man page installed: $man"; else bad "man page not installed"; fi

# the driver SDK and the bash completion, as installed
out=$(bash "$src/tests/install/installed.sh" "$prefix") && ok "SDK and completion as installed: ${out##*$'\n'}" ||
    { bad "SDK and completion as installed:"; echo "$out" | grep -v '^ok '; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
