#!/bin/sh
# hdr_log.sh: checks sbench's HdrHistogram interval log against the
# reference decoder.  hdr_log_test writes a log of known intervals plus what
# sb_histogram reports for each; hdr_decode.mjs decodes the log with
# hdr-histogram-js's HistogramLogReader.  Counts must match exactly; p50 and
# p99 must agree within the histogram's precision (the reference reports a
# bucket's highest equivalent value, sb_histogram the same value clamped to
# the exact [min, max], so reference >= ours); the reference's max within
# precision of ours; the Interval_Max column is max/1e6 (ms) to 3 decimals.
#
# usage: hdr_log.sh HDR_LOG_TEST_BINARY HDR_DECODE_MJS [HDR_JS_DIR]
# HDR_JS_DIR (or env SBT_HDR_JS_DIR) holds node_modules/hdr-histogram-js,
# installed by scripts/test.sh (npm ci in tests/hdr-js).  Fails, never skips,
# when node or the package is missing.
set -eu
prog=$1 mjs=$2
jsdir=${3:-${SBT_HDR_JS_DIR:-$(dirname "$mjs")/../hdr-js}}
command -v node >/dev/null || { echo "hdr_log.sh: node not found"; exit 1; }
[ -d "$jsdir/node_modules/hdr-histogram-js" ] ||
    { echo "hdr_log.sh: $jsdir/node_modules/hdr-histogram-js missing (run: cd tests/hdr-js && npm ci)"; exit 1; }

tmp=$(mktemp -d /tmp/sbench-hdrlog.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$prog" --log "$tmp/run.hlog" --expect "$tmp/expect.txt"
node "$mjs" "$tmp/run.hlog" "$jsdir" > "$tmp/got.txt"
echo "expected (sb_histogram: count p50 p99 p100 max):"; cat "$tmp/expect.txt"
echo "decoded (hdr-histogram-js: count p50 p99 max Interval_Max start length):"; cat "$tmp/got.txt"

awk '
NR == FNR { if ($1 == "precision") prec = $2; else ex[++ne] = $0; next }
function near(ref, ours, what,   tol) {
    tol = ours * prec + 8   # relative precision, plus one unit (2^unit_magnitude)
    if (ref < ours || ref - ours > tol) {
        printf "interval %d: %s: reference %s, sb_histogram %s (tolerance %s)\n", n, what, ref, ours, tol
        bad++
    }
}
{
    n++
    if (n > ne) { printf "interval %d: not expected\n", n; bad++; next }
    split(ex[n], e, " ")
    if ($1 != e[1]) { printf "interval %d: count %s != %s\n", n, $1, e[1]; bad++ }
    near($2, e[2], "p50"); near($3, e[3], "p99")
    # max: the reference reports the last bucket s highest value (+unit)
    d = $4 - e[4]; if (d < 0) d = -d
    if (d > e[4] * prec + 8) { printf "interval %d: max %s vs %s\n", n, $4, e[4]; bad++ }
    want = sprintf("%.3f", e[5] / 1e6)
    if ($5 != want) { printf "interval %d: Interval_Max %s != %s\n", n, $5, want; bad++ }
    if ($7 != "1.000") { printf "interval %d: length %s\n", n, $7; bad++ }
}
END {
    if (n != ne) { printf "decoded %d intervals, expected %d\n", n, ne; bad++ }
    if (bad) { printf "hdr_log.sh: %d mismatches\n", bad; exit 1 }
    printf "hdr_log.sh: %d intervals agree\n", n
}' "$tmp/expect.txt" "$tmp/got.txt"
