#!/bin/bash
# report_sections.sh: a workload's declared report section
# (sbench.report_section, core/report_sections.c) printed right, on the null
# driver, where the right answers are known from the script itself:
#   - two event types drawn in turn ("a" three times in four, "b" once):
#     with --events=4000, exactly 3000 and 1000, so the share row reads
#     "1000 of 4000 (25.00%)" and the mix 75.00% / 25.00%;
#   - per_minute = the type's count / (the JSON's elapsed seconds / 60);
#   - every statement of "b" waits --null-delay-us=3000: its 90th
#     percentile is >= 3 ms, so a 1 ms limit reads OVER THE LIMIT and a
#     1000 ms limit met; a 25% share is within 30% and over 20%; "a" runs no statement;
#   - a second section: the mix entry "a+b" is one line of 100.00%; the
#     50th percentile of a and b together is under 3 ms (3000 of the 4000
#     run no statement) and the 80th at least 3 ms (the top 1000 are b's);
#     a share within limit_count (1000 of 4000, 25%, limit 20% or 1000)
#     met, one over it (limit 20% or 999) OVER THE LIMIT;
#   - the section is in the final JSON line, and `sbench merge` of two
#     shards prints the same section (rates from the merged counts);
#   - malformed declarations stop the run with one line naming the fault.
# Usage: report_sections.sh [BUILD_DIR]   (default: $SBT_BUILD, else ./build)
set -u
build=${1:-${SBT_BUILD:-build}}
build=$(cd "$build" && pwd) || { echo "report_sections: no build dir"; exit 1; }
S=$build/cli/sbench
tmp=$(mktemp -d /tmp/sbench-sections.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

cat >sec.lua <<'LUA'
local n = 0
function thread_init() con = sbench.sql.driver():connect() end
function event()
   n = n + 1
   if n % 4 == 0 then
      sbench.event_type("b")
      con:query("SELECT 1")
   else
      sbench.event_type("a")
   end
end
sbench.report_section{title = "Two types:", rows = {
   {kind = "per_minute", label = "a per minute:", types = "a"},
   {kind = "per_minute", label = "all per minute:", types = "*"},
   {kind = "share", label = "b among all:", types = "b", of = "a,b"},
   {kind = "share", label = "b under 30%:", types = "b", of = "*", limit_pct = 30},
   {kind = "share", label = "b under 20%:", types = "b", of = "*", limit_pct = 20},
   {kind = "mix", label = "mix:", types = "a,b"},
   {kind = "percentile", label = "b p90 strict:", types = "b", percentile = 90, limit_ms = 1},
   {kind = "percentile", label = "b p90 loose:", types = "b", percentile = 90, limit_ms = 1000},
}}
sbench.report_section{title = "Groups:", rows = {
   {kind = "mix", label = "a and b as one:", types = "a+b"},
   {kind = "percentile", label = "a,b p50:", types = "a,b", percentile = 50},
   {kind = "percentile", label = "a,b p80:", types = "a+b", percentile = 80},
   {kind = "share", label = "b, 20% or 1000:", types = "b", of = "*", limit_pct = 20, limit_count = 1000},
   {kind = "share", label = "b, 20% or 999:", types = "b", of = "*", limit_pct = 20, limit_count = 999},
}}
LUA
"$S" --db-driver=null --null-delay-us=3000 --threads=1 --events=4000 --time=0 \
    --report-format=json --output=r.json sec.lua run >out.txt 2>err.txt || fail "run exited $?: $(head -3 err.txt)"
python3 - out.txt r.json <<'PY' || fails=$((fails + 1))
import json, re, sys
text = open(sys.argv[1]).read()
fin = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]
errs = []
def line(label):
    m = re.search(r"^    " + re.escape(label) + r" +(.*)$", text, re.M)
    if not m:
        errs.append(f"no line '{label}'")
        return ""
    return m.group(1)
minutes = fin["elapsed"] / 60 if "elapsed" in fin else fin["seconds"] / 60
for label, want in (("a per minute:", 3000 / minutes), ("all per minute:", 4000 / minutes)):
    got = float(line(label) or "nan")
    if abs(got - want) > 0.051 + want * 1e-9:
        errs.append(f"{label} {got}, want {want:.1f}")
if line("b among all:") != "1000 of 4000 (25.00%)":
    errs.append(f"share: '{line('b among all:')}'")
if line("b under 30%:") != "1000 of 4000 (25.00%) (limit 30%: met)":
    errs.append(f"share limit met: '{line('b under 30%:')}'")
if line("b under 20%:") != "1000 of 4000 (25.00%) (limit 20%: OVER THE LIMIT)":
    errs.append(f"share limit over: '{line('b under 20%:')}'")
if not re.search(r"^        a +75\.00%  retries: 0 \(0\.00%\)  failed: 0$", text, re.M) or \
   not re.search(r"^        b +25\.00%  retries: 0 \(0\.00%\)  failed: 0$", text, re.M):
    errs.append("mix lines wrong")
strict, loose = line("b p90 strict:"), line("b p90 loose:")
m = re.match(r"([0-9.]+) ms \(limit 1 ms: OVER THE LIMIT\)$", strict)
if not m or float(m.group(1)) < 3.0:
    errs.append(f"strict: '{strict}'")
if not re.match(r"[0-9.]+ ms \(limit 1000 ms: met\)$", loose):
    errs.append(f"loose: '{loose}'")
if not re.search(r"^        a +100\.00%  retries: 0 \(0\.00%\)  failed: 0$", text, re.M):
    errs.append("group mix line wrong")
p50, p80 = line("a,b p50:"), line("a,b p80:")
if not re.match(r"[0-9.]+ ms$", p50) or float(p50.split()[0]) >= 3.0:
    errs.append(f"a,b p50: '{p50}'")
if not re.match(r"[0-9.]+ ms$", p80) or float(p80.split()[0]) < 3.0 * 0.99:
    errs.append(f"a,b p80: '{p80}'")
if line("b, 20% or 1000:") != "1000 of 4000 (25.00%) (limit 20% or 1000, whichever is greater: met)":
    errs.append(f"limit_count met: '{line('b, 20% or 1000:')}'")
if line("b, 20% or 999:") != "1000 of 4000 (25.00%) (limit 20% or 999, whichever is greater: OVER THE LIMIT)":
    errs.append(f"limit_count over: '{line('b, 20% or 999:')}'")
secs = fin.get("report_sections")
if not secs or secs[0]["title"] != "Two types:" or len(secs[0]["rows"]) != 8 or len(secs) != 2 or \
   [r.get("limit_count") for r in secs[1]["rows"][3:]] != [1000, 999]:
    errs.append(f"final JSON line's report_sections: {secs}")
for e in errs:
    print("FAIL:", e)
if not errs:
    print("ok   shares, mix, rates per minute and percentile limits as the script's own counts say")
sys.exit(1 if errs else 0)
PY

# two shards, merged: the same section from the merged counts
for i in 0 1; do
    mkdir -p sh; "$S" --db-driver=null --threads=1 --events=4000 --time=0 --shard=$i/2 --run-id=sections1 --report-format=json \
        --output=sh/s$i.json --hdr-log=sh/s$i.hlog sec.lua run >/dev/null 2>sh$i.err ||
        fail "shard $i exited $?: $(head -2 sh$i.err)"
done
if "$S" merge sh >merged.txt 2>merge.err; then
    want="        b                     25.00%  retries: 0 (0.00%)  failed: 0"
    if grep -q "^    b among all: *1000 of 4000 (25.00%)$" merged.txt && grep -qF -- "$want" merged.txt &&
        grep -q "^    b, 20% or 999: *1000 of 4000 (25.00%) (limit 20% or 999, whichever is greater: OVER THE LIMIT)$" merged.txt &&
        grep -q "^        a  *100.00%  retries" merged.txt; then
        ok "sbench merge prints the declared section from the merged counts"
    else
        fail "merged section: $(sed -n '/^Two types:/,/^$/p' merged.txt | head -8)"
    fi
else
    fail "merge exited $?: $(head -2 merge.err)"
fi

# malformed declarations: status 1, one line naming the fault
bad() {
    local frag=$1 decl=$2
    printf 'function event() end\nsbench.report_section%s\n' "$decl" >bad.lua
    timeout 20 "$S" --db-driver=null --events=1 bad.lua run >bad.out 2>bad.err
    local st=$?
    if [ $st -ne 1 ] || ! grep -qF -- "$frag" bad.err; then
        fail "'$decl': status $st, stderr: $(head -2 bad.err)"
    else
        ok "refused: $(grep -F -- "$frag" bad.err | head -1 | cut -c1-120)"
    fi
}
bad "kind must be per_minute, share, mix or percentile" '{title = "T", rows = {{kind = "median", label = "x", types = "a"}}}'
bad "limit_pct is a percentage" '{title = "T", rows = {{kind = "share", label = "x", types = "a", of = "*", limit_pct = 150}}}'
bad "a share needs 'of'" '{title = "T", rows = {{kind = "share", label = "x", types = "a"}}}'
bad "percentile in (0, 100]" '{title = "T", rows = {{kind = "percentile", label = "x", types = "a", percentile = 101, limit_ms = 1}}}'
bad "a report section needs a title" '{title = "", rows = {{kind = "mix", label = "x", types = "*"}}}'
bad "limit_count is a whole number" '{title = "T", rows = {{kind = "share", label = "x", types = "a", of = "*", limit_count = -1}}}'
bad "'types' must be" '{title = "T", rows = {{kind = "mix", label = "x", types = "a++b"}}}'
bad "1 to 16 rows" '{title = "T", rows = {}}'
bad "'label' must be a string" '{title = "T", rows = {{kind = "mix", label = 5, types = "*"}}}'
echo "$fails failed"
[ $fails -eq 0 ]
