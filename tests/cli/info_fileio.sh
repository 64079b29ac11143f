#!/bin/bash
# info_fileio.sh: `sbench info` and the fileio workload, no server needed.
#  - info's facts against /proc, uname, nproc, stat -f and /sys (text and
#    JSON), every built driver listed with a client version, the new
#    workloads listed; the same host facts in a run's JSON final report.
#  - fileio (sysbench's prepare/run/cleanup): the bytes prepare writes =
#    the files' sizes as stat sees them, the content is the block pattern
#    repeated, seqwr's writes and fsyncs for --events and --file-fsync-freq,
#    rndrw's ratio and MiB/s, O_DIRECT; cleanup removes the files; a run
#    before prepare, a bad size, a missing directory: one line, non-zero.
# Usage: info_fileio.sh BUILD_DIR
set -u
build=$(cd "${1:-${SBT_BUILD:-build}}" && pwd) || { echo "no build dir"; exit 1; }
S=$build/cli/sbench
tmp=$(mktemp -d /tmp/sbench-info.XXXXXX)
# the I/O test's files in the build tree: a real file system where /tmp may be tmpfs
iodir=$(mktemp -d "$build/fileio-test.XXXXXX")
trap 'rm -rf "$tmp" "$iodir"' EXIT
cd "$tmp" || exit 1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL: $*"; fail=1; }
check() { if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: got '$2', want '$3'"; fi; }

# ---- info ----
"$S" info --report-format=json > info.json 2> info.err || bad "info --report-format=json exited $?"
"$S" info > info.txt 2>&1 || bad "info exited $?"
j() { python3 -c 'import json,sys; d=json.load(open("info.json")); print(eval(sys.argv[1]))' "$1"; }
check "kernel = uname -r" "$(j 'd["host"]["kernel"]')" "$(uname -r)"
check "arch = uname -m" "$(j 'd["host"]["arch"]')" "$(uname -m)"
check "host name = uname -n" "$(j 'd["host"]["name"]')" "$(uname -n)"
check "cpus = nproc" "$(j 'd["host"]["cpus"]')" "$(nproc)"
check "memory = MemTotal" "$(j 'd["host"]["memory_bytes"]')" "$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo)"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
[ -r $cs ] && check "clock source = $cs" "$(j 'd["host"]["clocksource"]')" "$(cat $cs)"
check "os = os-release PRETTY_NAME" "$(j 'd["host"]["os"]')" "$(. /etc/os-release; echo "$PRETTY_NAME")"
model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
[ -n "$model" ] && check "cpu model = /proc/cpuinfo" "$(j 'd["host"]["cpu_model"]')" "$model"
check "cwd" "$(j 'd["host"]["cwd"]')" "$tmp"
check "fs total = stat -f" "$(j 'd["host"]["fs"]["total_bytes"]')" "$(stat -f -c '%b %S' . | awk '{print $1 * $2}')"
check "fs type = stat -f" "$(j 'd["host"]["fs"]["type"]' | sed 's/ext[234]/extN/')" "$(stat -f -c %T . | sed 's/ext2\/ext3/extN/; s/ext[234]/extN/')"
for d in "$build"/drivers/*/sbench-*.so; do
    n=$(basename "$d" .so); n=${n#sbench-}
    v=$(j "[x.get('client_version','') for x in d['drivers'] if x['name']=='$n'][0]")
    [ -n "$v" ] && ok "driver $n listed, client $v" || bad "driver $n: no client version in info"
    grep -q "^    $n  *$v" info.txt || bad "driver $n: text line missing"
done
for w in diag diag_sweep fileio sbk oltp_read_write; do
    [ "$(j "sum(1 for x in d['workloads'] if x['name']=='$w')")" = 1 ] && ok "workload $w listed" || bad "workload $w not in info"
done
# the host limits against /proc/self/cgroup, the cgroup files, /sys and
# /proc/meminfo read here; a warning exactly when one applies
python3 - > limits.check <<'PY' || bad "host limits: $(cat limits.check)"
import json, os
d = json.load(open("info.json"))
h = d["host_limits"]
def first(*paths):
    for p in paths:
        try:
            return open(p).read().split("\n")[0]
        except OSError:
            pass
    return None
cg = dict((l.split(":", 2)[1], l.split(":", 2)[2].strip()) for l in open("/proc/self/cgroup"))
def under(mount, ctrl, name):
    p = cg.get(ctrl)
    if p is None:
        return None
    return first(mount + ("" if p == "/" else p) + "/" + name, mount + "/" + name)
quota = None
v2 = under("/sys/fs/cgroup", "", "cpu.max") or under("/sys/fs/cgroup/unified", "", "cpu.max")
if v2 is not None:
    q, per = v2.split()
    quota = None if q == "max" else int(q) / int(per)
else:
    key = [k for k in cg if "cpu" in k.split(",")]
    if key:
        q = under("/sys/fs/cgroup/cpu", key[0], "cpu.cfs_quota_us")
        per = under("/sys/fs/cgroup/cpu", key[0], "cpu.cfs_period_us")
        quota = int(q) / int(per) if q and int(q) > 0 else None
assert (h["cpu_quota"] is None) == (quota is None) and (quota is None or abs(h["cpu_quota"] - quota) < 1e-9), (h, quota)
mem = under("/sys/fs/cgroup", "", "memory.max") or under("/sys/fs/cgroup/unified", "", "memory.max")
if mem is None:
    key = [k for k in cg if "memory" in k.split(",")]
    mem = under("/sys/fs/cgroup/memory", key[0], "memory.limit_in_bytes") if key else None
    mem = None if mem is None or int(mem) >= 1 << 62 else int(mem)
else:
    mem = None if mem == "max" else int(mem)
assert h["memory_limit_bytes"] == mem, (h, mem)
gov = first("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or ""
assert h["governor"] == gov, (h, gov)
thp = first("/sys/kernel/mm/transparent_hugepage/enabled") or ""
assert h["transparent_hugepages"] == (thp[thp.index("[") + 1:thp.index("]")] if "[" in thp else thp), (h, thp)
mi = dict((l.split(":")[0], int(l.split()[1])) for l in open("/proc/meminfo") if l.split()[1:2] and l.split()[1].isdigit())
assert h["swap_total_bytes"] == mi["SwapTotal"] * 1024, h
# swap in use may move between the two reads: within 64 MiB
assert abs(h["swap_used_bytes"] - (mi["SwapTotal"] - mi["SwapFree"]) * 1024) <= 64 << 20, h
w = " ".join(h["warnings"])
assert ("CPU quota" in w) == (quota is not None and quota < os.cpu_count()), w
assert ("powersave" in w) == (gov == "powersave"), w
assert ("swap in use" in w) == (h["swap_used_bytes"] > 0), w
assert ("hugepages are set to always" in w) == (h["transparent_hugepages"] == "always"), w
cs = first("/sys/devices/system/clocksource/clocksource0/current_clocksource") or ""
assert ("clock source is" in w) == (cs not in ("", "tsc", "arch_sys_counter", "kvm-clock")), w
print("ok")
PY
[ "$(cat limits.check)" = ok ] && ok "host limits (cgroup CPU quota, memory limit, governor, THP, swap) = /proc, /sys; warnings when they apply"
# THP=always warned, in a mount namespace where a file saying so hides
# the kernel's (the machine's own setting untouched); sizes in MiB, as
# their values are (powers of 1024)
printf '[always] madvise never\n' > thp_always
thp_txt=$(unshare -m sh -c "mount --bind '$tmp/thp_always' /sys/kernel/mm/transparent_hugepage/enabled &&
    '$S' info" 2>&1) || bad "info with THP=always (unshare -m, bind mount) failed: $thp_txt"
echo "$thp_txt" | grep -q '^    transparent hugepages: always' || bad "THP=always not read: $(echo "$thp_txt" | grep hugepages)"
echo "$thp_txt" | grep -q '^WARNING: transparent hugepages are set to always' &&
    ok "THP=always gets a warning" || bad "THP=always: no warning"
mem_mib=$(awk '/^MemTotal:/ {printf "%.0f", $2 / 1024}' /proc/meminfo)
grep -q "^    memory: *$mem_mib MiB total" info.txt && ! grep -q ' MB\b' info.txt &&
    ok "memory labelled MiB ($mem_mib MiB = MemTotal / 1024 kB), no 'MB' left" ||
    bad "memory line: $(grep '^    memory:' info.txt), want $mem_mib MiB; MB lines: $(grep -c ' MB' info.txt)"
# `params --report-format=json`: stdout is the JSON and nothing else (the
# banner was printed before it); params reads an existing database
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("CREATE TABLE t (x)")' "$tmp/params.db"
"$S" --db-driver=sqlite --sqlite-db="$tmp/params.db" --report-format=json params > params.json 2> params.err ||
    bad "params --report-format=json exited $?: $(head -2 params.err)"
python3 -c 'import json,sys; d=[json.loads(l) for l in open("params.json")]; assert len(d) == 1 and d[0]["test"] == "params", d' 2>/dev/null &&
    ok "params --report-format=json: stdout is one JSON object" || bad "params JSON stdout: $(head -c 200 params.json)"
# workloads sorted, library modules (a `return` of a module table) left out
check "workloads sorted" "$(j '[x["name"] for x in d["workloads"]] == sorted(x["name"] for x in d["workloads"])')" True
for m in diag_sql diag_json tpcc_common tpcc_txn oltp_common; do
    [ "$(j "sum(1 for x in d['workloads'] if x['name']=='$m')")" = 0 ] && ok "library $m not listed" || bad "library module $m listed as a workload"
done
for label in "cgroup CPU quota:" "cgroup memory limit:" "CPU governor:" "swap:" "transparent hugepages:"; do
    grep -q "^    $label" info.txt || bad "text: no '$label' line"
done
for label in "OS:" "kernel:" "CPU model:" "CPUs:" "memory:" "file system:" "space:" "clock source:"; do
    grep -q "^    $label" info.txt || bad "text: no '$label' line"
done
# the same host facts in a run's JSON final report
"$S" --db-driver=null --events=20 --report-format=json --output=run.json oltp_point_select run > /dev/null 2>&1 || bad "null run exited $?"
h=$(python3 -c 'import json; a=[json.loads(l) for l in open("run.json")][-1]["run"]["host"]; b=json.load(open("info.json"))["host"]
print(all(a[k]==b[k] for k in ("kernel","arch","cpus","memory_bytes","clocksource","os","cpu_model","fs") if k!="fs") and a["fs"]["total_bytes"]==b["fs"]["total_bytes"])')
check "run.host = info's host" "$h" True

# ---- fileio ----
ln -s "$iodir" io
F="--file-dir=io --file-num=4 --file-total-size=8M --file-block-size=16384"
"$S" $F fileio prepare > prep.txt 2>&1 || bad "fileio prepare exited $?"
sizes=$(for i in 0 1 2 3; do stat -c %s io/test_file.$i; done | awk '{s += $1} END {print s}')
check "prepare: the files' sizes (stat) add up to --file-total-size" "$sizes" 8388608
check "prepare: the bytes it says it wrote" "$(sed -n 's/^\([0-9]*\) bytes written in.*/\1/p' prep.txt)" 8388608
python3 - io/test_file.0 > io.check <<'PY' || bad "fileio content: $(cat io.check)"
import sys
data = open(sys.argv[1], "rb").read()
blk = bytes((ord("a") + (i * 7 + i // 4096) % 26) for i in range(16384))
assert len(data) == 2097152 and all(data[o:o + 16384] == blk for o in range(0, len(data), 16384)), "content differs"
print("every block is the pattern")
PY
ok "fileio content: $(cat io.check)"
# seqwr, 1000 events, fsync every 64 reads/writes (the fsyncs are events but
# not requests, as sysbench 1.0.20 counts them; sysbench_builtins.sh compares
# the mix with sysbench's): cycles of 64 writes and 4 fsyncs (one per file),
# 14 of them (952 events), then 48 writes
"$S" $F --file-test-mode=seqwr --file-fsync-freq=64 --events=1000 --time=0 --report-format=json \
     fileio run > io.json 2> io.err || bad "fileio seqwr exited $?: $(cat io.err)"
check "seqwr: writes and fsyncs of 1000 events" \
    "$(python3 -c 'import json; t=[json.loads(l) for l in open("io.json") if l.startswith("{")][-1]["types"]; print(t["write"]["count"], t["fsync"]["count"])' 2>&1)" "944 56"
check "seqwr: the files keep their size" "$(stat -c %s io/test_file.3)" 2097152
# rndrw: the read/write ratio, MiB/s = requests/s x block size
"$S" $F --file-test-mode=rndrw --events=5000 --time=0 fileio run > rw.txt 2>&1 || bad "fileio rndrw exited $?"
python3 - rw.txt > rw.check <<'PY' || bad "rndrw report: $(cat rw.check)"
import re, sys
t = open(sys.argv[1]).read()
v = lambda label: float(re.search(r"^    " + re.escape(label) + r"\s+([0-9.]+)", t, re.M).group(1))
r, w, f = v("reads/s:"), v("writes/s:"), v("fsyncs/s:")
assert abs(r / w - 1.5) < 0.01, (r, w)
assert abs(v("read, MiB/s:") - r * 16384 / 1048576) < 0.02 and abs(v("written, MiB/s:") - w * 16384 / 1048576) < 0.02
n = int(re.search(r"total number of events:\s+(\d+)", t).group(1))
assert n == 5000, n
print("reads/writes %.3f, MiB/s = requests/s x 16K" % (r / w))
PY
ok "rndrw: $(cat rw.check)"
"$S" $F --file-test-mode=rndrd --file-extra-flags=direct --events=200 --time=0 fileio run > io.txt 2>&1 ||
    bad "fileio O_DIRECT exited $?: $(tail -3 io.txt)"
grep -q "^Extra file open flags: directio" io.txt && ok "O_DIRECT run" || bad "O_DIRECT run: $(head -12 io.txt)"
"$S" $F --file-test-mode=seqrd --validate --events=300 --time=0 fileio run > v.txt 2>&1 &&
    ok "--validate: every block read is the pattern" || bad "--validate on intact files: $(tail -2 v.txt)"
printf 'XXXX' | dd of=io/test_file.1 bs=1 seek=16384 conv=notrunc 2>/dev/null
"$S" $F --file-test-mode=seqrd --validate --events=300 --time=0 fileio run > v.txt 2>&1
rc=$?
[ $rc = 1 ] && grep -q "Validation failed on file" v.txt && ok "--validate: a changed block is a FATAL error, exit 1" ||
    bad "--validate on a changed block: exit $rc, $(tail -2 v.txt)"
"$S" $F fileio cleanup > /dev/null 2>&1 || bad "fileio cleanup exited $?"
check "files left after cleanup" "$(ls io | wc -l)" 0
# bad input: one line, non-zero
"$S" $F --file-test-mode=rndrd fileio run > bad.txt 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^FATAL: Cannot open file 'io/test_file.0'" bad.txt && ok "run before prepare: exit 1, FATAL" ||
    bad "run before prepare: exit $rc, $(tail -2 bad.txt)"
"$S" --file-dir=io --file-total-size=12Q fileio prepare > bad.txt 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "expected a size" bad.txt && ok "bad size: exit $rc" || bad "bad size: exit $rc, $(head -2 bad.txt)"
"$S" --file-dir=/nonexistent --file-num=1 --file-total-size=1M fileio prepare > bad.txt 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "nonexistent" bad.txt && ok "missing dir: exit $rc" || bad "missing dir: exit $rc, $(head -2 bad.txt)"
check "files left after errors" "$(ls io | wc -l)" 0
[ $fail = 0 ] && echo "info_fileio: all passed" || echo "info_fileio: FAILED"
exit $fail
