#!/bin/sh
# phase_marks.sh: a profiled run's phases marked in every output that has
# windows (issue #44: "the text, JSON, CSV and HDR outputs mark phases").
# The null driver under --rate-profile='hold:200:2;step:100,300:1' with
# 1-second windows: the phase of each window is known from the profile
# alone (the window's middle: 0.5 and 1.5 s in hold:200:2, 2.5 and 3.5 s in
# the step), so the JSON lines' "phase", the CSV's phase column and the
# HdrHistogram log's "Tag=" (read back by the reference decoder,
# hdr-histogram-js, where ',' in a tag is '+') must each be that sequence,
# and each tagged interval of the log must hold as many values as its JSON
# window's transactions.  A run without a profile has no phase anywhere.
# usage: phase_marks.sh BUILD_DIR  (needs node and tests/hdr-js's modules)
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
S=$build/cli/sbench
jsdir=${SBT_HDR_JS_DIR:-$here/../hdr-js}
t=$(mktemp -d /tmp/sbench-phases.XXXXXX)
trap 'rm -rf "$t"' EXIT
fails=0
check() { # WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
want="hold:200:2 hold:200:2 step:100,300:1 step:100,300:1"
P='--db-driver=null --rate-profile=hold:200:2;step:100,300:1 --report-interval=1'

"$S" $P --report-format=json --hdr-log="$t/run.hlog" oltp_point_select run >"$t/run.json" 2>"$t/err" ||
    { cat "$t/err"; echo "FAIL the JSON run"; exit 1; }
check "JSON windows' phase" "$(grep '"type":"interval"' "$t/run.json" | sed 's/.*"phase":"\([^"]*\)".*/\1/' | tr '\n' ' ' | sed 's/ $//')" "$want"
node "$here/hdr_decode.mjs" "$t/run.hlog" "$jsdir" >"$t/decoded" || { echo "FAIL decoding the log"; exit 1; }
check "HDR log intervals' Tag (decoded by hdr-histogram-js)" "$(awk '{print $8}' "$t/decoded" | tr '+' ',' | tr '\n' ' ' | sed 's/ $//')" "$want"
check "HDR intervals' counts = the JSON windows' transactions" \
    "$(awk '{print $1}' "$t/decoded" | tr '\n' ' ')" \
    "$(grep '"type":"interval"' "$t/run.json" | sed 's/.*"transactions":\([0-9]*\).*/\1/' | tr '\n' ' ')"

"$S" $P --report-format=csv oltp_point_select run >"$t/run.csv" 2>"$t/err" || { cat "$t/err"; echo "FAIL the CSV run"; exit 1; }
check "CSV header's last column" "$(head -n 1 "$t/run.csv" | awk -F, '{print $NF}')" "phase"
check "CSV rows' phase" "$(tail -n +2 "$t/run.csv" | sed 's/.*,"\([^"]*\)"$/\1/' | tr '\n' ' ' | sed 's/ $//')" "$want"

"$S" --db-driver=null --time=2 --report-interval=1 --report-format=csv --hdr-log="$t/plain.hlog" oltp_point_select run >"$t/plain.csv" 2>/dev/null
check "no profile: CSV lines with 'phase', HDR lines with Tag=" "$(grep -c 'phase' "$t/plain.csv" || true) $(grep -c '^Tag=' "$t/plain.hlog" || true)" "0 0"
[ "$fails" -eq 0 ] && echo "phase_marks: all ok" || { echo "phase_marks: $fails failed"; exit 1; }
