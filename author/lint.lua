-- author/lint.lua: `sbench lint`'s rules, run in a Lua state of their own
-- (author/lint.c) over a workload's source text, which they read as tokens
-- and never run.  lint(files, known, opts) -> findings, each
-- {file=, line=, rule=, msg=}.  files: {name=, text=} of the workload and
-- the modules it requires (the first is the workload); known: a set of the
-- option names sbench itself and its drivers declare (with '_' for '-');
-- opts.clients: the blocking-call rule applies (lint always; before a run,
-- only under --clients).

local KEYWORDS = {}
for w in ("and break do else elseif end false for function goto if in local nil not or repeat " ..
          "return then true until while"):gmatch("%a+") do KEYWORDS[w] = true end

-- The tokens of text: {t = "name"|"kw"|"num"|"str"|"op", v = text, line = n}.
local function lex(text)
  local toks, i, line, n = {}, 1, 1, #text
  local function add(t, v) toks[#toks + 1] = {t = t, v = v, line = line} end
  local function long_bracket(at)
    local eq = text:match("^%[(=*)%[", at)
    if not eq then return nil end
    local close = "]" .. eq .. "]"
    local s, e = text:find(close, at + #eq + 2, true)
    e = e or n
    local body = text:sub(at + #eq + 2, (s or n + 1) - 1)
    return body, e
  end
  while i <= n do
    local c = text:sub(i, i)
    if c == "\n" then line = line + 1; i = i + 1
    elseif c:match("%s") then i = text:find("[^ \t\r]", i + 1) or n + 1
    elseif text:sub(i, i + 1) == "--" then
      local body, e = long_bracket(i + 2)
      if body then
        local _, nl = body:gsub("\n", "")
        line = line + nl; i = e + 1
      else
        i = (text:find("\n", i, true) or n + 1)
      end
    elseif c:match("[%a_]") then
      local w = text:match("^[%w_]+", i)
      add(KEYWORDS[w] and "kw" or "name", w); i = i + #w
    elseif c:match("%d") or (c == "." and text:sub(i + 1, i + 1):match("%d")) then
      local w = text:match("^0[xX][%x%.]+[pP]?[-+]?%x*", i) or text:match("^%d*%.?%d*[eE][-+]?%d+", i)
                or text:match("^%d*%.?%d*", i)
      add("num", w); i = i + #w
    elseif c == '"' or c == "'" then
      local j, buf, stop = i + 1, {}, c == '"' and '[\\\n"]' or "[\\\n']"
      while j <= n do -- runs of plain characters at once
        local e = text:find(stop, j) or n + 1
        buf[#buf + 1] = text:sub(j, e - 1)
        j = e
        local d = text:sub(j, j)
        if d == "\\" then buf[#buf + 1] = text:sub(j, j + 1); j = j + 2
        else break end
      end
      add("str", table.concat(buf)); i = j + 1
    elseif c == "[" and text:match("^%[=*%[", i) then
      local body, e = long_bracket(i)
      add("str", body)
      local _, nl = body:gsub("\n", "")
      line = line + nl; i = e + 1
    else
      local op = text:match("^%.%.%.", i) or text:match("^[=~<>]=", i) or text:match("^%.%.", i)
                 or text:match("^::", i) or text:match("^//", i) or text:match("^<<", i)
                 or text:match("^>>", i) or c
      add("op", op); i = i + #op
    end
  end
  return toks
end

-- The token index of the `end` (or `until`) that closes the block opened at k.
local OPENS = {["function"] = true, ["if"] = true, ["do"] = true, ["repeat"] = true}
local function block_end(toks, k)
  local depth = 0
  for j = k, #toks do
    local t = toks[j]
    if t.t == "kw" then
      if OPENS[t.v] then depth = depth + 1
      elseif t.v == "end" or t.v == "until" then
        depth = depth - 1
        if depth == 0 then return j end
      end
    end
  end
  return #toks
end

-- Global functions defined in a file: name -> {first, last} token range of the body.
local function global_functions(toks)
  local fns = {}
  for k = 1, #toks do
    local t, nx = toks[k], toks[k + 1]
    if t.v == "function" and t.t == "kw" and nx and nx.t == "name" and toks[k + 2] and toks[k + 2].v == "(" then
      fns[nx.v] = {k, block_end(toks, k)}
    elseif t.t == "name" and nx and nx.v == "=" and toks[k + 2] and toks[k + 2].v == "function"
           and (not toks[k - 1] or toks[k - 1].v ~= "." and toks[k - 1].v ~= "local") then
      fns[t.v] = {k + 2, block_end(toks, k + 2)}
    end
  end
  return fns
end

-- The functions event reaches through calls by name (itself included).
local function reached_from(fns, toks, root)
  local seen, todo = {}, {root}
  while #todo > 0 do
    local name = table.remove(todo)
    if fns[name] and not seen[name] then
      seen[name] = true
      local a, b = fns[name][1], fns[name][2]
      for k = a, b do
        local t = toks[k]
        if t.t == "name" and toks[k + 1] and toks[k + 1].v == "(" and fns[t.v]
           and (not toks[k - 1] or toks[k - 1].v ~= "." and toks[k - 1].v ~= ":") then
          todo[#todo + 1] = t.v
        end
      end
    end
  end
  return seen
end

-- Names a function body declares local (params, local, for), anywhere in it.
local function locals_of(toks, a, b)
  local set = {}
  for k = a, b do
    local t = toks[k]
    if t.v == "local" and t.t == "kw" then
      local j = k + 1
      if toks[j] and toks[j].v == "function" then j = j + 1 end
      while toks[j] and toks[j].t == "name" do
        set[toks[j].v] = true
        j = j + 1
        if toks[j] and toks[j].v == "<" then j = j + 3 end -- <const>, <close>
        if toks[j] and toks[j].v == "," then j = j + 1 else break end
      end
    elseif (t.v == "for" and t.t == "kw") or (t.v == "function" and t.t == "kw") then
      local j = k + 1
      if t.v == "function" then
        while toks[j] and toks[j].v ~= "(" do j = j + 1 end
        j = j + 1
      end
      while toks[j] and (toks[j].t == "name" or toks[j].v == "," or toks[j].v == "...") do
        if toks[j].t == "name" then set[toks[j].v] = true end
        j = j + 1
      end
    end
  end
  return set
end

-- A text that is SQL: it starts with a statement's verb, or holds a WHERE
-- comparison or a VALUES list (a piece of a statement being built).
local SQL_VERB = {select = true, insert = true, update = true, delete = true, replace = true, with = true}
local function looks_sql(s)
  local l = s:lower()
  local first = l:match("^%s*(%a+)%s")
  return (first and SQL_VERB[first]) or l:find("%f[%w]where%s+[%w_.]+%s*[=<>]") ~= nil
         or l:find("%f[%w]values%s*%(") ~= nil or l:find("%f[%w]between%s*$") ~= nil
end

-- The tokens of the call argument list around token k: the innermost ( ),
-- looked for within WINDOW tokens (a statement's length), so that a file of
-- many SQL texts costs a pass, not a pass per text.
local WINDOW = 400
local function enclosing_parens(toks, k)
  local depth, a = 0, nil
  for j = k, math.max(1, k - WINDOW), -1 do
    local v = toks[j].v
    if toks[j].t == "op" and v == ")" then depth = depth + 1
    elseif toks[j].t == "op" and v == "(" then
      if depth == 0 then a = j; break end
      depth = depth - 1
    end
  end
  if not a then return nil end
  depth = 0
  for j = a, math.min(#toks, a + WINDOW) do
    local v = toks[j].v
    if toks[j].t == "op" and v == "(" then depth = depth + 1
    elseif toks[j].t == "op" and v == ")" then
      depth = depth - 1
      if depth == 0 then return a, j end
    end
  end
  return nil
end

local function is_float_literal(v)
  return not v:match("^0[xX]") and (v:find("[.eE]") ~= nil)
end

local R = {}

-- A float formatted into SQL: a SQL text concatenated with a division or a
-- float literal, or formatted with %f/%g/%e.
function R.float_sql(f, toks, add)
  for k, t in ipairs(toks) do
    if t.t == "str" and looks_sql(t.v) then
      local fmt = toks[k - 2] and toks[k - 2].v == "format" and toks[k - 1].v == "("
      local conv = t.v:gsub("%%%%", ""):match("%%[-+ #0]*%d*%.?%d*([fFgGeEaA])")
      if fmt and conv then
        add(f, t.line, "float-sql", ("a number formatted with %%%s into SQL: a float in SQL text " ..
            "(5.0) keeps PostgreSQL off an integer index; format integers with %%d or bind them"):format(conv))
      else
        local a, b = enclosing_parens(toks, k)
        if a then
          local concat, bad, depth = false, nil, 0
          for j = a + 1, b - 1 do -- the concatenation's own operands, not a call's arguments
            local v = toks[j]
            if v.t == "op" and (v.v == "(" or v.v == "{" or v.v == "[") then depth = depth + 1
            elseif v.t == "op" and (v.v == ")" or v.v == "}" or v.v == "]") then depth = depth - 1
            elseif depth == 0 and v.t == "op" and v.v == ".." then concat = true
            elseif depth == 0 and ((v.t == "op" and v.v == "/") or (v.t == "num" and is_float_literal(v.v))) then
              bad = bad or v
            end
          end
          if concat and bad then
            add(f, t.line, "float-sql", ("a %s concatenated into SQL: Lua 5.4 writes a float as 5.0, " ..
                "which keeps PostgreSQL off an integer index; use // or math.floor, or bind it")
                :format(bad.v == "/" and "division (a float)" or "float literal " .. bad.v))
          end
        end
      end
    end
  end
end

-- Names assigned as plain names (NAME =) outside the functions of `set`:
-- at load time, in thread_init, anywhere else.
local function assigned_elsewhere(toks, fns, set)
  local inside = {}
  for name in pairs(set) do
    for k = fns[name][1], fns[name][2] do inside[k] = true end
  end
  local out = {}
  for k, t in ipairs(toks) do
    local p = toks[k - 1]
    if not inside[k] and t.t == "name" and toks[k + 1] and toks[k + 1].v == "=" and toks[k + 1].t == "op"
       and (not p or (p.v ~= "." and p.v ~= ":")) then
      out[t.v] = true
    end
  end
  return out
end

-- Globals carried from one event to the next (read in event() or what it
-- calls, and written there) that nothing else sets: each client (--clients)
-- and thread keeps its own, so such a counter is never a total, and it
-- starts as nil.
function R.global_in_event(f, toks, add, ctx)
  local elsewhere = assigned_elsewhere(toks, ctx.fns, ctx.reached)
  local reported = {}
  for name in pairs(ctx.reached) do
    local a, b = ctx.fns[name][1], ctx.fns[name][2]
    local locals, braces, reads, writes = locals_of(toks, a, b), 0, {}, {}
    for k = a, b do
      local t = toks[k]
      if t.t == "op" and t.v == "{" then braces = braces + 1
      elseif t.t == "op" and t.v == "}" then braces = braces - 1
      elseif t.t == "name" and not locals[t.v] and not ctx.file_locals[t.v] and not elsewhere[t.v]
             and not ctx.fns[t.v] then
        local p = toks[k - 1]
        if not p or (p.v ~= "." and p.v ~= ":" and p.v ~= "function") then
          if braces == 0 and toks[k + 1] and toks[k + 1].v == "=" and toks[k + 1].t == "op" then
            writes[t.v] = writes[t.v] or t.line
            local j = k + 2 -- x = x + 1: its right side reads it first
            while toks[j] and toks[j].line == t.line do
              if toks[j].v == t.v and toks[j].t == "name" and toks[j - 1].v ~= "." then reads[t.v] = true end
              j = j + 1
            end
          elseif not writes[t.v] then
            reads[t.v] = true -- read before any write: carried from the last event
          end
        end
      end
    end
    for n, line in pairs(writes) do
      if reads[n] and not reported[n] then
        reported[n] = true
        add(f, line, "global-in-event", ("global '%s' is carried from one event to the next by %s() and " ..
            "set nowhere else: each client (--clients) and thread keeps its own, so it is no total, " ..
            "and it starts as nil; make it local, or set it in thread_init"):format(n, name))
      end
    end
  end
end

local BLOCKING = {
  {"os", "execute"}, {"io", "read"}, {"io", "popen"}, {"io", "stdin"}, {"os", "sleep"},
  {"socket", "sleep"}, {"posix", "sleep"}, {"C", "sleep"}, {"C", "usleep"}, {"C", "nanosleep"},
}

-- A call that blocks the whole thread (every client it drives).
function R.blocking(f, toks, add, ctx)
  if not ctx.opts.clients then return end
  for name in pairs(ctx.reached) do
    for k = ctx.fns[name][1], ctx.fns[name][2] do
      for _, b in ipairs(BLOCKING) do
        if toks[k].v == b[1] and toks[k + 1] and toks[k + 1].v == "." and toks[k + 2] and toks[k + 2].v == b[2] then
          add(f, toks[k].line, "blocking-call", ("%s.%s in %s(), which event() runs, blocks the thread " ..
              "and every client it drives under --clients (pace events with --rate, or let the server " ..
              "wait: SELECT pg_sleep(s), SELECT SLEEP(s))"):format(b[1], b[2], name))
        end
      end
    end
  end
end

-- con:prepare in event(): a statement prepared again in every event.
function R.prepare_in_event(f, toks, add, ctx)
  for name in pairs(ctx.reached) do
    for k = ctx.fns[name][1], ctx.fns[name][2] do
      if toks[k].v == ":" and toks[k + 1] and toks[k + 1].v == "prepare" and toks[k + 2] and toks[k + 2].v == "(" then
        add(f, toks[k].line, "prepare-in-event", ("prepare in %s(), which event() runs: the statement is " ..
            "prepared again in every event (and measured); prepare it once in thread_init"):format(name))
      end
    end
  end
end

-- Options declared (cmdline.options) and read (sbench.opt / sysbench.opt).
local function options_of(toks)
  local declared, read, dynamic = {}, {}, false
  for k, t in ipairs(toks) do
    if t.v == "options" and toks[k - 1] and toks[k - 1].v == "." and toks[k - 2] and toks[k - 2].v == "cmdline" then
      local nx = toks[k + 1]
      if nx and nx.v == "=" and toks[k + 2] and toks[k + 2].v == "{" then
        local depth, j = 0, k + 2
        repeat
          local v = toks[j]
          if v.t == "op" and v.v == "{" then depth = depth + 1
          elseif v.t == "op" and v.v == "}" then depth = depth - 1
          elseif depth == 1 and toks[j + 1] and toks[j + 1].v == "=" and (v.t == "name") then
            declared[v.v] = declared[v.v] or v.line
          elseif depth == 1 and v.t == "str" and toks[j - 1].v == "[" and toks[j + 2] and toks[j + 2].v == "=" then
            declared[v.v:gsub("-", "_")] = declared[v.v] or v.line
          end
          j = j + 1
        until depth == 0 or j > #toks
      elseif nx and nx.v == "." and toks[k + 2] and toks[k + 2].t == "name" then
        declared[toks[k + 2].v] = declared[toks[k + 2].v] or toks[k + 2].line
      elseif nx and nx.v == "[" and toks[k + 2] and toks[k + 2].t == "str" then
        declared[toks[k + 2].v:gsub("-", "_")] = declared[toks[k + 2].v] or toks[k + 2].line
      else
        dynamic = true -- the table handled as a whole: declarations not read here
      end
    elseif t.v == "opt" and toks[k - 1] and toks[k - 1].v == "." and toks[k - 2]
           and (toks[k - 2].v == "sysbench" or toks[k - 2].v == "sbench") then
      local nx = toks[k + 1]
      if nx and nx.v == "." and toks[k + 2] and toks[k + 2].t == "name" then
        read[toks[k + 2].v] = read[toks[k + 2].v] or toks[k + 2].line
      elseif nx and nx.v == "[" and toks[k + 2] and toks[k + 2].t == "str" and toks[k + 3] and toks[k + 3].v == "]" then
        local n = toks[k + 2].v:gsub("-", "_")
        read[n] = read[n] or toks[k + 2].line
      else
        dynamic = true -- sbench.opt[name], or the table passed on
      end
    end
  end
  return declared, read, dynamic
end

local DIALECT = {
  {"%f[%w]auto_increment%f[^%w]", "AUTO_INCREMENT (MySQL)"},
  {"%f[%w]engine%s*=", "ENGINE= (MySQL)"},
  {"on%s+duplicate%s+key", "ON DUPLICATE KEY (MySQL)"},
  {"`", "backquoted names (MySQL)"},
  {"%f[%w]bigserial%f[^%w]", "BIGSERIAL (PostgreSQL)"},
  {"%f[%w]serial%f[^%w]", "SERIAL (PostgreSQL)"},
  {"%f[%w]ilike%f[^%w]", "ILIKE (PostgreSQL)"},
  {"%w::%a", ":: casts (PostgreSQL)"},
  {"%f[%w]on%s+conflict%f[^%w]", "ON CONFLICT (PostgreSQL, SQLite)"},
  {"%f[%w]returning%f[^%w]", "RETURNING (PostgreSQL, SQLite, MariaDB 10.5)"},
}
-- A branch on the database: the driver's or the connection's name read
-- (driver():name(), con:dialect(), sbench.opt.db_driver), or a database's
-- name as a string.
local BRANCH_NAMES = {driver_name = true, dialect = true, db_driver = true, sql_dialect = true}
local BRANCH_STRINGS = {pgsql = true, mysql = true, postgresql = true, sqlite = true, odbc = true,
                        mariadb = true, db2 = true}

local function has_branch(all_toks)
  for _, toks in ipairs(all_toks) do
    for k, t in ipairs(toks) do
      if (t.t == "name" and BRANCH_NAMES[t.v]) or (t.t == "str" and BRANCH_STRINGS[t.v:lower()])
         or (t.v == "name" and toks[k - 1] and toks[k - 1].v == ":" and toks[k + 1] and toks[k + 1].v == "(") then
        return true
      end
    end
  end
  return false
end

function lint(files, known, opts)
  local found = {}
  local function add(file, line, rule, msg)
    found[#found + 1] = {file = file, line = line, rule = rule, msg = msg}
  end
  -- syntax first: a file that does not load is all there is to say about it
  for _, f in ipairs(files) do
    f.text = f.text:gsub("^#[^\n]*", "--") -- a #! line, as lua and sbench skip it
    local ok, err = load(f.text, "=" .. f.name)
    if not ok then
      local line, msg = tostring(err):match("^[^:]*:(%d+): (.*)$")
      add(f.name, tonumber(line) or 0, "syntax", msg or tostring(err))
    end
  end
  if #found > 0 then return found end
  local all_toks = {}
  for i, f in ipairs(files) do all_toks[i] = lex(f.text) end
  local branched = has_branch(all_toks)
  local all_toks = {}
  for i, f in ipairs(files) do all_toks[i] = lex(f.text) end
  local branched = has_branch(all_toks)
  local declared, read, dynamic = {}, {}, false
  local workload_has_event, workload_runs = false, false
  for i, f in ipairs(files) do
    local toks = all_toks[i]
    local fns = global_functions(toks)
    local file_locals = locals_of(toks, 1, #toks)
    local ctx = {fns = fns, opts = opts, file_locals = file_locals,
                 reached = fns.event and reached_from(fns, toks, "event") or {}}
    if i == 1 then
      workload_has_event = fns.event ~= nil or fns.thread_run ~= nil
      workload_runs = workload_has_event or fns.prepare ~= nil
    end
    R.float_sql(f.name, toks, add)
    R.global_in_event(f.name, toks, add, ctx)
    R.blocking(f.name, toks, add, ctx)
    R.prepare_in_event(f.name, toks, add, ctx)
    local d, r, dyn = options_of(toks)
    for n, line in pairs(d) do declared[n] = declared[n] or {f.name, line} end
    for n, line in pairs(r) do read[n] = read[n] or {f.name, line} end
    dynamic = dynamic or dyn
    if workload_runs and not branched then
      for _, t in ipairs(toks) do
        if t.t == "str" and (looks_sql(t.v) or t.v:lower():find("^%s*create%s") or t.v:lower():find("^%s*alter%s")) then
          for _, d in ipairs(DIALECT) do
            if t.v:lower():find(d[1]) then
              add(f.name, t.line, "dialect", ("%s in SQL, and no branch on the database (sbench.sql." ..
                  "driver():name(), con:dialect()): it fails on the others"):format(d[2]))
              break
            end
          end
        end
      end
    end
  end
  for n, at in pairs(read) do -- a module alone reads what its workload declares
    local driver_option = false
    for _, p in ipairs(known.__prefixes or {}) do driver_option = driver_option or n:sub(1, #p) == p end
    if workload_has_event and not declared[n] and not known[n] and not driver_option then
      add(at[1], at[2], "option-undeclared", ("option '%s' is read (sbench.opt.%s) but never declared in " ..
          "sbench.cmdline.options, and sbench has no such option: it is always nil"):format(n, n))
    end
  end
  if not dynamic and workload_has_event then
    for n, at in pairs(declared) do
      if not read[n] then
        add(at[1], at[2], "option-unread", ("option '%s' is declared but never read (sbench.opt.%s): " ..
            "--%s changes nothing"):format(n, n, n:gsub("_", "-")))
      end
    end
  end
  table.sort(found, function(a, b)
    if a.file ~= b.file then return a.file < b.file end
    if a.line ~= b.line then return a.line < b.line end
    return a.rule < b.rule
  end)
  return found
end
