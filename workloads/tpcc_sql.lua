-- tpcc_sql: the SQL text of the tpcc workload, per SQL dialect.
--
-- A pure module, as oltp_sql is: it builds strings and never calls sbench,
-- so that a test can print all of it and compare it with the SQL it
-- expects (tests/lua/tpcc_db2.lua).  The nine tables of the TPC-C
-- specification (revision 5.11, clause 1.3), the statements of its five
-- transactions (clauses 2.4 to 2.8) and the queries of its consistency
-- conditions (clause 3.3.2).  Table set n (--tables) names its tables
-- warehouse<n>, district<n>, ...
--
--   local tpcc_sql = require("tpcc_sql")
--   local q = tpcc_sql.new("postgresql", { foreign_keys = true })
--   q.create_table("stock", 1)   --> "CREATE TABLE stock1 (...)"
--   q.no_stock(1, 3)             --> "SELECT s_quantity, ... FOR UPDATE"

local oltp_sql = require("oltp_sql")   -- the catalog queries

local M = {}

M.dialects = oltp_sql.dialects

-- The tables in creation order: every parent before its children, so
-- that dropping them in reverse never breaks a foreign key.
M.tables = { "warehouse", "item", "district", "customer", "history",
             "orders", "new_order", "stock", "order_line" }

-- Columns of each table, as {name, type}; types are abstract and mapped per
-- dialect by column_type.  "n?" marks a nullable column.
local columns = {
   warehouse = {
      { "w_id", "int" }, { "w_name", "varchar(10)" },
      { "w_street_1", "varchar(20)" }, { "w_street_2", "varchar(20)" },
      { "w_city", "varchar(20)" }, { "w_state", "char(2)" },
      { "w_zip", "char(9)" }, { "w_tax", "decimal(4,4)" },
      { "w_ytd", "decimal(12,2)" },
   },
   district = {
      { "d_id", "smallint" }, { "d_w_id", "int" },
      { "d_name", "varchar(10)" }, { "d_street_1", "varchar(20)" },
      { "d_street_2", "varchar(20)" }, { "d_city", "varchar(20)" },
      { "d_state", "char(2)" }, { "d_zip", "char(9)" },
      { "d_tax", "decimal(4,4)" }, { "d_ytd", "decimal(12,2)" },
      { "d_next_o_id", "int" },
   },
   customer = {
      { "c_id", "int" }, { "c_d_id", "smallint" }, { "c_w_id", "int" },
      { "c_first", "varchar(16)" }, { "c_middle", "char(2)" },
      { "c_last", "varchar(16)" }, { "c_street_1", "varchar(20)" },
      { "c_street_2", "varchar(20)" }, { "c_city", "varchar(20)" },
      { "c_state", "char(2)" }, { "c_zip", "char(9)" },
      { "c_phone", "char(16)" }, { "c_since", "timestamp" },
      { "c_credit", "char(2)" }, { "c_credit_lim", "decimal(12,2)" },
      { "c_discount", "decimal(4,4)" }, { "c_balance", "decimal(12,2)" },
      { "c_ytd_payment", "decimal(12,2)" }, { "c_payment_cnt", "int" },
      { "c_delivery_cnt", "int" }, { "c_data", "varchar(500)" },
   },
   history = {
      { "h_c_id", "int" }, { "h_c_d_id", "smallint" }, { "h_c_w_id", "int" },
      { "h_d_id", "smallint" }, { "h_w_id", "int" },
      { "h_date", "timestamp" }, { "h_amount", "decimal(6,2)" },
      { "h_data", "varchar(24)" },
   },
   orders = {
      { "o_id", "int" }, { "o_d_id", "smallint" }, { "o_w_id", "int" },
      { "o_c_id", "int" }, { "o_entry_d", "timestamp" },
      { "o_carrier_id", "n?smallint" }, { "o_ol_cnt", "smallint" },
      { "o_all_local", "smallint" },
   },
   new_order = {
      { "no_o_id", "int" }, { "no_d_id", "smallint" }, { "no_w_id", "int" },
   },
   order_line = {
      { "ol_o_id", "int" }, { "ol_d_id", "smallint" }, { "ol_w_id", "int" },
      { "ol_number", "smallint" }, { "ol_i_id", "int" },
      { "ol_supply_w_id", "int" }, { "ol_delivery_d", "n?timestamp" },
      { "ol_quantity", "smallint" }, { "ol_amount", "decimal(6,2)" },
      { "ol_dist_info", "char(24)" },
   },
   item = {
      { "i_id", "int" }, { "i_im_id", "int" }, { "i_name", "varchar(24)" },
      { "i_price", "decimal(5,2)" }, { "i_data", "varchar(50)" },
   },
   stock = {
      { "s_i_id", "int" }, { "s_w_id", "int" }, { "s_quantity", "smallint" },
      { "s_dist_01", "char(24)" }, { "s_dist_02", "char(24)" },
      { "s_dist_03", "char(24)" }, { "s_dist_04", "char(24)" },
      { "s_dist_05", "char(24)" }, { "s_dist_06", "char(24)" },
      { "s_dist_07", "char(24)" }, { "s_dist_08", "char(24)" },
      { "s_dist_09", "char(24)" }, { "s_dist_10", "char(24)" },
      { "s_ytd", "int" }, { "s_order_cnt", "int" }, { "s_remote_cnt", "int" },
      { "s_data", "varchar(50)" },
   },
}

-- Primary keys (history has none in the specification).
local primary_keys = {
   warehouse = "w_id",
   district = "d_w_id, d_id",
   customer = "c_w_id, c_d_id, c_id",
   orders = "o_w_id, o_d_id, o_id",
   new_order = "no_w_id, no_d_id, no_o_id",
   order_line = "ol_w_id, ol_d_id, ol_o_id, ol_number",
   item = "i_id",
   stock = "s_w_id, s_i_id",
}

-- Secondary indexes: customer by last name (Payment and Order-Status by
-- name), orders by customer (Order-Status's latest order).
local indexes = {
   customer = { { "idx_customer", "c_w_id, c_d_id, c_last, c_first" } },
   orders = { { "idx_orders", "o_w_id, o_d_id, o_c_id, o_id" } },
}

-- Foreign keys, {table, name, columns, parent, parent columns}.
local foreign_keys = {
   { "district", "fk_district_warehouse", "d_w_id", "warehouse", "w_id" },
   { "customer", "fk_customer_district", "c_w_id, c_d_id", "district",
     "d_w_id, d_id" },
   { "history", "fk_history_customer", "h_c_w_id, h_c_d_id, h_c_id",
     "customer", "c_w_id, c_d_id, c_id" },
   { "history", "fk_history_district", "h_w_id, h_d_id", "district",
     "d_w_id, d_id" },
   { "orders", "fk_orders_customer", "o_w_id, o_d_id, o_c_id", "customer",
     "c_w_id, c_d_id, c_id" },
   { "new_order", "fk_new_order_orders", "no_w_id, no_d_id, no_o_id",
     "orders", "o_w_id, o_d_id, o_id" },
   { "order_line", "fk_order_line_orders", "ol_w_id, ol_d_id, ol_o_id",
     "orders", "o_w_id, o_d_id, o_id" },
   { "order_line", "fk_order_line_stock", "ol_supply_w_id, ol_i_id",
     "stock", "s_w_id, s_i_id" },
   { "stock", "fk_stock_warehouse", "s_w_id", "warehouse", "w_id" },
   { "stock", "fk_stock_item", "s_i_id", "item", "i_id" },
}

-- Option values the SQL depends on, with the options' defaults.
M.defaults = { foreign_keys = true, mysql_storage_engine = "innodb" }

local function opt(opts, name)
   local v = opts and opts[name]
   if v == nil then return M.defaults[name] end
   return v
end

-- Names of the columns of table t, in order (what bulk loads list).
function M.column_names(t)
   local names = {}
   for i, c in ipairs(columns[t]) do names[i] = c[1] end
   return names
end

-- new(dialect, opts) -> a table of functions building the statements of
-- table set n.
function M.new(dialect, opts)
   oltp_sql.check_dialect(dialect)
   local engine = opt(opts, "mysql_storage_engine")
   oltp_sql.check_identifier("mysql_storage_engine", engine)
   local q = { dialect = dialect }
   -- SQLite cannot add constraints to an existing table: it gets its
   -- primary keys inline and no foreign keys.  MySQL/InnoDB clusters rows
   -- by the primary key: declared inline, the rows go in in key order;
   -- added after, the whole table would be rebuilt.  PostgreSQL and DB2
   -- build the key in one sorted pass after the load.
   local pk_inline = dialect == "mysql" or dialect == "sqlite"
   local use_fk = opt(opts, "foreign_keys") and dialect ~= "sqlite"
   q.foreign_keys = use_fk
   local for_update = ""
   if dialect == "postgresql" or dialect == "mysql" or dialect == "db2" then
      for_update = " FOR UPDATE"
   end
   q.for_update = for_update ~= ""

   local function column_type(ty)
      local null = ""
      if ty:sub(1, 2) == "n?" then
         ty = ty:sub(3)
      else
         null = " NOT NULL"
      end
      local s
      if ty == "int" then
         s = "INTEGER"
      elseif ty == "smallint" then
         s = "SMALLINT"
      elseif ty == "timestamp" then
         s = dialect == "mysql" and "DATETIME" or "TIMESTAMP"
      else
         s = ty:upper()
      end
      return s .. null
   end

   function q.table_name(t, n)
      return t .. n
   end

   function q.create_table(t, n)
      local cols = {}
      for i, c in ipairs(columns[t]) do
         cols[i] = "  " .. c[1] .. " " .. column_type(c[2])
      end
      if pk_inline and primary_keys[t] then
         cols[#cols + 1] = "  PRIMARY KEY (" .. primary_keys[t] .. ")"
      end
      local suffix = ""
      if dialect == "mysql" then
         suffix = " /*! ENGINE = " .. engine .. " */"
      end
      return "CREATE TABLE " .. t .. n .. " (\n" ..
         table.concat(cols, ",\n") .. "\n)" .. suffix
   end

   -- Statements building the indexes of table t after its rows are in:
   -- the primary key (unless inline) and the secondary indexes.
   function q.create_indexes(t, n)
      local list = {}
      if not pk_inline and primary_keys[t] then
         list[#list + 1] = "ALTER TABLE " .. t .. n .. " ADD PRIMARY KEY (" ..
            primary_keys[t] .. ")"
      end
      for _, ix in ipairs(indexes[t] or {}) do
         list[#list + 1] = "CREATE INDEX " .. ix[1] .. "_" .. n .. " ON " ..
            t .. n .. " (" .. ix[2] .. ")"
      end
      return list
   end

   -- Statements adding the foreign keys (after every table is loaded and
   -- indexed); empty without foreign keys.  MySQL checks nothing while
   -- foreign_key_checks is 0 and then adds the key in place, without
   -- copying the table: the loader's rows are consistent by construction,
   -- `tpcc check` verifies the data.
   function q.add_foreign_keys(n)
      local list = {}
      if not use_fk then return list end
      if dialect == "mysql" then list[1] = "SET foreign_key_checks = 0" end
      for _, fk in ipairs(foreign_keys) do
         list[#list + 1] = "ALTER TABLE " .. fk[1] .. n ..
            " ADD CONSTRAINT " .. fk[2] .. "_" .. n .. " FOREIGN KEY (" ..
            fk[3] .. ") REFERENCES " .. fk[4] .. n .. " (" .. fk[5] .. ")"
      end
      if dialect == "mysql" then list[#list + 1] = "SET foreign_key_checks = 1" end
      return list
   end

   local has_if_exists = dialect ~= "db2" and dialect ~= "ansi"
   q.drop_if_exists = has_if_exists
   -- Children first, so that foreign keys never block a drop.
   function q.drop_table(t, n)
      if dialect == "postgresql" then
         return "DROP TABLE IF EXISTS " .. t .. n .. " CASCADE"
      elseif has_if_exists then
         return "DROP TABLE IF EXISTS " .. t .. n
      end
      return "DROP TABLE " .. t .. n
   end

   -- A query whose single value is the number of tables named t<n> (nil
   -- for ansi: probe the table instead, probe_table).
   function q.table_exists(t, n)
      return oltp_sql.table_exists_sql(dialect, t .. n)
   end
   function q.probe_table(t, n)
      return "SELECT 1 FROM " .. t .. n .. " WHERE 1 = 0"
   end

   -- Warehouses in table set n (run and check find the scale there).
   function q.count_warehouses(n)
      return "SELECT COUNT(*), MAX(w_id) FROM warehouse" .. n
   end
   function q.count_items(n)
      return "SELECT COUNT(*) FROM item" .. n
   end

   ------------------------------------------------------------------------
   -- New-Order (clause 2.4.2)
   ------------------------------------------------------------------------
   function q.no_warehouse(n)
      return "SELECT w_tax FROM warehouse" .. n .. " WHERE w_id = ?"
   end
   function q.no_district(n)
      return "SELECT d_tax, d_next_o_id FROM district" .. n ..
         " WHERE d_w_id = ? AND d_id = ?" .. for_update
   end
   function q.no_district_update(n)
      return "UPDATE district" .. n ..
         " SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"
   end
   function q.no_customer(n)
      return "SELECT c_discount, c_last, c_credit FROM customer" .. n ..
         " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end
   function q.no_order_insert(n)
      return "INSERT INTO orders" .. n .. " (o_id, o_d_id, o_w_id, o_c_id, " ..
         "o_entry_d, o_ol_cnt, o_all_local) " ..
         "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)"
   end
   function q.no_new_order_insert(n)
      return "INSERT INTO new_order" .. n ..
         " (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"
   end
   function q.no_item(n)
      return "SELECT i_price, i_name, i_data FROM item" .. n ..
         " WHERE i_id = ?"
   end
   -- The stock row with the S_DIST_xx of district d (1..10).
   function q.no_stock(n, d)
      return string.format("SELECT s_quantity, s_data, s_dist_%02d FROM stock",
                           d) .. n .. " WHERE s_w_id = ? AND s_i_id = ?" ..
         for_update
   end
   function q.no_stock_update(n)
      return "UPDATE stock" .. n .. " SET s_quantity = ?, " ..
         "s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, " ..
         "s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?"
   end
   function q.no_order_line_insert(n)
      return "INSERT INTO order_line" .. n .. " (ol_o_id, ol_d_id, ol_w_id, " ..
         "ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, " ..
         "ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
   end

   ------------------------------------------------------------------------
   -- Payment (clause 2.5.2)
   ------------------------------------------------------------------------
   function q.pay_warehouse_update(n)
      return "UPDATE warehouse" .. n .. " SET w_ytd = w_ytd + ? WHERE w_id = ?"
   end
   function q.pay_warehouse(n)
      return "SELECT w_name, w_street_1, w_street_2, w_city, w_state, " ..
         "w_zip FROM warehouse" .. n .. " WHERE w_id = ?"
   end
   function q.pay_district_update(n)
      return "UPDATE district" .. n ..
         " SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"
   end
   function q.pay_district(n)
      return "SELECT d_name, d_street_1, d_street_2, d_city, d_state, " ..
         "d_zip FROM district" .. n .. " WHERE d_w_id = ? AND d_id = ?"
   end
   -- Customers with a last name, by first name (Payment, Order-Status).
   function q.customer_by_name(n)
      return "SELECT c_id FROM customer" .. n ..
         " WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
   end
   function q.pay_customer(n)
      return "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, " ..
         "c_city, c_state, c_zip, c_phone, c_since, c_credit, " ..
         "c_credit_lim, c_discount, c_balance FROM customer" .. n ..
         " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" .. for_update
   end
   function q.pay_customer_update(n)
      return "UPDATE customer" .. n .. " SET c_balance = c_balance - ?, " ..
         "c_ytd_payment = c_ytd_payment + ?, " ..
         "c_payment_cnt = c_payment_cnt + 1 " ..
         "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end
   function q.pay_customer_data(n)
      return "SELECT c_data FROM customer" .. n ..
         " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end
   function q.pay_customer_data_update(n)
      return "UPDATE customer" .. n .. " SET c_data = ? " ..
         "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end
   function q.pay_history_insert(n)
      return "INSERT INTO history" .. n .. " (h_c_id, h_c_d_id, h_c_w_id, " ..
         "h_d_id, h_w_id, h_date, h_amount, h_data) " ..
         "VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)"
   end

   ------------------------------------------------------------------------
   -- Order-Status (clause 2.6.2)
   ------------------------------------------------------------------------
   function q.os_customer(n)
      return "SELECT c_balance, c_first, c_middle, c_last FROM customer" ..
         n .. " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end
   -- The customer's orders, latest first (the caller reads one row).
   function q.os_order(n)
      return "SELECT o_id, o_carrier_id, o_entry_d FROM orders" .. n ..
         " WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC"
   end
   function q.os_order_lines(n)
      return "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, " ..
         "ol_delivery_d FROM order_line" .. n ..
         " WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
   end

   ------------------------------------------------------------------------
   -- Delivery (clause 2.7.4), one transaction over the ten districts
   ------------------------------------------------------------------------
   -- The district's oldest new order.  PostgreSQL and MySQL: a locking
   -- read of the first row, which waits for a concurrent Delivery that
   -- took it and then reads past the deleted row to the next oldest (a
   -- plain SELECT in MySQL's REPEATABLE READ reads the transaction's
   -- snapshot, where the taken row is still there; the waiters queue on
   -- the row, so none starves).  Elsewhere MIN, and the DELETE's count
   -- tells whether a concurrent Delivery took the row first.
   function q.dl_new_order(n)
      if dialect == "postgresql" or dialect == "mysql" then
         return "SELECT no_o_id FROM new_order" .. n ..
            " WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1" ..
            for_update
      end
      return "SELECT MIN(no_o_id) FROM new_order" .. n ..
         " WHERE no_w_id = ? AND no_d_id = ?"
   end
   function q.dl_new_order_delete(n)
      return "DELETE FROM new_order" .. n ..
         " WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"
   end
   function q.dl_order(n)
      return "SELECT o_c_id FROM orders" .. n ..
         " WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
   end
   function q.dl_order_update(n)
      return "UPDATE orders" .. n ..
         " SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
   end
   function q.dl_order_line_update(n)
      return "UPDATE order_line" .. n ..
         " SET ol_delivery_d = CURRENT_TIMESTAMP " ..
         "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
   end
   function q.dl_order_line_sum(n)
      return "SELECT SUM(ol_amount) FROM order_line" .. n ..
         " WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
   end
   function q.dl_customer_update(n)
      return "UPDATE customer" .. n .. " SET c_balance = c_balance + ?, " ..
         "c_delivery_cnt = c_delivery_cnt + 1 " ..
         "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
   end

   ------------------------------------------------------------------------
   -- Stock-Level (clause 2.8.2)
   ------------------------------------------------------------------------
   function q.sl_district(n)
      return "SELECT d_next_o_id FROM district" .. n ..
         " WHERE d_w_id = ? AND d_id = ?"
   end
   function q.sl_stock_count(n)
      return "SELECT COUNT(DISTINCT s_i_id) FROM order_line" .. n ..
         ", stock" .. n .. " WHERE ol_w_id = ? AND ol_d_id = ? " ..
         "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? " ..
         "AND s_i_id = ol_i_id AND s_quantity < ?"
   end

   ------------------------------------------------------------------------
   -- Consistency conditions (clause 3.3.2).  Each query returns one row
   -- per warehouse or district: the key, then the two sides to compare.
   ------------------------------------------------------------------------
   function q.check(c, n)
      local W, D, C = "warehouse" .. n, "district" .. n, "customer" .. n
      local O, NO, OL = "orders" .. n, "new_order" .. n, "order_line" .. n
      local H = "history" .. n
      local by_district = " FROM " .. D .. " ORDER BY d_w_id, d_id"
      local function dkey(p)
         return p .. "_w_id = d_w_id AND " .. p .. "_d_id = d_id"
      end
      -- 1 when the column is null, else 0 (no dialect-specific booleans)
      local function is_null(col)
         return "CASE WHEN " .. col .. " IS NULL THEN 1 ELSE 0 END"
      end
      if c == 1 then     -- W_YTD = sum(D_YTD)
         return "SELECT w_id, 0, w_ytd, (SELECT SUM(d_ytd) FROM " .. D ..
            " WHERE d_w_id = w_id) FROM " .. W .. " ORDER BY w_id"
      elseif c == 2 then -- D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
         return "SELECT d_w_id, d_id, d_next_o_id - 1, (SELECT MAX(o_id) " ..
            "FROM " .. O .. " WHERE " .. dkey("o") .. "), (SELECT " ..
            "MAX(no_o_id) FROM " .. NO .. " WHERE " .. dkey("no") .. ")" ..
            by_district
      elseif c == 3 then -- max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER
         return "SELECT d_w_id, d_id, (SELECT MAX(no_o_id) - MIN(no_o_id) " ..
            "+ 1 FROM " .. NO .. " WHERE " .. dkey("no") .. "), (SELECT " ..
            "COUNT(*) FROM " .. NO .. " WHERE " .. dkey("no") .. ")" ..
            by_district
      elseif c == 4 then -- sum(O_OL_CNT) = rows in ORDER_LINE
         return "SELECT d_w_id, d_id, (SELECT SUM(o_ol_cnt) FROM " .. O ..
            " WHERE " .. dkey("o") .. "), (SELECT COUNT(*) FROM " .. OL ..
            " WHERE " .. dkey("ol") .. ")" .. by_district
      elseif c == 5 then -- O_CARRIER_ID is null iff a NEW_ORDER row exists:
         -- orders breaking it, per district
         return "SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM " .. O ..
            " WHERE " .. dkey("o") .. " AND " .. is_null("o_carrier_id") ..
            " <> CASE WHEN EXISTS (SELECT 1 FROM " .. NO .. " WHERE " ..
            "no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id) " ..
            "THEN 1 ELSE 0 END)" .. by_district
      elseif c == 6 then -- O_OL_CNT = the order's ORDER_LINE rows: orders
         -- breaking it, per district
         return "SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM " .. O ..
            " WHERE " .. dkey("o") .. " AND o_ol_cnt <> (SELECT COUNT(*) " ..
            "FROM " .. OL .. " WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id " ..
            "AND ol_o_id = o_id))" .. by_district
      elseif c == 7 then -- OL_DELIVERY_D is null iff O_CARRIER_ID is null:
         -- order lines breaking it, per district
         return "SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM " .. OL ..
            ", " .. O .. " WHERE " .. dkey("ol") .. " AND o_w_id = ol_w_id " ..
            "AND o_d_id = ol_d_id AND o_id = ol_o_id AND " ..
            is_null("ol_delivery_d") .. " <> " .. is_null("o_carrier_id") ..
            ")" .. by_district
      elseif c == 8 then -- W_YTD = sum(H_AMOUNT) of the warehouse
         return "SELECT w_id, 0, w_ytd, (SELECT SUM(h_amount) FROM " .. H ..
            " WHERE h_w_id = w_id) FROM " .. W .. " ORDER BY w_id"
      elseif c == 9 then -- D_YTD = sum(H_AMOUNT) of the district
         return "SELECT d_w_id, d_id, d_ytd, (SELECT SUM(h_amount) FROM " ..
            H .. " WHERE " .. dkey("h") .. ")" .. by_district
      elseif c == 12 then -- C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) of
         -- its delivered order lines: customers breaking it, per district
         -- (the sums per customer first, in one pass over the order lines)
         return "SELECT c_w_id, c_d_id, 0, SUM(CASE WHEN ABS(c_balance + " ..
            "c_ytd_payment - COALESCE(amount, 0)) > 0.005 THEN 1 ELSE 0 " ..
            "END) FROM " .. C .. " LEFT JOIN (SELECT o_w_id, o_d_id, " ..
            "o_c_id, SUM(ol_amount) AS amount FROM " .. O .. ", " .. OL ..
            " WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND " ..
            "ol_o_id = o_id AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, " ..
            "o_d_id, o_c_id) delivered ON o_w_id = c_w_id AND " ..
            "o_d_id = c_d_id AND o_c_id = c_id GROUP BY c_w_id, c_d_id " ..
            "ORDER BY c_w_id, c_d_id"
      end
      return nil
   end

   return q
end

-- The conditions `tpcc check` runs: the specification's number, what it
-- says, and whether it compares money (with a tolerance of half a cent:
-- SQLite's NUMERIC columns hold doubles).
M.conditions = {
   { 1, "W_YTD = sum(D_YTD)", "warehouse", true },
   { 2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", "district" },
   { 3, "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER", "district" },
   { 4, "sum(O_OL_CNT) = rows in ORDER_LINE", "district" },
   { 5, "O_CARRIER_ID is null iff the order is in NEW_ORDER", "district" },
   { 6, "O_OL_CNT = the order's rows in ORDER_LINE", "district" },
   { 7, "OL_DELIVERY_D is null iff O_CARRIER_ID is null", "district" },
   { 8, "W_YTD = sum(H_AMOUNT)", "warehouse", true },
   { 9, "D_YTD = sum(H_AMOUNT)", "district", true },
   { 12, "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) delivered", "district" },
}

-- The transactions' statements, in listing order.
M.statement_names = {
   "no_warehouse", "no_district", "no_district_update", "no_customer",
   "no_order_insert", "no_new_order_insert", "no_item", "no_stock",
   "no_stock_update", "no_order_line_insert",
   "pay_warehouse_update", "pay_warehouse", "pay_district_update",
   "pay_district", "customer_by_name", "pay_customer", "pay_customer_update",
   "pay_customer_data", "pay_customer_data_update", "pay_history_insert",
   "os_customer", "os_order", "os_order_lines",
   "dl_new_order", "dl_new_order_delete", "dl_order", "dl_order_update",
   "dl_order_line_update", "dl_order_line_sum", "dl_customer_update",
   "sl_district", "sl_stock_count",
}

-- Every statement for a dialect and table set n, as text: "-- name", the
-- statement and ";", one blank line between statements (what the DB2
-- test compares).
function M.listing(dialect, opts, n)
   n = n or 1
   local q = M.new(dialect, opts)
   local out = {}
   local function add(name, sql)
      out[#out + 1] = "-- " .. name .. "\n" .. sql .. ";\n"
   end
   for _, t in ipairs(M.tables) do
      add("create_table " .. t, q.create_table(t, n))
   end
   for _, t in ipairs(M.tables) do
      for i, sql in ipairs(q.create_indexes(t, n)) do
         add("create_indexes " .. t .. " " .. i, sql)
      end
   end
   for i, sql in ipairs(q.add_foreign_keys(n)) do
      add("add_foreign_keys " .. i, sql)
   end
   add("drop_table stock", q.drop_table("stock", n))
   add("table_exists stock", q.table_exists("stock", n) or "")
   add("count_warehouses", q.count_warehouses(n))
   for _, name in ipairs(M.statement_names) do
      if name == "no_stock" then
         add(name .. " 1", q.no_stock(n, 1))
         add(name .. " 10", q.no_stock(n, 10))
      else
         add(name, q[name](n))
      end
   end
   for _, c in ipairs(M.conditions) do
      add("check " .. c[1], q.check(c[1], n))
   end
   return table.concat(out, "\n")
end

return M
