-- pgbench_init: pgbench's schema and its init steps (-I dtgvpf) on every
-- database sbench drives.
--
-- The four tables of pgbench 15 (pgbench_branches, _tellers, _accounts,
-- _history), 100,000 accounts, 10 tellers and 1 branch per unit of scale.
-- Steps: d drop, t create (fillfactor, unlogged tables and partitions on
-- PostgreSQL), g generate client side (accounts through con:bulk_load_*:
-- COPY on PostgreSQL, LOAD DATA LOCAL / multi-row INSERTs on MySQL, array
-- binding on ODBC; every thread loads its share of the branches), v vacuum
-- (ANALYZE elsewhere), p primary keys (unique indexes on SQLite, which
-- cannot add a key to a table), f foreign keys.  sql(dialect, s) only
-- builds text, so a test can print it.

local M = {}

M.NACCOUNTS, M.NTELLERS, M.NBRANCHES = 100000, 10, 1
M.tables = { "pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers" }

-- Refuses, before any connection, settings a dialect cannot honour.
function M.check(dialect, s)
   if not s.init_steps:match("^[dtgGvpf ]*$") then
      error("invalid init step in -I/--init-steps=" .. s.init_steps ..
               " (allowed: d t g v p f; G, server-side generation, is not implemented)", 0)
   end
   if s.init_steps:find("G", 1, true) then
      error("init step G (server-side data generation) is not implemented: use g", 0)
   end
   if s.fillfactor < 10 or s.fillfactor > 100 then
      error("invalid fillfactor " .. s.fillfactor .. ": expected 10 to 100", 0)
   end
   if s.scale < 1 then error("invalid scale factor " .. s.scale .. ": expected at least 1", 0) end
   if s.partitions < 0 then error("invalid number of partitions " .. s.partitions, 0) end
   if s.partition_method ~= "range" and s.partition_method ~= "hash" then
      error("invalid partition method " .. s.partition_method .. ": expected range or hash", 0)
   end
   if dialect ~= "postgresql" then
      if s.unlogged_tables then
         error("--unlogged-tables: only PostgreSQL has unlogged tables (database: " .. dialect .. ")", 0)
      end
      if s.partitions > 0 then
         error("--partitions: pgbench's partitioned accounts are PostgreSQL's (database: " .. dialect .. ")", 0)
      end
   end
   if dialect == "sqlite" and s.init_steps:find("f", 1, true) then
      error("init step f (foreign keys): SQLite cannot add a foreign key to an existing table", 0)
   end
end

-- sql(dialect, s) -> the statements of each step: { drop = {...},
-- create = {...}, vacuum = {...}, pkeys = {...}, fkeys = {...} }.
function M.sql(dialect, s)
   local pg = dialect == "postgresql"
   local big = s.scale >= 20000
   local aid_type = big and "bigint" or "int"
   local with = (pg and s.fillfactor < 100) and (" with (fillfactor=" .. s.fillfactor .. ")") or ""
   local unlogged = (pg and s.unlogged_tables) and "unlogged " or ""
   local defs = {
      { "pgbench_history", "tid int,bid int,aid " .. aid_type .. ",delta int,mtime timestamp,filler char(22)", false },
      { "pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)", true },
      { "pgbench_accounts", "aid " .. aid_type .. " not null,bid int,abalance int,filler char(84)", true },
      { "pgbench_branches", "bid int not null,bbalance int,filler char(88)", true },
   }
   local q = { drop = {}, create = {}, vacuum = {}, pkeys = {}, fkeys = {} }
   for _, t in ipairs(M.tables) do
      q.drop[#q.drop + 1] = "drop table if exists " .. t .. (pg and " cascade" or "")
   end
   for _, d in ipairs(defs) do
      local name, cols, ff = d[1], d[2], d[3]
      local sql = "create " .. unlogged .. "table " .. name .. "(" .. cols .. ")"
      if name == "pgbench_accounts" and pg and s.partitions > 0 then
         sql = sql .. " partition by " .. s.partition_method .. " (aid)"
      elseif ff then
         sql = sql .. with
      end
      q.create[#q.create + 1] = sql
   end
   if pg and s.partitions > 0 then
      local total = M.NACCOUNTS * s.scale
      local size = (total + s.partitions - 1) // s.partitions
      for p = 1, s.partitions do
         local bound
         if s.partition_method == "range" then
            local lo = p == 1 and "minvalue" or tostring((p - 1) * size + 1)
            local hi = p == s.partitions and "maxvalue" or tostring(p * size + 1)
            bound = "for values from (" .. lo .. ") to (" .. hi .. ")"
         else
            bound = "for values with (modulus " .. s.partitions .. ", remainder " .. (p - 1) .. ")"
         end
         q.create[#q.create + 1] = "create " .. unlogged .. "table pgbench_accounts_" .. p ..
            " partition of pgbench_accounts " .. bound .. with
      end
   end
   local keys = { { "pgbench_branches", "bid" }, { "pgbench_tellers", "tid" },
                  { "pgbench_accounts", "aid" } }
   for _, k in ipairs(keys) do
      if dialect == "sqlite" then
         q.pkeys[#q.pkeys + 1] = "create unique index " .. k[1] .. "_pkey on " .. k[1] .. "(" .. k[2] .. ")"
      else
         q.pkeys[#q.pkeys + 1] = "alter table " .. k[1] .. " add primary key (" .. k[2] .. ")"
      end
   end
   local fks = { { "pgbench_tellers", "bid", "pgbench_branches", "bid" },
                 { "pgbench_accounts", "bid", "pgbench_branches", "bid" },
                 { "pgbench_history", "bid", "pgbench_branches", "bid" },
                 { "pgbench_history", "tid", "pgbench_tellers", "tid" },
                 { "pgbench_history", "aid", "pgbench_accounts", "aid" } }
   for _, f in ipairs(fks) do
      q.fkeys[#q.fkeys + 1] = "alter table " .. f[1] .. " add constraint " .. f[1] .. "_" .. f[2] ..
         "_fkey foreign key (" .. f[2] .. ") references " .. f[3] .. " (" .. f[4] .. ")"
   end
   for _, t in ipairs({ "pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history" }) do
      if pg then q.vacuum[#q.vacuum + 1] = "vacuum analyze " .. t
      elseif dialect == "mysql" then q.vacuum[#q.vacuum + 1] = "analyze table " .. t
      else q.vacuum[#q.vacuum + 1] = "analyze " .. t end
   end
   return q
end

local function exec_all(con, list)
   for _, sql in ipairs(list) do con:query(sql) end
end

-- Loads branches and tellers (thread 0) and the accounts of branches
-- tid+1, tid+1+threads, ... through the driver's bulk load.
local function generate(con, s, tid, threads)
   local T = sbench.sql.type
   if tid == 0 then
      con:bulk_load_init("pgbench_branches", { "bid", "bbalance" }, { T.INT, T.INT })
      for b = 1, M.NBRANCHES * s.scale do con:bulk_load_row(b, 0) end
      con:bulk_load_done()
      con:bulk_load_init("pgbench_tellers", { "tid", "bid", "tbalance" }, { T.INT, T.INT, T.INT })
      for t = 1, M.NTELLERS * s.scale do con:bulk_load_row(t, (t - 1) // M.NTELLERS + 1, 0) end
      con:bulk_load_done()
   end
   local mine = 0
   for b = tid + 1, s.scale, threads do mine = mine + 1 end
   sbench.progress.expect(mine * M.NACCOUNTS)
   for b = tid + 1, s.scale, threads do
      con:bulk_load_init("pgbench_accounts", { "aid", "bid", "abalance", "filler" },
                         { T.INT, T.INT, T.INT, T.CHAR })
      local base = (b - 1) * M.NACCOUNTS
      for a = 1, M.NACCOUNTS do con:bulk_load_row(base + a, b, 0, "") end
      con:bulk_load_done()
   end
end

-- run(con, dialect, s): the init steps in order, every thread of the
-- parallel prepare command calling it; one thread does the DDL, the
-- others wait at the barriers.
function M.run(con, dialect, s)
   local tid, threads = sbench.tid or 0, s.threads
   local q = M.sql(dialect, s)
   local steps = s.init_steps
   if s.foreign_keys and not steps:find("f", 1, true) then steps = steps .. "f" end
   for step in steps:gmatch("%S") do
      if step == "g" then
         if tid == 0 then print("generating data (client-side)...") end
         generate(con, s, tid, threads)
      elseif tid == 0 then
         local what = ({ d = "dropping old tables", t = "creating tables",
                         v = "vacuuming", p = "creating primary keys",
                         f = "creating foreign keys" })[step]
         print(what .. "...")
         local list = ({ d = q.drop, t = q.create, v = q.vacuum, p = q.pkeys, f = q.fkeys })[step]
         if step == "v" and dialect == "sqlite" then list = { "analyze" } end
         exec_all(con, list)
      end
      sbench.barrier()
   end
   if tid == 0 then print("done.") end
end

return M
