-- pgbench_rand: pgbench 15's random numbers and hash functions, bit for bit.
--
-- A pure module (plain Lua 5.4, 64-bit integers that wrap): the generator
-- PostgreSQL's pg_prng uses (xoroshiro128**, seeded through splitmix64, both
-- public-domain algorithms), pgbench's draws from it (random, exponential,
-- gaussian, zipfian), its permute() and its two 64-bit hashes with their
-- published constants.  Written from the algorithms' descriptions so that a
-- script with --random-seed draws the same numbers as pgbench does.
--
--   local R = require("pgbench_rand")
--   local st = R.new(seed)         -- a generator seeded like pg_prng_seed
--   R.uniform(st, 1, 100000)       -- pgbench's random(1, 100000)
--   R.hash_murmur2(42, seed)

local M = {}

local ult = math.ult

local function rotl(x, k) return (x << k) | (x >> (64 - k)) end

local function splitmix_next(s)
   s.v = s.v + 0x9E3779B97F4A7C15
   local z = s.v
   z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
   z = (z ~ (z >> 27)) * 0x94D049BB133111EB
   return z ~ (z >> 31)
end

-- new(seed) -> a generator state { s0, s1 }, seeded as pg_prng_seed does.
function M.new(seed)
   local sm = { v = seed }
   local st = { s0 = splitmix_next(sm), s1 = splitmix_next(sm) }
   if st.s0 == 0 and st.s1 == 0 then st.s0 = 0x5851F42D4C957F2D end
   return st
end

-- next64(st) -> 64 random bits (xoroshiro128**).
local function next64(st)
   local s0 = st.s0
   local sx = st.s1 ~ s0
   local val = rotl(s0 * 5, 7) * 9
   st.s0 = rotl(s0, 24) ~ sx ~ (sx << 16)
   st.s1 = rotl(sx, 37)
   return val
end
M.next64 = next64

-- Position of the highest set bit of a nonzero unsigned value (0..63).
local function leftmost_one(x)
   local n = 0
   while x ~= 1 and x ~= 0 do x = x >> 1; n = n + 1 end
   return n
end
M.leftmost_one = leftmost_one

-- range64(st, range) -> an unsigned offset in [0, range] (bitmask rejection).
local function range64(st, range)
   if range == 0 then return 0 end
   local shift = 63 - leftmost_one(range)
   while true do
      local v = next64(st) >> shift
      if not ult(range, v) then return v end
   end
end

-- double(st) -> [0, 1) with 52 random bits.
local function double(st)
   return ((next64(st) >> 12) + 0.0) * 2.0^-52
end
M.double = double

-- uniform(st, lo, hi): random(lo, hi); the caller checked lo <= hi.
function M.uniform(st, lo, hi)
   return lo + range64(st, hi - lo)
end

-- uniform_fast(st, lo, hi): the same when lo and hi are integers with
-- lo <= hi and hi - lo < 2^63 - 1 (hi - lo wraps below 0 exactly when the
-- range overflows); else nil, and no draw.
function M.uniform_fast(st, lo, hi)
   local mtype = math.type
   if mtype(lo) == "integer" and mtype(hi) == "integer" and lo <= hi and
      hi - lo >= 0 and hi - lo < math.maxinteger then
      return lo + range64(st, hi - lo)
   end
   return nil
end

function M.exponential(st, lo, hi, param)
   local cut = math.exp(-param)
   local u = 1.0 - double(st)
   local r = -math.log(cut + (1.0 - cut) * u) / param
   return lo + math.tointeger(M.trunc((hi - lo + 1) * r))
end

function M.gaussian(st, lo, hi, param)
   local stdev
   repeat
      local r1 = 1.0 - double(st)
      local r2 = 1.0 - double(st)
      stdev = math.sqrt(-2.0 * math.log(r1)) * math.sin(2.0 * math.pi * r2)
   until not (stdev < -param or stdev >= param)
   local r = (stdev + param) / (param * 2.0)
   return lo + math.tointeger(M.trunc((hi - lo + 1) * r))
end

function M.zipfian(st, lo, hi, s)
   local n = hi - lo + 1
   if n <= 1 then return lo end
   local b = 2.0 ^ (s - 1.0)
   local x
   while true do
      local u, v = double(st), double(st)
      x = math.floor(u ^ (-1.0 / (s - 1.0)))
      local t = (1.0 + 1.0 / x) ^ (s - 1.0)
      if v * x * (t - 1.0) / (b - 1.0) <= t / b and x <= n then break end
   end
   return lo - 1 + math.tointeger(x)
end

-- trunc(x): toward zero, as C's (int64) cast.
function M.trunc(x)
   if x >= 0 then return math.floor(x) else return math.ceil(x) end
end

-- Unsigned 64-bit remainder a % b (b ~= 0).
local function umod(a, b)
   if b < 0 then -- b >= 2^63
      if ult(a, b) then return a else return a - b end
   end
   if a >= 0 then return a % b end
   -- a >= 2^63: split to stay in signed range
   local q = ((a >> 1) // b) << 1
   local r = a - q * b
   while not ult(r, b) do r = r - b end
   return r
end
M.umod = umod

-- permute(v, size, seed): pgbench's pseudorandom permutation of [0, size).
function M.permute(val, size, seed)
   if size < 2 then return 0 end
   local st = M.new(seed)
   local v = umod(val, size)
   local masklen = leftmost_one(size)
   local mask = (1 << masklen) - 1
   for _ = 1, 6 do
      local m = (next64(st) & mask) | 1
      local r = next64(st) & mask
      if not ult(mask, v) then
         v = ((v * m) ~ r) & mask
         v = ((v << 1) & mask) | (v >> (masklen - 1))
      end
      m = (next64(st) & mask) | 1
      r = next64(st) & mask
      local t = size - 1 - v
      if not ult(mask, t) then
         t = ((t * m) ~ r) & mask
         t = ((t << 1) & mask) | (t >> (masklen - 1))
         v = size - 1 - t
      end
      r = range64(st, size - 1)
      local sum = v + r
      if ult(sum, v) then sum = sum - size end -- the carry out of 64 bits
      v = umod(sum, size)
   end
   return v
end

local FNV_PRIME, FNV_OFFSET = 0x100000001B3, 0xCBF29CE484222325
local MM2_MUL, MM2_MUL_TIMES_8, MM2_ROT = 0xC6A4A7935BD1E995, 0x35253C9ADE8F4CA8, 47

function M.hash_fnv1a(val, seed)
   local h = FNV_OFFSET ~ seed
   for _ = 1, 8 do
      h = (h ~ (val & 0xFF)) * FNV_PRIME
      val = val >> 8
   end
   return h
end

function M.hash_murmur2(val, seed)
   local h = seed ~ MM2_MUL_TIMES_8
   local k = val * MM2_MUL
   k = k ~ (k >> MM2_ROT)
   k = k * MM2_MUL
   h = (h ~ k) * MM2_MUL
   h = h ~ (h >> MM2_ROT)
   h = h * MM2_MUL
   return h ~ (h >> MM2_ROT)
end

-- The states of a run seeded like pgbench 15: from the base generator, one
-- draw per client's function generator (clients 0..n-1), then one for
-- :default_seed.  Returns the state of client `client` and default_seed.
function M.client_state(seed, nclients, client)
   local base = M.new(seed)
   local mine
   for i = 0, nclients - 1 do
      local s = next64(base)
      if i == client then mine = M.new(s) end
   end
   return mine or M.new(seed + client), next64(base)
end

-- Under sbench, the same draws in C (lua/l_pgrand.c, the same numbers on
-- the same state table): no Lua bytecode per draw on the hot path.  Plain
-- Lua (tests/lua) keeps the functions above.
-- (not rawget: a client coroutine's sbench table is its own, whose reads
-- fall through to the state's)
local C = type(sbench) == "table" and sbench.pgbench_rand
if C then
   M.uniform, M.double, M.exponential = C.uniform, C.double, C.exponential
   M.gaussian, M.zipfian, M.permute = C.gaussian, C.zipfian, C.permute
   M.hash_fnv1a, M.hash_murmur2 = C.hash_fnv1a, C.hash_murmur2
   M.uniform_fast = C.uniform_fast
end

return M
