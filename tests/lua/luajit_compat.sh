#!/bin/bash
# luajit_compat.sh: what sbench gives scripts written for sysbench's LuaJIT,
# compared with LuaJIT itself.  luajit_compat.lua runs unchanged under
# sysbench 1.0.20 (Debian's, on LuaJIT 2.1) and under sbench; the bit
# module on edge values (~7,500 lines; bit.tohex only at the widths LuaJIT
# documents, 1..8 and their negatives), string.format's conversions on
# edge values, print and io.write, the Lua 5.1 globals and ffi.C must print
# the same bytes.  bit.tohex beyond those widths differs between LuaJIT
# builds (stock 2.1 and OpenResty's branch): checked against sbench's own
# rule in docs/lua-api.md instead.  Then the differences the documentation admits (Lua 5.4's
# `..` and tostring give 5.0), and the one-line hints for what sbench
# cannot give.  No server needed.
# Usage: luajit_compat.sh [BUILD_DIR]   (default: $SBT_BUILD, else ./build)
set -u
build=${1:-${SBT_BUILD:-build}}
build=$(cd "$build" && pwd) || { echo "luajit_compat: no build dir"; exit 1; }
S=$build/cli/sbench
here=$(cd "$(dirname "$0")" && pwd)
script=$here/luajit_compat.lua
[ -x "$S" ] || { echo "FAIL: $S not found"; exit 1; }
command -v sysbench >/dev/null || { echo "FAIL: sysbench is not installed (apt-get install sysbench)"; exit 1; }

tmp=$(mktemp -d /tmp/sbench-luajit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

# 1. the same output as LuaJIT, command by command (both print a banner
#    and a blank line first)
for cmd in bits:7000 formats:1200 lua51:9 ffi:9; do
    name=${cmd%%:*} min=${cmd#*:}
    checks=$((checks + 1))
    sysbench "$script" "$name" >"$name.luajit" 2>&1 || { fail "$name: sysbench exited $?"; continue; }
    sed -i '1,2{/^sysbench /d;/^$/d}' "$name.luajit"
    "$S" --db-driver=null "$script" "$name" >"$name.sbench" 2>&1 || { fail "$name: sbench exited $?"; head -5 "$name.sbench"; continue; }
    sed -i '1,2{/^sbench /d;/^$/d}' "$name.sbench"
    n=$(wc -l <"$name.luajit")
    if [ "$n" -lt "$min" ]; then
        fail "$name: LuaJIT printed only $n lines (want >= $min)"
    elif cmp -s "$name.luajit" "$name.sbench"; then
        ok "$name: $n lines, identical to LuaJIT's"
    else
        fail "$name: differs from LuaJIT (< LuaJIT, > sbench):"
        diff -a "$name.luajit" "$name.sbench" | head -20
    fi
done

# 1b. bit.tohex beyond LuaJIT's documented widths (1..8, negative for upper
#    case), where LuaJIT builds disagree: sbench's own rule from
#    docs/lua-api.md, recomputed here: n as bit.tobit(n), |n| digits of the
#    32-bit value, at most 254, 1..7 keep the low 4|n| bits, 0 gives ""
checks=$((checks + 1))
"$S" --db-driver=null "$script" tohex_edges >edges.out 2>&1
sed "1,2{/^sbench /d;/^$/d}" edges.out >edges.sbench
bad=0 lines=0
while read -r x n got; do
    lines=$((lines + 1))
    d=$(( n < 0 ? -n : n )); [ "$d" -gt 254 ] && d=254
    v=$(( x & 0xffffffff )); [ "$d" -lt 8 ] && v=$(( v & ((1 << (4 * d)) - 1) ))
    if [ "$d" = 0 ]; then want=""
    elif [ "$n" -lt 0 ]; then want=$(printf '%0*X' "$d" "$v")
    else want=$(printf '%0*x' "$d" "$v"); fi
    if [ "$got" != "$want" ]; then
        [ "$bad" -lt 5 ] && echo "  tohex($x, $n): got '$got', want '$want'"
        bad=$((bad + 1))
    fi
done <edges.sbench
if [ "$lines" -lt 150 ]; then
    fail "tohex edges: only $lines lines"; head -5 edges.sbench
elif [ "$bad" != 0 ]; then
    fail "tohex edges: $bad of $lines differ from the rule in docs/lua-api.md"
else
    ok "tohex edges: $lines widths outside LuaJIT's documented 1..8, as docs/lua-api.md says"
fi

# 2. what the documentation says differs: Lua 5.4's own number-to-string
#    conversions (.., tostring, table.concat) keep the ".0" of an integral
#    float; string.format("%s"), print and io.write do not
cat >floats.lua <<'LUA'
function floats()
   io.write("" .. 10 / 2, " ", tostring(2^3), " ", table.concat({1e3}), " ",
            string.format("%s", 10 / 2), "\n")
end
sysbench.cmdline.commands = {floats = {floats}}
LUA
checks=$((checks + 1))
got_lj=$(sysbench floats.lua floats 2>&1 | tail -1)
got_sb=$("$S" --db-driver=null floats.lua floats 2>&1 | tail -1)
if [ "$got_lj" = "5 8 1000 5" ] && [ "$got_sb" = "5.0 8.0 1000.0 5" ]; then
    ok "integral floats: LuaJIT '$got_lj', sbench '$got_sb' (as documented)"
else
    fail "integral floats: LuaJIT '$got_lj' (want '5 8 1000 5'), sbench '$got_sb' (want '5.0 8.0 1000.0 5')"
fi

# a string holding a non-integral number, given to %d: LuaJIT truncates,
# sbench raises as Lua 5.4 does (with the hint, see below)
cat >strd.lua <<'LUA'
function strd() io.write(string.format("%d", "3.7"), "\n") end
sysbench.cmdline.commands = {strd = {strd}}
LUA
checks=$((checks + 1))
got_lj=$(sysbench strd.lua strd 2>&1 | tail -1)
got_sb=$("$S" --db-driver=null strd.lua strd 2>&1)
if [ "$got_lj" = 3 ] && printf '%s\n' "$got_sb" | grep -q "^hint: LuaJIT truncates"; then
    ok "%d of \"3.7\": LuaJIT '$got_lj', sbench raises with a hint (as documented)"
else
    fail "%d of \"3.7\": LuaJIT '$got_lj' (want 3), sbench: $got_sb"
fi

# 3. what sbench cannot give: a non-zero exit and one line saying why
#    (status, then a fragment of the message, then the Lua code)
hint_case() {
    want_status=$1 fragment=$2 code=$3
    checks=$((checks + 1))
    printf '%s\nfunction event() end\n' "$code" >case.lua
    out=$(timeout 20 "$S" --db-driver=null --events=1 case.lua run 2>&1)
    st=$?
    if [ "$st" != "$want_status" ]; then
        fail "'$code': exit status $st, want $want_status"; echo "$out" | head -5
    elif ! printf '%s\n' "$out" | grep -qF -- "$fragment"; then
        fail "'$code': no '$fragment' in:"; echo "$out" | head -8
    else
        ok "'$code': $(printf '%s\n' "$out" | grep -F -- "$fragment" | head -1)"
    fi
}
hint_case 1 "hint: setfenv is Lua 5.1/LuaJIT only" 'setfenv(1, {})'
hint_case 1 "hint: getfenv is Lua 5.1/LuaJIT only" 'local e = getfenv(1)'
hint_case 1 "hint: module() is Lua 5.1 only" 'module("x")'
hint_case 1 "hint: the jit module is LuaJIT's own" 'jit.off()'
hint_case 1 "hint: the jit module is LuaJIT's own" 'local o = require("jit.opt")'
hint_case 1 "hint: table.new is LuaJIT's own" 'local new = require("table.new")'
hint_case 1 "hint: LuaJIT truncates a non-integral number" 'local s = string.rep("x", 10 / 4)'
hint_case 1 "hint: LuaJIT's gsub copies '%' followed by a non-digit" 'local s = ("a"):gsub("a", "%b")'
hint_case 1 "hint: Lua 5.4's string.format accepts fewer flags" 'local s = ("%+x"):format(255)'
hint_case 1 "ffi.new() is not available in sbench (sbench runs Lua 5.4, which has no LuaJIT FFI" 'local p = ffi.new("int[1]")'
hint_case 1 "ffi.C.db_query is not available in sbench" 'local f = ffi.C.db_query'
hint_case 1 "use sysbench.rand.string(template)" 'local f = ffi.C.sb_rand_str'
hint_case 1 "ffi.C.getpid is not available in sbench" 'ffi.cdef("int getpid(void);") local pid = ffi.C.getpid()'
hint_case 1 "not an sb_counter_type" 'ffi.C.sb_counter_inc(0, 99)'

echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
