-- tpcc_check: `sbench tpcc check`, the consistency conditions of the TPC-C
-- specification (revision 5.11, clause 3.3.2.1 to 3.3.2.9 and 3.3.2.12)
-- on every table set, each said PASSED or FAILED per warehouse.  Raises
-- (exit status 1) when one failed.

local common = require("tpcc_common")
local tpcc_sql = require("tpcc_sql")

local M = {}

-- Two sides of a condition agree: money within half a cent (SQLite's
-- NUMERIC holds doubles), anything else exactly.  A missing aggregate
-- (NULL: no rows) counts as 0.
local function agree(a, b, money)
   a, b = tonumber(a) or 0, tonumber(b) or 0
   if money then return math.abs(a - b) < 0.005 end
   return a == b
end

-- Checks condition `cond` on set n: returns the warehouses in order and,
-- per warehouse, nil (passed) or the first district that broke it.
local function check_one(con, q, cond, n)
   local number, money = cond[1], cond[4]
   local rs = con:query(q.check(number, n))
   local order, bad = {}, {}
   while true do
      local row = rs:fetch_row()
      if row == nil then break end
      local w, d = tonumber(row[1]), tonumber(row[2])
      if bad[w] == nil then
         order[#order + 1] = w
         bad[w] = false
      end
      local ok = agree(row[3], row[4], money)
      if number == 2 then ok = ok and agree(row[4], row[5]) end
      if not ok and not bad[w] then
         local got = {}
         for i = 3, #row do got[#got + 1] = tostring(row[i]) end
         bad[w] = (cond[3] == "district" and ("district " .. d .. ": ")
                   or "") .. table.concat(got, " vs ")
      end
   end
   rs:free()
   return order, bad
end

function M.check()
   local con, q, s = common.connect()
   local failed, passed = 0, 0
   for n = 1, s.tables do
      for _, t in ipairs(tpcc_sql.tables) do
         if not common.table_exists(con, q, t, n) then
            common.fail("tpcc check: table '%s' does not exist: run " ..
                           "prepare first", q.table_name(t, n))
         end
      end
      print(string.format("Consistency conditions (TPC-C clause 3.3.2), " ..
                             "table set %d:", n))
      for _, cond in ipairs(tpcc_sql.conditions) do
         local order, bad = check_one(con, q, cond, n)
         for _, w in ipairs(order) do
            if bad[w] then
               failed = failed + 1
               print(string.format("  condition %-2d %s: warehouse %d " ..
                                      "FAILED (%s)", cond[1], cond[2], w,
                                   bad[w]))
            else
               passed = passed + 1
               print(string.format("  condition %-2d %s: warehouse %d " ..
                                      "PASSED", cond[1], cond[2], w))
            end
         end
         if #order == 0 then
            failed = failed + 1
            print(string.format("  condition %-2d %s: FAILED (no " ..
                                   "warehouse found)", cond[1], cond[2]))
         end
      end
   end
   con:disconnect()
   if failed > 0 then
      common.fail("tpcc check: %d of %d checks FAILED", failed,
                  failed + passed)
   end
   print(string.format("tpcc check: all %d checks PASSED", passed))
end

return M
