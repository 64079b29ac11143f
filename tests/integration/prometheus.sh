#!/bin/sh
# prometheus.sh: runs prometheus_test (exporter over real sockets, two
# scrapes), then lints the scraped /metrics body with promtool (Debian
# package prometheus): any parse error or lint problem fails the test.
#
# usage: prometheus.sh PROMETHEUS_TEST_BINARY
set -eu
prog=$1
command -v promtool >/dev/null || { echo "prometheus.sh: promtool not found (apt-get install prometheus)"; exit 1; }
tmp=$(mktemp -d /tmp/sbench-prom.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$prog" "$tmp/body.txt"
[ -s "$tmp/body.txt" ] || { echo "prometheus.sh: empty body"; exit 1; }
if ! promtool check metrics < "$tmp/body.txt" > "$tmp/lint.txt" 2>&1 || [ -s "$tmp/lint.txt" ]; then
    echo "prometheus.sh: promtool check metrics failed:"
    cat "$tmp/lint.txt"
    exit 1
fi
echo "prometheus.sh: promtool check metrics: clean ($(grep -vc '^#' "$tmp/body.txt") samples)"
