-- pgbench_rand_c.lua: sbench.pgbench_rand (lua/l_pgrand.c, the C draws of
-- `sbench pgbench`) against workloads/pgbench_rand.lua's pure-Lua versions
-- (which tests/integration/pgbench.sh checks against pgbench 15 itself):
-- the same values and the same generator state after each draw, over seeds
-- and ranges at the 64-bit edges.  Run by sbench on the null driver:
--   sbench tests/lua/pgbench_rand_c.lua run --events=1 --db-driver=null
function event()
  local C = sbench.pgbench_rand
  sbench.pgbench_rand = nil
  package.loaded.pgbench_rand = nil
  local L = require("pgbench_rand")
  local bad, n = 0, 0
  local function chk(what, a, b) n = n + 1; if a ~= b or math.type(a) ~= math.type(b) then bad = bad + 1; if bad < 10 then print("DIFF", what, a, b) end end end
  local seeds = {0, 1, 42, -1, math.mininteger, math.maxinteger, 0x123456789}
  for _, seed in ipairs(seeds) do
    local a, b = L.new(seed), L.new(seed)
    local ranges = {{1,100000},{0,0},{-5,5},{1,2},{math.mininteger, math.maxinteger-1},{-100, 1<<62},{7,7}}
    for i = 1, 2000 do
      local r = ranges[i % #ranges + 1]
      chk("uniform", L.uniform(a, r[1], r[2]), C.uniform(b, r[1], r[2]))
      local f = ranges[i % #ranges + 1]
      chk("uniform_fast", L.uniform_fast(a, f[1], f[2]), C.uniform_fast(b, f[1], f[2]))
      chk("uniform_fast refused", L.uniform_fast(a, 5, 1), C.uniform_fast(b, 5, 1))
      chk("uniform_fast refused", L.uniform_fast(a, 0, math.maxinteger), C.uniform_fast(b, 0, math.maxinteger))
      chk("uniform_fast refused", L.uniform_fast(a, 1.0, 3), C.uniform_fast(b, 1.0, 3))
      chk("uniform_fast refused", L.uniform_fast(a, 1, "3"), C.uniform_fast(b, 1, "3"))
      chk("double", L.double(a), C.double(b))
      chk("exp", L.exponential(a, 1, 1000, 2.5), C.exponential(b, 1, 1000, 2.5))
      chk("gauss", L.gaussian(a, -50, 1000, 2.5), C.gaussian(b, -50, 1000, 2.5))
      chk("zipf", L.zipfian(a, 1, 1000, 1.07), C.zipfian(b, 1, 1000, 1.07))
      chk("zipf2", L.zipfian(a, 1, 100000, 2.5), C.zipfian(b, 1, 100000, 2.5))
      local v, sz = L.uniform(a, math.mininteger, math.maxinteger - 1), (i * 7919) % 100003 + 1
      C.uniform(b, math.mininteger, math.maxinteger - 1)
      chk("perm", L.permute(v, sz, seed), C.permute(v, sz, seed))
      chk("perm2", L.permute(v, -v, seed), C.permute(v, -v, seed))
      chk("perm3", L.permute(i, 1 << 62, v), C.permute(i, 1 << 62, v))
      chk("fnv", L.hash_fnv1a(v, seed), C.hash_fnv1a(v, seed))
      chk("mm2", L.hash_murmur2(v, seed), C.hash_murmur2(v, seed))
      chk("state", a.s0 .. ":" .. a.s1, b.s0 .. ":" .. b.s1)
    end
  end
  print("checks", n, "bad", bad)
  if bad > 0 or n == 0 then error("pgbench_rand_c: " .. bad .. " of " .. n .. " draws differ", 0) end
  return true
end
