-- tpcc_common: what the tpcc workload's parts share: its options, the
-- settings read from them, the connection, and the random values of the
-- TPC-C specification (revision 5.11, clause 2.1.6 and 4.3.2): NURand,
-- customer last names, strings with "ORIGINAL".
--
-- Loading this module declares the options; they are read when a command
-- or a thread starts (M.settings), never at load time.

local tpcc_sql = require("tpcc_sql")
local oltp_sql = require("oltp_sql")

local M = {}

sbench.cmdline.options = {
   warehouses = { "Warehouses per table set (the TPC-C scale factor)", 1 },
   tables = { "Table sets (warehouse1.., warehouse2.., ...: " ..
                 "sysbench-tpcc's layout); each transaction picks one " ..
                 "at random", 1 },
   items = { "Rows in ITEM, and in STOCK per warehouse; anything other " ..
                "than 100000 is NOT TPC-C conformant (for short tests)",
             100000 },
   mix = { "Transaction mix in percent: New-Order, Payment, " ..
              "Order-Status, Delivery, Stock-Level",
           { 45, 43, 4, 4, 4 } },
   keying = { "Keying and think times of the specification (clause " ..
                 "5.2.5: 18/3/2/2/2 s keying, 12/12/10/5/5 s mean think " ..
                 "time); needs --clients equal to --threads", false },
   tpcc_keying = { "The same as --keying (HammerDB's keying and thinking " ..
                      "time: spec-conformant terminals)", false },
   foreign_keys = { "Create the foreign keys (after the load; never on " ..
                       "SQLite)", true },
   mysql_storage_engine = { "Storage engine of the tables on MySQL",
                            "innodb" },
   force = { "prepare: drop existing tpcc tables instead of refusing to " ..
                "overwrite them", false },
}

-- The transaction types, in the order of --mix, and the names their events
-- are reported under (sbench.event_type).  tpcc.lua's report section names
-- them: change both together.
M.types = { "new_order", "payment", "order_status", "delivery",
            "stock_level" }
-- A New-Order rolled back by its unused item is reported apart.
M.ROLLBACK_TYPE = "new_order_rollback"
-- A Delivery that found no new order in at least one of its districts:
-- one event of this type instead of `delivery`, its units the districts
-- skipped (clause 2.7.4.2: reported when more than 1%, or more than one,
-- of the Deliveries skip); the report counts it as a Delivery too.
M.SKIPPED_TYPE = "delivery_skipped"

-- Population per warehouse (clause 4.3.3.1).
M.DISTRICTS = 10
M.CUSTOMERS = 3000      -- per district; also the orders per district
M.NEW_ORDERS = 900      -- the last 900 orders of a district are new
M.FIRST_NEW_ORDER = M.CUSTOMERS - M.NEW_ORDERS + 1   -- 2101

-- NURand's run-time constants C (clause 2.1.6): the customer last name's
-- for the load and for the run differ by 66, within [65..119] and neither
-- 96 nor 112 (clause 2.1.6.1); the others are the same at load and run.
M.C_LAST_LOAD = 157
M.C_LAST_RUN = 223
M.C_ID = 259
M.C_ITEM = 7911

-- Stops with one line (a user error: no Lua traceback after it).
local plain_error = { __tostring = function(e) return e.message end }
local function fail(fmt, ...)
   error(setmetatable({ message = string.format(fmt, ...),
                        no_traceback = true }, plain_error), 0)
end
M.fail = fail

-- The settings: every option, checked.  Bad values stop with one line.
function M.settings()
   local o, s = sbench.opt, {}
   for name in pairs(sbench.cmdline.options) do s[name] = o[name] end
   s.threads = o.threads or 1
   -- --clients=0 (the default): one client per thread
   s.clients = (o.clients or 0) > 0 and o.clients or s.threads
   s.keying = o.keying or o.tpcc_keying
   for _, k in ipairs({ "warehouses", "tables", "items" }) do
      if math.type(s[k]) ~= "integer" or s[k] < 1 then
         fail("invalid --%s=%s: expected a whole number of at least 1", k,
              tostring(s[k]))
      end
   end
   if s.items < 10 or s.items > 100000000 then
      fail("invalid --items=%d: expected 10 to 100000000", s.items)
   end
   local mix, total = {}, 0
   if type(s.mix) ~= "table" or #s.mix ~= #M.types then
      fail("invalid --mix: expected %d percentages (New-Order, Payment, " ..
              "Order-Status, Delivery, Stock-Level), e.g. --mix=45,43,4,4,4",
           #M.types)
   end
   for i, v in ipairs(s.mix) do
      local n = math.tointeger(tonumber(v))
      if n == nil or n < 0 then
         fail("invalid --mix value '%s': expected whole numbers of at " ..
                 "least 0", tostring(v))
      end
      mix[i], total = n, total + n
   end
   if total == 0 then fail("invalid --mix: every weight is 0") end
   s.mix, s.mix_total = mix, total
   local e = s.mysql_storage_engine
   if type(e) ~= "string" or not e:match("^[%a_][%w_]*$") then
      fail("invalid --mysql-storage-engine=%s: expected a plain identifier",
           tostring(e))
   end
   return s
end

-- Connects: the connection, the statements of its dialect, the settings.
function M.connect()
   local s = M.settings()
   local con = sbench.sql.driver():connect()
   return con, tpcc_sql.new(con:dialect(), s), s
end

-- Runs a statement, freeing its result.
M.exec = oltp_sql.exec

-- Whether table t of set n exists.
function M.table_exists(con, q, t, n)
   return oltp_sql.exists(con, q.table_exists(t, n), q.probe_table(t, n))
end

----------------------------------------------------------------------------
-- random values (clause 2.1.6, 4.3.2)
----------------------------------------------------------------------------

local uniform = sbench.rand.uniform

-- NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
function M.nurand(a, c, x, y)
   return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x
end

-- Customer last names: the syllables of a number's three digits (clause
-- 4.3.2.3), for 0..999.
local syllables = { [0] = "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE",
                    "ANTI", "CALLY", "ATION", "EING" }
M.last_names = {}
for i = 0, 999 do
   M.last_names[i] = syllables[i // 100] .. syllables[(i // 10) % 10] ..
      syllables[i % 10]
end

-- A last name for the run: NURand(255, 0, 999) with the run's C.
function M.run_last_name()
   return M.last_names[M.nurand(255, M.C_LAST_RUN, 0, 999)]
end

-- A random a-string of min..max characters, with "ORIGINAL" somewhere in
-- it 10% of the time (I_DATA, S_DATA: clause 4.3.3.1).
function M.data_string(min, max)
   local s = sbench.rand.varstring(min, max)
   if uniform(1, 10) == 1 then
      local pos = uniform(1, #s - 7)
      s = s:sub(1, pos - 1) .. "ORIGINAL" .. s:sub(pos + 8)
   end
   return s
end

-- Money with two decimals as text ("1234.56"), from whole cents.
function M.money(cents)
   return string.format("%d.%02d", cents // 100, cents % 100)
end

-- A fraction with four decimals as text ("0.1234"), from 1/10000ths.
function M.rate4(n)
   return string.format("0.%04d", n)
end

return M
