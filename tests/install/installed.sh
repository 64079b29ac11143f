#!/bin/bash
# installed.sh PREFIX: the checks of an installed sbench that do not depend
# on how it was installed (`meson install`: install.sh; the Debian
# packages: deb.sh): the driver SDK used from outside the tree (sdk.sh) and
# the bash completion loaded on demand from PREFIX/share (cli/completion.sh).
# Prints their lines and ends with "N passed, N failed" over both.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:?usage: installed.sh PREFIX}
out=$(bash "$here/sdk.sh" "$prefix" 2>&1; bash "$here/../cli/completion.sh" "$prefix/bin" 2>&1)
echo "$out" | grep -v ' passed, [0-9]* failed$'
pass=$(echo "$out" | grep -c '^ok ') fail=$(echo "$out" | grep -c '^FAIL')
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
