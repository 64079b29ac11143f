#!/usr/bin/env bash
# bench/compare-auto.sh: the wall time of `sbench compare --repeats=auto`
# against fixed repeats, to the same verdicts, on the null driver's model
# servers (no database): for each case, a known difference (a server
# taking CA_SLOW_US per statement against CA_FAST_US: 2x, 1.1x) and A/A,
# it runs --repeats=CA_FIXED and --repeats=auto:CA_MAX and prints per mode
# the runs, the wall seconds, and the verdict (significant, change %,
# interval).  Not in the test suite (its timing depends on the machine).
#
# Environment: CA_EVENTS [2000] events per run, CA_FIXED [10], CA_MAX [20],
# BUILD_DIR (a release build, made if missing).
set -eu -o pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need python3
build_sbench
EVENTS=${CA_EVENTS:-2000} FIXED=${CA_FIXED:-10} MAX=${CA_MAX:-20}
T=$(mktemp -d "${TMPDIR:-/tmp}/compare-auto.XXXXXX")
trap 'rm -rf "$T"' EXIT
one() { # NAME FAST_US SLOW_US REPEATS
    local dir=$T/$1-${4//:/_} t0 t1
    t0=$(date +%s.%N)
    "$SBENCH" compare --prepare=off --target="a:--db-driver=null --null-delay-us=$2" \
        --target="b:--db-driver=null --null-delay-us=$3" --threads=1 --events="$EVENTS" --time=0 \
        --warmup-time=0 --repeats="$4" --results="$dir" --quiet oltp_point_select >/dev/null
    t1=$(date +%s.%N)
    python3 - "$dir/summary.json" "$1" "$4" "$t0" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdicts"][0]
print("%-10s %-12s runs %3d  wall %7.1f s  significant %-5s  change %+6.1f%% [%+.1f%%, %+.1f%%]"
      % (sys.argv[2], sys.argv[3], d["runs_done"], float(sys.argv[5]) - float(sys.argv[4]),
         v["significant"], v["change_pct"], v["low_pct"], v["high_pct"]))
PY
}
for c in "2x 300 600" "1.1x 300 330" "A/A 300 300"; do
    set -- $c
    one "$1" "$2" "$3" "$FIXED"
    one "$1" "$2" "$3" "auto:$MAX"
done
