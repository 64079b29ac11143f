-- tpcc_load: `sbench tpcc prepare` and `cleanup`.
--
-- prepare is a PARALLEL_COMMAND in four phases separated by
-- sbench.barrier() (every thread waits there for the others):
--   1. thread 0 creates the tables of every table set;
--   2. the threads load: the work is one ITEM table per set and one
--      warehouse at a time (its row, STOCK, DISTRICT, CUSTOMER, HISTORY,
--      ORDERS, ORDER_LINE, NEW_ORDER), dealt round-robin, each table through
--      the driver's bulk path (con:bulk_load_*: COPY, LOAD DATA LOCAL, array
--      binding);
--   3. primary keys and indexes, one table at a time per thread, the
--      largest first;
--   4. foreign keys, one table set per thread.
-- The population follows clause 4.3.3.1 of the TPC-C specification
-- (revision 5.11); --items below 100000 makes a smaller, non-conformant
-- ITEM and STOCK.

local common = require("tpcc_common")
local tpcc_sql = require("tpcc_sql")

local M = {}

local rand = sbench.rand
local uniform, varstring, rstring = rand.uniform, rand.varstring, rand.string
local nurand, last_names = common.nurand, common.last_names
local money, rate4, data_string = common.money, common.rate4,
   common.data_string
local DISTRICTS, CUSTOMERS = common.DISTRICTS, common.CUSTOMERS
local FIRST_NEW_ORDER = common.FIRST_NEW_ORDER

-- The column types bulk_load_init takes for table t: INT for whole
-- numbers, DATETIME for timestamps, CHAR for text and for decimals (sent
-- as exact text such as "1234.56": a double's 17 digits would be rounded
-- by some servers and refused by others).
local function bulk_types(t)
   local T = sbench.sql.type
   local ints = {
      w_id = 1, d_id = 1, d_w_id = 1, d_next_o_id = 1, c_id = 1, c_d_id = 1,
      c_w_id = 1, c_payment_cnt = 1, c_delivery_cnt = 1, h_c_id = 1,
      h_c_d_id = 1, h_c_w_id = 1, h_d_id = 1, h_w_id = 1, o_id = 1,
      o_d_id = 1, o_w_id = 1, o_c_id = 1, o_carrier_id = 1, o_ol_cnt = 1,
      o_all_local = 1, no_o_id = 1, no_d_id = 1, no_w_id = 1, ol_o_id = 1,
      ol_d_id = 1, ol_w_id = 1, ol_number = 1, ol_i_id = 1,
      ol_supply_w_id = 1, ol_quantity = 1, i_id = 1, i_im_id = 1, s_i_id = 1,
      s_w_id = 1, s_quantity = 1, s_ytd = 1, s_order_cnt = 1,
      s_remote_cnt = 1,
   }
   local times = { c_since = 1, h_date = 1, o_entry_d = 1, ol_delivery_d = 1 }
   local types = {}
   for i, c in ipairs(tpcc_sql.column_names(t)) do
      types[i] = ints[c] and T.INT or times[c] and T.DATETIME or T.CHAR
   end
   return types
end

local function begin_load(con, q, t, n)
   con:bulk_load_init(q.table_name(t, n), tpcc_sql.column_names(t),
                      bulk_types(t))
end

-- A street, city, state and zip (clause 4.3.2.7's address).
local function address()
   return varstring(10, 20), varstring(10, 20), varstring(10, 20),
      rstring("@@"), rstring("####") .. "11111"
end

local function load_items(con, q, n, items)
   begin_load(con, q, "item", n)
   local row = con.bulk_load_row
   for i = 1, items do
      row(con, i, uniform(1, 10000), varstring(14, 24),
          money(uniform(100, 10000)), data_string(26, 50))
   end
   con:bulk_load_done()
end

local function load_warehouse(con, q, n, w, items, now)
   local row = con.bulk_load_row
   begin_load(con, q, "warehouse", n)
   local s1, s2, city, state, zip = address()
   row(con, w, varstring(6, 10), s1, s2, city, state, zip,
       rate4(uniform(0, 2000)), "300000.00")
   con:bulk_load_done()

   begin_load(con, q, "stock", n)
   for i = 1, items do
      row(con, i, w, uniform(10, 100),
          varstring(24, 24), varstring(24, 24), varstring(24, 24),
          varstring(24, 24), varstring(24, 24), varstring(24, 24),
          varstring(24, 24), varstring(24, 24), varstring(24, 24),
          varstring(24, 24), 0, 0, 0, data_string(26, 50))
   end
   con:bulk_load_done()

   begin_load(con, q, "district", n)
   for d = 1, DISTRICTS do
      s1, s2, city, state, zip = address()
      row(con, d, w, varstring(6, 10), s1, s2, city, state, zip,
          rate4(uniform(0, 2000)), "30000.00", CUSTOMERS + 1)
   end
   con:bulk_load_done()

   begin_load(con, q, "customer", n)
   for d = 1, DISTRICTS do
      for c = 1, CUSTOMERS do
         local last
         if c <= 1000 then
            last = last_names[c - 1]
         else
            last = last_names[nurand(255, common.C_LAST_LOAD, 0, 999)]
         end
         s1, s2, city, state, zip = address()
         row(con, c, d, w, varstring(8, 16), "OE", last, s1, s2, city, state,
             zip, rstring("################"), now,
             uniform(1, 10) == 1 and "BC" or "GC", "50000.00",
             rate4(uniform(0, 5000)), "-10.00", "10.00", 1, 0,
             varstring(300, 500))
      end
   end
   con:bulk_load_done()

   begin_load(con, q, "history", n)
   for d = 1, DISTRICTS do
      for c = 1, CUSTOMERS do
         row(con, c, d, w, d, w, now, "10.00", varstring(12, 24))
      end
   end
   con:bulk_load_done()

   -- Orders: customers in a random permutation per district; each order's
   -- line count is kept for its ORDER_LINE rows.
   local ol_cnt, perm = {}, {}
   begin_load(con, q, "orders", n)
   for d = 1, DISTRICTS do
      for i = 1, CUSTOMERS do perm[i] = i end
      for i = CUSTOMERS, 2, -1 do
         local j = uniform(1, i)
         perm[i], perm[j] = perm[j], perm[i]
      end
      for o = 1, CUSTOMERS do
         local cnt = uniform(5, 15)
         ol_cnt[(d - 1) * CUSTOMERS + o] = cnt
         local delivered = o < FIRST_NEW_ORDER
         row(con, o, d, w, perm[o], now, delivered and uniform(1, 10) or nil,
             cnt, 1)
      end
   end
   con:bulk_load_done()

   begin_load(con, q, "order_line", n)
   for d = 1, DISTRICTS do
      for o = 1, CUSTOMERS do
         local delivered = o < FIRST_NEW_ORDER
         for l = 1, ol_cnt[(d - 1) * CUSTOMERS + o] do
            row(con, o, d, w, l, uniform(1, items), w,
                delivered and now or nil, 5,
                delivered and "0.00" or money(uniform(1, 999999)),
                varstring(24, 24))
         end
      end
   end
   con:bulk_load_done()

   begin_load(con, q, "new_order", n)
   for d = 1, DISTRICTS do
      for o = FIRST_NEW_ORDER, CUSTOMERS do row(con, o, d, w) end
   end
   con:bulk_load_done()
end

-- Rows one warehouse adds (ORDER_LINE: its expected 10 per order).
local function warehouse_rows(items)
   local per_d = CUSTOMERS * 3 + CUSTOMERS * 10 + common.NEW_ORDERS
   return 1 + items + DISTRICTS * (1 + per_d)
end

-- Phase 1 (thread 0): every table of every set, refusing to overwrite
-- without --force.
local function create_tables(con, q, s)
   for n = 1, s.tables do
      for _, t in ipairs(tpcc_sql.tables) do
         if common.table_exists(con, q, t, n) then
            if not s.force then
               common.fail("table '%s' already exists: run cleanup " ..
                              "first, or prepare with --force to drop " ..
                              "and recreate it", q.table_name(t, n))
            end
         end
      end
   end
   if s.force then M.drop_tables(con, q, s, true) end
   for n = 1, s.tables do
      print(string.format("Creating the tables of set %d (%d warehouse%s, " ..
                             "%d items)...", n, s.warehouses,
                          s.warehouses > 1 and "s" or "", s.items))
      for _, t in ipairs(tpcc_sql.tables) do
         common.exec(con, q.create_table(t, n))
      end
   end
end

-- Tables by size, largest first: the index builds are dealt in this order.
local by_size = { "order_line", "stock", "customer", "history", "orders",
                  "item", "new_order", "district", "warehouse" }

function M.prepare()
   local con, q, s = common.connect()
   local tid, threads = sbench.tid or 0, s.threads
   local barrier = sbench.barrier
   if tid == 0 then create_tables(con, q, s) end
   barrier()

   -- Phase 2: units dealt round-robin: for each set, its ITEM, then its
   -- warehouses.
   local units = {}
   for n = 1, s.tables do
      units[#units + 1] = { n, 0 }
      for w = 1, s.warehouses do units[#units + 1] = { n, w } end
   end
   local now = os.date("%Y-%m-%d %H:%M:%S")
   local mine = {}
   for k = tid + 1, #units, threads do mine[#mine + 1] = units[k] end
   local expect = 0
   for _, u in ipairs(mine) do
      expect = expect + (u[2] == 0 and s.items or warehouse_rows(s.items))
   end
   sbench.progress.expect(expect)
   for _, u in ipairs(mine) do
      local n, w = u[1], u[2]
      if w == 0 then
         load_items(con, q, n, s.items)
      else
         load_warehouse(con, q, n, w, s.items, now)
      end
   end
   barrier()

   -- Phase 3: keys and indexes, one table at a time.
   local k = 0
   for n = 1, s.tables do
      for _, t in ipairs(by_size) do
         if k % threads == tid then
            for _, sql in ipairs(q.create_indexes(t, n)) do
               common.exec(con, sql)
            end
         end
         k = k + 1
      end
   end
   barrier()

   -- Phase 4: foreign keys, one set per thread.
   for n = tid + 1, s.tables, threads do
      local fks = q.add_foreign_keys(n)
      if #fks > 0 and tid == 0 and n == 1 then
         print("Adding foreign keys...")
      end
      for _, sql in ipairs(fks) do common.exec(con, sql) end
   end
   con:disconnect()
end

-- Drops the tables of every set (children first).  `quiet`: no messages.
function M.drop_tables(con, q, s, quiet)
   for n = 1, s.tables do
      if not quiet then
         print(string.format("Dropping the tables of set %d...", n))
      end
      for i = #tpcc_sql.tables, 1, -1 do
         local t = tpcc_sql.tables[i]
         if q.drop_if_exists or common.table_exists(con, q, t, n) then
            common.exec(con, q.drop_table(t, n))
         end
      end
   end
end

function M.cleanup()
   local con, q, s = common.connect()
   M.drop_tables(con, q, s)
   con:disconnect()
end

return M
