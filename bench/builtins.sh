#!/bin/bash
# bench/builtins.sh: sbench's cpu, memory, threads, mutex and fileio beside
# sysbench 1.0.20's built-in tests of the same names, on the same command
# lines, on this machine: events/s (cpu, threads), MiB/s (memory, fileio),
# the run time (mutex) and the average and 95th percentile latency.  Each
# case runs ROUNDS times, alternating which tool goes first; the median is
# shown.  No server.  Writes its section of bench/RESULTS.md (between the
# "builtins" markers; OUT=... for another file) and prints it.
#
# Usage: bench/builtins.sh      ROUNDS [3]  TIME [5]  THREADS [2]  BUILD_DIR [bench/build-release]
set -eu -o pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3} TIME=${TIME:-5} THREADS=${THREADS:-2}
OUT=${OUT:-$ROOT/bench/RESULTS.md}
need "$SYSBENCH" python3
build_sbench
SBENCH=$(cd "$(dirname "$SBENCH")" && pwd)/sbench
work=$(mktemp -d "${TMPDIR:-/tmp}/sbench-builtins.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# figure FILE LABEL: the number after LABEL in a report
figure() { sed -n "s/^ *$2 *\([0-9.]*\).*/\1/p" "$1" | head -n 1; }
# metric CASE FILE: the case's headline figure
metric() {
    case $1 in
        cpu*) figure "$2" 'events per second:' ;;
        memory*) sed -n 's/.*(\([0-9.]*\) MiB\/sec)/\1/p' "$2" | head -n 1 ;;
        threads*) awk '/total number of events:/ {e=$5} /total time:/ {t=$3+0} END {if (t > 0) printf "%.2f", e / t}' "$2" ;;
        mutex*) figure "$2" 'total time:' | tr -d s ;;
        fileio*) awk '/read, MiB\/s:/ {r=$3} /written, MiB\/s:/ {w=$3} END {printf "%.2f", r + w}' "$2" ;;
    esac
}
unit() { case $1 in cpu*|threads*) echo "events/s" ;; memory*|fileio*) echo "MiB/s" ;; mutex*) echo "s (less is better)" ;; esac; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

T="--threads=$THREADS --time=$TIME"
cases=(
    "cpu|$T cpu run"
    "cpu --cpu-max-prime=20000|$T --cpu-max-prime=20000 cpu run"
    "memory write 1K global|$T --memory-total-size=100G memory run"
    "memory read 1M local|$T --memory-block-size=1M --memory-oper=read --memory-scope=local --memory-total-size=100G memory run"
    "memory write rnd 4K|$T --memory-block-size=4K --memory-access-mode=rnd --memory-total-size=100G memory run"
    "threads|$T threads run"
    "mutex|--threads=$THREADS --mutex-locks=20000 mutex run"
    "fileio rndrw|$T --file-num=8 --file-total-size=256M --file-test-mode=rndrw fileio run"
    "fileio seqrd|$T --file-num=8 --file-total-size=256M --file-test-mode=seqrd fileio run"
)
rows=""
(cd "$work" && mkdir -p sy sb &&
 (cd sy && "$SYSBENCH" --file-num=8 --file-total-size=256M fileio prepare >/dev/null) &&
 (cd sb && "$SBENCH" --file-num=8 --file-total-size=256M fileio prepare >/dev/null)) ||
    die "fileio prepare failed"
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    sy_m="" sb_m="" sy_avg="" sb_avg="" sy_p="" sb_p=""
    for r in $(seq 1 "$ROUNDS"); do
        order="sy sb"; [ $((r % 2)) = 0 ] && order="sb sy"
        for who in $order; do
            tool=$SYSBENCH; [ $who = sb ] && tool=$SBENCH
            # shellcheck disable=SC2086
            (cd "$work/$who" && "$tool" $args) >"$work/out" 2>&1 || die "$who: $name failed: $(tail -n 3 "$work/out")"
            m=$(metric "$name" "$work/out") a=$(figure "$work/out" 'avg:') p=$(figure "$work/out" '95th percentile:')
            eval "${who}_m=\"\$${who}_m $m\" ${who}_avg=\"\$${who}_avg $a\" ${who}_p=\"\$${who}_p $p\""
        done
    done
    log "$name: sysbench $(echo $sy_m | median), sbench $(echo $sb_m | median)"
    rows+="| $name | $(unit "$name") | $(echo $sy_m | median) | $(echo $sb_m | median) | $(echo $sy_avg | median) / $(echo $sy_p | median) | $(echo $sb_avg | median) / $(echo $sb_p | median) |"$'\n'
done
# The CPU seconds (user + system, /usr/bin/time) each tool spends on the same
# fixed work (--time=0, a fixed --memory-total-size or --events): what the
# machine's other load changes least, where the MiB/s above move with it.
cpu_cases=(
    "memory read 1M local, 40G|--threads=2 --time=0 --memory-block-size=1M --memory-oper=read --memory-scope=local --memory-total-size=40G memory run"
    "memory read 1M global, 40G|--threads=2 --time=0 --memory-block-size=1M --memory-oper=read --memory-total-size=40G memory run"
    "memory write 1K global, 4G|--threads=2 --time=0 --memory-total-size=4G memory run"
    "memory write rnd 4K, 2G|--threads=2 --time=0 --memory-block-size=4K --memory-access-mode=rnd --memory-total-size=2G memory run"
    "memory read rnd 1M local, 2G|--threads=2 --time=0 --memory-block-size=1M --memory-access-mode=rnd --memory-oper=read --memory-scope=local --memory-total-size=2G memory run"
    "cpu, 2000 events|--threads=2 --time=0 --events=2000 cpu run"
)
cpu_rows=""
cpu_s() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -n 1 | awk '{printf "%.2f", $1 + $2}'; }
for c in "${cpu_cases[@]}"; do
    name=${c%%|*} args=${c#*|} sy_c="" sb_c=""
    for r in $(seq 1 "$ROUNDS"); do
        order="sy sb"; [ $((r % 2)) = 0 ] && order="sb sy"
        for who in $order; do
            tool=$SYSBENCH; [ $who = sb ] && tool=$SBENCH
            # shellcheck disable=SC2086
            v=$(cd "$work/$who" && cpu_s "$tool" $args) || die "$who: $name failed"
            eval "${who}_c=\"\$${who}_c $v\""
        done
    done
    a=$(echo $sy_c | median) b=$(echo $sb_c | median)
    log "$name: CPU s sysbench $a, sbench $b"
    cpu_rows+="| $name | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {r = 0; if (b > 0) r = a / b; printf "%.2f", r}') |"$'\n'
done
(cd "$work/sy" && "$SYSBENCH" --file-num=8 fileio cleanup >/dev/null)
(cd "$work/sb" && "$SBENCH" --file-num=8 fileio cleanup >/dev/null)

section="<!-- builtins:start -->
## sysbench's built-in tests (bench/builtins.sh)

Generated by \`bench/builtins.sh\` (ROUNDS=$ROUNDS TIME=$TIME THREADS=$THREADS; took $((SECONDS - start)) s) on
$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;
$("$SYSBENCH" --version) vs $("$SBENCH" --version | cut -d' ' -f1-2), git $(git -C "$ROOT" rev-parse --short HEAD).
The same command line for both tools (\`--threads=$THREADS --time=$TIME\` unless said); median of
the rounds, which alternate which tool goes first. fileio: 8 files, 256 MiB, page cache warm.

| test | figure | sysbench | sbench | sysbench latency avg / 95th (ms) | sbench latency avg / 95th (ms) |
| --- | --- | --: | --: | --: | --: |
$rows
CPU seconds (user + system) for the same fixed work, median of the rounds: the figure the
machine's other load moves least (speed = sysbench's CPU / sbench's, above 1: sbench faster).

| work | sysbench CPU s | sbench CPU s | speed |
| --- | --: | --: | --: |
$cpu_rows<!-- builtins:end -->"
if [ -f "$OUT" ] && grep -q '<!-- builtins:start -->' "$OUT"; then
    python3 - "$OUT" "$section" <<'PY'
import re, sys
path, section = sys.argv[1], sys.argv[2]
text = open(path).read()
text = re.sub(r"<!-- builtins:start -->.*?<!-- builtins:end -->", lambda m: section, text, flags=re.S)
open(path, "w").write(text)
PY
else
    printf '\n%s\n' "$section" >>"$OUT"
fi
echo "$section"
