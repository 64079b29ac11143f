# compare-lib.sh: shared by the compare-*.sh tests (sourced, bash): the
# sbench under test, a scratch directory removed at exit, and the check
# helpers.  Arguments of the sourcing script: BUILD_ROOT.
SB=$(cd "${1:?build root}" && pwd)/cli/sbench
[ -x "$SB" ] || { echo "FAIL: no $SB (build first)"; exit 1; }
T=$(mktemp -d "${SBT_TMP:-/tmp}/compare-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
checks=0 failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_eq() { # WHAT GOT WANT
    checks=$((checks + 1))
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else fail "$1: got '$2', want '$3'"; fi
}
expect_grep() { # WHAT PATTERN FILE
    checks=$((checks + 1))
    if grep -q -- "$2" "$3"; then echo "ok   $1"; else fail "$1: no '$2' in:"; sed 's/^/     | /' "$3" | tail -8; fi
}
# jq-like: pyq FILE EXPR (python expression over d = the JSON file)
pyq() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
finish() { echo "$checks checks, $failures failed"; [ "$failures" = 0 ]; }
