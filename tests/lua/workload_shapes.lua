-- Checks the workload scripts against a fake sbench API (fake_sbench.lua):
-- the queries each event runs (exact counts per event, as sysbench's stock
-- scripts run them), the values they bind, and the DDL prepare and cleanup
-- issue for every dialect.
--
--   lua5.4 tests/lua/workload_shapes.lua <workloads dir>
--
-- Exits 1 on any mismatch.

local dir = arg[1] or error("usage: workload_shapes.lua <workloads dir>")
local here = (arg[0]:match("^(.*)/[^/]*$")) or "."
package.path = dir .. "/?.lua;" .. here .. "/?.lua;" .. package.path

local fake = require("fake_sbench")
local say = fake.real_print

local failures, checks = 0, 0
local current = "?"

local function fail(msg)
   failures = failures + 1
   say("FAIL [" .. current .. "]: " .. msg)
end

local function check(cond, msg)
   checks = checks + 1
   if not cond then fail(msg) end
   return cond
end

local function show(v)
   if type(v) == "string" then return string.format("%q", v) end
   return tostring(v)
end

local function eq(got, want, what)
   return check(got == want, what .. ": got " .. show(got) .. ", want " ..
                   show(want))
end

local function eq_list(got, want, what)
   local n = math.max(#got, #want)
   for i = 1, n do
      if got[i] ~= want[i] then
         fail(what .. " [" .. i .. "]: got " .. show(got[i]) .. ", want " ..
                 show(want[i]))
         say("  full list:")
         for j, v in ipairs(got) do say("   " .. j .. ": " .. show(v)) end
         return false
      end
   end
   checks = checks + 1
   return true
end

local function contains(list, value)
   for _, v in ipairs(list) do if v == value then return true end end
   return false
end

-- Runs fn, expecting it to raise an error whose text contains `needle`.
local function expect_error(fn, needle, what)
   local ok, err = pcall(fn)
   if check(not ok, what .. ": expected an error") then
      local text = type(err) == "table" and tostring(err.sql_errmsg) or
         tostring(err)
      check(text:find(needle, 1, true) ~= nil,
            what .. ": error " .. show(text) .. " lacks " .. show(needle))
   end
end

local GLOBALS = { "event", "thread_init", "thread_done", "prepare", "cleanup",
                  "init", "done" }

-- A fresh "Lua state" for a workload: forget loaded modules and hooks,
-- install the fake, load the script, set the options.
local function load_workload(name, cfg, opts)
   package.loaded.oltp_common = nil
   package.loaded.oltp_sql = nil
   for _, g in ipairs(GLOBALS) do _G[g] = nil end
   local st = fake.install(cfg)
   dofile(dir .. "/" .. name .. ".lua")
   fake.set_options(st, opts)
   return st
end

local function run_command(name)
   local cmd = sbench.cmdline.commands and sbench.cmdline.commands[name]
   if cmd then
      return cmd[1]()
   end
   return _G[name]()
end

-- Statement kind from its SQL text (table number removed).
local KIND_OF = {
   ["SELECT c FROM sbtestN WHERE id=?"] = "point_select",
   ["SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?"] = "simple_range",
   ["SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?"] = "sum_range",
   ["SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c"] =
      "order_range",
   ["SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c"] =
      "distinct_range",
   ["UPDATE sbtestN SET k=k+1 WHERE id=?"] = "index_update",
   ["UPDATE sbtestN SET c=? WHERE id=?"] = "non_index_update",
   ["DELETE FROM sbtestN WHERE id=?"] = "delete",
   ["INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)"] = "insert",
   ["INSERT INTO sbtestN (k, c, pad) VALUES (?, ?, ?)"] = "insert_auto",
}

local function kind_of(sql)
   local norm = sql:gsub("sbtest%d+", "sbtestN")
   if KIND_OF[norm] then return KIND_OF[norm] end
   if norm:find("WHERE k IN (", 1, true) then return "random_points" end
   if norm:find("k BETWEEN", 1, true) then return "random_ranges" end
   return "unknown: " .. sql
end

local function tag_statements(st)
   for _, s in ipairs(st.stmts) do
      if not s.kind then
         s.kind = kind_of(s.sql)
         s.tnum = tonumber(s.sql:match("sbtest(%d+)"))
      end
   end
end

-- Checks the values bound at every execution (installed as st.on_execute;
-- allocates nothing when the values are right).
local function value_checker(st, opts)
   local size, range = opts.table_size, opts.range_size
   local lo, hi = opts.k_min or 1, opts.k_max or size
   return function(s)
      local kind, p = s.kind, s.params
      if kind == "point_select" or kind == "index_update" or
         kind == "delete" then
         local id = p[1].value
         if id < 1 or id > size then fail(kind .. ": id " .. id) end
      elseif kind == "simple_range" or kind == "sum_range" or
         kind == "order_range" or kind == "distinct_range" then
         local a, b = p[1].value, p[2].value
         if a < 1 or a > size then fail(kind .. ": start " .. a) end
         if b - a ~= range - 1 then fail(kind .. ": width " .. (b - a)) end
      elseif kind == "non_index_update" then
         if #p[1].value ~= 119 then fail("c template length") end
         local id = p[2].value
         if id < 1 or id > size then fail(kind .. ": id " .. id) end
      elseif kind == "insert" then
         if st.expect_int32_ids then
            if p[1].value > 2147483647 or p[1].value < -2147483648 then
               fail("insert: id " .. p[1].value)
            end
         elseif p[1].value < 1 or p[1].value > size then
            fail("insert: id " .. p[1].value)
         end
         if p[2].value < 1 or p[2].value > size then fail("insert: k") end
         if #p[3].value ~= 119 or #p[4].value ~= 59 then
            fail("insert: template lengths")
         end
      elseif kind == "insert_auto" then
         if p[1].value < 1 or p[1].value > size then fail("insert: k") end
         if #p[2].value ~= 119 or #p[3].value ~= 59 then
            fail("insert_auto: template lengths")
         end
      elseif kind == "random_points" then
         for i = 1, #p do
            local v = p[i].value
            if v < lo or v > hi then fail("random_points: " .. v) end
         end
      elseif kind == "random_ranges" then
         for i = 1, #p, 2 do
            local a, b = p[i].value, p[i + 1].value
            if a < lo or a > hi then fail("random_ranges: " .. a) end
            if b - a ~= opts.delta then fail("random_ranges: delta") end
         end
      end
   end
end

local DEFAULTS = { table_size = 10000, range_size = 100, delta = 5 }

local function with_defaults(opts)
   local o = {}
   for k, v in pairs(DEFAULTS) do o[k] = v end
   for k, v in pairs(opts or {}) do o[k] = v end
   return o
end

-- Runs thread_init, `events` events checking the per-event deltas of
-- reads/writes/other, then thread_done.  Returns the state and the number
-- of executions per statement kind.
local function run_events(name, want, opts, cfg, events)
   events = events or 100
   cfg = cfg or {}
   cfg.tid = cfg.tid or 0
   cfg.dialect = cfg.dialect or "postgresql"
   local st = load_workload(name, cfg, opts)
   local vopts = with_defaults(opts)
   vopts.k_min, vopts.k_max = want.k_min, want.k_max
   if opts and opts.auto_inc == false then st.expect_int32_ids = true end

   thread_init()
   eq(st.connects, 1, "connections after thread_init")
   eq(st.reads + st.writes + st.other, 0, "queries run by thread_init")
   tag_statements(st)
   for _, s in ipairs(st.stmts) do
      check(s.kind:sub(1, 8) ~= "unknown:", "prepared " .. s.kind)
   end
   st.on_execute = value_checker(st, vopts)

   for i = 1, events do
      local r, w, o = st.reads, st.writes, st.other
      event()
      if st.reads - r ~= want.reads or st.writes - w ~= want.writes or
         st.other - o ~= want.other then
         fail(string.format("event %d: reads/writes/other %d/%d/%d, " ..
                               "want %d/%d/%d", i, st.reads - r,
                            st.writes - w, st.other - o, want.reads,
                            want.writes, want.other))
         break
      end
   end
   checks = checks + 1

   local per_kind = {}
   for _, s in ipairs(st.stmts) do
      per_kind[s.kind] = (per_kind[s.kind] or 0) + s.count
   end

   -- The hot path allocates nothing: no string.format, no new tables.
   if want.no_alloc ~= false then
      st.on_execute = nil
      event()
      collectgarbage("collect")
      collectgarbage("stop")
      event() -- a collection shrinks the stack: let it grow back first
      local before = collectgarbage("count")
      for _ = 1, 200 do event() end
      local grown = collectgarbage("count") - before
      collectgarbage("restart")
      check(grown == 0, string.format("events allocated %.1f KiB", grown))
   end

   thread_done()
   eq(st.disconnects, 1, "disconnects after thread_done")
   for _, s in ipairs(st.stmts) do
      check(s.closed, "statement left open: " .. s.sql)
   end
   return st, per_kind
end

local function check_kinds(per_kind, want, events, what)
   local seen = {}
   for kind, n in pairs(per_kind) do
      seen[kind] = true
      eq(n, (want[kind] or 0) * events, what .. ": executions of " .. kind)
   end
   for kind, n in pairs(want) do
      if not seen[kind] and n > 0 then
         fail(what .. ": " .. kind .. " never prepared")
      end
   end
end

----------------------------------------------------------------------------
-- Per-event shapes with default options
----------------------------------------------------------------------------

local READS = { point_select = 10, simple_range = 1, sum_range = 1,
                order_range = 1, distinct_range = 1 }
local WRITES = { index_update = 1, non_index_update = 1, delete = 1,
                 insert = 1 }
local function merge(a, b)
   local m = {}
   for k, v in pairs(a) do m[k] = v end
   for k, v in pairs(b or {}) do m[k] = v end
   return m
end

local SHAPES = {
   { "oltp_read_only", { reads = 14, writes = 0, other = 2 }, READS },
   { "oltp_read_write", { reads = 14, writes = 4, other = 2 },
     merge(READS, WRITES) },
   { "oltp_write_only", { reads = 0, writes = 4, other = 2 }, WRITES },
   { "oltp_point_select", { reads = 1, writes = 0, other = 0 },
     { point_select = 1 } },
   { "oltp_insert", { reads = 0, writes = 1, other = 0 },
     { insert_auto = 1 } },
   { "oltp_update_index", { reads = 0, writes = 1, other = 0 },
     { index_update = 1 } },
   { "oltp_update_non_index", { reads = 0, writes = 1, other = 0 },
     { non_index_update = 1 } },
   { "oltp_delete", { reads = 0, writes = 1, other = 0 }, { delete = 1 } },
   { "select_random_points", { reads = 1, writes = 0, other = 0 },
     { random_points = 1 } },
   { "select_random_ranges", { reads = 1, writes = 0, other = 0 },
     { random_ranges = 1 } },
}

for _, shape in ipairs(SHAPES) do
   local name, want, kinds = shape[1], shape[2], shape[3]
   current = name .. " defaults"
   local _, per_kind = run_events(name, want)
   check_kinds(per_kind, kinds, 100, current)
end

----------------------------------------------------------------------------
-- Options that change the shape
----------------------------------------------------------------------------

current = "oltp_read_only --skip-trx"
do
   local st = run_events("oltp_read_only",
                         { reads = 14, writes = 0, other = 0 },
                         { skip_trx = true })
   eq(st.begins, nil, "BEGINs with skip_trx")
end

current = "oltp_read_only --range-selects=off"
do
   local st, per_kind = run_events("oltp_read_only",
                                   { reads = 10, writes = 0, other = 2 },
                                   { range_selects = false })
   check_kinds(per_kind, { point_select = 10 }, 100, current)
   eq(#st.prepared, 1, "statements prepared")
end

current = "oltp_read_write custom counts"
do
   local _, per_kind = run_events("oltp_read_write",
      { reads = 3 + 2 * 4, writes = 2 + 3 + 2 * 2, other = 2 },
      { point_selects = 3, simple_ranges = 2, sum_ranges = 2,
        order_ranges = 2, distinct_ranges = 2, index_updates = 2,
        non_index_updates = 3, delete_inserts = 2 })
   check_kinds(per_kind, { point_select = 3, simple_range = 2, sum_range = 2,
                           order_range = 2, distinct_range = 2,
                           index_update = 2, non_index_update = 3,
                           delete = 2, insert = 2 }, 100, current)
end

current = "oltp_read_write --tables=4"
do
   local st = run_events("oltp_read_write",
                         { reads = 14, writes = 4, other = 2 },
                         { tables = 4, table_size = 50, range_size = 5 })
   eq(#st.prepared, 9 * 4, "statements prepared for 4 tables")
   local used = {}
   for _, s in ipairs(st.stmts) do
      if s.count > 0 then used[s.tnum] = true end
   end
   for t = 1, 4 do check(used[t], "table " .. t .. " never used") end
end

current = "oltp_point_select --point-selects=10"
run_events("oltp_point_select", { reads = 1, writes = 0, other = 0 },
           { point_selects = 10 })

current = "oltp_insert --auto-inc=off"
do
   local _, per_kind = run_events("oltp_insert",
                                  { reads = 0, writes = 1, other = 0 },
                                  { auto_inc = false })
   check_kinds(per_kind, { insert = 1 }, 100, current)
end

current = "oltp_read_write redshift"
do
   local _, per_kind = run_events("oltp_read_write",
                                  { reads = 14, writes = 2, other = 2 },
                                  { pgsql_variant = "redshift" })
   check_kinds(per_kind, merge(READS, { index_update = 1,
                                        non_index_update = 1 }), 100, current)
end

current = "select_random_points thread slice"
run_events("select_random_points",
           { reads = 1, writes = 0, other = 0, k_min = 5000, k_max = 7500 },
           { threads = 4 }, { tid = 2 })

current = "select_random_ranges thread slice"
run_events("select_random_ranges",
           { reads = 1, writes = 0, other = 0, k_min = 2500, k_max = 5000 },
           { threads = 4, number_of_ranges = 3, delta = 7 }, { tid = 1 })

current = "select_random_points --random-points=3"
do
   local st = load_workload("select_random_points", { tid = 0 },
                            { random_points = 3 })
   thread_init()
   eq(st.prepared[1], "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?)",
      "statement")
   thread_done()
end

----------------------------------------------------------------------------
-- Reconnect hook
----------------------------------------------------------------------------

current = "before_restart_event"
do
   local st = load_workload("oltp_read_write", { tid = 0 }, {})
   thread_init()
   local n = #st.stmts
   eq(n, 9, "statements after thread_init")
   sbench.hooks.before_restart_event({ class = "error", sql_errno = 1 })
   eq(#st.stmts, n, "statements after a non-lost error")
   sbench.hooks.before_restart_event({ class = "lost", sql_errno = 2013 })
   eq(#st.stmts, 2 * n, "statements after a lost connection")
   for i = 1, n do check(st.stmts[i].closed, "old statement " .. i) end
   for i = n + 1, 2 * n do check(not st.stmts[i].closed, "new statement") end
   event()
   for i = 1, n do eq(st.stmts[i].count, 0, "old statement executed") end
   thread_done()

   st = load_workload("select_random_ranges", { tid = 0 }, {})
   thread_init()
   sbench.hooks.before_restart_event({ class = "lost" })
   eq(#st.stmts, 2, "select_random_ranges statements after reconnect")
   check(st.stmts[1].closed and not st.stmts[2].closed, "reprepared")
   event()
   eq(st.stmts[2].count, 1, "new statement executed")
   thread_done()
end

----------------------------------------------------------------------------
-- prepare / cleanup DDL per dialect
----------------------------------------------------------------------------

local CREATE = {
   -- PostgreSQL adds the primary key after the load (PK below)
   postgresql = "CREATE TABLE sbtest1 (\n  id SERIAL,\n" ..
      "  k INTEGER DEFAULT 0 NOT NULL,\n" ..
      "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
      "  pad CHAR(60) DEFAULT '' NOT NULL\n)",
   mysql = "CREATE TABLE sbtest1 (\n  id INTEGER NOT NULL AUTO_INCREMENT,\n" ..
      "  k INTEGER DEFAULT 0 NOT NULL,\n" ..
      "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
      "  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)" ..
      " /*! ENGINE = innodb */",
   sqlite = "CREATE TABLE sbtest1 (\n  id INTEGER,\n" ..
      "  k INTEGER DEFAULT 0 NOT NULL,\n" ..
      "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
      "  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)",
   db2 = "CREATE TABLE sbtest1 (\n" ..
      "  id INTEGER NOT NULL GENERATED BY DEFAULT AS IDENTITY,\n" ..
      "  k INTEGER DEFAULT 0 NOT NULL,\n" ..
      "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
      "  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)",
}
CREATE.ansi = CREATE.db2
local PK = { postgresql = "ALTER TABLE sbtest1 ADD PRIMARY KEY (id)" }

local EXISTS = {
   postgresql = "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE " ..
      "schemaname = current_schema() AND tablename = 'sbtest1'",
   mysql = "SELECT COUNT(*) FROM information_schema.tables WHERE " ..
      "table_schema = DATABASE() AND table_name = 'sbtest1'",
   sqlite = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' " ..
      "AND name = 'sbtest1'",
   db2 = "SELECT COUNT(*) FROM SYSCAT.TABLES WHERE " ..
      "TABSCHEMA = CURRENT SCHEMA AND TABNAME = 'SBTEST1'",
   ansi = "SELECT id FROM sbtest1 WHERE 1 = 0",
}

local FIXUP = {
   postgresql = "SELECT setval('sbtest1_id_seq', 20)",
   db2 = "ALTER TABLE sbtest1 ALTER COLUMN id RESTART WITH 21",
}

local DROP = {
   postgresql = "DROP TABLE IF EXISTS sbtest1",
   mysql = "DROP TABLE IF EXISTS sbtest1",
   sqlite = "DROP TABLE IF EXISTS sbtest1",
   db2 = "DROP TABLE sbtest1",
   ansi = "DROP TABLE sbtest1",
}

local function prepare_with(name, dialect, opts, cfg)
   cfg = cfg or {}
   cfg.dialect = dialect
   cfg.command = "prepare"
   cfg.tid = cfg.tid or 0
   local st = load_workload(name, cfg, opts)
   run_command("prepare")
   return st
end

local function check_load(st, l, size, tname)
   eq(l.table, tname, "bulk load table")
   eq_list(l.cols, { "id", "k", "c", "pad" }, "bulk load columns")
   eq_list(l.types, { "INT", "INT", "CHAR", "CHAR" }, "bulk load types")
   eq(#l.rows, size, "rows loaded")
   local c_pat = "^%d%d%d%d%d%d%d%d%d%d%d" ..
      string.rep("%-%d%d%d%d%d%d%d%d%d%d%d", 9) .. "$"
   local pad_pat = "^%d%d%d%d%d%d%d%d%d%d%d" ..
      string.rep("%-%d%d%d%d%d%d%d%d%d%d%d", 4) .. "$"
   for i, row in ipairs(l.rows) do
      if row[1] ~= i or row[2] < 1 or row[2] > size or
         not row[3]:match(c_pat) or not row[4]:match(pad_pat) then
         fail("bad row " .. i .. ": " .. show(row[1]) .. " " ..
                 show(row[2]) .. " " .. show(row[3]) .. " " .. show(row[4]))
         break
      end
   end
end

for _, dialect in ipairs({ "postgresql", "mysql", "sqlite", "db2", "ansi" }) do
   current = "prepare " .. dialect
   local st = prepare_with("oltp_read_write", dialect, { table_size = 20 })
   local want = { EXISTS[dialect], CREATE[dialect] }
   if FIXUP[dialect] then want[#want + 1] = FIXUP[dialect] end
   if PK[dialect] then want[#want + 1] = PK[dialect] end
   want[#want + 1] = "CREATE INDEX k_1 ON sbtest1(k)"
   eq_list(st.queries, want, "prepare queries")
   eq_list(st.output, { "Creating table 'sbtest1'...",
                        "Inserting 20 records into 'sbtest1'",
                        "Creating a secondary index on 'sbtest1'..." },
           "prepare output")
   eq(#st.loads, 1, "bulk loads")
   if st.loads[1] then check_load(st, st.loads[1], 20, "sbtest1") end
   eq(st.expected, 20, "progress expected")
   eq(st.expects, 1, "progress.expect calls")
   eq(st.disconnects, 1, "prepare disconnects")
   check(sbench.cmdline.commands.prepare[2] ==
            sbench.cmdline.PARALLEL_COMMAND, "prepare is a PARALLEL_COMMAND")

   current = "prepare " .. dialect .. " existing table"
   expect_error(function()
      prepare_with("oltp_read_only", dialect, {},
                   { existing = { sbtest1 = true } })
   end, "already exists", "prepare over an existing table")
   st = prepare_with("oltp_read_only", dialect,
                     { force = true, table_size = 20 },
                     { existing = { sbtest1 = true } })
   eq(st.queries[2], DROP[dialect], "--force drops first")
   eq(st.queries[3], CREATE[dialect], "then creates")
   eq(st.output[1], "Dropping existing table 'sbtest1' (--force)...",
      "--force output")

   current = "cleanup " .. dialect
   st = load_workload("oltp_read_write", { dialect = dialect,
                                           command = "cleanup",
                                           existing = { sbtest1 = true,
                                                        sbtest3 = true,
                                                        sbtest9 = true } },
                      { tables = 3 })
   run_command("cleanup")
   eq_list(st.output, { "Dropping table 'sbtest1'...",
                        "Dropping table 'sbtest2'...",
                        "Dropping table 'sbtest3'..." }, "cleanup output")
   local drops = {}
   for _, sql in ipairs(st.queries) do
      if sql:match("^DROP") then drops[#drops + 1] = sql end
   end
   if DROP[dialect]:find("IF EXISTS") then
      eq_list(drops, { "DROP TABLE IF EXISTS sbtest1",
                       "DROP TABLE IF EXISTS sbtest2",
                       "DROP TABLE IF EXISTS sbtest3" }, "cleanup drops")
   else
      eq_list(drops, { "DROP TABLE sbtest1", "DROP TABLE sbtest3" },
              "cleanup drops (existing tables only)")
   end
   check(st.tables.sbtest9, "cleanup kept a table prepare does not create")
   check(not st.tables.sbtest1 and not st.tables.sbtest3, "tables dropped")
end

current = "prepare in parallel"
do
   local created = {}
   local expects = 0
   for tid = 0, 1 do
      local st = prepare_with("oltp_read_only", "postgresql",
                              { tables = 3, threads = 2, table_size = 7 },
                              { tid = tid })
      local mine = {}
      for _, l in ipairs(st.loads) do mine[#mine + 1] = l.table end
      created[tid] = mine
      expects = expects + st.expected
   end
   eq_list(created[0], { "sbtest1", "sbtest3" }, "thread 0 tables")
   eq_list(created[1], { "sbtest2" }, "thread 1 tables")
   eq(expects, 21, "progress expected over all threads")
end

current = "prepare options"
do
   local st = prepare_with("oltp_read_write", "postgresql",
                           { auto_inc = false, create_secondary = false,
                             table_size = 5 })
   eq_list(st.queries, { EXISTS.postgresql, (CREATE.postgresql:gsub(
                            "id SERIAL", "id INTEGER NOT NULL")), PK.postgresql },
           "auto_inc=off, create_secondary=off")

   st = prepare_with("oltp_read_write", "mysql",
                     { secondary = true, mysql_storage_engine = "MyISAM",
                       table_size = 5 })
   eq(st.queries[2], "CREATE TABLE sbtest1 (\n" ..
         "  id INTEGER NOT NULL AUTO_INCREMENT,\n" ..
         "  k INTEGER DEFAULT 0 NOT NULL,\n" ..
         "  c CHAR(120) DEFAULT '' NOT NULL,\n" ..
         "  pad CHAR(60) DEFAULT '' NOT NULL,\n  KEY xid (id)\n)" ..
         " /*! ENGINE = MyISAM */", "mysql secondary + engine")

   st = prepare_with("oltp_read_write", "postgresql",
                     { secondary = true, table_size = 5 })
   eq(st.queries[2], CREATE.postgresql, "postgresql secondary table")
   for _, sql in ipairs(st.queries) do
      check(sql ~= PK.postgresql, "postgresql secondary: no primary key added")
   end
   eq(st.queries[3], "CREATE INDEX xid_1 ON sbtest1(id)",
      "postgresql secondary id index")

   st = prepare_with("oltp_read_write", "postgresql",
                     { pgsql_variant = "redshift", table_size = 5 })
   eq_list(st.queries, { EXISTS.postgresql, (CREATE.postgresql:gsub(
                            "id SERIAL", "id INTEGER IDENTITY(1,1)"):gsub(
                            "NOT NULL\n%)$", "NOT NULL,\n  PRIMARY KEY (id)\n)")) },
           "redshift (primary key inline)")

   for _, bad in ipairs({ "innodb; DROP TABLE x", "in-no", "", "1nnodb" }) do
      expect_error(function()
         prepare_with("oltp_read_write", "mysql",
                      { mysql_storage_engine = bad })
      end, "mysql_storage_engine", "engine " .. show(bad))
   end
   expect_error(function()
      prepare_with("oltp_read_write", "postgresql",
                   { pgsql_variant = "greenplum" })
   end, "pgsql_variant", "bad pgsql_variant")

   st = prepare_with("oltp_read_write", "postgresql", { table_size = 0 })
   eq_list(st.queries, { EXISTS.postgresql, CREATE.postgresql, PK.postgresql,
                         "CREATE INDEX k_1 ON sbtest1(k)" },
           "empty table: no load, no fixup")
   eq(#st.loads, 0, "empty table: no bulk load")
   eq(st.expects, 1, "empty table: progress.expect still called")

   current = "oltp_insert prepare"
   st = prepare_with("oltp_insert", "postgresql", { auto_inc = false })
   eq(#st.loads, 0, "auto_inc=off: tables created empty")
   eq(st.expected, 0, "auto_inc=off: nothing expected")
   st = prepare_with("oltp_insert", "postgresql", { table_size = 9 })
   eq(st.expected, 9, "auto_inc=on: table loaded")

   current = "select_random_points prepare"
   st = prepare_with("select_random_points", "sqlite", { table_size = 9 })
   eq_list(st.queries, { EXISTS.sqlite, CREATE.sqlite,
                         "CREATE INDEX k_1 ON sbtest1(k)" }, "queries")
end

----------------------------------------------------------------------------
-- bulk_insert
----------------------------------------------------------------------------

current = "bulk_insert"
do
   local BULK = "CREATE TABLE sbtest%d (\n  id INTEGER NOT NULL,\n" ..
      "  k INTEGER DEFAULT 0 NOT NULL,\n  PRIMARY KEY (id)\n)"
   local st = load_workload("bulk_insert", { dialect = "db2",
                                             command = "prepare" },
                            { threads = 2 })
   run_command("prepare")
   eq_list(st.queries, {
      "SELECT COUNT(*) FROM SYSCAT.TABLES WHERE TABSCHEMA = CURRENT " ..
         "SCHEMA AND TABNAME = 'SBTEST1'", BULK:format(1),
      "SELECT COUNT(*) FROM SYSCAT.TABLES WHERE TABSCHEMA = CURRENT " ..
         "SCHEMA AND TABNAME = 'SBTEST2'", BULK:format(2) }, "prepare")
   eq_list(st.output, { "Creating table 'sbtest1'...",
                        "Creating table 'sbtest2'..." }, "prepare output")

   expect_error(function()
      local s2 = load_workload("bulk_insert", { dialect = "mysql",
                                                existing = { sbtest2 = true } },
                               { threads = 2 })
      run_command("prepare")
   end, "already exists", "bulk_insert over an existing table")

   st = load_workload("bulk_insert", { dialect = "mysql", tid = 1 },
                      { threads = 2 })
   thread_init()
   for _ = 1, 100 do event() end
   eq(st.bulk_inits, 1, "bulk_insert_init calls")
   eq(st.bulk_prefix, "INSERT INTO sbtest2 (id, k) VALUES", "insert prefix")
   eq(st.bulk_rows, 100, "rows")
   eq(st.bulk_last, "(100,100)", "last row")
   eq(st.bulk_dones, 0, "bulk_insert_done before thread_done")
   thread_done()
   eq(st.bulk_dones, 1, "bulk_insert_done after thread_done")
   eq(st.disconnects, 1, "disconnects")

   st = load_workload("bulk_insert", { dialect = "sqlite",
                                       existing = { sbtest1 = true } },
                      { threads = 3 })
   run_command("cleanup")
   eq_list(st.queries, { "DROP TABLE IF EXISTS sbtest1",
                         "DROP TABLE IF EXISTS sbtest2",
                         "DROP TABLE IF EXISTS sbtest3" }, "cleanup")
end

say(string.format("workload_shapes: %d checks, %d failures", checks,
                  failures))
os.exit(failures == 0 and 0 or 1)
