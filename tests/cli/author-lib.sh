# author-lib.sh: the setup the authoring tools' tests share (sourced by
# tests/cli/lint.sh, tests/cli/new.sh, tests/integration/trace-null.sh):
# SB (the sbench binary of BUILD_DIR, $1, or $SBT_BUILD), a scratch
# directory made the working directory and removed at exit, expect_eq.
B=${1:-${SBT_BUILD:?set SBT_BUILD or pass the build directory}}
SB=$(cd "$B" && pwd)/cli/sbench
[ -x "$SB" ] || { echo "$(basename "$0"): no $SB (build first)"; exit 1; }
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/author-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0
checks=0
# expect_eq WHAT GOT WANT
expect_eq() {
    checks=$((checks + 1))
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL: $1: got '$2', want '$3'"; failures=$((failures + 1)); fi
}
