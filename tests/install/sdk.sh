#!/bin/bash
# sdk.sh: the driver SDK of an installed sbench, used as someone outside
# this tree would (docs/writing-a-driver.md): the null driver's sources the
# SDK ships are copied into a temporary directory, renamed to a driver
# "foo", built with nothing but `pkg-config --cflags sbench-driver`, then
#   - the installed sbench loads it from --driver-path and from the
#     pkg-config driverdir, lists its options, and runs a workload on it
#     (sbench's counts against the copy's own server counters);
#   - the installed sbench-drvcheck passes it (and with answers delayed);
#   - a copy built for another ABI major version is refused by both, with
#     a message naming both versions;
#   - the pkg-config file agrees with `sbench --version` (version, ABI) and
#     with where `sbench --help` finds the drivers.
#
# Usage: sdk.sh PREFIX   (the installation: /usr for the Debian packages,
# or a `meson install` prefix).  Needs PREFIX/lib*/sbench writable for the
# driverdir check; the driver it puts there is removed again.
set -u
prefix=${1:?usage: sdk.sh PREFIX}
tmp=$(mktemp -d /tmp/sbench-sdk.XXXXXX)
installed_in_driverdir=""
cleanup() {
    [ -n "$installed_in_driverdir" ] && rm -f "$installed_in_driverdir"
    rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

S=$prefix/bin/sbench
CHECK=$prefix/bin/sbench-drvcheck
# a clean environment: no CPATH, no SBENCH_DRIVER_PATH, no source tree
clean() { env -i PATH=/usr/bin:/bin HOME="$tmp" PKG_CONFIG_PATH="$pcdir" "$@"; }

pc=$(find "$prefix"/lib* "$prefix"/share -name sbench-driver.pc 2>/dev/null | head -n 1)
if [ -n "$pc" ]; then ok "sbench-driver.pc installed: $pc"; else bad "no sbench-driver.pc under $prefix"; finish; fi
pcdir=$(dirname "$pc")
for f in "$S" "$CHECK"; do
    [ -x "$f" ] && ok "installed: $f" || { bad "not installed: $f"; finish; }
done
[ -f "$(clean pkg-config --variable=includedir sbench-driver)/sbench/driver.h" ] &&
    ok "pkg-config's includedir has sbench/driver.h" || bad "no sbench/driver.h in pkg-config's includedir"

# the pkg-config file against the installed sbench
ver=$(clean "$S" --version 2>&1)   # "sbench 0.1.0 (driver ABI 1.2, ...)"
want_ver=$(echo "$ver" | sed -n 's/^sbench \([^ ]*\).*/\1/p')
want_abi=$(echo "$ver" | sed -n 's/.*driver ABI \([0-9]*\.[0-9]*\).*/\1/p')
pc_ver=$(clean pkg-config --modversion sbench-driver)
pc_abi=$(clean pkg-config --variable=abi_version sbench-driver)
[ -n "$want_ver" ] && [ "$pc_ver" = "$want_ver" ] && ok "pkg-config version $pc_ver = sbench --version's" ||
    bad "pkg-config version '$pc_ver', sbench --version: $ver"
[ -n "$want_abi" ] && [ "$pc_abi" = "$want_abi" ] &&
    [ "$(clean pkg-config --variable=abi_major sbench-driver).$(clean pkg-config --variable=abi_minor sbench-driver)" = "$want_abi" ] &&
    ok "pkg-config abi_version $pc_abi = sbench --version's driver ABI" || bad "pkg-config ABI '$pc_abi', sbench --version: $ver"
driverdir=$(clean pkg-config --variable=driverdir sbench-driver)
null_dir=$(clean "$S" --help 2>&1 | awk '$1 == "null" && $2 ~ /sbench-null.so$/ { sub("/sbench-null.so$", "", $2); print $2 }')
[ -n "$driverdir" ] && [ "$driverdir" = "$null_dir" ] && ok "pkg-config driverdir $driverdir is where sbench finds its drivers" ||
    bad "pkg-config driverdir '$driverdir', sbench --help finds null in '$null_dir'"

# bad command lines of sbench-drvcheck: one line and a non-zero exit each
for args in "" "--bogus x.so" "$tmp/no-such-driver.so"; do
    msg=$(clean "$CHECK" $args 2>&1); rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(echo "$msg" | grep -c .)" -eq 1 ]; then
        ok "sbench-drvcheck ${args:-(no argument)}: exit $rc, $msg"
    else
        bad "sbench-drvcheck ${args:-(no argument)}: exit $rc, $msg"
    fi
done
clean "$CHECK" --help | grep -q -- '--no-data' && ok "sbench-drvcheck --help names --no-data" || bad "sbench-drvcheck --help"

# the copy: the null driver's sources as the SDK ships them, renamed to foo
example=$(ls -d "$prefix"/share/doc/sbench*/examples/null-driver 2>/dev/null | head -n 1)
if [ -n "$example" ] && [ -f "$example/null.c" ]; then ok "example sources: $example"; else bad "no examples/null-driver under $prefix/share/doc"; finish; fi
mkdir "$tmp/foo" && cp -r "$example"/* "$tmp/foo/" && cd "$tmp/foo" || exit 1
# (rename: the steps of docs/writing-a-driver.md)
sed -i -e 's/null-/foo-/g' -e 's/\.name = "null"/.name = "foo"/' \
    -e 's/"null driver/"foo driver/g' -e 's/does nothing, answers like a server/out-of-tree copy of the null driver/' *.c
build_copy() {  # build_copy OUT.so: the build line of docs/writing-a-driver.md
    clean sh -c 'cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sbench-driver) *.c common/*.c -o "$1"' sh "$1"
}
if build_copy sbench-foo.so >build.log 2>&1; then
    ok "the copy builds with pkg-config --cflags sbench-driver ($(clean pkg-config --cflags sbench-driver | tr -d '\n'))"
else
    bad "the copy does not build"; cat build.log; finish
fi
exports=$(nm -D --defined-only sbench-foo.so | awk '{ print $3 }')
[ "$exports" = "sbench_driver_entry" ] && ok "exports only sbench_driver_entry" || bad "exports: $exports"
# everything it needs is resolved: libc alone
if clean sh -c 'cc -shared -fPIC $(pkg-config --cflags sbench-driver) -Wl,--no-undefined *.c common/*.c -o check-undefined.so' >build.log 2>&1; then
    ok "links with -Wl,--no-undefined (no symbol left to the executable)"
else
    bad "-Wl,--no-undefined:"; cat build.log
fi

# loaded by the installed sbench from --driver-path
help=$(clean "$S" --driver-path="$tmp/foo" --db-driver=foo --help 2>&1)
if echo "$help" | grep -qE "^  foo +$tmp/foo/sbench-foo.so$" &&
   echo "$help" | grep -q "out-of-tree copy of the null driver" &&
   echo "$help" | grep -qE '^  --foo-delay-us='; then
    ok "sbench --driver-path=DIR --db-driver=foo --help: found in DIR, its description and --foo-* options"
else
    bad "sbench --help with the copy"; echo "$help" | tail -15
fi
out=$(cd "$tmp" && clean "$S" --driver-path="$tmp/foo" --db-driver=foo --threads=2 --time=0 --events=300 \
      oltp_read_only run 2>&1)
events=$(echo "$out" | sed -n 's/^ *total number of events: *\([0-9]*\)$/\1/p')
reads=$(echo "$out" | sed -n 's/^ *read: *\([0-9]*\)$/\1/p')
srv=$(echo "$out" | sed -n 's/^ *selects: *\([0-9]*\) (sbench counted \([0-9]*\) reads)$/\1 \2/p')
# oltp_read_only: 10 point selects and 4 range selects per event
if [ "$events" = 300 ] && [ "$reads" = $((300 * 14)) ] && [ "$srv" = "$reads $reads" ]; then
    ok "oltp_read_only run on foo: 300 events, $reads reads = the copy's own select counter"
else
    bad "oltp_read_only run on foo: events '$events', reads '$reads', server selects/sbench reads '$srv'"
    echo "$out" | tail -20
fi

# the installed drvcheck
if clean "$CHECK" --no-data "$tmp/foo/sbench-foo.so" >check.log 2>&1 && grep -q "^drvcheck: foo: [0-9]* checks passed" check.log; then
    ok "sbench-drvcheck --no-data: $(tail -n 1 check.log)"
else
    bad "sbench-drvcheck on the copy"; tail -5 check.log
fi
if clean "$CHECK" --no-data "$tmp/foo/sbench-foo.so" --foo-delay-us=3000 --foo-rows=3 >check.log 2>&1 &&
   grep -q "checks passed" check.log; then
    ok "sbench-drvcheck --no-data with answers 3 ms apart: $(tail -n 1 check.log)"
else
    bad "sbench-drvcheck on the copy with --foo-delay-us"; tail -5 check.log
fi
# without --no-data, drvcheck reads back rows the copy never stored: it must fail
if clean "$CHECK" "$tmp/foo/sbench-foo.so" >check.log 2>&1; then
    bad "sbench-drvcheck without --no-data passed a driver that stores nothing"
else
    ok "sbench-drvcheck without --no-data fails the copy: $(grep FAILED check.log | head -n 1)"
fi

# a copy built for another ABI major version is refused
sed 's/\.abi_major = SBD_ABI_MAJOR/.abi_major = SBD_ABI_MAJOR + 98/' null.c >null_abi.c && mv null_abi.c null.c &&
    mkdir abi99 && build_copy abi99/sbench-foo.so >build.log 2>&1 || { bad "building the ABI copy"; cat build.log; }
major=${want_abi%%.*}
msg=$(cd "$tmp" && clean "$S" --driver-path="$tmp/foo/abi99" --db-driver=foo --time=1 oltp_read_only run 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && echo "$msg" | grep -q "$((major + 98))" && echo "$msg" | grep -q "$major"; then
    ok "sbench refuses a driver of ABI major $((major + 98)): $(echo "$msg" | grep -m1 "$((major + 98))")"
else
    bad "sbench and a driver of ABI major $((major + 98)): exit $rc: $msg"
fi
if clean "$CHECK" --no-data "$tmp/foo/abi99/sbench-foo.so" >check.log 2>&1; then
    bad "sbench-drvcheck passed a driver of another ABI major"
else
    ok "sbench-drvcheck refuses it: $(grep FAILED check.log | head -n 1)"
fi

# found in the pkg-config driverdir without --driver-path
if [ -d "$driverdir" ] && [ -w "$driverdir" ] && [ ! -e "$driverdir/sbench-foo.so" ]; then
    installed_in_driverdir=$driverdir/sbench-foo.so
    cp "$tmp/foo/sbench-foo.so" "$installed_in_driverdir"
    if clean "$S" --help 2>&1 | grep -qE "^  foo +$driverdir/sbench-foo.so$" &&
       (cd "$tmp" && clean "$S" --db-driver=foo --time=0 --events=10 oltp_point_select run 2>&1 |
        grep -qE '^ *total number of events: *10$'); then
        ok "installed in the pkg-config driverdir, sbench finds and runs it without --driver-path"
    else
        bad "the copy in $driverdir is not found or does not run"
    fi
    rm -f "$installed_in_driverdir"
    installed_in_driverdir=""
else
    bad "the pkg-config driverdir '$driverdir' is not a writable directory (or has a sbench-foo.so already)"
fi

finish
