-- The functions of sysbench's legacy (0.5-style) Lua API that sysbench 1.0
-- still provides as globals (db_connect, db_query, db_prepare, ...), over
-- sbench.sql.  Compiled into sbench (lua/l_legacy.c embeds this file) and
-- run once per Lua state, the first time a script calls one of them, so
-- that a script which never does pays nothing.
--
-- The script calls these through C functions (l_legacy.c) that forward
-- to them: an error about the script's call is raised at level 3 (level 4
-- from a helper), where the script is.
--
-- Called with: ctx (returns the table of the code running now: the
-- worker's or a client's, holding its connection `con`) and the sbench
-- table.  Returns the table of functions, by their global names.
--
-- Errors: an SQL error is raised as sbench.sql raises it, errcode
-- included: sbench.error.RESTART_EVENT, which is also the legacy
-- DB_ERROR_RESTART_TRANSACTION (in sysbench 1.0 both are 1), when the
-- event restarts on it (deadlock, serialization failure, lost connection,
-- a SQLSTATE of --db-ignore-sqlstates).  So a legacy retry loop that
-- compares err.errcode with DB_ERROR_RESTART_TRANSACTION works, and an
-- error left uncaught restarts or ends the event as any SQL error does.
local ctx, sbench = ...
local error, type, pairs, getmetatable, setmetatable = error, type, pairs, getmetatable, setmetatable
local unpack = table.unpack

local M = {}

local function connect(c)
   if c.con then
      c.con:disconnect()
   end
   local drv = sbench.sql.driver()
   c.con = drv:connect()
   db_driver = drv:name()
   return c.con
end

-- The caller's connection: opened on first use, as sysbench does.
local function con_of()
   local c = ctx()
   return c.con or connect(c)
end

-- The caller's connection, which db_connect or a statement opened.
local function open_con(fname)
   local con = ctx().con
   if not con then
      error(fname .. ": no database connection (call db_connect() or db_query() first)", 4)
   end
   return con
end

function M.db_connect()
   connect(ctx())
end

function M.db_disconnect()
   local c = ctx()
   if c.con then
      c.con:disconnect()
      c.con = nil
   end
end

-- Runs a statement; returns nothing (its result is discarded).
function M.db_query(sql)
   if type(sql) ~= "string" then
      error("db_query: the statement must be a string, got " .. type(sql), 3)
   end
   local con = con_of()
   con:query(sql)
end

function M.db_bulk_insert_init(prefix)
   local con = con_of()
   con:bulk_insert_init(prefix)
end

function M.db_bulk_insert_next(values)
   local con = open_con("db_bulk_insert_next")
   con:bulk_insert_next(values)
end

function M.db_bulk_insert_done()
   local con = open_con("db_bulk_insert_done")
   con:bulk_insert_done()
end

-- A legacy statement: {stmt = sbench statement, sql, params = the table
-- db_bind_param was given, binds = its parameter objects, rs = the result
-- object db_execute returns (one per statement, reused)}.
local stmt_mt = {__name = "legacy statement"}
local rs_mt = {__name = "legacy result set"}

local function check_stmt(s, fname)
   if getmetatable(s) ~= stmt_mt then
      error(fname .. ": a statement from db_prepare expected, got " .. type(s), 4)
   end
   if not s.stmt then
      error(fname .. ": the statement is closed", 4)
   end
   return s
end

function M.db_prepare(sql)
   local con = con_of()
   local stmt = con:prepare(sql)
   local s = setmetatable({stmt = stmt, con = con, sql = sql}, stmt_mt)
   s.rs = setmetatable({}, rs_mt)
   return s
end

-- Binds a list of values: a number binds an integer parameter, a string a
-- string one; db_execute sends the values the list holds then.
function M.db_bind_param(s, params)
   check_stmt(s, "db_bind_param")
   if type(params) ~= "table" then
      error("db_bind_param: a table of parameter values expected, got " .. type(params), 3)
   end
   local n = 0
   for _ in pairs(params) do
      n = n + 1
   end
   if n == 0 then
      error("db_bind_param: the table of parameters is empty", 3)
   end
   if n ~= #params then
      error("db_bind_param: the parameters must be a list {v1, v2, ...} without holes", 3)
   end
   local types = sbench.sql.type
   local kinds = {}
   for i = 1, n do
      local t = type(params[i])
      if t == "number" then
         kinds[i] = types.INT
      elseif t == "string" then
         kinds[i] = types.VARCHAR
      else
         error("db_bind_param: parameter " .. i .. " is a " .. t ..
               " (numbers and strings only)", 3)
      end
   end
   if s.binds then -- bound before: a fresh statement takes the new types
      s.stmt:close()
      s.stmt = s.con:prepare(s.sql)
   end
   local binds = {}
   for i = 1, n do
      binds[i] = s.stmt:bind_create(kinds[i])
   end
   s.stmt:bind_param(unpack(binds))
   s.binds, s.params = binds, params
end

-- Accepted for compatibility: as in sysbench 1.0, results are not copied
-- into the table.
function M.db_bind_result(s, results)
   check_stmt(s, "db_bind_result")
   if type(results) ~= "table" then
      error("db_bind_result: a table expected, got " .. type(results), 3)
   end
end

-- Sends the bound list's current values; returns the statement's result
-- set (for db_store_results / db_free_results).
function M.db_execute(s)
   check_stmt(s, "db_execute")
   local binds, params = s.binds, s.params
   if binds then
      for i = 1, #binds do
         binds[i]:set(params[i])
      end
   end
   local r = s.stmt:execute()
   s.rs.r = type(r) ~= "number" and r or nil
   return s.rs
end

function M.db_close(s)
   check_stmt(s, "db_close")
   s.stmt:close()
   s.stmt, s.binds, s.params = nil, nil, nil
end

local function check_rs(rs, fname)
   if getmetatable(rs) ~= rs_mt then
      error(fname .. ": a result set from db_execute expected, got " .. type(rs), 4)
   end
end

-- Results are read as they arrive: nothing to store.
function M.db_store_results(rs)
   check_rs(rs, "db_store_results")
end

function M.db_free_results(rs)
   check_rs(rs, "db_free_results")
   if rs.r then
      rs.r:free()
      rs.r = nil
   end
end

return M
