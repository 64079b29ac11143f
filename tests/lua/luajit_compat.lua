-- LuaJIT compatibility, checked against LuaJIT itself: this script runs
-- unchanged under sysbench 1.0.20 (LuaJIT 2.1) and under sbench (Lua 5.4),
-- and tests/lua/luajit_compat.sh compares what the two print.
--
--   sysbench luajit_compat.lua bits     the bit module on edge values
--   sysbench luajit_compat.lua formats  string.format with every integer
--                                       conversion, %s, print, io.write
--   sysbench luajit_compat.lua lua51    unpack, loadstring, table.getn, ...
--   sysbench luajit_compat.lua ffi      ffi.cdef, ffi.C's constants and functions
--
-- Everything printed must be the same in both, byte for byte.  What differs
-- by design (tostring and `..` of an integral float, a string holding a
-- non-integral number given to %d, error messages) is left out here and
-- checked by luajit_compat.sh against the documentation.

ffi.cdef[[
void sb_counter_inc(int, sb_counter_type);
int usleep(unsigned int);
]]

-- Edge values: the sign bit, 2^32 wrap-around, halves (LuaJIT rounds them
-- to even), the 2^51/2^53 limits of its rounding trick, huge numbers,
-- infinities, NaN, and numeric strings.  Integer literals and floats of the
-- same value both appear: Lua 5.4 keeps them apart, LuaJIT does not.
local V = {
   0, 1, -1, 2, 7, 255, 256, 65535, 0x7fffffff, 0x80000000, -0x80000000, 0xffffffff,
   4294967296, 4294967297, -4294967296, -4294967297, 0x12345678, 0x87654321,
   0xdeadbeef, 0x100000000 + 0x12345678, 2^31, 2^31 - 1, -2^31, -2^31 - 1, 2^32, 2^32 + 1,
   2^32 - 1, 0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999999999999994, 1e-300,
   2147483647.5, 2147483648.5, -2147483648.5, 4294967295.5, 123456.789, -123456.789,
   2^51 - 1, 2^51, 2^51 + 5, 2251799813685253, 2^52, 2^52 + 1, 2^52 + 3, 2^53,
   9007199254740992, 2^53 + 2, 2^62, 2^63, -2^63, 2^64, 1e15, 1e16, 1e300, -1e300,
   1 / 0, -1 / 0, 0 / 0, "42", "0x10", " 7 ", "-3.5", "1e3",
}
local SHIFTS = {
   0, 1, 2, 4, 15, 16, 31, 32, 33, 63, 64, 65, -1, -2, -31, -32, -33, 0.5, 1.5, 30.5,
   31.5, 2^32 + 3, -2^31, 1e10, "5",
}
-- bit.tohex's widths as LuaJIT documents them: 1..8 (lower case) and their
-- negatives (upper case).  Beyond that LuaJIT builds differ (stock 2.1 takes
-- |n| + 1 modulo 256, OpenResty's branch stops at 254 digits), so those are
-- checked against sbench's own documented rule by cmd_tohex_edges below.
local WIDTHS = {nil, 1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -7, -8}
local EDGE_WIDTHS = {
   0, 9, 15, 16, 17, 31, 100, 253, 254, 255, 256, 257, 300, -9, -16, -17, -254, -255, -300,
   2^31 - 1, -2^31, 2^32 + 3, 2.5, 3.5, 3.7, -3.7,
}
local EDGE_X = {0, 1, 255, 0x12345678, 0xdeadbeef, -1, 2^32 + 0x1234}

-- A value as both Lua versions print it: floats with "%.14g" (never 5.0).
local function show(v)
   if type(v) == "string" then return string.format("%q", v) end
   return string.format("%.17g", v)
end

-- One line of results; numbers through "%.14g", which both print alike.
local function out(...)
   local t = {}
   for i = 1, select("#", ...) do
      local v = select(i, ...)
      t[i] = type(v) == "number" and string.format("%.14g", v) or tostring(v)
   end
   io.write(table.concat(t, " "), "\n")
end

local function cmd_bits()
   for i = 1, #V do
      local a = V[i]
      out("tobit", show(a), bit.tobit(a))
      out("bnot", show(a), bit.bnot(a))
      out("bswap", show(a), bit.bswap(a))
      out("tohex", show(a), bit.tohex(a))
      for j = 1, #V do
         local b = V[j]
         out("band/bor/bxor", show(a), show(b), bit.band(a, b), bit.bor(a, b), bit.bxor(a, b))
      end
      for _, n in ipairs(SHIFTS) do
         out("shifts", show(a), show(n), bit.lshift(a, n), bit.rshift(a, n),
             bit.arshift(a, n), bit.rol(a, n), bit.ror(a, n))
      end
      for k = 1, #WIDTHS + 1 do
         local n = WIDTHS[k]
         if n ~= nil then out("tohex/n", show(a), show(n), "[" .. bit.tohex(a, n) .. "]") end
      end
   end
   -- more than two arguments, one argument
   out("varargs", bit.band(-1, 0xff0, 0x3c), bit.bor(1, 2, 4, 8.5, 16), bit.bxor(1, 3, 7, 15),
       bit.band(2^40 + 3), bit.bor(-2.5))
   -- the results are 32-bit numbers: arithmetic on them stays exact
   out("arith", bit.tobit(0xffffffff) + 1, bit.band(0x7fffffff, -1) * 2,
       bit.lshift(1, 31) / 2 == -2^30)
   -- a hash loop in the style scripts use
   local h = 0
   for i = 1, 1000 do
      h = bit.bxor(bit.lshift(h, 5) + bit.rshift(h, 2), i * 2654435761)
      h = bit.tobit(h)
   end
   out("hash", h, bit.tohex(h))
   -- a missing argument or a wrong type raises
   out("errors", (pcall(bit.band)), (pcall(bit.band, {}, 1)), (pcall(bit.tohex, "zz")),
       (pcall(bit.lshift, 1)))
end

local CONVS = {
   "%d", "%i", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%x", "%X", "%#x", "%08x", "%o",
   "%#o", "%u", "%c", "%s", "%.3s", "%10s|", "%-10s|", "%5.1f", "%.3f", "%g", "%.14g", "%e",
   "%G", "%E", "%f",
}

local FVALS = {
   0, 1, -1, 42, 65, 2.5, -2.5, 3.7, -3.7, 0.5, -0.5, 0.999999, 65.9, 321.5, -1.5, 255.5,
   5.0, 10 / 2, 2^3, 1e15, 1e16, 2^31, 2^31 + 0.5, 2^32 + 0.5, -2^31 - 0.5, 2^53, 2^63,
   -2^63, 2^63 + 2^11, 2^64, 1.5e19, 1e300, -1e300, 1 / 0, -1 / 0, 0 / 0, -(0 / 0), -0.0,
   1e-300, 2^40 + 66.5, "42", "0x10", "1e3", " 7 ",
}

local function cmd_formats()
   for _, f in ipairs(CONVS) do
      for _, v in ipairs(FVALS) do
         local ok, r = pcall(string.format, f, v)
         out(f, show(v), ok and ("[" .. r .. "]") or "error")
      end
   end
   -- several arguments, some needing LuaJIT's rule and some not
   out(string.format("%d %s %5.2f %x|%-4d|%s", 1.5, "x", 2.25, 255.9, -2.9, 7 / 2))
   out(string.format("%s %s %s %d %%", 1, 2.0, "3", 4.0))
   out(("%d-%d"):format(9.99, -9.99))
   out(string.format("INSERT INTO t VALUES (%d, %s, '%s')", 10 / 4, 10 / 2, 1e3))
   -- print and io.write render floats as LuaJIT does
   print(5.0, 10 / 2, 2^3, -0.0, 1e15, 1e16, 0.1, 1 / 3, 1 / 0, -1 / 0, 0 / 0, 2^63, 7, "s", nil, true)
   io.write(5.0, " ", 10 / 2, " ", -0.0, " ", 2^53, " ", 1 / 3, "\n")
end

local function cmd_lua51()
   out("unpack", unpack({1, 2, 3}), unpack({1, 2, 3}, 2), unpack({1, 2, 3}, 2, 3))
   out("loadstring", loadstring("return 1 + 2")(), (loadstring("syntax error here")))
   out("getn", table.getn({1, 2, 3}), table.getn({}),
       table.getn(setmetatable({1}, {__len = function() return 9 end})))
   out("maxn", table.maxn({1, 2, nil, 4}), table.maxn({[10] = 1, [2.5] = 1, x = 1}), table.maxn({}))
   local keys = {}
   table.foreachi({"a", "b", "c"}, function(i, v) keys[#keys + 1] = i .. v end)
   out("foreachi", table.concat(keys, ","),
       table.foreachi({5, 6}, function(i, v) if v == 6 then return "stop" .. i end end))
   local n = 0
   table.foreach({x = 1, y = 2, 3}, function(k, v) n = n + v end)
   out("foreach", n, table.foreach({x = 1}, function(k, v) return k end))
   local p = newproxy(true)
   local q = newproxy(p)
   out("newproxy", type(p), type(getmetatable(p)), getmetatable(p) == getmetatable(q),
       getmetatable(newproxy()) == nil, type(newproxy(false)))
   out("gcinfo", type(gcinfo()))
   print("math", math.pow(2, 10), math.pow(2, 0.5), math.pow(-8, 1 / 3), math.log10(1000),
         math.ldexp(0.75, 4), math.frexp(48), math.cosh(0), math.sinh(0), math.tanh(0))
end

local function cmd_ffi()
   out("cdef", select("#", ffi.cdef("int getpid(void);")))
   out("os/arch", ffi.os, ffi.arch)
   out("SB_CNT", ffi.C.SB_CNT_OTHER, ffi.C.SB_CNT_READ, ffi.C.SB_CNT_WRITE, ffi.C.SB_CNT_TRX,
       ffi.C.SB_CNT_ERROR, ffi.C.SB_CNT_RECONNECT, ffi.C.SB_CNT_MAX)
   out("DB_ERROR", ffi.C.DB_ERROR_NONE, ffi.C.DB_ERROR_IGNORABLE, ffi.C.DB_ERROR_FATAL)
   out("SB_ARG", ffi.C.SB_ARG_TYPE_NULL, ffi.C.SB_ARG_TYPE_BOOL, ffi.C.SB_ARG_TYPE_INT,
       ffi.C.SB_ARG_TYPE_SIZE, ffi.C.SB_ARG_TYPE_DOUBLE, ffi.C.SB_ARG_TYPE_STRING,
       ffi.C.SB_ARG_TYPE_LIST, ffi.C.SB_ARG_TYPE_FILE, ffi.C.SB_ARG_TYPE_MAX)
   out("usleep", ffi.C.usleep(1000), ffi.C.usleep(1.9))
   -- C integer parameters truncate: uniform(a, a) is a
   out("rand", ffi.C.sb_rand_uniform(5.9, 5.9), ffi.C.sb_rand_default(7, 7),
       ffi.C.sb_rand_gaussian(3, 3), ffi.C.sb_rand_special(9.5, 9.5), ffi.C.sb_rand_pareto(4, 4),
       sysbench.rand.uniform(2.7, 2.7))
   local lo, hi = 100, 0
   for _ = 1, 1000 do
      local r = ffi.C.sb_rand_uniform(1, 10)
      lo, hi = math.min(lo, r), math.max(hi, r)
   end
   local u = ffi.C.sb_rand_uniform_double()
   out("ranges", lo, hi, type(ffi.C.sb_rand_unique()), u >= 0 and u < 1)
   out("missing", (pcall(function() return ffi.C.no_such_function end)))
end

-- sbench only: bit.tohex outside LuaJIT's documented widths, one line per
-- case, "x n digits" with x and n as plain integers after bit.tobit;
-- luajit_compat.sh recomputes each from the rule in docs/lua-api.md.
local function cmd_tohex_edges()
   for _, x in ipairs(EDGE_X) do
      for _, n in ipairs(EDGE_WIDTHS) do
         io.write(string.format("%d %d %s\n", bit.tobit(x), bit.tobit(n), bit.tohex(x, n)))
      end
   end
end

sysbench.cmdline.commands = {
   tohex_edges = {cmd_tohex_edges},
   bits = {cmd_bits},
   formats = {cmd_formats},
   lua51 = {cmd_lua51},
   ffi = {cmd_ffi},
}
