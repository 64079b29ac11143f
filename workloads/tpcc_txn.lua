-- tpcc_txn: the five TPC-C transactions (specification revision 5.11,
-- clauses 2.4 to 2.8) on one connection, with their statements prepared
-- once per table set.
--
--   local txn = require("tpcc_txn")
--   txn.open(con, q, settings)     -- thread_init: prepares the statements
--   txn.new_order(n, w)            -- one transaction on set n, warehouse w
--   txn.close()
--
-- Every transaction runs between con:begin() and con:commit(); an error
-- raised by a statement unwinds to the event loop, which rolls back and
-- runs the event again when the error is a retryable one (deadlock,
-- serialization failure).  The hot path only sets parameters and executes
-- prepared statements; strings are built only where the specification
-- makes new text (C_DATA of a bad-credit customer, H_DATA).
--
-- Choices where the specification leaves room, as HammerDB and BenchBase
-- make them: the home warehouse is drawn per transaction; a New-Order
-- locks its stock rows in (supply warehouse, item) order, which avoids
-- deadlocks between New-Orders without changing what they write; Delivery
-- is one transaction over the ten districts and skips a district only
-- when it holds no new order (one another Delivery took first is
-- replaced by the next oldest); Stock-Level's district is
-- drawn per transaction.

local common = require("tpcc_common")
local tpcc_sql = require("tpcc_sql")

local M = {}

local uniform = sbench.rand.uniform
local nurand = common.nurand
local DISTRICTS, CUSTOMERS = common.DISTRICTS, common.CUSTOMERS
local C_ID, C_ITEM = common.C_ID, common.C_ITEM
local run_last_name = common.run_last_name

-- A column value as an integer (drivers return integers as integers, but
-- an aggregate may come back as text or a float).
local function int(v)
   return math.tointeger(tonumber(v))
end

-- Parameter types of each statement: i = INT, d = DOUBLE, s = VARCHAR.
local signature = {
   no_warehouse = "i", no_district = "ii", no_district_update = "ii",
   no_customer = "iii", no_order_insert = "iiiiii",
   no_new_order_insert = "iii", no_item = "i", no_stock = "ii",
   no_stock_update = "iiiii", no_order_line_insert = "iiiiiiids",
   pay_warehouse_update = "di", pay_warehouse = "i",
   pay_district_update = "dii", pay_district = "ii",
   customer_by_name = "iis", pay_customer = "iii",
   pay_customer_update = "ddiii", pay_customer_data = "iii",
   pay_customer_data_update = "siii", pay_history_insert = "iiiiids",
   os_customer = "iii", os_order = "iii", os_order_lines = "iii",
   dl_new_order = "ii", dl_new_order_delete = "iii", dl_order = "iii",
   dl_order_update = "iiii", dl_order_line_update = "iii",
   dl_order_line_sum = "iii", dl_customer_update = "diii",
   sl_district = "ii", sl_stock_count = "iiiiii",
}

-- Per connection state (module locals: a client has its own copy).
local con, settings
local S = {}            -- S[n][name] = { st = stmt, p = {params}, n = #p }
local warehouses, items
local param_set, stmt_execute
local set_type = sbench.event_type or function() end
local ROLLBACK_TYPE = common.ROLLBACK_TYPE

local function prepare(sql, name, sig)
   local T = sbench.sql.type
   -- named: the report shows every statement's count and latency
   local st = con:prepare(sql, name)
   local ps = {}
   for i = 1, #sig do
      local c = sig:sub(i, i)
      if c == "i" then
         ps[i] = st:bind_create(T.INT)
      elseif c == "d" then
         ps[i] = st:bind_create(T.DOUBLE)
      else
         ps[i] = st:bind_create(T.VARCHAR, 500)
      end
   end
   if #ps > 0 then st:bind_param(table.unpack(ps)) end
   stmt_execute = st.execute
   if ps[1] then param_set = ps[1].set end
   return { st = st, p = ps, n = #ps }
end

-- Prepares every statement of every table set on c.
function M.open(c, q, s)
   con, settings = c, s
   warehouses, items = s.warehouses, s.items
   for n = 1, s.tables do
      local set = {}
      for _, name in ipairs(tpcc_sql.statement_names) do
         if name == "no_stock" then
            set.no_stock = {}
            for d = 1, DISTRICTS do
               set.no_stock[d] = prepare(q.no_stock(n, d), name,
                                         signature[name])
            end
         else
            set[name] = prepare(q[name](n), name, signature[name])
         end
      end
      S[n] = set
   end
end

-- Closes the statements.  `quiet`: ignore errors (the connection is gone).
function M.close(quiet)
   for n, set in pairs(S) do
      for name, e in pairs(set) do
         local list = name == "no_stock" and e or { e }
         for _, x in ipairs(list) do
            if quiet then pcall(x.st.close, x.st) else x.st:close() end
         end
      end
      S[n] = nil
   end
end

-- Executes statement e with up to nine parameters; returns its result.
local function exec(e, a, b, c, d, f, g, h, i, j)
   local p, n = e.p, e.n
   if n >= 1 then param_set(p[1], a) end
   if n >= 2 then param_set(p[2], b) end
   if n >= 3 then param_set(p[3], c) end
   if n >= 4 then param_set(p[4], d) end
   if n >= 5 then param_set(p[5], f) end
   if n >= 6 then param_set(p[6], g) end
   if n >= 7 then param_set(p[7], h) end
   if n >= 8 then param_set(p[8], i) end
   if n >= 9 then param_set(p[9], j) end
   return stmt_execute(e.st)
end

-- The first row of statement e's result (nil when none); the rest of the
-- result is dropped.
local function first_row(e, a, b, c, d, f, g)
   local rs = exec(e, a, b, c, d, f, g)
   local row = rs:fetch_row()
   rs:free()
   return row
end

-- A warehouse other than w (w itself when there is only one).
local function other_warehouse(w)
   if warehouses == 1 then return w end
   local o = uniform(1, warehouses - 1)
   if o >= w then o = o + 1 end
   return o
end

-- The customer a Payment or Order-Status works on: 60% by last name (the
-- one in the middle of those with that name, by first name: clause
-- 2.5.2.2), otherwise by NURand id.  nil when no customer has the name.
local function pick_customer(set, w, d)
   if uniform(1, 100) > 60 then
      return nurand(1023, C_ID, 1, CUSTOMERS)
   end
   local rs = exec(set.customer_by_name, w, d, run_last_name())
   local ids = {}
   while true do
      local row = rs:fetch_row()
      if row == nil then break end
      ids[#ids + 1] = row[1]
   end
   rs:free()
   if #ids == 0 then return nil end
   return int(ids[(#ids + 1) // 2])
end

----------------------------------------------------------------------------
-- New-Order (clause 2.4)
----------------------------------------------------------------------------

-- Scratch arrays for the order lines (reused: no table per transaction).
local line_item, line_supply, line_qty = {}, {}, {}

function M.new_order(n, w)
   local set = S[n]
   local d = uniform(1, DISTRICTS)
   local c = nurand(1023, C_ID, 1, CUSTOMERS)
   local ol_cnt = uniform(5, 15)
   local rollback = uniform(1, 100) == 1
   local all_local = 1
   for l = 1, ol_cnt do
      local item = nurand(8191, C_ITEM, 1, items)
      if rollback and l == ol_cnt then item = items + 1 end -- unused
      local supply = w
      if warehouses > 1 and uniform(1, 100) == 1 then
         supply = other_warehouse(w)
         all_local = 0
      end
      -- insertion sort by (supply, item): the stock rows' lock order
      local k = l
      while k > 1 and (line_supply[k - 1] > supply or
                       (line_supply[k - 1] == supply and
                        line_item[k - 1] > item)) do
         line_item[k], line_supply[k], line_qty[k] =
            line_item[k - 1], line_supply[k - 1], line_qty[k - 1]
         k = k - 1
      end
      line_item[k], line_supply[k], line_qty[k] = item, supply, uniform(1, 10)
   end

   con:begin()
   local w_tax = first_row(set.no_warehouse, w)[1]
   local drow = first_row(set.no_district, w, d)
   local o_id = int(drow[2])
   exec(set.no_district_update, w, d)
   local crow = first_row(set.no_customer, w, d, c)
   exec(set.no_order_insert, o_id, d, w, c, ol_cnt, all_local)
   exec(set.no_new_order_insert, o_id, d, w)
   local stock = set.no_stock[d]
   local total = 0
   for l = 1, ol_cnt do
      local item, supply, qty = line_item[l], line_supply[l], line_qty[l]
      local irow = first_row(set.no_item, item)
      if irow == nil then
         -- the unused item: the whole order is rolled back (2.4.2.3)
         con:rollback()
         set_type(ROLLBACK_TYPE)
         return
      end
      local srow = first_row(stock, supply, item)
      local s_qty = int(srow[1])
      if s_qty >= qty + 10 then
         s_qty = s_qty - qty
      else
         s_qty = s_qty - qty + 91
      end
      exec(set.no_stock_update, s_qty, qty, supply ~= w and 1 or 0, supply,
           item)
      local amount = qty * tonumber(irow[1])
      total = total + amount
      exec(set.no_order_line_insert, o_id, d, w, l, item, supply, qty, amount,
           srow[3])
   end
   con:commit()
   -- what the terminal would show (clause 2.4.3.3)
   return total * (1 - tonumber(crow[1])) *
      (1 + tonumber(w_tax) + tonumber(drow[1]))
end

----------------------------------------------------------------------------
-- Payment (clause 2.5)
----------------------------------------------------------------------------

function M.payment(n, w)
   local set = S[n]
   local d = uniform(1, DISTRICTS)
   local c_w, c_d = w, d
   if warehouses > 1 and uniform(1, 100) > 85 then
      c_w, c_d = other_warehouse(w), uniform(1, DISTRICTS)
   end
   local amount = uniform(100, 500000) / 100

   con:begin()
   exec(set.pay_warehouse_update, amount, w)
   local wrow = first_row(set.pay_warehouse, w)
   exec(set.pay_district_update, amount, w, d)
   local drow = first_row(set.pay_district, w, d)
   local c = pick_customer(set, c_w, c_d)
   if c == nil then
      con:rollback()
      return
   end
   local crow = first_row(set.pay_customer, c_w, c_d, c)
   exec(set.pay_customer_update, amount, amount, c_w, c_d, c)
   if crow[11] == "BC" then
      -- bad credit: the payment goes in front of C_DATA (clause 2.5.2.2)
      local old = first_row(set.pay_customer_data, c_w, c_d, c)[1]
      local data = string.format("%d %d %d %d %d %.2f|", c, c_d, c_w, d, w,
                                 amount) .. old
      exec(set.pay_customer_data_update, data:sub(1, 500), c_w, c_d, c)
   end
   exec(set.pay_history_insert, c, c_d, c_w, d, w, amount,
        wrow[1] .. "    " .. drow[1])
   con:commit()
end

----------------------------------------------------------------------------
-- Order-Status (clause 2.6)
----------------------------------------------------------------------------

function M.order_status(n, w)
   local set = S[n]
   local d = uniform(1, DISTRICTS)
   con:begin()
   local c = pick_customer(set, w, d)
   if c ~= nil then
      first_row(set.os_customer, w, d, c)
      local orow = first_row(set.os_order, w, d, c)
      if orow ~= nil then
         local rs = exec(set.os_order_lines, w, d, int(orow[1]))
         while rs:fetch_row() do end
         rs:free()
      end
   end
   con:commit()
end

----------------------------------------------------------------------------
-- Delivery (clause 2.7)
----------------------------------------------------------------------------

-- A district's oldest new order, taken (its NEW_ORDER row deleted): its
-- O_ID, or nil when the district has none, so that a Delivery skips a
-- district only when it holds no new order (clause 2.7.4.2).  On
-- PostgreSQL and MySQL the select locks the row (tpcc_sql's
-- dl_new_order), so the DELETE always finds it; elsewhere a concurrent
-- Delivery may take the row between the two, the DELETE then deletes
-- nothing and the next oldest is selected again.  Each lost race means
-- another Delivery took one more order, so the loop ends; MAX_TAKE bounds
-- it all the same.
local MAX_TAKE = 1000

local function take_oldest(set, w, d)
   for _ = 1, MAX_TAKE do
      local row = first_row(set.dl_new_order, w, d)
      local o_id = row and int(row[1])
      if o_id == nil then return nil end
      if exec(set.dl_new_order_delete, w, d, o_id).affected_rows > 0 then
         return o_id
      end
   end
   common.fail("tpcc: Delivery lost the oldest new order of warehouse %d " ..
                  "district %d to other Deliveries %d times in a row", w, d,
               MAX_TAKE)
end

-- Returns how many districts had no order to deliver.
function M.delivery(n, w)
   local set = S[n]
   local carrier = uniform(1, 10)
   local skipped = 0
   con:begin()
   for d = 1, DISTRICTS do
      local o_id = take_oldest(set, w, d)
      if o_id then
         -- the update first: MySQL's REPEATABLE READ then shows this
         -- transaction's own row even when the order is newer than its
         -- snapshot (the order lines likewise, updated before their sum)
         exec(set.dl_order_update, carrier, w, d, o_id)
         local c = int(first_row(set.dl_order, w, d, o_id)[1])
         exec(set.dl_order_line_update, w, d, o_id)
         local sum = first_row(set.dl_order_line_sum, w, d, o_id)[1]
         exec(set.dl_customer_update, tonumber(sum) or 0, w, d, c)
      else
         skipped = skipped + 1
      end
   end
   con:commit()
   return skipped
end

----------------------------------------------------------------------------
-- Stock-Level (clause 2.8)
----------------------------------------------------------------------------

-- d: the terminal's own district (--tpcc-keying), else drawn.
function M.stock_level(n, w, d)
   local set = S[n]
   d = d or uniform(1, DISTRICTS)
   local threshold = uniform(10, 20)
   con:begin()
   local next_o = int(first_row(set.sl_district, w, d)[1])
   local count = first_row(set.sl_stock_count, w, d, next_o, next_o - 20, w,
                           threshold)[1]
   con:commit()
   return count
end

return M
