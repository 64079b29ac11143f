-- A fake of the sbench Lua API (docs/lua-api.md) for testing workload
-- scripts with plain lua5.4: no database, every call is recorded.
--
--   local fake = require("fake_sbench")
--   local st = fake.install{ dialect = "postgresql", command = "run",
--                            existing = { sbtest1 = true } }
--   dofile("workloads/oltp_read_only.lua")
--   fake.set_options(st, { tables = 2 })   -- defaults + these -> sbench.opt
--   thread_init() ... event() ... thread_done()
--
-- Recorded in the state st:
--   st.queries      every con:query / con:query_row SQL text, in order
--   st.prepared     every con:prepare SQL text, in order
--   st.stmts        every statement object ever prepared (.sql, .count,
--                   .closed, .params)
--   st.reads, st.writes, st.other   statements executed, classified like
--                   sysbench: SELECT = read; INSERT/UPDATE/DELETE/REPLACE =
--                   write; con:begin/commit/rollback and anything else = other
--   st.tables       set of existing table names (CREATE/DROP keep it current)
--   st.loads        bulk loads: { table, cols, types, rows = { {v...}, ... } }
--   st.bulk_inits, st.bulk_rows, st.bulk_dones   bulk_insert_* calls
--   st.expected     sum of sbench.progress.expect(n)
--   st.output       lines printed with print()
--   st.connects, st.disconnects
-- Random numbers are deterministic (a 64-bit LCG).  set_rand_str and
-- rand.string do not allocate on the hot path: set_rand_str only records the
-- template.

local F = {}

-- print() before install() replaced it (install captures output in st).
F.real_print = print

local TYPES = { "INT", "TINYINT", "SMALLINT", "BIGINT", "FLOAT", "DOUBLE",
                "CHAR", "VARCHAR", "TIME", "DATE", "DATETIME" }

local function classify(sql)
   local w = sql:match("^%s*(%a+)")
   w = w and w:upper() or ""
   if w == "SELECT" then return "reads" end
   if w == "INSERT" or w == "UPDATE" or w == "DELETE" or w == "REPLACE" then
      return "writes"
   end
   return "other"
end

local function sql_error(st, sql, msg, class)
   error({ sql_errno = 1, sql_state = "42000", sql_errmsg = msg,
           connection = st.con, query = sql, class = class or "error" }, 0)
end

-- Table named by a catalog query's literal, e.g. 'sbtest1' or 'SBTEST1'.
local function catalog_table(sql)
   local name = sql:match("'(%a+%d+)'%s*$")
   return name and name:lower()
end

function F.install(cfg)
   cfg = cfg or {}
   local st = {
      dialect = cfg.dialect or "postgresql",
      driver_name = cfg.driver_name or "fake",
      queries = {}, prepared = {}, stmts = {},
      reads = 0, writes = 0, other = 0,
      tables = {}, loads = {},
      bulk_inits = 0, bulk_rows = 0, bulk_dones = 0,
      expected = 0, output = {},
      connects = 0, disconnects = 0,
      seed = cfg.seed or 12345,
      unique_next = 0,
   }
   for name in pairs(cfg.existing or {}) do st.tables[name] = true end

   -- random numbers ------------------------------------------------------
   local x = st.seed
   local function next_rand()
      x = x * 6364136223846793005 + 1442695040888963407
      return (x >> 33)
   end
   local function uniform(a, b)
      assert(math.type(a) == "integer" and math.type(b) == "integer",
             "rand: integer bounds expected")
      assert(a <= b, "rand: empty range [" .. a .. ", " .. b .. "]")
      return a + next_rand() % (b - a + 1)
   end
   local digits = {}
   for i = 0, 9 do digits[i] = tostring(i) end
   local rand = {
      uniform = uniform, default = uniform, gaussian = uniform,
      special = uniform, pareto = uniform, zipfian = uniform,
      uniform_double = function() return (next_rand() % 1000000) / 1e6 end,
      unique = function()
         st.unique_next = st.unique_next + 1
         return (st.unique_next * 2654435761) % 4294967296
      end,
      string = function(tmpl)
         return (tmpl:gsub("[#@]", function(ch)
            if ch == "#" then return digits[next_rand() % 10] end
            return string.char(97 + next_rand() % 26)
         end))
      end,
      varstring = function(a, b)
         local n = uniform(a, b)
         return string.rep("x", n)
      end,
   }

   -- results ---------------------------------------------------------------
   local Result = {}
   Result.__index = Result
   function Result:fetch_row()
      self.pos = self.pos + 1
      return self.rows[self.pos]
   end
   function Result:free() self.freed = true end
   local function result(rows)
      return setmetatable({ rows = rows, pos = 0, nrows = #rows,
                            nfields = rows[1] and #rows[1] or 0 }, Result)
   end
   local empty_result = result({})

   -- statements ---------------------------------------------------------
   local Param = {}
   Param.__index = Param
   function Param:set(v)
      if self.type == "INT" then
         if math.type(v) ~= "integer" then
            error("fake: INT parameter set to " .. tostring(v) .. " (" ..
                     (math.type(v) or type(v)) .. ")", 2)
         end
      elseif type(v) ~= "string" then
         error("fake: string parameter set to a " .. type(v), 2)
      end
      self.value = v
      self.is_set = true
   end
   function Param:set_rand_str(tmpl)
      if self.type ~= "CHAR" and self.type ~= "VARCHAR" then
         error("fake: set_rand_str on a " .. self.type .. " parameter", 2)
      end
      if self.maxlen and #tmpl > self.maxlen then
         error("fake: template longer than the parameter (" .. #tmpl ..
                  " > " .. self.maxlen .. ")", 2)
      end
      self.value = tmpl
      self.is_set = true
   end

   local Stmt = {}
   Stmt.__index = Stmt
   function Stmt:bind_create(ty, maxlen)
      local tname = st.type_names[ty]
      if not tname then error("fake: bind_create with an unknown type", 2) end
      if (tname == "CHAR" or tname == "VARCHAR") and maxlen == nil then
         error("fake: string parameter without maxlen", 2)
      end
      return setmetatable({ type = tname, maxlen = maxlen, stmt = self },
                          Param)
   end
   function Stmt:bind_param(...)
      local ps = table.pack(...)
      if ps.n ~= self.nplaceholders then
         error("fake: " .. ps.n .. " parameters bound to a statement with " ..
                  self.nplaceholders .. " placeholders: " .. self.sql, 2)
      end
      for i = 1, ps.n do
         if getmetatable(ps[i]) ~= Param or ps[i].stmt ~= self then
            error("fake: bind_param argument " .. i ..
                     " is not a parameter of this statement", 2)
         end
      end
      self.params = ps
   end
   function Stmt:execute()
      if self.closed then error("fake: execute on a closed statement", 2) end
      if self.nplaceholders > 0 then
         if not self.params then
            error("fake: execute without bound parameters: " .. self.sql, 2)
         end
         for i = 1, self.nplaceholders do
            if not self.params[i].is_set then
               error("fake: parameter " .. i .. " never set: " .. self.sql, 2)
            end
         end
      end
      if st.on_execute then st.on_execute(self) end
      self.count = self.count + 1
      st[self.class] = st[self.class] + 1
      if self.class == "reads" then return empty_result end
      return 1
   end
   function Stmt:close()
      if self.closed then error("fake: statement closed twice", 2) end
      self.closed = true
   end

   -- connection ---------------------------------------------------------
   local Con = {}
   Con.__index = Con
   local function run_query(sql)
      st.queries[#st.queries + 1] = sql
      local up = sql:upper()
      local class = classify(sql)
      st[class] = st[class] + 1
      local create = up:match("^%s*CREATE%s+TABLE%s+(%w+)")
      if create then
         create = create:lower()
         if st.tables[create] then
            sql_error(st, sql, "table " .. create .. " already exists")
         end
         st.tables[create] = true
         return 0
      end
      local drop_if = up:match("^%s*DROP%s+TABLE%s+IF%s+EXISTS%s+(%w+)")
      if drop_if then
         st.tables[drop_if:lower()] = nil
         return 0
      end
      local drop = up:match("^%s*DROP%s+TABLE%s+(%w+)")
      if drop then
         drop = drop:lower()
         if not st.tables[drop] then
            sql_error(st, sql, "table " .. drop .. " does not exist")
         end
         st.tables[drop] = nil
         return 0
      end
      if up:match("^%s*SELECT%s+COUNT%(%*%)%s+FROM%s+[%w_.]*TABLES")
         or up:match("^%s*SELECT%s+COUNT%(%*%)%s+FROM%s+SQLITE_MASTER") then
         local name = catalog_table(sql)
         return result({ { st.tables[name] and 1 or 0 } })
      end
      local probe = up:match("^%s*SELECT%s+ID%s+FROM%s+(%w+)%s+WHERE%s+1%s*=%s*0")
      if probe then
         if not st.tables[probe:lower()] then
            sql_error(st, sql, "no such table: " .. probe:lower())
         end
         return result({})
      end
      if class == "reads" then return result({ { 1 } }) end
      return 0
   end
   function Con:query(sql)
      if self.closed then error("fake: query on a closed connection", 2) end
      return run_query(sql)
   end
   function Con:query_row(sql)
      local r = run_query(sql)
      if type(r) == "table" and r.rows[1] then
         return table.unpack(r.rows[1])
      end
      return nil
   end
   function Con:dialect() return st.dialect end
   function Con:prepare(sql)
      if self.closed then error("fake: prepare on a closed connection", 2) end
      st.prepared[#st.prepared + 1] = sql
      local _, n = sql:gsub("%?", "")
      local s = setmetatable({ sql = sql, nplaceholders = n, count = 0,
                               class = classify(sql), con = self }, Stmt)
      st.stmts[#st.stmts + 1] = s
      return s
   end
   function Con:begin() st.other = st.other + 1; st.begins = (st.begins or 0) + 1 end
   function Con:commit() st.other = st.other + 1; st.commits = (st.commits or 0) + 1 end
   function Con:rollback() st.other = st.other + 1 end
   function Con:reconnect() st.reconnects = (st.reconnects or 0) + 1 end
   function Con:disconnect()
      if self.closed then error("fake: disconnect twice", 2) end
      self.closed = true
      st.disconnects = st.disconnects + 1
   end
   function Con:bulk_insert_init(prefix)
      if self.bulk_prefix then error("fake: nested bulk_insert_init", 2) end
      self.bulk_prefix = prefix
      st.bulk_inits = st.bulk_inits + 1
      st.bulk_prefix = prefix
   end
   function Con:bulk_insert_next(values)
      if not self.bulk_prefix then
         error("fake: bulk_insert_next without init", 2)
      end
      st.bulk_rows = st.bulk_rows + 1
      st.bulk_last = values
   end
   function Con:bulk_insert_done()
      if not self.bulk_prefix then
         error("fake: bulk_insert_done without init", 2)
      end
      self.bulk_prefix = nil
      st.bulk_dones = st.bulk_dones + 1
      st.writes = st.writes + 1
   end
   function Con:bulk_load_init(tname, cols, types)
      if self.load then error("fake: nested bulk_load_init", 2) end
      if not st.tables[tname] then
         error("fake: bulk load into missing table " .. tname, 2)
      end
      if #cols ~= #types then error("fake: columns/types mismatch", 2) end
      local tn = {}
      for i, ty in ipairs(types) do
         tn[i] = st.type_names[ty] or error("fake: unknown type", 2)
      end
      self.load = { table = tname, cols = cols, types = tn, rows = {} }
      st.loads[#st.loads + 1] = self.load
   end
   function Con:bulk_load_row(...)
      local l = self.load or error("fake: bulk_load_row without init", 2)
      local row = table.pack(...)
      if row.n ~= #l.cols then error("fake: wrong number of values", 2) end
      for i = 1, row.n do
         local ty = l.types[i]
         if ty == "INT" and math.type(row[i]) ~= "integer" then
            error("fake: non-integer value for INT column " .. l.cols[i], 2)
         elseif (ty == "CHAR" or ty == "VARCHAR") and
            type(row[i]) ~= "string" then
            error("fake: non-string value for column " .. l.cols[i], 2)
         end
      end
      row.n = nil
      l.rows[#l.rows + 1] = row
   end
   function Con:bulk_load_done()
      if not self.load then error("fake: bulk_load_done without init", 2) end
      self.load = nil
   end

   local Driver = {}
   Driver.__index = Driver
   function Driver:name() return st.driver_name end
   function Driver:connect()
      st.connects = st.connects + 1
      local c = setmetatable({}, Con)
      st.con = c
      return c
   end

   -- sbench ---------------------------------------------------------------
   local sqltype = {}
   st.type_names = {}
   for i, name in ipairs(TYPES) do
      sqltype[name] = i
      st.type_names[i] = name
   end

   sbench = {
      version = "0.0.0-fake",
      tid = cfg.tid,
      opt = {},
      cmdline = {
         command = cfg.command or "run",
         argv = {},
         PARALLEL_COMMAND = { "PARALLEL_COMMAND" },
      },
      error = { NONE = 0, RESTART_EVENT = 1 },
      hooks = {},
      progress = {
         expect = function(n)
            assert(math.type(n) == "integer", "expect: integer expected")
            st.expected = st.expected + n
            st.expects = (st.expects or 0) + 1
         end,
      },
      rand = rand,
      sql = {
         type = sqltype,
         driver = function() return setmetatable({}, Driver) end,
      },
   }
   sysbench = sbench
   unpack = table.unpack
   print = function(...)
      local parts = table.pack(...)
      for i = 1, parts.n do parts[i] = tostring(parts[i]) end
      st.output[#st.output + 1] = table.concat(parts, "\t")
   end
   st.sbench = sbench
   return st
end

-- Fills sbench.opt from the script's declared options' defaults, then
-- `values` (which may also set threads).
function F.set_options(st, values)
   local opt = {}
   for name, def in pairs(sbench.cmdline.options or {}) do
      opt[name] = def[2]
   end
   opt.threads = 1
   for k, v in pairs(values or {}) do opt[k] = v end
   sbench.opt = opt
end

return F
