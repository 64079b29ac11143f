-- tpcc: a TPC-C-like workload, written from the TPC-C specification
-- (revision 5.11).  Not an audited TPC-C: no terminals, no response-time
-- constraints, and its numbers are not tpmC results.
--
--   sbench tpcc prepare --warehouses=10 --threads=4   # parallel load
--   sbench tpcc run --warehouses=10 --threads=16 --time=300
--   sbench tpcc check --warehouses=10                 # clause 3.3.2
--   sbench tpcc cleanup
--
-- The parts: tpcc_common (options, random values), tpcc_sql (the SQL per
-- dialect), tpcc_load (prepare, cleanup), tpcc_txn (the five
-- transactions), tpcc_check (consistency conditions).  Each event is one
-- transaction drawn from --mix, reported under its type (new_order,
-- payment, order_status, delivery, stock_level; a New-Order rolled back by
-- its unused item as new_order_rollback); the final report's TPC-C section
-- (NOPM, TPM, the rates of rollbacks and retries, each type's 90th
-- percentile against the specification's limit) is declared at the end as
-- data (sbench.report_section) and computed by the core from those types,
-- so `sbench merge` prints it too.

local common = require("tpcc_common")
local load = require("tpcc_load")
local check = require("tpcc_check")
local txn = require("tpcc_txn")

sbench.cmdline.commands = {
   prepare = { load.prepare, sbench.cmdline.PARALLEL_COMMAND },
   check = { check.check },
}

function cleanup()
   load.cleanup()
end

-- Before a run (control state, once): the tables hold the scale the
-- options say, so that the run draws only ids that exist.
function init()
   if sbench.cmdline.command ~= "run" then return end
   local con, q, s = common.connect()
   if s.keying and s.clients ~= s.threads then
      common.fail("tpcc: --keying sleeps in the worker thread: use " ..
                     "--clients equal to --threads with it")
   end
   for n = 1, s.tables do
      if not common.table_exists(con, q, "warehouse", n) then
         common.fail("tpcc: table '%s' does not exist: run 'sbench tpcc " ..
                        "prepare' with the same --tables/--warehouses " ..
                        "first", q.table_name("warehouse", n))
      end
      local count, max = con:query_row(q.count_warehouses(n))
      count, max = tonumber(count), tonumber(max)
      local items = tonumber((con:query_row(q.count_items(n))))
      if count ~= s.warehouses or max ~= s.warehouses then
         common.fail("tpcc: table set %d holds %s warehouses, " ..
                        "--warehouses=%d: give the scale prepare used", n,
                     tostring(count), s.warehouses)
      end
      if items ~= s.items then
         common.fail("tpcc: table set %d holds %s items, --items=%d: " ..
                        "give the value prepare used", n, tostring(items),
                     s.items)
      end
   end
   con:disconnect()
end

----------------------------------------------------------------------------
-- the run
----------------------------------------------------------------------------

local uniform = sbench.rand.uniform
local set_type = sbench.event_type or function() end
local types = common.types
local con, q, settings
local tables, warehouses
local cum = {}        -- cumulative mix weights
local mix_total
local run_txn = { txn.new_order, txn.payment, txn.order_status,
                  txn.delivery, txn.stock_level }

-- The transaction type of the next event (index into types).
local function draw_type()
   local r = uniform(1, mix_total)
   for k = 1, #cum do
      if r <= cum[k] then return k end
   end
   return #cum
end

-- A restarted event (deadlock, serialization failure) runs the same
-- transaction type on the same warehouse again: the terminal retries what
-- failed, so that retries do not shift the mix towards the transactions
-- that conflict less.
local pending_k, pending_n, pending_w
local DELIVERY = 4 -- index of txn.delivery, which returns the districts it skipped

function event()
   local k, n, w = pending_k, pending_n, pending_w
   if k == nil then
      n = tables > 1 and uniform(1, tables) or 1
      w = uniform(1, warehouses)
      k = draw_type()
      pending_k, pending_n, pending_w = k, n, w
   end
   set_type(types[k])
   local skipped = run_txn[k](n, w)
   if k == DELIVERY and skipped > 0 then set_type(common.SKIPPED_TYPE, skipped) end
   pending_k = nil
end

-- --keying / --tpcc-keying: the specification's terminals: the keying
-- time before and the think time after each transaction (clause 5.2.5.7;
-- think times negative-exponential, truncated at 10x their mean, clause
-- 5.2.5.4), outside the measured event, on a home warehouse and district.  A script
-- loop (thread_run) measures only the transaction; a retryable error rolls
-- back and runs it again.
local keying_s = { 18, 3, 2, 2, 2 }
local think_s = { 12, 12, 10, 5, 5 }

local function keyed_loop()
   local usleep = require("ffi").C.usleep
   local clock = sbench.diag and sbench.diag.now or os.time -- seconds, fractional
   local limit = sbench.opt.time or 0
   local deadline = limit > 0 and clock() + limit or math.huge
   -- sleeps in steps of at most 0.1 s and stops at the run's end (--time)
   local function pause(seconds)
      local till = math.min(clock() + seconds, deadline)
      local left = till - clock()
      while left > 0 do
         usleep(math.floor(math.min(left, 0.1) * 1e6))
         left = till - clock()
      end
   end
   -- this thread is one terminal with a home warehouse (clause 2.4.1.1:
   -- W_ID constant for the terminal; terminals dealt round-robin over the
   -- warehouses of every table set) and its own Stock-Level district
   -- (clause 2.8.1.1: (W_ID, D_ID) constant per terminal)
   local all = warehouses * tables
   local home = sbench.tid % all
   local n, w = home // warehouses + 1, home % warehouses + 1
   local district = (sbench.tid // all) % common.DISTRICTS + 1
   while sbench.more_events() do
      local k = draw_type()
      pause(keying_s[k])
      if clock() >= deadline then break end
      sbench.event_start()
      set_type(types[k])
      while true do
         local ok, err = pcall(run_txn[k], n, w, district)
         if ok then
            if k == DELIVERY and err > 0 then set_type(common.SKIPPED_TYPE, err) end
            break
         end
         if type(err) ~= "table" or err.class ~= "retry" then
            error(err, 0)
         end
         pcall(con.rollback, con)
      end
      sbench.event_stop()
      local mean = think_s[k]
      pause(math.min(-math.log(1 - sbench.rand.uniform_double()) * mean,
                     10 * mean))
   end
end

function thread_init()
   con, q, settings = common.connect()
   tables, warehouses = settings.tables, settings.warehouses
   mix_total = settings.mix_total
   local acc = 0
   for k, v in ipairs(settings.mix) do
      acc = acc + v
      cum[k] = acc
   end
   txn.open(con, q, settings)
   if settings.keying then thread_run = keyed_loop end
end

function thread_done()
   txn.close()
   con:disconnect()
end

-- The core reconnected after a lost connection: prepare again.
sbench.hooks = sbench.hooks or {}
function sbench.hooks.before_restart_event(err)
   if type(err) == "table" and err.class == "lost" then
      txn.close(true)
      txn.open(con, q, settings)
   end
end

-- The report's TPC-C section, computed by the core from the event types
-- (core/report_sections.c), so `sbench merge` prints it too; a Delivery
-- that skipped a district is an event of its own type (delivery_skipped)
-- whose units are the districts it skipped (sbench.event_type's second
-- argument), out of the 10 each Delivery delivers.  Clause 2.7.4.2: the
-- skipped Deliveries must be reported when more than 1%, or more than
-- one, whichever is greater, of the Delivery transactions skip, and the
-- result must show the share of skipped Deliveries and of skipped
-- districts.  A skipped Delivery is a Delivery: it is in the Delivery line
-- of the mix ("delivery+delivery_skipped", one line) and in its 90th
-- percentile.  The response-time limits are clause 5.2.5.4's 90th
-- percentiles; a Delivery here runs whole (no deferred queue), so its
-- limit is the interactive 5 s.
local ALL_NO = "new_order," .. common.ROLLBACK_TYPE
local DELIVERIES = "delivery," .. common.SKIPPED_TYPE
local limits = {
   {"new_order", "New-Order", 5000}, {"payment", "Payment", 5000},
   {"order_status", "Order-Status", 5000}, {DELIVERIES, "Delivery", 5000},
   {"stock_level", "Stock-Level", 20000},
}
local rows = {
   {kind = "per_minute", label = "NOPM (New-Orders committed/min):", types = "new_order"},
   {kind = "per_minute", label = "TPM (transactions/min):", types = "*"},
   {kind = "per_minute", label = "tpmC-style (all New-Orders/min):", types = ALL_NO},
   {kind = "share", label = "New-Orders rolled back:", types = common.ROLLBACK_TYPE, of = ALL_NO},
   -- clause 2.7.4.2: the Deliveries that skipped, at most 1% or one
   {kind = "share", label = "Deliveries that skipped a district:", types = common.SKIPPED_TYPE,
    of = DELIVERIES, limit_pct = 1, limit_count = 1},
   {kind = "share", label = "District deliveries skipped:", types = common.SKIPPED_TYPE,
    units = true, of = DELIVERIES, of_each = common.DISTRICTS},
   {kind = "mix", label = "mix, retries (deadlocks, serialization failures) and failures per type:",
    types = "new_order,payment,order_status,delivery+" .. common.SKIPPED_TYPE .. ",stock_level," ..
       common.ROLLBACK_TYPE},
}
for _, l in ipairs(limits) do
   rows[#rows + 1] = {kind = "percentile", label = l[2] .. " 90th percentile:", types = l[1],
                      percentile = 90, limit_ms = l[3]}
end
sbench.report_section{title = "TPC-C (a TPC-C-like workload, not an audited tpmC):", rows = rows}

-- After the report: the rules of the specification this run does not
-- follow, in one line.
function sbench.hooks.report_extra()
   local s = common.settings()
   local broken = { "no audited terminals or RTE (clause 5)", "response-time limits reported, not enforced" }
   if not s.keying then
      table.insert(broken, 1, "no keying/think times and no home warehouse per terminal (--tpcc-keying=on)")
   end
   local terminals = s.clients
   if terminals ~= 10 * s.warehouses * s.tables then
      broken[#broken + 1] = string.format("%d terminals for %d warehouse(s), not 10 per warehouse (clause 4.2.2)",
                                          terminals, s.warehouses * s.tables)
   end
   if s.items ~= 100000 then broken[#broken + 1] = string.format("%d items, not 100,000 (clause 1.4.1)", s.items) end
   if table.concat(s.mix, ",") ~= "45,43,4,4,4" then
      broken[#broken + 1] = "--mix " .. table.concat(s.mix, ",") .. ", not the minimum mix of clause 5.2.3"
   end
   print("TPC-C rules this run does not follow: " .. table.concat(broken, "; ") .. ".")
   print("")
end
