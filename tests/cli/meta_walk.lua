-- meta_walk.lua: the workload API as it really is (run by sbench with the
-- null driver): every function under sbench, as "sbench.a.b", and the
-- methods of the objects it returns, as "Class:method", one a line.
-- tests/cli/meta.sh compares them with sdk/lua/sbench.lua's declarations.
local seen, out = {}, {}
local function walk(t, path, depth)
  if seen[t] or depth > 4 then return end
  seen[t] = true
  for k, v in pairs(t) do
    if type(k) == "string" then
      if type(v) == "function" then out[#out + 1] = path .. "." .. k
      elseif type(v) == "table" then walk(v, path .. "." .. k, depth + 1) end
    end
  end
end
walk(sbench, "sbench", 0)
local function methods(class, obj)
  local mt = getmetatable(obj)
  local idx = mt and (type(mt.__index) == "table" and mt.__index or mt) or {}
  for k, v in pairs(idx) do
    if type(v) == "function" and not k:match("^__") then out[#out + 1] = class .. ":" .. k end
  end
end
local drv = sbench.sql.driver()
local con = drv:connect()
local st = con:prepare("SELECT 1 WHERE 1 = ?")
local p = st:bind_create(sbench.sql.type.INT)
methods("Driver", drv)
methods("Connection", con)
methods("Statement", st)
methods("Param", p)
methods("Histogram", sbench.histogram.new(10, 1, 100))
local rs = con:query("SELECT 1")
for _, m in ipairs({"fetch_row", "free"}) do -- a result's methods are not in a table
  if type(rs) == "userdata" and pcall(function() return rs[m] end) and rs[m] then out[#out + 1] = "Result:" .. m end
end
out[#out + 1] = sysbench == sbench and "alias sysbench" or "no alias"
table.sort(out)
for _, l in ipairs(out) do print(l) end
