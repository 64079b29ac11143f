#!/bin/bash
# fileio_fio.sh: sbench's fileio against fio, the reference for disk I/O,
# on the same files (issue 27), counted exactly rather than timed (issue
# 39: a throughput ratio between two programs moved with the machine's
# load; the speed comparison lives in bench/fileio_fio.sh):
#  - each case (random reads at 1 and 4 threads, random writes at 1) runs
#    sbench for 400 requests and fio for as many, same block size, O_DIRECT
#    and synchronous I/O, both under strace: every read or write either
#    makes is one pread64/pwrite64 of exactly one block at an offset that
#    is a multiple of the block, on the test files, as many as requests
#    (sbench: as its report's events); the two tools do
#    the same work, system call for system call;
#  - sbench's MiB/s are its counted requests x block / its time (the label
#    MiB, as it is);
#  - every mode runs for --time, not one file's worth of blocks (total
#    time >= 95% of --time), and reports "MiB/s".
# Needs fio and strace (scripts/install-deps.sh --test).  Usage:
# fileio_fio.sh BUILD_DIR
set -u
build=$(cd "${1:-${SBT_BUILD:-build}}" && pwd) || { echo "no build dir"; exit 1; }
S=$build/cli/sbench
command -v fio >/dev/null || { echo "FAIL: fio is not installed (scripts/install-deps.sh --test)"; exit 1; }
# a real file system (the build tree) where /tmp may be tmpfs, which has no O_DIRECT
work=$(mktemp -d "$build/fileio-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL: $*"; fail=1; }
T=2 BS=16384
F="--file-num=4 --file-total-size=128M --file-block-size=$BS --file-extra-flags=direct"
"$S" $F fileio prepare > prepare.txt 2>&1 || { bad "fileio prepare: $(tail -1 prepare.txt)"; exit 1; }
names=$(ls test_file.* | sort -t. -k2 -n | tr '\n' ':' | sed 's/:$//')

command -v strace >/dev/null || { echo "FAIL: strace is not installed"; exit 1; }
N=400

# io_check WHO STRACE_FILE KIND: the pread64/pwrite64 calls of STRACE_FILE
# on the test files: "count ok" when each is one block at a block offset
# (KIND read or write: only that kind), else "count bad: first bad line"
io_check() {
    python3 - "$2" "$3" "$BS" <<'PY'
import re, sys
path, kind, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = {"read": "pread64", "write": "pwrite64"}[kind]
n, bad, pending = 0, None, {}
def lines():
    # strace -f -y: "PID  call(FD</path>, ..." ; a call of one thread cut
    # by another's ("<unfinished ...>", then "<... call resumed>") joined
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        pid = line.split(None, 1)[0] if line.strip() else ""
        if line.endswith(" <unfinished ...>"):
            pending[pid] = line[: -len(" <unfinished ...>")]
            continue
        m = re.match(r"(\S+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if m:
            line = pending.pop(pid, pid + " ?(") + m.group(2)
        yield line
for line in lines():
    m = re.search(r" (pread64|pwrite64)\(\d+<[^>]*/test_file\.\d+>, .*, (\d+), (\d+)\) = (-?\d+)$", line)
    if not m:
        continue
    call, size, off, ret = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
    n += 1
    if bad is None and (call != want or size != bs or off % bs or ret != bs):
        bad = line.strip()[:160]
print(n, "ok" if bad is None else "bad: " + bad)
PY
}

# sbench: $1 mode, $2 threads; N requests in all, under strace
sb_case() {
    local nosync=
    [ "$1" = rndwr ] && nosync="--file-fsync-freq=0 --file-fsync-end=off"
    strace -f -y -e trace=pread64,pwrite64 -e signal=none -o sb.strace \
        "$S" $F $nosync --file-test-mode="$1" --threads="$2" --events=$N --time=0 fileio run > sb.txt 2>&1 ||
        { bad "sbench $1 --threads=$2 exited $?: $(tail -1 sb.txt)"; return 1; }
}
fio_case() {
    local rw=randread
    [ "$1" = rndwr ] && rw=randwrite
    strace -f -y -e trace=pread64,pwrite64 -e signal=none -o fio.strace \
        fio --name=fileio --filename="$names" --rw=$rw --bs=$BS --direct=1 --ioengine=psync \
        --numjobs="$2" --number_ios=$((N / $2)) --group_reporting --output-format=json > fio.json 2> fio.err ||
        { bad "fio $rw --numjobs=$2: $(tail -1 fio.err)"; return 1; }
}

for c in "rndrd 1" "rndrd 4" "rndwr 1"; do
    set -- $c
    kind=read
    [ "$1" = rndwr ] && kind=write
    sb_case "$1" "$2" || continue
    fio_case "$1" "$2" || continue
    read -r sn sv <<<"$(io_check sbench sb.strace $kind)"
    read -r fn fv <<<"$(io_check fio fio.strace $kind)"
    counted=$(sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p' sb.txt)
    if [ "$sv" = ok ] && [ "$fv" = ok ] && [ "$sn" = "$N" ] && [ "$fn" = "$N" ] && [ "$counted" = "$N" ]; then
        ok "$1 --threads=$2: $N ${kind}s of $BS bytes at block offsets each, by sbench (its events: $counted) and by fio, call for call"
    else
        bad "$1 --threads=$2: sbench $sn calls ($sv), report $counted; fio $fn calls ($fv); want $N"
    fi
    mibs=$(awk -v k="$kind" '$0 ~ "^ *" (k == "read" ? "read" : "written") ", MiB/s:" {print $3}' sb.txt)
    want=$(awk -v k="$kind" -v bs=$BS '$1 == k "s/s:" {printf "%.2f", $2 * bs / 1048576}' sb.txt)
    [ -n "$mibs" ] && [ "$mibs" = "$want" ] && ok "$1: MiB/s $mibs = ${kind}s/s x $BS / 1048576" ||
        bad "$1: MiB/s '$mibs', want $want"
done

# every mode runs for --time (not one file's worth of blocks)
for m in rndrd rndwr; do
    "$S" $F --file-test-mode=$m --time=$T fileio run > t.txt 2>&1 || bad "$m --time=$T exited $?"
    awk -v t=$T '/total time:/ { s = $3 + 0; exit !(s >= 0.95 * t) }' t.txt &&
        ok "$m runs for --time=$T: $(grep 'total time:' t.txt | tr -s ' ')" ||
        bad "$m stopped before --time=$T: $(grep 'total time:' t.txt)"
    grep -q "read, MiB/s:" t.txt || bad "$m: no 'read, MiB/s:' line"
done
"$S" $F fileio cleanup > cleanup.txt 2>&1 || bad "fileio cleanup: $(tail -1 cleanup.txt)"
[ -z "$(ls test_file.* 2>/dev/null)" ] && ok "cleanup removed the files" || bad "cleanup left files"
[ $fail = 0 ] && echo "fileio_fio: all passed" || echo "fileio_fio: FAILED"
exit $fail
