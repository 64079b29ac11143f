-- pgbench_expr: pgbench 15's expression language (\set, \if), compiled to
-- Lua closures.
--
-- A pure module.  compile(text) parses once and returns a function of a
-- client's context { vars = {...}, rs = random state } giving a value:
-- a Lua integer (pgbench's int), float (double), boolean, or M.NULL.
-- Semantics are pgbench's: integer + - * raise on overflow, / and %
-- truncate toward zero and raise on a zero divisor, an int mixed with a
-- double gives a double, any NULL argument of a function or operator
-- gives NULL, AND/OR/CASE evaluate lazily.  Errors while parsing raise a
-- string "message"; errors while evaluating raise a table { expr_error =
-- message } that the interpreter turns into a failed transaction.
--
--   local E = require("pgbench_expr")
--   local f = E.compile("random(1, 100000 * :scale)")
--   f({ vars = { scale = 1 }, rs = R.new(1) })

local R = require("pgbench_rand")

local M = {}

M.NULL = setmetatable({}, { __tostring = function() return "NULL" end })
local NULL = M.NULL
local mtype = math.type
local MININT, MAXINT = math.mininteger, math.maxinteger

local function fail(msg) error({ expr_error = msg }, 0) end

----------------------------------------------------------------------------
-- values
----------------------------------------------------------------------------

-- A variable's text (from -D, \gset, \setshell) as pgbench reads it:
-- "null"; a boolean, any prefix of true/yes/false/no (t, y, f, n, tr,
-- ye, fal...), on, off or of (not "o"); an int; else a double.
local function prefix_of(l, word) return #l > 0 and #l <= #word and word:sub(1, #l) == l end
function M.parse_value(s)
   if type(s) ~= "string" then return s end
   local l = s:lower()
   if l == "null" then return NULL end
   if prefix_of(l, "true") or prefix_of(l, "yes") or l == "on" then return true end
   if prefix_of(l, "false") or prefix_of(l, "no") or l == "off" or l == "of" then return false end
   local t = s:match("^%s*(.-)%s*$")
   if t:match("^[+-]?%d+$") then
      local i = math.tointeger(tonumber(t))
      if i and tostring(i) == t:gsub("^%+", ""):gsub("^(-?)0+(%d)", "%1%2") then
         return i
      end
   end
   local d = tonumber(t)
   if d and not t:match("^0[xX]") then return d + 0.0 end
   return nil
end

-- A value as pgbench writes it into SQL: ints in decimal, doubles %.15g.
function M.to_text(v)
   local t = mtype(v)
   if t == "integer" then return tostring(v) end
   if t == "float" then
      -- PostgreSQL's own snprintf, which pgbench uses, spells these so
      if v ~= v then return "NaN" end
      if v == math.huge then return "Infinity" end
      if v == -math.huge then return "-Infinity" end
      return string.format("%.15g", v)
   end
   if v == true then return "true" end
   if v == false then return "false" end
   if v == NULL then return "NULL" end
   return tostring(v)
end

local function to_int(v)
   local t = mtype(v)
   if t == "integer" then return v end
   if t == "float" then
      if v ~= v or v < -2.0^63 or v >= 2.0^63 then
         fail(string.format("double to int overflow for %f", v))
      end
      return math.tointeger(M.rint(v))
   end
   if type(v) == "boolean" then fail("cannot coerce boolean to int") end
   fail("cannot coerce " .. tostring(v) .. " to int")
end

-- rint(): to the nearest integer, halves to even (C's rint, which pgbench's
-- int() and every double-to-int coercion use).
function M.rint(x)
   local f = math.floor(x)
   local d = x - f
   if d > 0.5 or (d == 0.5 and f % 2 == 1) then return f + 1 end
   return f
end

local function to_double(v)
   local t = mtype(v)
   if t then return v + 0.0 end
   if type(v) == "boolean" then fail("cannot coerce boolean to double") end
   fail("cannot coerce " .. tostring(v) .. " to double")
end

-- The operands of AND, OR and NOT must be booleans, as in pgbench.
local function to_bool(v)
   if type(v) == "boolean" then return v end
   local t = mtype(v)
   if t == "integer" then fail("cannot coerce int to boolean") end
   if t == "float" then fail("cannot coerce double to boolean") end
   fail("cannot coerce NULL to boolean")
end
M.to_bool = to_bool

-- The truth of a \if or CASE condition: NULL is false, a number is true
-- when not zero.
function M.truth(v)
   if type(v) == "boolean" then return v end
   if mtype(v) then return v ~= 0 end
   return false
end

local function add(a, b)
   local r = a + b
   if (a >= 0) == (b >= 0) and (r >= 0) ~= (a >= 0) then fail("bigint add out of range") end
   return r
end
local function sub(a, b)
   local r = a - b
   if (a >= 0) ~= (b >= 0) and (r >= 0) ~= (a >= 0) then fail("bigint sub out of range") end
   return r
end
local function mul(a, b)
   if a == 0 or b == 0 then return 0 end
   if (a == -1 and b == MININT) or (b == -1 and a == MININT) then fail("bigint mul out of range") end
   local r = a * b
   if r // b ~= a or r % b ~= 0 then fail("bigint mul out of range") end
   return r
end
local function idiv(a, b, is_mod)
   if b == 0 then fail("division by zero") end
   if b == -1 then
      if is_mod then return 0 end
      if a == MININT then fail("bigint out of range") end
      return -a
   end
   if is_mod then return math.fmod(a, b) end
   local q = a // b
   if q < 0 and q * b ~= a then q = q + 1 end
   return q
end

-- Arithmetic and comparison: double when either side is (but not for %).
local arith = {
   ["+"] = { add, function(a, b) return a + b end },
   ["-"] = { sub, function(a, b) return a - b end },
   ["*"] = { mul, function(a, b) return a * b end },
   ["/"] = { function(a, b) return idiv(a, b, false) end, function(a, b) return a / b end },
   ["="] = { function(a, b) return a == b end },
   ["<>"] = { function(a, b) return a ~= b end },
   ["<"] = { function(a, b) return a < b end },
   ["<="] = { function(a, b) return a <= b end },
}
arith["="][2] = arith["="][1]
arith["<>"][2] = arith["<>"][1]
arith["<"][2] = arith["<"][1]
arith["<="][2] = arith["<="][1]
arith["!="] = arith["<>"]

-- What the compiler knows of a compiled leaf, for the shapes below: the
-- value of an integer constant, the name of a variable.
local int_const = setmetatable({}, { __mode = "k" })
local var_name = setmetatable({}, { __mode = "k" })
-- const * :variable closures -> { k, name }; random(const, const [* :var])
-- closures -> { lo, hi, hi_var }: what M.random_form tells the C runner
local mul_form = setmetatable({}, { __mode = "k" })
local random_forms = setmetatable({}, { __mode = "k" })
-- |a|, |b| below this: a * b cannot overflow
local MUL_SAFE = 0x80000000

local function binary(op, fa, fb)
   if op == "%" then
      return function(c)
         local a, b = fa(c), fb(c)
         if a == NULL or b == NULL then return NULL end
         return idiv(to_int(a), to_int(b), true)
      end
   end
   if op == ">" or op == ">=" then -- swapped, as pgbench's parser does
      local f = binary(op == ">" and "<" or "<=", fb, fa)
      return f
   end
   local pair = arith[op]
   if pair then
      local fi, fd = pair[1], pair[2]
      local general = function(c)
         local a, b = fa(c), fb(c)
         if mtype(a) == "integer" and mtype(b) == "integer" then return fi(a, b) end -- the common case
         if a == NULL or b == NULL then return NULL end
         if mtype(a) == "float" or mtype(b) == "float" then
            return fd(to_double(a), to_double(b))
         end
         return fi(to_int(a), to_int(b))
      end
      local ka, vb = int_const[fa], var_name[fb]
      if op == "*" and ka and vb and ka > -MUL_SAFE and ka < MUL_SAFE then
         -- constant * :variable (the built-in scripts' 100000 * :scale):
         -- a small integer in the variable is multiplied on the spot,
         -- anything else goes the general way (reading a variable has no
         -- side effect, so fb may read it again)
         local f = function(c)
            local b = c.vars[vb]
            if mtype(b) == "integer" and b > -MUL_SAFE and b < MUL_SAFE then return ka * b end
            return general(c)
         end
         mul_form[f] = { ka, vb }
         return f
      end
      return general
   end
   local bit = {
      ["&"] = function(a, b) return a & b end,
      ["|"] = function(a, b) return a | b end,
      ["#"] = function(a, b) return a ~ b end,
      -- the shift count taken modulo 64, as the x86 instruction pgbench's
      -- C shift compiles to does; >> is arithmetic, as C's on int64
      ["<<"] = function(a, b) return a << (b & 63) end,
      [">>"] = function(a, b)
         b = b & 63
         if a >= 0 then return a >> b end
         return ~((~a) >> b)
      end,
   }
   local f = bit[op]
   return function(c)
      local a, b = fa(c), fb(c)
      if a == NULL or b == NULL then return NULL end
      return f(to_int(a), to_int(b))
   end
end

----------------------------------------------------------------------------
-- functions
----------------------------------------------------------------------------

-- pgbench's messages: variadic functions want at least one argument,
-- none takes more than 16 (its MAX_FARGS), others a fixed number.
local function nargs_check(name, n, lo, hi)
   if n > 16 then error("too many function arguments, maximum is 16", 0) end
   if n < lo and not hi then error("at least one argument expected (" .. name .. ")", 0) end
   if n < lo or (hi and n > hi) then
      error("unexpected number of arguments (" .. name .. ")", 0)
   end
end

local function any_null(vals)
   for i = 1, #vals do if vals[i] == NULL then return true end end
   return false
end

local function minmax(vals, greater)
   local dbl = false
   for i = 1, #vals do if mtype(vals[i]) == "float" then dbl = true end end
   local conv = dbl and to_double or to_int
   local r = conv(vals[1])
   for i = 2, #vals do
      local v = conv(vals[i])
      if (greater and v > r) or (not greater and v < r) then r = v end
   end
   return r
end

local function rand_args(vals, what)
   local lo, hi = to_int(vals[1]), to_int(vals[2])
   if hi < lo then fail("empty range given to " .. what) end
   if (hi >= 0 and lo < 0 and hi - lo < 0) or sub(hi, lo) == MAXINT then
      fail("random range is too large")
   end
   return lo, hi
end

-- name -> { min args, max args (nil: any), function(ctx, values) }
local funcs = {
   abs = { 1, 1, function(_, v)
      if mtype(v[1]) == "float" then return math.abs(v[1]) end
      local i = to_int(v[1]); if i < 0 then return -i end; return i end },
   debug = { 1, 1, function(_, v)
      local x = v[1]
      local what = x == NULL and "null" or type(x) == "boolean" and "boolean" or
         (mtype(x) == "integer" and "int" or "double")
      if x == NULL then io.stderr:write("debug: null\n") -- as pgbench: no value
      else io.stderr:write("debug: ", what, " ", M.to_text(x), "\n") end
      return x end },
   double = { 1, 1, function(_, v) return to_double(v[1]) end },
   int = { 1, 1, function(_, v) return to_int(v[1]) end },
   exp = { 1, 1, function(_, v) return math.exp(to_double(v[1])) end },
   ln = { 1, 1, function(_, v) return math.log(to_double(v[1])) end },
   sqrt = { 1, 1, function(_, v) return math.sqrt(to_double(v[1])) end },
   pi = { 0, 0, function() return math.pi end },
   pow = { 2, 2, function(_, v) return to_double(v[1]) ^ to_double(v[2]) end },
   greatest = { 1, nil, function(_, v) return minmax(v, true) end },
   least = { 1, nil, function(_, v) return minmax(v, false) end },
   mod = { 2, 2, function(_, v) return idiv(to_int(v[1]), to_int(v[2]), true) end },
   hash_murmur2 = { 1, 2, function(_, v) return R.hash_murmur2(to_int(v[1]), to_int(v[2])) end },
   hash_fnv1a = { 1, 2, function(_, v) return R.hash_fnv1a(to_int(v[1]), to_int(v[2])) end },
   permute = { 2, 3, function(_, v)
      local size = to_int(v[2])
      if size <= 0 then fail("permute size parameter must be greater than zero") end
      return R.permute(to_int(v[1]), size, to_int(v[3])) end },
   random = { 2, 2, function(c, v)
      local lo, hi = rand_args(v, "random")
      return R.uniform(c.rs, lo, hi) end },
   random_exponential = { 3, 3, function(c, v)
      local lo, hi = rand_args(v, "random_exponential")
      local p = to_double(v[3])
      if p <= 0.0 then fail(string.format("exponential parameter must be greater than zero (not %f)", p)) end
      return R.exponential(c.rs, lo, hi, p) end },
   random_gaussian = { 3, 3, function(c, v)
      local lo, hi = rand_args(v, "random_gaussian")
      local p = to_double(v[3])
      if p < 2.0 then fail(string.format("gaussian parameter must be at least 2.000000 (not %f)", p)) end
      return R.gaussian(c.rs, lo, hi, p) end },
   random_zipfian = { 3, 3, function(c, v)
      local lo, hi = rand_args(v, "random_zipfian")
      local p = to_double(v[3])
      if p < 1.001 or p > 1000.0 then
         fail(string.format("zipfian parameter must be in range [1.001, 1000] (not %g)", p))
      end
      return R.zipfian(c.rs, lo, hi, p) end },
}
funcs.power = funcs.pow
funcs.hash = funcs.hash_murmur2
M.functions = funcs

----------------------------------------------------------------------------
-- lexer
----------------------------------------------------------------------------

local keywords = {
   ["and"] = "AND", ["or"] = "OR", ["not"] = "NOT", ["is"] = "IS", ["isnull"] = "ISNULL",
   ["notnull"] = "NOTNULL", ["true"] = "TRUE", ["false"] = "FALSE", ["null"] = "NULL",
   ["case"] = "CASE", ["when"] = "WHEN", ["then"] = "THEN", ["else"] = "ELSE", ["end"] = "END",
}
local ops2 = { ["<="] = true, [">="] = true, ["<>"] = true, ["!="] = true, ["<<"] = true, [">>"] = true }

local function lex(s)
   local toks, i, n = {}, 1, #s
   while i <= n do
      local ch = s:sub(i, i)
      if ch:match("%s") then
         i = i + 1
      elseif ch:match("%d") or (ch == "." and s:sub(i + 1, i + 1):match("%d")) then
         local num = s:match("^%d*%.?%d*[eE][-+]?%d+", i) or s:match("^%d*%.?%d*", i)
         i = i + #num
         if num:match("^%d+$") then
            local v = math.tointeger(tonumber(num))
            if num == "9223372036854775808" then
               toks[#toks + 1] = { "MAXPLUS1" }
            elseif not v or tostring(v) ~= num:gsub("^0+(%d)", "%1") then
               error("bigint constant overflow: " .. num, 0)
            else
               toks[#toks + 1] = { "INT", v }
            end
         else
            local d = tonumber(num) + 0.0
            if d == math.huge then error("double constant overflow: " .. num, 0) end
            toks[#toks + 1] = { "DOUBLE", d }
         end
      elseif ch == ":" then
         local name = s:match("^[%w_]+", i + 1)
         if not name then error("syntax error at ':'", 0) end
         toks[#toks + 1] = { "VAR", name }
         i = i + 1 + #name
      elseif ch:match("[%a_]") then
         local w = s:match("^[%w_]+", i)
         i = i + #w
         local k = keywords[w:lower()]
         toks[#toks + 1] = k and { k } or { "FUNC", w:lower() }
      else
         local two = s:sub(i, i + 1)
         if ops2[two] then
            toks[#toks + 1] = { "OP", two }; i = i + 2
         elseif ch:match("[%+%-%*/%%%(%),<>=&|#~]") then
            toks[#toks + 1] = { "OP", ch }; i = i + 1
         else
            error("unexpected character '" .. ch .. "'", 0)
         end
      end
   end
   toks[#toks + 1] = { "EOF" }
   return toks
end

----------------------------------------------------------------------------
-- parser: precedence climbing over pgbench's grammar
----------------------------------------------------------------------------

local P = {}
P.__index = P

function P:peek() return self.t[self.i] end
function P:next() local t = self.t[self.i]; self.i = self.i + 1; return t end
function P:is(kind, val)
   local t = self.t[self.i]
   return t[1] == kind and (val == nil or t[2] == val)
end
function P:expect(kind, val)
   if not self:is(kind, val) then
      local t = self:peek()
      error("syntax error: expected " .. (val or kind) .. " near " ..
               (t[1] == "EOF" and "end of expression" or tostring(t[2] or t[1])), 0)
   end
   return self:next()
end

local function const(v)
   local f = function() return v end
   if mtype(v) == "integer" then int_const[f] = v end
   return f
end

function P:primary()
   local t = self:next()
   local k = t[1]
   if k == "INT" or k == "DOUBLE" then return const(t[2]) end
   if k == "TRUE" then return const(true) end
   if k == "FALSE" then return const(false) end
   if k == "NULL" then return const(NULL) end
   if k == "MAXPLUS1" then error("bigint constant overflow: 9223372036854775808", 0) end
   if k == "VAR" then
      local name = t[2]
      self.used[name] = true
      local f = function(c)
         local v = c.vars[name]
         if v == nil then fail("undefined variable \"" .. name .. "\"") end
         if type(v) == "string" then
            local pv = M.parse_value(v)
            if pv == nil then fail("malformed variable \"" .. name .. "\" value: \"" .. v .. "\"") end
            return pv
         end
         return v
      end
      var_name[f] = name
      return f
   end
   if k == "OP" and t[2] == "(" then
      local e = self:expr()
      self:expect("OP", ")")
      return e
   end
   if k == "CASE" then return self:case() end
   if k == "FUNC" then return self:call(t[2]) end
   error("syntax error near " .. tostring(t[2] or t[1]), 0)
end

-- random(lo, hi), the built-in scripts' one function: two integers in a
-- range that cannot overflow go straight to the draw, anything else
-- through random's general checks (f, with the call site's vals).
local function random_call(lo_f, hi_f, f, vals)
   local uniform_fast, klo = R.uniform_fast, int_const[lo_f]
   return function(c)
      local lo = klo or lo_f(c)
      local hi = hi_f(c)
      local v = uniform_fast(c.rs, lo, hi) -- nil: not two integers in a valid range
      if v then return v end
      if lo == NULL or hi == NULL then return NULL end
      vals[1], vals[2] = lo, hi
      return f(c, vals)
   end
end

function P:call(name)
   local def = funcs[name]
   if not def then error("unexpected function name \"" .. name .. "\"", 0) end
   self:expect("OP", "(")
   local args = {}
   if not self:is("OP", ")") then
      repeat args[#args + 1] = self:expr() until not (self:is("OP", ",") and self:next())
   end
   self:expect("OP", ")")
   nargs_check(name, #args, def[1], def[2])
   if (name == "hash" or name == "hash_murmur2" or name == "hash_fnv1a") and #args == 1 or
      name == "permute" and #args == 2 then
      self.used.default_seed = true
      args[#args + 1] = function(c) return c.vars.default_seed end
   end
   local f, n = def[3], #args
   -- one argument table per call site, refilled on each call: a site is
   -- never inside its own arguments, so no evaluation overwrites another's
   local vals = {}
   local function call(c)
      for i = 1, n do vals[i] = args[i](c) end
      if name ~= "debug" and any_null(vals) then return NULL end
      return f(c, vals)
   end
   if name == "random" and n == 2 then
      local r = random_call(args[1], args[2], f, vals)
      local lo, hi, m = int_const[args[1]], int_const[args[2]], mul_form[args[2]]
      if lo and (hi or m) then random_forms[r] = { lo, hi or m[1], not hi and m[2] or nil } end
      return r
   end
   return call
end

function P:case()
   local conds, thens = {}, {}
   self:expect("WHEN")
   repeat
      conds[#conds + 1] = self:expr()
      self:expect("THEN")
      thens[#thens + 1] = self:expr()
   until not (self:is("WHEN") and self:next())
   local otherwise = const(NULL)
   if self:is("ELSE") then self:next(); otherwise = self:expr() end
   self:expect("END")
   return function(c)
      for i = 1, #conds do
         if M.truth(conds[i](c)) then return thens[i](c) end
      end
      return otherwise(c)
   end
end

function P:unary()
   if self:is("OP", "-") then
      self:next()
      if self:is("MAXPLUS1") then self:next(); return const(MININT) end
      local e = self:unary()
      local k = int_const[e]
      -- -CONST is a constant (0 - k cannot overflow but for the minimum)
      if k and k ~= MININT then return const(-k) end
      return binary("-", const(0), e)
   elseif self:is("OP", "+") then
      self:next(); return self:unary()
   elseif self:is("OP", "~") then
      self:next(); return binary("#", const(-1), self:unary())
   end
   return self:primary()
end

function P:left(sub, set)
   local e = sub(self)
   while self:is("OP") and set[self:peek()[2]] do
      local op = self:next()[2]
      e = binary(op, e, sub(self))
   end
   return e
end

local mulops = { ["*"] = true, ["/"] = true, ["%"] = true }
local addops = { ["+"] = true, ["-"] = true }
local bitops = { ["&"] = true, ["|"] = true, ["#"] = true, ["<<"] = true, [">>"] = true }
local cmpops = { ["="] = true, ["<>"] = true, ["!="] = true, ["<"] = true, ["<="] = true,
                 [">"] = true, [">="] = true }

function P:mul() return self:left(P.unary, mulops) end
function P:add() return self:left(P.mul, addops) end
function P:bits() return self:left(P.add, bitops) end

function P:cmp()
   local e = self:bits()
   if self:is("OP") and cmpops[self:peek()[2]] then
      local op = self:next()[2]
      e = binary(op, e, self:bits())
   end
   return e
end

function P:is_test()
   local e = self:cmp()
   if self:is("ISNULL") then self:next(); return function(c) return e(c) == NULL end end
   if self:is("NOTNULL") then self:next(); return function(c) return e(c) ~= NULL end end
   if self:is("IS") then
      self:next()
      local negate = false
      if self:is("NOT") then self:next(); negate = true end
      local t = self:next()[1]
      local want
      if t == "NULL" then want = NULL elseif t == "TRUE" then want = true
      elseif t == "FALSE" then want = false
      else error("syntax error: IS must be followed by NULL, TRUE or FALSE", 0) end
      return function(c)
         return (e(c) == want) ~= negate
      end
   end
   return e
end

function P:not_()
   if self:is("NOT") then
      self:next()
      local e = self:not_()
      return function(c)
         local v = e(c)
         if v == NULL then return NULL end
         return not to_bool(v)
      end
   end
   return self:is_test()
end

function P:and_()
   local e = self:not_()
   while self:is("AND") do
      self:next()
      local a, b = e, self:not_()
      e = function(c)
         local v = a(c)
         if v == NULL then return NULL end
         if not to_bool(v) then return false end
         v = b(c)
         if v == NULL then return NULL end
         return to_bool(v)
      end
   end
   return e
end

function P:expr()
   local e = self:and_()
   while self:is("OR") do
      self:next()
      local a, b = e, self:and_()
      e = function(c)
         local v = a(c)
         if v == NULL then return NULL end
         if to_bool(v) then return true end
         v = b(c)
         if v == NULL then return NULL end
         return to_bool(v)
      end
   end
   return e
end

-- random_form(f) -> lo, hi, hi_var when compiled expression f is
-- random(LO, HI) or random(LO, K * :VAR) with integer constants (then
-- hi = K, hi_var = VAR): the same draw whoever makes it (the C runner,
-- lua/l_pgscript.c, draws it itself and calls f for anything else).
function M.random_form(f)
   local r = random_forms[f]
   if r then return r[1], r[2], r[3] end
end

-- compile(text) -> function(ctx) -> value, and the set of variables it
-- reads; raises a one-line string for a malformed expression.
function M.compile(text)
   local p = setmetatable({ t = lex(text), i = 1, used = {} }, P)
   local f = p:expr()
   if not p:is("EOF") then
      local t = p:peek()
      error("syntax error: unexpected " .. tostring(t[2] or t[1]) .. " at the end of the expression", 0)
   end
   return f, p.used
end

return M
