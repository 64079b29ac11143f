-- pgbench_script: pgbench's script files, parsed once and run by sbench.
--
-- parse(text, source) reads a pgbench script (SQL commands ending at ';',
-- over several lines, with '...', "...", E'...' and $tag$...$tag$ quoting;
-- `\;` compounds; `\gset`/`\aset` after any query, its columns named by
-- the server's answer (pgbench_run; pgbench_names as the fallback); the
-- meta-commands \set \sleep \setshell \shell \if \elif \else \endif
-- \startpipeline \syncpipeline \endpipeline, each continued over lines
-- ending in a backslash) into a list of commands,
-- checking everything that can be checked before the run: unknown
-- meta-commands, malformed expressions, unbalanced \if, missing
-- arguments, pipeline misuse.  A refusal is
-- one line "SOURCE:LINE: what is wrong".  check_vars() refuses a variable
-- nothing defines.  new_runner() binds a parsed script to a connection:
-- its run(client) executes one transaction of the script.  Pure Lua apart
-- from the connection object it is given.

local E = require("pgbench_expr")
local Names = require("pgbench_names")
local quoted_end = Names.quoted_end

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

-- The names of the columns of a query's answer (pgbench_names), for
-- \gset and \aset; nil and why for what cannot be named.
function M.select_names(sql, what) return Names.names(sql, what) end

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

-- An expression's refusal as pgbench words it ("syntax error in command
-- \"set\"", then the detail and the expression).
local function expr_refusal(src, line, kind, why, ex)
   local detail = why:match("^syntax error%s*(.*)$")
   if detail then
      refuse(src, line, "syntax error in command \"" .. kind .. "\"" ..
             (detail ~= "" and " (" .. detail .. ")" or "") .. ": " .. ex)
   end
   refuse(src, line, why .. " in command \"" .. kind .. "\": " .. ex)
end

function meta.set(cmd, rest, src, line)
   local var, ex = rest:match("^(%S+)%s+(.+)$")
   if not var then refuse(src, line, "missing argument in command \"set\"") end
   if not Names.valid(var) then refuse(src, line, "invalid variable name: \"" .. var .. "\"") end
   local ok, f, used = pcall(E.compile, ex)
   if not ok then expr_refusal(src, line, "set", f, ex) end
   cmd.var, cmd.expr, cmd.reads = var, f, used
end

-- \sleep N [us|ms|s], \sleep Nms, \sleep :var [unit] as pgbench 15 reads
-- them: a number is its leading sign and digits (what atoi reads), a unit
-- glued to it counts as the second word; a variable's value is read the
-- same way at run time (pgbench_run).
function meta.sleep(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 1 then refuse(src, line, "missing argument in command \"sleep\"") end
   if #w > 2 then refuse(src, line, "too many arguments in command \"sleep\"") end
   if w[1]:sub(1, 1) ~= ":" then
      local num, tail = w[1]:match("^([+-]?%d*)(.*)$")
      if tail ~= "" then
         if #w == 1 and num:match("%d") then w[1], w[2] = num, tail
         else refuse(src, line, "invalid sleep time, must be an integer: " .. w[1]) end
      end
   end
   local unit = (w[2] or "s"):lower()
   local mult = ({ us = 1, ms = 1000, s = 1000000 })[unit]
   if not mult then refuse(src, line, "unrecognized time unit, must be us, ms or s: " .. w[2]) end
   cmd.mult = mult
   if w[1]:sub(1, 1) == ":" then
      cmd.sleep_var = w[1]:sub(2); cmd.reads = { [cmd.sleep_var] = true }
   else
      cmd.usec = (M.atoi(w[1]) or 0) * mult
   end
end

-- C's atoi as pgbench applies it to a \sleep time: leading blanks, a sign
-- and the digits after it (0 when none), clamped to an int; nil when the
-- text does not start with a digit and reads as 0 (pgbench's "invalid
-- sleep time").
function M.atoi(text)
   local sign, digits = text:match("^%s*([+-]?)(%d*)")
   local v = math.tointeger(tonumber(digits:sub(1, 12))) or 0
   if v > 2147483647 then v = 2147483647 end
   if sign == "-" then v = -v end
   if v == 0 and not text:match("^%d") then return nil end
   return v
end

-- pgbench keeps at most 256 words of a meta-command (its MAX_ARGS, the
-- command's name included).
local function shell_args(cmd, w, src, line, nwords)
   if nwords > 256 then refuse(src, line, "too many arguments in command \"" .. cmd.kind .. "\"") end
   cmd.words, cmd.reads = w, {}
   for _, x in ipairs(w) do
      if x:match("^:[%w_]+$") then cmd.reads[x:sub(2)] = true end
   end
end

function meta.setshell(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 2 then refuse(src, line, "missing argument in command \"setshell\"") end
   cmd.var = table.remove(w, 1)
   shell_args(cmd, w, src, line, #w + 2)
end

function meta.shell(cmd, rest, src, line)
   local w = words_of(rest)
   if #w < 1 then refuse(src, line, "missing command in command \"shell\"") end
   shell_args(cmd, w, src, line, #w + 1)
end

local function cond(cmd, rest, src, line)
   if rest:match("^%s*$") then refuse(src, line, "missing expression in command \"" .. cmd.kind .. "\"") end
   local ok, f, used = pcall(E.compile, rest)
   if not ok then expr_refusal(src, line, cmd.kind, f, rest) end
   cmd.expr, cmd.reads = f, used
end
meta["if"], meta.elif = cond, cond
local function no_args(cmd, rest, src, line)
   if not rest:match("^%s*$") then refuse(src, line, "unexpected argument in command \"" .. cmd.kind .. "\"") end
end
meta["else"], meta.endif, meta.startpipeline, meta.endpipeline = no_args, no_args, no_args, no_args
meta.syncpipeline = no_args

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
         -- the server's answer names the columns (pgbench_run); the text's
         -- names serve the check of variables before the run and a driver
         -- that cannot name columns; SELECT *, TABLE: known at run time only
         local names = M.select_names(clean, how)
         if names then
            part.names, part.valid, part.rows = names, {}, names.rows
            for k, nm in ipairs(names) do part.valid[k] = Names.valid(prefix .. nm) end
         else
            part.unnamed, part.rows = true, true
         end
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

-- Pipeline misuse, refused before the run (pgbench finds it when a
-- client gets there): \startpipeline inside a pipeline, \endpipeline or
-- \syncpipeline outside one, \gset inside one, a pipeline open at the
-- script's end.  Followed along the script's order; a script with a
-- pipeline command inside an \if is left to the run.  Sets
-- script.pipeline when the script has pipeline commands.
local function check_pipeline(script)
   local src, depth, inside, open_line = script.source, 0, false, nil
   for _, c in ipairs(script.commands) do
      local k = c.kind
      if k == "if" then depth = depth + 1 elseif k == "endif" then depth = depth - 1 end
      if k == "startpipeline" or k == "endpipeline" or k == "syncpipeline" then
         script.pipeline = true
         if depth > 0 then return end
      end
   end
   for _, c in ipairs(script.commands) do
      local k = c.kind
      if k == "startpipeline" then
         if inside then refuse(src, c.line, "\\startpipeline: already in pipeline mode") end
         inside, open_line = true, c.line
      elseif k == "endpipeline" or k == "syncpipeline" then
         if not inside then refuse(src, c.line, "\\" .. k .. ": not in pipeline mode") end
         if k == "endpipeline" then inside = false end
      elseif k == "sql" and inside and c.how == "gset" then
         refuse(src, c.line, "\\gset is not allowed in pipeline mode")
      end
   end
   if inside then refuse(src, open_line, "end of script reached with pipeline open") end
end

-- check_params(script): under -M extended and prepared, pgbench sends
-- each :variable of a statement as a parameter, at most 255 of them.
function M.check_params(script)
   for _, c in ipairs(script.commands) do
      for _, p in ipairs(c.parts or {}) do
         if #p.pieces // 2 > 255 then
            refuse(script.source, c.line, "statement has too many arguments (maximum is 255): " ..
                   p.sql:sub(1, 60) .. "...")
         end
      end
   end
end

-- open_at_end(script): true when the script's last transaction verb
-- (BEGIN, or COMMIT/END/ROLLBACK/ABORT) leaves a transaction open at its
-- end, following the script's order (pgbench aborts such a client: "end
-- of script reached without completing the last transaction"); nil when
-- \if branches hold transaction verbs (known only at run time).
function M.open_at_end(script)
   local open, depth = false, 0
   for _, c in ipairs(script.commands) do
      if c.kind == "if" then depth = depth + 1 elseif c.kind == "endif" then depth = depth - 1 end
      for _, p in ipairs(c.parts or {}) do
         if p.verb or (p.sql or ""):match("^%s*[Bb][Ee][Gg][Ii][Nn]%s") then
            if depth > 0 then return nil end
            open = p.verb == "begin" or p.verb == nil
         end
      end
   end
   return open
end

-- The text of a meta-command from text[i] (its backslash): to the end of
-- the line, over lines ending in a backslash.  Returns its text (a
-- continuation is a blank), the index of the newline ending it, and how
-- many lines it continued over.
local function meta_text(text, i)
   local e, more = text:find("\n", i, true) or #text + 1, 0
   while e <= #text and (text:sub(e - 1, e - 1) == "\\" or
      (text:sub(e - 1, e - 1) == "\r" and text:sub(e - 2, e - 2) == "\\")) do
      more = more + 1
      e = text:find("\n", e + 1, true) or #text + 1
   end
   local whole = text:sub(i + 1, e - 1):gsub("\\\r?\n", " ")
   return whole, e, more
end

-- One meta-command (text[i] is its backslash) while reading a script:
-- adds it to st.cmds (or ends the SQL before it for \gset/\aset, or cuts
-- a compound at \;); returns the index to go on at.
local function read_meta(st, text, i, source)
   local whole, e, more = meta_text(text, i)
   local name, rest = whole:match("^([%a_]*)%s*(.-)%s*$")
   local line = st.line
   if whole:sub(1, 1) == ";" then -- \; joins a compound statement
      st.parts[#st.parts + 1] = table.concat(st.buf); st.buf = {}
      return i + 2
   end
   st.line = st.line + more
   if name == "gset" or name == "aset" then
      if not st.start_line then refuse(source, line, "\\" .. name .. " must follow an SQL command") end
      if rest:match("%s") then refuse(source, line, "too many arguments in command \"" .. name .. "\"") end
      if rest ~= "" and not rest:match("^[%w_]+$") then
         refuse(source, line, "invalid variable prefix in command \"" .. name .. "\": " .. rest)
      end
      st.finish(name, rest)
   elseif st.start_line then
      refuse(source, line, "meta-command \\" .. name .. " inside an SQL command (missing ';'?)")
   else
      local f = meta[name:lower()]
      if not f then refuse(source, line, "invalid command \\" .. name) end
      local cmd = { kind = name:lower(), line = line, text = "\\" .. whole:gsub("%s+$", "") }
      f(cmd, rest, source, line)
      st.cmds[#st.cmds + 1] = cmd
   end
   return e
end

-- parse(text, source) -> { source = source, commands = {...} }; raises one
-- line naming source and line for anything malformed.
function M.parse(text, source)
   local st = { cmds = {}, parts = {}, buf = {}, line = 1, start_line = nil }
   local i, n = 1, #text
   function st.finish(how, prefix)
      st.parts[#st.parts + 1] = table.concat(st.buf); st.buf = {}
      add_sql(st.cmds, st.parts, st.start_line or st.line, source, how, prefix)
      st.parts, st.start_line = {}, nil
   end
   while i <= n do
      local c = text:sub(i, i)
      local prev = text:sub(i - 1, i - 1)
      local q = c ~= "\\" and quoted_end(text, i, prev == "E" or prev == "e")
      if c == "\n" then
         st.line = st.line + 1; st.buf[#st.buf + 1] = c; i = i + 1
      elseif c == "-" and text:sub(i + 1, i + 1) == "-" then
         local e = text:find("\n", i, true) or n + 1
         if st.start_line then st.buf[#st.buf + 1] = text:sub(i, e - 1) end
         i = e
      elseif c == "/" and text:sub(i + 1, i + 1) == "*" then
         local _, e = text:find("*/", i + 2, true)
         e = e or n
         local body = text:sub(i, e)
         st.line = st.line + select(2, body:gsub("\n", ""))
         if st.start_line then st.buf[#st.buf + 1] = body end
         i = e + 1
      elseif q then
         st.start_line = st.start_line or st.line
         local body = text:sub(i, q)
         st.line = st.line + select(2, body:gsub("\n", ""))
         st.buf[#st.buf + 1] = body; i = q + 1
      elseif c == "\\" then
         i = read_meta(st, text, i, source)
      elseif c == ";" then
         st.finish(); i = i + 1
      else
         if not c:match("%s") then st.start_line = st.start_line or st.line end
         st.buf[#st.buf + 1] = c; i = i + 1
      end
   end
   st.finish()
   link_ifs(st.cmds, source)
   if #st.cmds == 0 then refuse(source, 1, "empty script: no command") end
   local script = { source = source, commands = st.cmds }
   check_pipeline(script)
   return script
end

-- check_vars(script, defined): refuses the first variable read that no
-- command of the script sets and `defined` (a set of names) does not
-- hold.  A script with \gset/\aset defines the names the server gives
-- its answers' columns: its variables are checked as pgbench does, at run
-- time.
function M.check_vars(script, defined)
   local set = {}
   for k in pairs(defined) do set[k] = true end
   for _, c in ipairs(script.commands) do
      if c.kind == "set" or c.kind == "setshell" then set[c.var] = true end
      if c.kind == "sql" and c.how then return end
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
