#!/bin/sh
# quickstart.sh: from a fresh Debian machine to a benchmark report.  Installs
# the build dependencies, builds sbench into ./build, and runs oltp_read_write
# (prepare, a 10-second run, cleanup) on the embedded SQLite default in a
# temporary directory.  Extra arguments go to every sbench command.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
sbench=$(pwd)/build/cli/sbench
work=$(mktemp -d /tmp/sbench-quickstart.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$sbench" --tables=2 --table-size=10000 --threads=2 "$@" oltp_read_write prepare
"$sbench" --tables=2 --table-size=10000 --threads=2 --time=10 --report-interval=2 "$@" oltp_read_write run
"$sbench" --tables=2 --table-size=10000 "$@" oltp_read_write cleanup
echo
echo "sbench is built at $sbench; try: $sbench --help"
