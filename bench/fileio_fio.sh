#!/bin/bash
# bench/fileio_fio.sh: sbench's fileio beside fio on the same files, at 1
# and 4 threads (issue 27: "fileio measured side by side with fio").  Both
# use O_DIRECT (sbench --file-extra-flags=direct, fio --direct=1) with
# synchronous I/O (fio's psync engine, sbench's sync mode) and the same
# block size, so neither measures the page cache.  sbench's files are
# made once by `sbench fileio prepare` and given to fio by name.  Each case
# runs ROUNDS times alternating which tool goes first; the median and the
# spread (min-max) of the MiB/s are shown, and sbench/fio.
#
# Usage: bench/fileio_fio.sh   ROUNDS [3]  TIME [5]  SIZE [512M]  FILES [4]
#        BLOCK [16384]  DIR [a temporary directory on /tmp's disk]
# Needs fio (apt-get install fio) and a built sbench (bench/lib.sh builds
# bench/build-release).
set -eu -o pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3} TIME=${TIME:-5} SIZE=${SIZE:-512M} FILES=${FILES:-4} BLOCK=${BLOCK:-16384}
command -v fio >/dev/null || { echo "fileio_fio: fio is not installed (apt-get install fio)"; exit 1; }
need python3
build_sbench
SBENCH=$(cd "$(dirname "$SBENCH")" && pwd)/sbench
work=${DIR:-$(mktemp -d "${TMPDIR:-/var/tmp}/sbench-fio.XXXXXX")}
trap 'rm -rf "$work"' EXIT
cd "$work"
F="--file-num=$FILES --file-total-size=$SIZE --file-block-size=$BLOCK --file-extra-flags=direct"
"$SBENCH" $F fileio prepare >prepare.txt 2>&1 || { tail -3 prepare.txt; exit 1; }
names=$(ls test_file.* | sort -t. -k2 -n | tr '\n' ':' | sed 's/:$//')
[ -n "$names" ] || { echo "fileio_fio: sbench made no test_file.N"; exit 1; }

sb_mibs() { # mode threads: sbench's read + written MiB/s
    # writes without sysbench's periodic fsync (one per file every 100
    # requests by default): fio's randwrite makes none
    local nosync=
    case $1 in *wr) nosync="--file-fsync-freq=0 --file-fsync-end=off" ;; esac
    "$SBENCH" $F $nosync --file-test-mode="$1" --threads="$2" --time="$TIME" fileio run >sb.txt 2>&1 || { tail -3 sb.txt >&2; return 1; }
    awk '/read, MiB\/s:/ {r=$3} /written, MiB\/s:/ {w=$3} END {printf "%.2f\n", r + w}' sb.txt
}
fio_mibs() { # mode threads: fio's read + write MiB/s (its bw is KiB/s)
    local rw
    case $1 in rndrd) rw=randread ;; rndwr) rw=randwrite ;; seqrd) rw=read ;; seqwr) rw=write ;; esac
    fio --name=fileio --filename="$names" --rw="$rw" --bs="$BLOCK" --direct=1 --ioengine=psync \
        --numjobs="$2" --time_based --runtime="$TIME" --group_reporting --output-format=json >fio.json 2>fio.err ||
        { tail -3 fio.err >&2; return 1; }
    python3 -c 'import json,sys; j=json.load(open("fio.json"))["jobs"][0]; print("%.2f" % ((j["read"]["bw"] + j["write"]["bw"]) / 1024))'
}
stats() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.1f %.1f-%.1f" % (statistics.median(v), min(v), max(v)))' "$@"; }

printf '| mode | threads | sbench MiB/s (min-max) | fio MiB/s (min-max) | sbench/fio |\n|---|---:|---:|---:|---:|\n'
for mode in rndrd seqrd rndwr; do
    for th in 1 4; do
        s=() f=()
        for r in $(seq 1 "$ROUNDS"); do
            if [ $((r % 2)) = 1 ]; then s+=("$(sb_mibs $mode $th)"); f+=("$(fio_mibs $mode $th)")
            else f+=("$(fio_mibs $mode $th)"); s+=("$(sb_mibs $mode $th)"); fi
        done
        read -r sm sr <<<"$(stats "${s[@]}")"
        read -r fm fr <<<"$(stats "${f[@]}")"
        ratio=$(python3 -c "print('%.2fx' % ($sm / $fm if $fm > 0 else 0))")
        printf '| %s | %d | %s (%s) | %s (%s) | %s |\n' "$mode" "$th" "$sm" "$sr" "$fm" "$fr" "$ratio"
    done
done
"$SBENCH" $F fileio cleanup >/dev/null 2>&1 || true
