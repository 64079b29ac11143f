-- pgbench_script: pgbench's script files, parsed once and run by sbench.
--
-- parse(text, source) reads a pgbench script (SQL commands ending at ';',
-- over several lines; `\;` compounds; `\gset`/`\aset` after a query; the
-- meta-commands \set \sleep \setshell \shell \if \elif \else \endif
-- \startpipeline \endpipeline) into a list of commands, checking
-- everything that can be checked before the run: unknown meta-commands,
-- malformed expressions, unbalanced \if, missing arguments.  A refusal is
-- one line "SOURCE:LINE: what is wrong".  check_vars() refuses a variable
-- nothing defines.  new_runner() binds a parsed script to a connection:
-- its run(client) executes one transaction of the script.  Pure Lua apart
-- from the connection object it is given.

local E = require("pgbench_expr")

local M = {}

local function refuse(src, line, msg) error(src .. ":" .. line .. ": " .. msg, 0) end

----------------------------------------------------------------------------
-- SQL text: variables and the names of a SELECT's columns
----------------------------------------------------------------------------

-- Splits SQL into literal pieces and :variable names, outside quotes and
-- comments, leaving `::` casts alone.  Returns { text1, var1, text2, ... }
-- (odd entries text, even entries names).
function M.split_vars(sql)
   local out, buf, i, n = {}, {}, 1, #sql
   local function flush(name)
      out[#out + 1] = table.concat(buf); buf = {}
      out[#out + 1] = name
   end
   while i <= n do
      local c = sql:sub(i, i)
      if c == "'" or c == '"' then
         local j = i + 1
         while j <= n do
            if sql:sub(j, j) == c then
               if sql:sub(j + 1, j + 1) == c then j = j + 1 else break end
            end
            j = j + 1
         end
         buf[#buf + 1] = sql:sub(i, j); i = j + 1
      elseif c == ":" and sql:sub(i + 1, i + 1) == ":" then
         buf[#buf + 1] = "::"; i = i + 2
      elseif c == ":" and sql:sub(i + 1):match("^[%w_]") and sql:sub(i - 1, i - 1) ~= ":" then
         local name = sql:match("^[%w_]+", i + 1)
         flush(name); i = i + 1 + #name
      else
         buf[#buf + 1] = c; i = i + 1
      end
   end
   out[#out + 1] = table.concat(buf)
   return out
end

-- Splits s at top-level commas (outside parentheses and quotes).
local function split_top(s)
   local items, depth, start, q = {}, 0, 1, nil
   for i = 1, #s do
      local c = s:sub(i, i)
      if q then
         if c == q then q = nil end
      elseif c == "'" or c == '"' then q = c
      elseif c == "(" then depth = depth + 1
      elseif c == ")" then depth = depth - 1
      elseif c == "," and depth == 0 then
         items[#items + 1] = s:sub(start, i - 1); start = i + 1
      end
   end
   items[#items + 1] = s:sub(start)
   return items
end

-- The names PostgreSQL gives the columns of a SELECT (for \gset/\aset on
-- every database): an alias, a column's name, a function's name, else
-- "?column?".  Returns a list, or nil and why for what cannot be named.
function M.select_names(sql)
   local body = sql:match("^%s*[Ss][Ee][Ll][Ee][Cc][Tt]%s+(.*)$")
   if not body then return nil, "\\gset and \\aset need a SELECT" end
   -- cut at the top-level FROM
   local depth, cut = 0, #body + 1
   local low = body:lower()
   for i = 1, #body do
      local c = body:sub(i, i)
      if c == "(" then depth = depth + 1 elseif c == ")" then depth = depth - 1
      elseif depth == 0 and low:sub(i):match("^from[%s%(]") and
         (i == 1 or body:sub(i - 1, i - 1):match("%s")) then
         cut = i; break
      end
   end
   local names = {}
   for _, item in ipairs(split_top(body:sub(1, cut - 1))) do
      item = item:match("^%s*(.-)%s*;?%s*$")
      local alias = item:match("[%s%)][Aa][Ss]%s+([%a_][%w_]*)$") or item:match("[%s%)][Aa][Ss]%s+\"([^\"]+)\"$")
      if not alias and not item:match("^[%a_][%w_.]*$") then
         alias = item:match("[%w_%)'\"]%s+([%a_][%w_]*)$")
      end
      local name
      if alias then name = alias:lower()
      elseif item == "*" or item:match("%.%*$") then return nil, "\\gset cannot name the columns of SELECT *"
      elseif item:match("^[%a_][%w_.]*$") then name = item:match("([%w_]+)$"):lower()
      elseif item:match("^[%a_][%w_]*%s*%(") then name = item:match("^([%a_][%w_]*)"):lower()
      else name = "?column?" end
      names[#names + 1] = name
   end
   return names
end

local verbs = {
   ["begin"] = "begin", ["begin transaction"] = "begin", ["begin work"] = "begin",
   ["start transaction"] = "begin",
   ["end"] = "commit", ["commit"] = "commit", ["end transaction"] = "commit",
   ["commit work"] = "commit", ["end work"] = "commit", ["commit transaction"] = "commit",
   ["rollback"] = "rollback", ["abort"] = "rollback", ["rollback work"] = "rollback",
   ["rollback transaction"] = "rollback",
}

----------------------------------------------------------------------------
-- parser
----------------------------------------------------------------------------

local function words_of(rest)
   local w = {}
   for x in rest:gmatch("%S+") do w[#w + 1] = x end
   return w
end

local meta = {}

function meta.set(cmd, rest, src, line)
   local var, ex = rest:match("^([%w_]+)%s+(.+)$")
   if not var then refuse(src, line, "missing argument in command \"set\"") end
   local ok, f, used = pcall(E.compile, ex)
   if not ok then refuse(src, line, f .. " in command \"set\": " .. ex) end
   cmd.var, cmd.expr, cmd.reads = var, f, used
end

function meta.sleep(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 1 then refuse(src, line, "missing argument in command \"sleep\"") end
   if #w > 2 then refuse(src, line, "too many arguments in command \"sleep\"") end
   local unit = (w[2] or "s"):lower()
   local mult = ({ us = 1, ms = 1000, s = 1000000 })[unit]
   if not mult then refuse(src, line, "unrecognized time unit, must be us, ms or s: " .. w[2]) end
   cmd.mult = mult
   if w[1]:match("^:[%w_]+$") then
      cmd.sleep_var = w[1]:sub(2); cmd.reads = { [cmd.sleep_var] = true }
   elseif math.tointeger(tonumber(w[1])) then
      cmd.usec = math.tointeger(tonumber(w[1])) * mult
   else
      refuse(src, line, "invalid sleep time, must be an integer: " .. w[1])
   end
end

local function shell_args(cmd, w)
   cmd.words, cmd.reads = w, {}
   for _, x in ipairs(w) do
      if x:match("^:[%w_]+$") then cmd.reads[x:sub(2)] = true end
   end
end

function meta.setshell(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 2 then refuse(src, line, "missing argument in command \"setshell\"") end
   cmd.var = table.remove(w, 1)
   shell_args(cmd, w)
end

function meta.shell(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 1 then refuse(src, line, "missing command in command \"shell\"") end
   shell_args(cmd, w)
end

local function cond(cmd, rest, src, line)
   if rest:match("^%s*$") then refuse(src, line, "missing expression in command \"" .. cmd.kind .. "\"") end
   local ok, f, used = pcall(E.compile, rest)
   if not ok then refuse(src, line, f .. " in command \"" .. cmd.kind .. "\": " .. rest) end
   cmd.expr, cmd.reads = f, used
end
meta["if"], meta.elif = cond, cond
local function no_args(cmd, rest, src, line)
   if not rest:match("^%s*$") then refuse(src, line, "unexpected argument in command \"" .. cmd.kind .. "\"") end
end
meta["else"], meta.endif, meta.startpipeline, meta.endpipeline = no_args, no_args, no_args, no_args

-- Adds a SQL command (parts of a compound) with its \gset/\aset.
local function add_sql(cmds, parts, line, src, how, prefix)
   local real = {}
   for _, p in ipairs(parts) do
      local t = p:gsub("^%s+", ""):gsub("%s+$", "")
      local bare = t:gsub("%-%-[^\n]*", ""):gsub("^%s+", "")
      if bare ~= "" then real[#real + 1] = t end
   end
   if #real == 0 then
      if how then refuse(src, line, "\\" .. how .. " must follow an SQL command") end
      return
   end
   local cmd = { kind = "sql", line = line, parts = {}, how = how, prefix = prefix or "" }
   -- its first line, as pgbench -r names a command ("...;" when it is all)
   local first = real[1]:gsub("^%s*%-%-[^\n]*\n", ""):gsub("^%s+", ""):gsub("%s+$", "")
   local nl = first:find("\n", 1, true)
   cmd.text = nl and first:sub(1, nl - 1):gsub("%s+$", "") or (#real == 1 and first .. ";" or first)
   for i, t in ipairs(real) do
      local clean = t:gsub("^%s*%-%-[^\n]*\n", ""):gsub("^%s+", "")
      local part = { sql = t, pieces = M.split_vars(t) }
      part.verb = verbs[clean:lower():gsub("%s+", " "):gsub(" $", "")]
      if how == "aset" or (how == "gset" and i == #real) then
         local names, why = M.select_names(clean)
         if not names then refuse(src, line, why) end
         part.names = names
      end
      cmd.parts[#cmd.parts + 1] = part
   end
   cmd.reads = {}
   for _, p in ipairs(cmd.parts) do
      for j = 2, #p.pieces, 2 do cmd.reads[p.pieces[j]] = true end
   end
   cmds[#cmds + 1] = cmd
end

-- Links \if/\elif/\else/\endif: each branch command gets `next_branch`
-- (index of the next \elif/\else/\endif) and `endif`.
local function link_ifs(cmds, src)
   local stack = {}
   for i, c in ipairs(cmds) do
      if c.kind == "if" then
         stack[#stack + 1] = { i }
      elseif c.kind == "elif" or c.kind == "else" or c.kind == "endif" then
         local top = stack[#stack]
         if not top then refuse(src, c.line, "\\" .. c.kind .. " without matching \\if") end
         local prev = cmds[top[#top]]
         if prev.kind == "else" and c.kind ~= "endif" then
            refuse(src, c.line, "\\" .. c.kind .. " after \\else")
         end
         prev.next_branch = i
         top[#top + 1] = i
         if c.kind == "endif" then
            for _, j in ipairs(top) do cmds[j].endif = i end
            stack[#stack] = nil
         end
      end
   end
   if #stack > 0 then
      refuse(src, cmds[stack[#stack][1]].line, "\\if without matching \\endif")
   end
end

-- parse(text, source) -> { source = source, commands = {...} }; raises one
-- line naming source and line for anything malformed.
function M.parse(text, source)
   local cmds, parts, buf = {}, {}, {}
   local line, start_line, i, n = 1, nil, 1, #text
   local function sql_started() return start_line ~= nil end
   local function finish(how, prefix)
      parts[#parts + 1] = table.concat(buf); buf = {}
      add_sql(cmds, parts, start_line or line, source, how, prefix)
      parts, start_line = {}, nil
   end
   while i <= n do
      local c = text:sub(i, i)
      if c == "\n" then
         line = line + 1; buf[#buf + 1] = c; i = i + 1
      elseif c == "-" and text:sub(i + 1, i + 1) == "-" then
         local e = text:find("\n", i, true) or n + 1
         if sql_started() then buf[#buf + 1] = text:sub(i, e - 1) end
         i = e
      elseif c == "'" or c == '"' then
         start_line = start_line or line
         local j = i + 1
         while j <= n and text:sub(j, j) ~= c do
            if text:sub(j, j) == "\n" then line = line + 1 end
            j = j + 1
         end
         buf[#buf + 1] = text:sub(i, j); i = j + 1
      elseif c == "\\" then
         local e = text:find("\n", i, true) or n + 1
         local whole = text:sub(i + 1, e - 1)
         local name, rest = whole:match("^([%a_]*)%s*(.-)%s*$")
         if whole:sub(1, 1) == ";" then -- \; joins a compound statement
            parts[#parts + 1] = table.concat(buf); buf = {}
            i = i + 2
         elseif name == "gset" or name == "aset" then
            if not sql_started() then refuse(source, line, "\\" .. name .. " must follow an SQL command") end
            if rest ~= "" and not rest:match("^[%w_]+$") then
               refuse(source, line, "invalid variable prefix in command \"" .. name .. "\": " .. rest)
            end
            finish(name, rest); i = e
         elseif sql_started() then
            refuse(source, line, "meta-command \\" .. name .. " inside an SQL command (missing ';'?)")
         else
            local f = meta[name:lower()]
            if not f then refuse(source, line, "invalid command \\" .. name) end
            local cmd = { kind = name:lower(), line = line, text = "\\" .. whole:gsub("%s+$", "") }
            f(cmd, rest, source, line)
            cmds[#cmds + 1] = cmd
            i = e
         end
      elseif c == ";" then
         finish(); i = i + 1
      else
         if not c:match("%s") then start_line = start_line or line end
         buf[#buf + 1] = c; i = i + 1
      end
   end
   finish()
   link_ifs(cmds, source)
   if #cmds == 0 then refuse(source, 1, "empty script: no command") end
   return { source = source, commands = cmds }
end

-- check_vars(script, defined): refuses the first variable read that no
-- command of the script sets and `defined` (a set of names) does not
-- hold.  A script with \gset/\aset defines names chosen by its queries:
-- their columns' names are added.
function M.check_vars(script, defined)
   local set = {}
   for k in pairs(defined) do set[k] = true end
   for _, c in ipairs(script.commands) do
      if c.kind == "set" or c.kind == "setshell" then set[c.var] = true end
      if c.kind == "sql" then
         for _, p in ipairs(c.parts) do
            for _, nm in ipairs(p.names or {}) do set[c.prefix .. nm] = true end
         end
      end
   end
   for _, c in ipairs(script.commands) do
      if c.kind == "sql" then -- name the line of the variable itself
         for pi, p in ipairs(c.parts) do
            local line = c.line
            for j = 1, #p.pieces do
               if j % 2 == 1 then
                  if pi == 1 then local _, nl = p.pieces[j]:gsub("\n", ""); line = line + nl end
               elseif not set[p.pieces[j]] then
                  refuse(script.source, line, "undefined variable \"" .. p.pieces[j] .. "\"")
               end
            end
         end
      end
      for name in pairs(c.reads or {}) do
         if not set[name] then
            refuse(script.source, c.line, "undefined variable \"" .. name .. "\"")
         end
      end
   end
end

return M
