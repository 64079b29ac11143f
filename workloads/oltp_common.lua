-- oltp_common: what the OLTP workloads share.
--
-- A workload does
--   local oltp = require("oltp_common")
--   oltp.uses = { "point_select", ... }     -- statements thread_init prepares
--   function event() oltp.begin() oltp.point_selects() oltp.commit() end
--
-- Loading this module declares the options (sysbench's names and defaults),
-- the parallel prepare and prewarm commands, cleanup(), thread_init(), thread_done() and
-- the before_restart_event hook.  Options are read when a command or a
-- thread starts, never at load time.

local oltp_sql = require("oltp_sql")

local M = {}

M.c_template = oltp_sql.c_template
M.pad_template = oltp_sql.pad_template

sbench.cmdline.options = {
   table_size = { "Number of rows per table", 10000 },
   range_size = { "Number of rows a range SELECT covers", 100 },
   tables = { "Number of tables", 1 },
   point_selects = { "Point SELECT queries per transaction", 10 },
   simple_ranges = { "Simple range SELECT queries per transaction", 1 },
   sum_ranges = { "SELECT SUM() range queries per transaction", 1 },
   order_ranges = { "SELECT ... ORDER BY range queries per transaction", 1 },
   distinct_ranges = { "SELECT DISTINCT range queries per transaction", 1 },
   index_updates = { "UPDATE queries on the indexed column k per " ..
                        "transaction", 1 },
   non_index_updates = { "UPDATE queries on the non-indexed column c per " ..
                            "transaction", 1 },
   delete_inserts = { "DELETE + INSERT pairs per transaction", 1 },
   range_selects = { "Run the range SELECT queries at all", true },
   auto_inc = { "Make id an auto-increment column (AUTO_INCREMENT, " ..
                   "SERIAL, IDENTITY, ...); when off, the client chooses " ..
                   "every id", true },
   skip_trx = { "Send no BEGIN/COMMIT: every query runs in autocommit " ..
                   "mode", false },
   secondary = { "Index id with a secondary index instead of the " ..
                    "primary key", false },
   create_secondary = { "Create the secondary index on k after loading",
                        true },
   mysql_storage_engine = { "Storage engine of the tables on MySQL",
                            "innodb" },
   pgsql_variant = { "PostgreSQL variant: pgsql, or redshift (which " ..
                        "turns off create_secondary and delete_inserts)",
                     "pgsql" },
   force = { "prepare: drop existing sbtest tables instead of refusing " ..
                "to overwrite them", false },
}

-- Settings a workload imposes over the options, e.g. { point_selects = 1 }.
M.override = {}

-- Statement kinds thread_init prepares for each table: a list, or a
-- function(settings) returning one.
M.uses = {}

-- Optional workload-specific statements: M.extra = { open = fn(con, q, s),
-- close = fn() }, called after/before the common ones (also on reconnect).
M.extra = nil

-- The settings: every declared option from sbench.opt, then M.override, then
-- `extra`, then what the PostgreSQL variant implies (known once `dialect` is).
local function read_settings(extra, dialect)
   local s = {}
   for name in pairs(sbench.cmdline.options) do s[name] = sbench.opt[name] end
   s.threads = sbench.opt.threads or 1
   for k, v in pairs(M.override) do s[k] = v end
   if extra then
      for k, v in pairs(extra) do s[k] = v end
   end
   if dialect == "postgresql" and s.pgsql_variant == "redshift" then
      s.create_secondary = false
      s.delete_inserts = 0
   end
   return s
end
M.read_settings = read_settings

-- Checks the settings that need no server, so that a bad value is reported
-- before any connection is opened (and never reaches the SQL).
local function check_settings(s)
   if math.type(s.tables) ~= "integer" or s.tables < 1 then
      error(string.format("invalid --tables=%s: expected at least 1",
                          tostring(s.tables)), 0)
   end
   local e = s.mysql_storage_engine
   if type(e) ~= "string" or not e:match("^[%a_][%w_]*$") then
      error(string.format("invalid mysql_storage_engine %q " ..
                             "(--mysql-storage-engine): " ..
                             "expected a plain identifier (letters, digits " ..
                             "and underscore)", tostring(e)), 0)
   end
end
M.check_settings = check_settings

local function connect(extra)
   check_settings(read_settings(extra))
   local con = sbench.sql.driver():connect()
   local dialect = con:dialect()
   local s = read_settings(extra, dialect)
   return con, oltp_sql.new(dialect, s), s
end

----------------------------------------------------------------------------
-- prepare and cleanup
----------------------------------------------------------------------------

local function create_table(con, q, s, n)
   local name = q.table_name(n)
   if oltp_sql.table_exists(con, q, n) then
      if not s.force then
         error("table '" .. name .. "' already exists: run cleanup first, " ..
                  "or prepare with --force to drop and recreate it", 0)
      end
      print("Dropping existing table '" .. name .. "' (--force)...")
      oltp_sql.exec(con, q.drop_table(n))
   end

   print("Creating table '" .. name .. "'...")
   oltp_sql.exec(con, q.create_table(n))
   local id_index = q.create_id_index(n)
   if id_index then oltp_sql.exec(con, id_index) end

   local size = s.table_size
   sbench.progress.expect(size)
   if size > 0 then
      print("Inserting " .. size .. " records into '" .. name .. "'")
      local T = sbench.sql.type
      con:bulk_load_init(name, { "id", "k", "c", "pad" },
                         { T.INT, T.INT, T.CHAR, T.CHAR })
      local rand_default, rand_string = sbench.rand.default, sbench.rand.string
      local c_tmpl, pad_tmpl = M.c_template, M.pad_template
      for id = 1, size do
         con:bulk_load_row(id, rand_default(1, size), rand_string(c_tmpl),
                           rand_string(pad_tmpl))
      end
      con:bulk_load_done()
      local fixup = q.after_load(n, size)
      if fixup then oltp_sql.exec(con, fixup) end
   end
   local pk = q.add_primary_key(n)
   if pk then oltp_sql.exec(con, pk) end

   if s.create_secondary then
      print("Creating a secondary index on '" .. name .. "'...")
      oltp_sql.exec(con, q.create_index(n))
   end
end

-- Every thread creates its share of the tables: thread tid takes tables
-- tid+1, tid+1+threads, ...  `extra` overrides settings (see oltp_insert).
function M.cmd_prepare(extra)
   local con, q, s = connect(extra)
   local tid = sbench.tid or 0
   for n = tid % s.threads + 1, s.tables, s.threads do
      create_table(con, q, s, n)
   end
   con:disconnect()
end

-- prewarm, sysbench 1.0.20's command (MySQL only, as there): each thread
-- takes its share of the tables (as prepare does) and, for each, says
-- "Prewarming table sbtestN", runs ANALYZE TABLE, then reads every row
-- through the primary key and every row through the secondary index on k
-- into the buffer pool, with temporary tables kept in memory (2 GiB) for
-- the session so the reads make no disk table of their own.
local function prewarm_sql(name, size)
   return {
      "ANALYZE TABLE " .. name,
      string.format("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) LIMIT %d) t", name, size),
      string.format("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' LIMIT %d) t", name, size),
   }
end

function M.cmd_prewarm()
   local con, q, s = connect()
   if q.dialect ~= "mysql" then
      error("prewarm is MySQL only, as sysbench's (this connection speaks " .. q.dialect .. ")", 0)
   end
   oltp_sql.exec(con, "SET tmp_table_size=2*1024*1024*1024")
   oltp_sql.exec(con, "SET max_heap_table_size=2*1024*1024*1024")
   local tid = sbench.tid or 0
   for n = tid % s.threads + 1, s.tables, s.threads do
      print("Prewarming table " .. q.table_name(n))
      for _, sql in ipairs(prewarm_sql(q.table_name(n), s.table_size)) do
         oltp_sql.exec(con, sql)
      end
   end
   con:disconnect()
end

sbench.cmdline.commands = {
   prepare = { function() M.cmd_prepare() end,
               sbench.cmdline.PARALLEL_COMMAND },
   prewarm = { function() M.cmd_prewarm() end,
               sbench.cmdline.PARALLEL_COMMAND },
}

-- as sysbench's oltp_common.lua: a command is required (FATAL, exit 1)
if sbench.cmdline.command == nil then
   error("Command is required. Supported commands: prepare, prewarm, run, cleanup, help")
end

-- Drops the tables prepare creates: sbtest1 .. sbtest<tables>.
function M.cmd_cleanup()
   local con, q, s = connect()
   for n = 1, s.tables do
      print("Dropping table '" .. q.table_name(n) .. "'...")
      if q.drop_if_exists or oltp_sql.table_exists(con, q, n) then
         oltp_sql.exec(con, q.drop_table(n))
      end
   end
   con:disconnect()
end

function cleanup()
   M.cmd_cleanup()
end

function init()
   if event == nil then
      error("oltp_common is shared code for the OLTP workloads; run one " ..
               "of them (oltp_read_write, oltp_read_only, ...)", 0)
   end
end

----------------------------------------------------------------------------
-- statements
----------------------------------------------------------------------------

-- Parameter types of each statement kind; {type, maxlen} for strings.
local function param_types()
   local T = sbench.sql.type
   local c, pad = { T.CHAR, 120 }, { T.CHAR, 60 }
   return {
      point_select = { T.INT },
      simple_range = { T.INT, T.INT },
      sum_range = { T.INT, T.INT },
      order_range = { T.INT, T.INT },
      distinct_range = { T.INT, T.INT },
      index_update = { T.INT },
      non_index_update = { c, T.INT },
      delete = { T.INT },
      insert = { T.INT, T.INT, c, pad },
      insert_auto = { T.INT, c, pad },
   }
end

local range_kind = {
   simple_range = true, sum_range = true, order_range = true,
   distinct_range = true,
}

-- Per thread state, set by thread_init.  The event helpers only read these.
local con, q, settings
local stmt = {}   -- stmt[kind][table number]
local par = {}    -- par[kind][table number] = { param1, param2, ... }
local rand_uniform, rand_default, rand_unique
local tables, table_size, range_size
local n_point, n_simple, n_sum, n_order, n_distinct
local n_index_upd, n_non_index_upd, n_delete_ins
local range_selects, use_trx
local c_tmpl, pad_tmpl = M.c_template, M.pad_template
-- Hot-path shortcuts, refreshed by M.open: the methods param:set and
-- stmt:execute as plain functions (every parameter and statement shares
-- them), so that the event helpers do no method lookup through a
-- metatable, and the point_select statements with their one parameter per
-- table.
local point_st, point_p = {}, {}
local param_set, stmt_execute

local function prepare_kind(kind, types)
   stmt[kind], par[kind] = {}, {}
   for t = 1, tables do
      -- named by kind: the report shows count and latency per statement
      local st = con:prepare(q[kind](t), kind)
      local ps = {}
      for i, ty in ipairs(types) do
         if type(ty) == "table" then
            ps[i] = st:bind_create(ty[1], ty[2])
         else
            ps[i] = st:bind_create(ty)
         end
      end
      st:bind_param(table.unpack(ps))
      stmt[kind][t], par[kind][t] = st, ps
   end
end

-- Prepares the statements the workload uses (and its extra ones).
function M.open()
   local types = param_types()
   local uses = M.uses
   if type(uses) == "function" then uses = uses(settings) end
   for _, kind in ipairs(uses) do
      if not types[kind] then
         error("oltp_common: unknown statement kind '" .. tostring(kind) ..
                  "'", 0)
      end
      if range_selects or not range_kind[kind] then
         prepare_kind(kind, types[kind])
      end
   end
   if M.extra and M.extra.open then M.extra.open(con, q, settings) end
   point_st, point_p = stmt.point_select or {}, {}
   for t, ps in pairs(par.point_select or {}) do point_p[t] = ps[1] end
   for kind, per_table in pairs(stmt) do
      stmt_execute = per_table[1].execute
      param_set = par[kind][1][1] and par[kind][1][1].set or param_set
   end
end

-- Closes every prepared statement.  `quiet`: ignore errors (the connection
-- was lost and the statements may be gone already).
function M.close(quiet)
   if M.extra and M.extra.close then
      if quiet then pcall(M.extra.close) else M.extra.close() end
   end
   for kind, per_table in pairs(stmt) do
      for t, st in pairs(per_table) do
         if quiet then pcall(st.close, st) else st:close() end
         per_table[t] = nil
      end
      stmt[kind], par[kind] = nil, nil
   end
end

function thread_init()
   local dialect
   check_settings(read_settings())
   con = sbench.sql.driver():connect()
   dialect = con:dialect()
   settings = read_settings(nil, dialect)
   q = oltp_sql.new(dialect, settings)

   rand_uniform = sbench.rand.uniform
   rand_default = sbench.rand.default
   rand_unique = sbench.rand.unique
   tables = settings.tables
   table_size = settings.table_size
   range_size = settings.range_size
   n_point = settings.point_selects
   n_simple = settings.simple_ranges
   n_sum = settings.sum_ranges
   n_order = settings.order_ranges
   n_distinct = settings.distinct_ranges
   n_index_upd = settings.index_updates
   n_non_index_upd = settings.non_index_updates
   n_delete_ins = settings.delete_inserts
   range_selects = settings.range_selects
   use_trx = not settings.skip_trx

   M.open()
end

function thread_done()
   M.close()
   con:disconnect()
end

-- The core has reconnected after a lost connection: the old statements are
-- gone, prepare them again on the new session.
sbench.hooks = sbench.hooks or {}
function sbench.hooks.before_restart_event(err)
   if type(err) == "table" and err.class == "lost" then
      M.close(true)
      M.open()
   end
end

-- Accessors for workloads with their own statements.
function M.connection() return con end
function M.settings() return settings end

----------------------------------------------------------------------------
-- event helpers (hot path: param:set and stmt:execute only)
----------------------------------------------------------------------------

function M.begin()
   if use_trx then con:begin() end
end

function M.commit()
   if use_trx then con:commit() end
end

function M.point_selects()
   local t = rand_uniform(1, tables)
   local st, p = point_st[t], point_p[t]
   for _ = 1, n_point do
      param_set(p, rand_default(1, table_size))
      stmt_execute(st)
   end
end

local function ranges(kind, count)
   local t = rand_uniform(1, tables)
   local st, ps = stmt[kind][t], par[kind][t]
   local from, to = ps[1], ps[2]
   for _ = 1, count do
      local id = rand_default(1, table_size)
      param_set(from, id)
      param_set(to, id + range_size - 1)
      stmt_execute(st)
   end
end

function M.simple_ranges() ranges("simple_range", n_simple) end
function M.sum_ranges() ranges("sum_range", n_sum) end
function M.order_ranges() ranges("order_range", n_order) end
function M.distinct_ranges() ranges("distinct_range", n_distinct) end

-- The four range queries, unless --range-selects=off.
function M.range_selects()
   if range_selects then
      ranges("simple_range", n_simple)
      ranges("sum_range", n_sum)
      ranges("order_range", n_order)
      ranges("distinct_range", n_distinct)
   end
end

function M.index_updates()
   local t = rand_uniform(1, tables)
   local st, p = stmt.index_update[t], par.index_update[t][1]
   for _ = 1, n_index_upd do
      param_set(p, rand_default(1, table_size))
      stmt_execute(st)
   end
end

function M.non_index_updates()
   local t = rand_uniform(1, tables)
   local st, ps = stmt.non_index_update[t], par.non_index_update[t]
   local c, id = ps[1], ps[2]
   for _ = 1, n_non_index_upd do
      c:set_rand_str(c_tmpl)
      param_set(id, rand_default(1, table_size))
      stmt_execute(st)
   end
end

-- DELETE a random row and INSERT it back with the same id.
function M.delete_inserts()
   local t = rand_uniform(1, tables)
   local del, del_id = stmt.delete[t], par.delete[t][1]
   local ins, ps = stmt.insert[t], par.insert[t]
   local id_p, k_p, c_p, pad_p = ps[1], ps[2], ps[3], ps[4]
   for _ = 1, n_delete_ins do
      local id = rand_default(1, table_size)
      local k = rand_default(1, table_size)
      param_set(del_id, id)
      param_set(id_p, id)
      param_set(k_p, k)
      c_p:set_rand_str(c_tmpl)
      pad_p:set_rand_str(pad_tmpl)
      stmt_execute(del)
      stmt_execute(ins)
   end
end

-- One DELETE of a random id (oltp_delete).
function M.delete()
   local t = rand_uniform(1, tables)
   param_set(par.delete[t][1], rand_default(1, table_size))
   stmt_execute(stmt.delete[t])
end

-- One INSERT (oltp_insert): the database picks the id with auto_inc,
-- otherwise a thread-unique id mapped into the signed 32-bit range.
function M.insert()
   local t = rand_uniform(1, tables)
   local k = rand_default(1, table_size)
   local ps
   if stmt.insert_auto then
      ps = par.insert_auto[t]
      param_set(ps[1], k)
      ps[2]:set_rand_str(c_tmpl)
      ps[3]:set_rand_str(pad_tmpl)
      stmt_execute(stmt.insert_auto[t])
   else
      ps = par.insert[t]
      param_set(ps[1], rand_unique() - 2147483648)
      param_set(ps[2], k)
      ps[3]:set_rand_str(c_tmpl)
      ps[4]:set_rand_str(pad_tmpl)
      stmt_execute(stmt.insert[t])
   end
end

-- A statement with n integer parameters bound in order (the
-- select_random_* workloads): returns the statement and its parameters.
function M.prepare_ints(con, sql, n)
   local st, ps = con:prepare(sql), {}
   for i = 1, n do
      ps[i] = st:bind_create(sbench.sql.type.INT)
   end
   st:bind_param(table.unpack(ps))
   return st, ps
end

-- This thread's slice of the ids, as sysbench's select_random_* use:
-- returns its first and last id.
function M.thread_slice(s)
   local slice = s.table_size // s.threads
   local first = slice * (sbench.tid % s.threads)
   return first, first + slice
end

return M
