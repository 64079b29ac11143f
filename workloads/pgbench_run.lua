-- pgbench_run: one client running parsed pgbench scripts (pgbench_script)
-- on an sbench connection.
--
--   local runner = require("pgbench_run").new(con, { mode = "prepared",
--                                                     dialect = "postgresql" })
--   runner.run(script, ctx)   -- one transaction; ctx = { vars, rs }
--
-- The hot path: expressions are closures compiled once; under -M prepared
-- each SQL command is prepared on its first run on the connection (`?` for
-- every :variable) and then only its parameters are set; under simple and
-- extended the statement text is joined from its pieces.  Transaction
-- verbs (BEGIN, END, COMMIT, ROLLBACK) go through the driver's own calls on
-- databases other than PostgreSQL and SQLite, which accept pgbench's
-- spelling.  A failure of the script itself (an expression error, an
-- undefined variable) raises "SOURCE:LINE: message".

local E = require("pgbench_expr")
local S = require("pgbench_script")
local Names = require("pgbench_names")

local M = {}
local NULL, to_text = E.NULL, E.to_text
-- the C runner of plain scripts (lua/l_pgscript.c), under sbench
local PS = type(sbench) == "table" and sbench.pgbench_script
local concat = table.concat
local mtype = math.type

local usleep
do
   local ok, ffi = pcall(require, "ffi")
   if ok and ffi and ffi.C then usleep = ffi.C.usleep end
end

local plain_error = { __tostring = function(e) return e.message end }
local function script_fail(script, cmd, msg)
   error(setmetatable({ message = script.source .. ":" .. cmd.line .. ": " .. msg,
                        no_traceback = true, script_error = true }, plain_error), 0)
end

local function var_text(script, cmd, vars, name)
   local v = vars[name]
   if v == nil then script_fail(script, cmd, "undefined variable \"" .. name .. "\"") end
   if type(v) == "string" then return v end
   return to_text(v)
end

-- Whether the answer's columns have the names kept from an earlier one
-- (a statement with :variables may name other columns each time in simple
-- mode: SELECT * FROM :t); compared without allocating.
local function same_names(rs, part, names, n)
   if #names ~= n then return false end
   if #part.pieces == 1 then return true end
   for i = 1, n do
      if rs:field_name(i) ~= names[i] then return false end
   end
   return true
end

-- The names of the answer's columns: the server's (rs:field_name, read on
-- the statement's first answer and kept while they stay the same), else,
-- from a driver that cannot name columns, the query's text read by
-- PostgreSQL's rules (part.names, pgbench_names; nil for SELECT * there).
local function answer_names(rs, part, prefix)
   local names = part.server_names
   local n = rs.nfields
   if names and same_names(rs, part, names, n) then return names, part.server_valid end
   if n > 0 and rs:field_name(1) then
      local valid = {}
      names = {}
      for i = 1, n do
         names[i] = rs:field_name(i) or "?column?"
         valid[i] = Names.valid(prefix .. names[i])
      end
      part.server_names, part.server_valid = names, valid
      return names, valid
   end
   return part.names, part.valid
end

-- \gset (must: exactly one row) and \aset (the last row of any number)
-- into variables named by the answer's columns (answer_names).  A
-- result the binding gives as a count (no result set) holds rows only
-- when the statement answers rows (part.rows: SELECT, VALUES, RETURNING).
local function store(script, cmd, rs, part, vars, prefix, must)
   local row, nrows = nil, 0
   local names, valid = part.names, part.valid
   if type(rs) == "number" then
      nrows = part.rows and rs or 0
      row = {}
   elseif rs then
      names, valid = answer_names(rs, part, prefix)
      if rs.nfields == 0 then -- no columns (SELECT;): its rows, nothing to set
         nrows, row = math.max(rs.result_rows, 0), {}
      end
      local r = nrows == 0 and rs:fetch_row()
      while r do
         row, nrows = r, nrows + 1
         if must and nrows > 1 then row = nil end
         r = rs:fetch_row()
      end
   end
   if must and nrows ~= 1 then
      script_fail(script, cmd, "expected one row, got " .. nrows)
   end
   if not row or nrows == 0 then return end
   if not names then script_fail(script, cmd, "the database driver cannot name the columns") end
   for i, nm in ipairs(names) do
      local v = row[i]
      if not valid[i] then script_fail(script, cmd, "error storing into variable " .. prefix .. nm) end
      if v == nil then v = NULL elseif type(v) == "string" then v = E.parse_value(v) or v end
      vars[prefix .. nm] = v
   end
end

-- new(con, opts) -> runner.  opts.mode: simple|extended|prepared;
-- opts.dialect: the connection's; opts.timed: record each command's time
-- into script.slots[i] (named statements, sbench.named_slot) for pgbench -r.
function M.new(con, opts)
   local R = {}
   local timed = opts.timed
   local clock, record = sbench.clock_ns, sbench.named_record
   local prepared = opts.mode == "prepared"
   local native_verbs = opts.dialect == "postgresql" or opts.dialect == "sqlite"
   local stmts = {} -- part -> { st, params, types, names, set, exec }
   local direct = {} -- command -> its one statement's stmts entry (see run_sql)
   -- the transaction the script began is still open; the query of a
   -- compound command running (upvalues: no table store per statement)
   local in_tx, at_part = false, 0
   local T = sbench.sql.type
   local BIGINT = T.BIGINT

   -- The statement's text with its variables' values; the pieces' table
   -- is the part's own, reused (each client parses its own scripts).
   local function literal(script, cmd, part, vars)
      local p = part.pieces
      if #p == 1 then return p[1] end
      local out = part.buf
      if not out then out = {}; part.buf = out end
      for j = 1, #p do
         if j % 2 == 1 then out[j] = p[j] else out[j] = var_text(script, cmd, vars, p[j]) end
      end
      return concat(out)
   end

   local function prepare(script, cmd, part, vars)
      local p, q = part.pieces, {}
      for j = 1, #p do q[j] = (j % 2 == 1) and p[j] or "?" end
      local st = con:prepare(concat(q))
      local params, types = {}, {}
      for j = 2, #p, 2 do
         local v = vars[p[j]]
         local ty = math.type(v) == "integer" and T.BIGINT or
            (math.type(v) == "float" and T.DOUBLE or T.VARCHAR)
         params[#params + 1] = ty == T.VARCHAR and st:bind_create(ty, 1024) or st:bind_create(ty)
         types[#types + 1] = ty
      end
      if #params > 0 then st:bind_param(table.unpack(params)) end
      -- the variables' names and the methods param:set and stmt:execute
      -- as plain functions: no lookup through a metatable per statement
      local names = {}
      for k = 1, #params do names[k] = p[2 * k] end
      local s = { st = st, params = params, types = types, names = names,
                  set = params[1] and params[1].set, exec = st.execute,
                  set_vars = params[1] and params[1].set_vars }
      stmts[part] = s
      return s
   end

   -- Parameter k of s from variable value v, when it is not an integer
   -- into a BIGINT (the common case exec_part sets itself).
   local function set_param(script, cmd, s, k, v)
      local name, ty = s.names[k], s.types[k]
      if v == nil then script_fail(script, cmd, "undefined variable \"" .. name .. "\"") end
      if type(v) == "string" and ty ~= T.VARCHAR then v = E.parse_value(v) or v end
      if ty == T.BIGINT and mtype(v) ~= "integer" then
         script_fail(script, cmd, "variable \"" .. name .. "\" was an integer when the statement was prepared")
      elseif ty == T.DOUBLE then v = tonumber(v) or v
      elseif ty == T.VARCHAR then v = to_text(v) end
      s.set(s.params[k], v)
   end

   -- A prepared statement s with its parameters from vars.
   local function exec_prepared(script, cmd, s, vars)
      local params, types, names, set = s.params, s.types, s.names, s.set
      local from = 1
      if s.set_vars then -- the integers in one call: from = the first it left
         from = s.set_vars(params, vars, names)
         if from == 0 then return s.exec(s.st) end
      end
      for k = from, #params do
         local v = vars[names[k]]
         if types[k] == BIGINT and mtype(v) == "integer" then set(params[k], v)
         else set_param(script, cmd, s, k, v) end
      end
      return s.exec(s.st)
   end

   local function exec_part(script, cmd, part, vars)
      local verb = part.verb
      if verb then in_tx = verb == "begin" end
      if verb and not native_verbs then
         if verb == "begin" then con:begin() elseif verb == "commit" then con:commit()
         else con:rollback() end
         return nil
      end
      if not prepared then return con:query(literal(script, cmd, part, vars)) end
      return exec_prepared(script, cmd, stmts[part] or prepare(script, cmd, part, vars), vars)
   end

   local function run_sql(script, cmd, vars)
      local parts = cmd.parts
      for i = 1, #parts do
         local part = parts[i]
         at_part = i - 1
         local rs = exec_part(script, cmd, part, vars)
         if cmd.how == "aset" then store(script, cmd, rs, part, vars, cmd.prefix, false)
         elseif cmd.how == "gset" and i == #parts then store(script, cmd, rs, part, vars, cmd.prefix, true)
         end
      end
      -- one prepared statement, no \gset, no transaction verb: R.run
      -- runs it straight from then on
      local part = parts[1]
      if #parts == 1 and not cmd.how and not part.verb and stmts[part] then
         direct[cmd] = stmts[part]
      end
   end

   -- The C runner's program for script (lua/l_pgscript.c), built after
   -- the script's first pass on this connection (its statements are
   -- prepared then), or false: only \set and single prepared statements
   -- with integer parameters (the built-ins and scripts like them), not
   -- under -r (timed) nor outside -M prepared.
   local plans = {} -- script -> program or false
   local function cmds_kind(script, i) return script.commands[i].kind end
   local fast, fast_script -- the program running and its script
   local function build_plan(script)
      if timed then return false, "-r times each command" end
      if not prepared or not PS then return false, "not -M prepared" end
      local plan = {}
      for i, c in ipairs(script.commands) do
         local part = c.parts and c.parts[1]
         local s = part and stmts[part]
         if c.kind == "set" then
            local lo, hi, hi_var = E.random_form(c.expr)
            plan[i] = { cmd = i, var = c.var, expr = c.expr, lo = lo, hi = hi, hi_var = hi_var }
         elseif c.kind == "sql" and #c.parts == 1 and not c.how and s and
            (not part.verb or native_verbs) then
            for _, ty in ipairs(s.types) do
               if ty ~= BIGINT then return false, "command " .. i .. " has a parameter that is not an integer" end
            end
            plan[i] = { cmd = i, st = s.st, exec = s.exec, params = s.params, names = s.names,
                        verb = part.verb,
                        slow = function(vars) exec_prepared(script, c, s, vars) end }
         elseif c.kind == "sql" and #c.parts == 1 and not c.how and not s and
            (not part.verb or native_verbs) then
            return nil, "command " .. i .. " has not run yet" -- a branch not taken so far
         elseif c.kind == "if" and cmds_kind(script, c.next_branch) ~= "elif" then
            plan[i] = { cmd = i, branch = "if", expr = c.expr, jump = c.next_branch }
         elseif c.kind == "else" then
            plan[i] = { cmd = i, branch = "else", jump = c.endif }
         elseif c.kind == "endif" then
            plan[i] = { cmd = i, branch = "endif" }
         else
            return false, "command " .. i .. " (" .. (c.how and "\\" .. c.how or c.kind) .. ") is not a plain \\set or prepared statement"
         end
      end
      return PS.compile(plan)
   end

   -- The script's program (or false), said under --verbosity=5; nil
   -- while a statement behind a branch has not run (tried again after the
   -- script's next runs, at most 64 times).
   local tries = {}
   local function plan_of(script)
      local prog, why = build_plan(script)
      if prog == nil then
         tries[script] = (tries[script] or 0) + 1
         if tries[script] < 64 then return nil end
         prog = false
      end
      local o = type(sbench) == "table" and sbench.opt or {}
      if (o.verbosity or 3) >= 5 then
         io.stderr:write(string.format("sbench pgbench: script %s: %s\n", script.source,
                                       prog and "its commands run in C (lua/l_pgscript.c)" or
                                          "runs in Lua: " .. why))
      end
      return prog
   end

   -- After a failure in the C runner: the command it stopped at (R.at).
   local function sync()
      if not fast then return end
      local i = fast:at()
      if i > 0 then R.at, R.at_index = fast_script.commands[i], i end
      at_part = 0
      fast, fast_script = nil, nil
   end

   local function shell_line(script, cmd, vars)
      local w = {}
      for i, x in ipairs(cmd.words) do
         if x:match("^:[%w_]+$") then w[i] = var_text(script, cmd, vars, x:sub(2)) else w[i] = x end
      end
      return concat(w, " ")
   end

   local function eval(script, cmd, ctx)
      local ok, v = pcall(cmd.expr, ctx)
      if not ok then
         if type(v) == "table" and v.expr_error then script_fail(script, cmd, v.expr_error) end
         error(v, 0)
      end
      return v
   end

   -- Evaluates branch commands from index i until one is taken; returns
   -- the index to continue at.
   local function enter_branch(script, cmds, i, ctx)
      while true do
         local c = cmds[i]
         if c.kind == "else" or c.kind == "endif" then return i + 1 end
         if E.truth(eval(script, c, ctx)) then return i + 1 end
         i = c.next_branch
      end
   end

   -- run(script, ctx): one pass over the script; returns true when it
   -- left a transaction it began open (pgbench aborts the client then).
   function R.run(script, ctx)
      local prog = plans[script]
      if prog then
         fast, fast_script = prog, script
         local open = prog:run(ctx.vars, ctx, ctx.rs)
         fast, fast_script = nil, nil
         return open
      end
      fast = nil
      local cmds, vars = script.commands, ctx.vars
      local pc, n = 1, #cmds
      local slots, t0 = timed and script.slots, timed and clock()
      in_tx = false
      while pc <= n do
         local c = cmds[pc]
         local k = c.kind
         R.at = c -- the command running, for an error's FILE:LINE
         if slots then
            local t1 = clock()
            if pc > 1 then record(slots[R.at_index], t1 - t0) end
            t0 = t1
         end
         R.at_index = pc
         pc = pc + 1
         if k == "sql" then
            local s = direct[c]
            if s then at_part = 0; exec_prepared(script, c, s, vars)
            else run_sql(script, c, vars) end
         elseif k == "set" then -- no pcall: R.script_error locates its error
            vars[c.var] = c.expr(ctx)
         elseif k == "if" then
            pc = enter_branch(script, cmds, pc - 1, ctx)
         elseif k == "elif" or k == "else" then
            pc = c.endif + 1 -- the branch before ran
         elseif k == "sleep" then
            local us = c.usec
            if not us then -- pgbench: atoi() of the variable's text
               local raw = vars[c.sleep_var]
               if raw == nil then script_fail(script, c, "\\sleep: undefined variable \"" .. c.sleep_var .. "\"") end
               local text = type(raw) == "string" and raw or to_text(raw)
               local v = S.atoi(text)
               if not v then
                  script_fail(script, c, "\\sleep: invalid sleep time \"" .. text .. "\" for variable \"" .. c.sleep_var .. "\"")
               end
               us = v * c.mult
            end
            if us > 0 and usleep then usleep(us) end
         elseif k == "setshell" then
            local h = io.popen(shell_line(script, c, vars), "r")
            local out = h and h:read("a") or ""
            if h then h:close() end
            local v = math.tointeger(tonumber(out:match("^%s*(.-)%s*$")))
            if not v then script_fail(script, c, "\\setshell: output of the command is not an integer: " .. out) end
            vars[c.var] = v
         elseif k == "shell" then
            local ok = os.execute(shell_line(script, c, vars))
            if not ok then script_fail(script, c, "\\shell: the command failed") end
         end
         -- endif, startpipeline, endpipeline: nothing to do (statements
         -- run in order; sbench's --pipeline pipelines them)
      end
      if slots and R.at_index then record(slots[R.at_index], clock() - t0) end
      if prog == nil then plans[script] = plan_of(script) end
      return in_tx
   end

   -- The error a transaction of script raised, with an expression's
   -- error in a \set (raised unlocated, see R.run) made the script's
   -- failure "SOURCE:LINE: message" of the command running.
   function R.script_error(script, err)
      sync()
      if type(err) == "table" and err.expr_error and R.at then
         return select(2, pcall(script_fail, script, R.at, err.expr_error))
      end
      return err
   end

   -- The query of the compound command that failed (0: the first).
   function R.at_part() return at_part end

   -- Prefixes "FILE:LINE: " to the message of a statement's fatal SQL
   -- error (a PostgreSQL-only statement on another database, say); errors
   -- that restart the event or reconnect pass through unchanged.
   function R.locate(script, err)
      if type(err) == "table" and err.sql_errmsg and err.class == "error" and
         err.errcode == nil and R.at and not err.located then
         err.sql_errmsg = script.source .. ":" .. R.at.line .. ": " .. tostring(err.sql_errmsg)
         err.located = true
         err.no_traceback = true
      end
      return err
   end

   -- close(): the prepared statements of this connection.
   function R.close()
      for part, s in pairs(stmts) do pcall(s.st.close, s.st); stmts[part] = nil end
      for c in pairs(direct) do direct[c] = nil end
      for sc in pairs(plans) do plans[sc] = nil end
      fast, fast_script = nil, nil
   end

   return R
end

return M
