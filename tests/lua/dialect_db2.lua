-- Prints every statement oltp_sql (or another module with the same
-- listing(dialect, opts, n) function, such as tpcc_sql) produces for
-- dialect "db2", table 1, default options.
--
--   lua5.4 tests/lua/dialect_db2.lua <workloads dir> [expected.sql] [module]
--
-- With an expected file, compares instead of only printing and exits 1 on
-- a difference (reporting the first differing line).

local dir = arg[1] or error("usage: dialect_db2.lua <workloads dir> " ..
                            "[expected.sql]")
package.path = dir .. "/?.lua;" .. package.path
local sql_module = require(arg[3] or "oltp_sql")

local text = sql_module.listing("db2", {}, 1)
io.write(text)

if arg[2] then
   local f = assert(io.open(arg[2], "r"))
   local want = f:read("a")
   f:close()
   if want ~= text then
      local got_lines, want_lines = {}, {}
      for l in (text .. "\n"):gmatch("(.-)\n") do got_lines[#got_lines + 1] = l end
      for l in (want .. "\n"):gmatch("(.-)\n") do want_lines[#want_lines + 1] = l end
      for i = 1, math.max(#got_lines, #want_lines) do
         if got_lines[i] ~= want_lines[i] then
            io.stderr:write(string.format(
               "dialect_db2: differs from %s at line %d:\n  got:  %s\n  want: %s\n",
               arg[2], i, tostring(got_lines[i]), tostring(want_lines[i])))
            break
         end
      end
      os.exit(1)
   end
end
