-- pgbench_names: the names PostgreSQL gives the columns of a query's
-- answer, read from the query's text: pgbench's \gset and \aset take the
-- server's own names (rs:field_name, workloads/pgbench_run.lua); these
-- serve only a driver that cannot name its result's columns (the null
-- driver, one built for driver ABI below 1.5).
--
-- The names are worked out once, at parse time, from the SQL by PostgreSQL's own rules
-- (FigureColname): an alias (AS x, or a bare alias; a quoted alias keeps
-- its case), a column's last name, a function's name, a cast's type when
-- its argument has no name, CASE -> "case", else "?column?".  Any query
-- shape is read: WITH ... SELECT, UNION/INTERSECT/EXCEPT (the first
-- branch names the columns), WHERE/LIMIT/ORDER without FROM, VALUES
-- (column1...), INSERT/UPDATE/DELETE ... RETURNING, and statements that
-- answer no row (no names: \gset then fails with "expected one row, got
-- 0", as pgbench).  Only columns the SQL alone cannot name (SELECT *,
-- TABLE t) are refused.  Pure Lua.

local M = {}

-- The dollar-quote tag ("$$", "$tag$") opening at sql[i], or nil.
function M.dollar_tag(sql, i)
   return sql:match("^%$%$", i) or sql:match("^%$[%a_\128-\255][%w_\128-\255]*%$", i)
end

-- The end (index of its last byte) of the quoted text opening at text[i]:
-- '...' (E'...' with backslash escapes when `escapes`), "...", or
-- $tag$...$tag$ (not after a word character: "a$b$" is one name); the
-- text's end when it is not closed; nil when text[i] opens none.
function M.quoted_end(text, i, escapes)
   local c = text:sub(i, i)
   if c == "'" or c == '"' then
      local j = i + 1
      while j <= #text do
         local d = text:sub(j, j)
         if d == "\\" and escapes then j = j + 1
         elseif d == c then
            if text:sub(j + 1, j + 1) ~= c then return j end
            j = j + 1
         end
         j = j + 1
      end
      return #text
   end
   if c == "$" and not text:sub(i - 1, i - 1):match("[%w_\128-\255]") then
      local tag = M.dollar_tag(text, i)
      if tag then
         local _, e = text:find(tag, i + #tag, true)
         return e or #text
      end
   end
   return nil
end

-- Tokens of SQL text: { t = "word"|"qword"|"str"|"num"|"op", v = text }.
local function tokens(sql)
   local out, i, n = {}, 1, #sql
   local function add(t, v) out[#out + 1] = { t = t, v = v } end
   while i <= n do
      local c = sql:sub(i, i)
      if c:match("%s") then i = i + 1
      elseif sql:sub(i, i + 1) == "--" then i = (sql:find("\n", i, true) or n) + 1
      elseif sql:sub(i, i + 1) == "/*" then i = (select(2, sql:find("*/", i + 2, true)) or n) + 1
      elseif c == "'" then
         local e = M.quoted_end(sql, i, false)
         add("str", sql:sub(i, e)); i = e + 1
      elseif c == '"' then
         local e = M.quoted_end(sql, i, false)
         add("qword", sql:sub(i + 1, e - 1):gsub('""', '"')); i = e + 1
      elseif c == "$" and M.dollar_tag(sql, i) then
         local e = M.quoted_end(sql, i, false)
         add("str", sql:sub(i, e)); i = e + 1
      elseif c:match("[%a_\128-\255]") then
         local w = sql:match("^[%w_$\128-\255]+", i)
         if sql:sub(i + #w, i + #w) == "'" and (w == "E" or w == "e" or w == "B" or w == "b" or
            w == "X" or w == "x" or w == "N" or w == "n" or w == "U&" or w == "u&") then
            i = i + #w -- a prefixed string: the string token follows
         else
            add("word", w); i = i + #w
         end
      elseif c:match("%d") or (c == "." and sql:sub(i + 1, i + 1):match("%d")) then
         local num = sql:match("^[%d.]+[eE][+-]?%d+", i) or sql:match("^[%d._]+", i)
         add("num", num); i = i + #num
      elseif c == ":" and sql:sub(i + 1, i + 1):match("[%a_]") and sql:sub(i - 1, i - 1) ~= ":" then
         local w = sql:match("^:[%w_]+", i) -- a pgbench variable: a value
         add("num", w); i = i + #w
      else
         local op = sql:match("^::", i) or sql:match("^[%+%-%*/<>=~!@#%%^&|`?]+", i) or c
         add("op", op); i = i + #op
      end
   end
   return out
end

local function kw(tok, word) return tok and tok.t == "word" and tok.v:lower() == word end
local function is_op(tok, v) return tok and tok.t == "op" and tok.v == v end

-- The index after the parenthesis group opening at i (or i + 1).
local function skip_group(toks, i, open, close)
   if not is_op(toks[i], open) then return i + 1 end
   local depth = 0
   for j = i, #toks do
      if is_op(toks[j], open) then depth = depth + 1
      elseif is_op(toks[j], close) then
         depth = depth - 1
         if depth == 0 then return j + 1 end
      end
   end
   return #toks + 1
end

-- Words that end a SELECT's target list at the top level.
local list_end = {}
for w in ("from where group having window order limit offset fetch for union intersect except " ..
          "into returning on"):gmatch("%S+") do list_end[w] = true end

-- Splits toks[i..] at top-level commas up to a list-ending word, a ';' or
-- an unmatched ')'; returns the items (lists of tokens).
local function target_list(toks, i)
   local items, cur, depth = {}, {}, 0
   while i <= #toks do
      local t = toks[i]
      if depth == 0 and (is_op(t, ";") or is_op(t, ")") or (t.t == "word" and list_end[t.v:lower()])) then break end
      if is_op(t, "(") or is_op(t, "[") then depth = depth + 1
      elseif is_op(t, ")") or is_op(t, "]") then depth = depth - 1 end
      if depth == 0 and is_op(t, ",") then items[#items + 1] = cur; cur = {}
      else cur[#cur + 1] = t end
      i = i + 1
   end
   if #cur > 0 or #items > 0 then items[#items + 1] = cur end
   return items
end

-- The internal names of the types a cast names a column after.
local type_names = {
   int = "int4", integer = "int4", int4 = "int4", bigint = "int8", int8 = "int8",
   smallint = "int2", int2 = "int2", real = "float4", float4 = "float4",
   float = "float8", float8 = "float8", double = "float8", decimal = "numeric",
   numeric = "numeric", boolean = "bool", bool = "bool", varchar = "varchar",
   character = "bpchar", char = "bpchar", text = "text", timestamptz = "timestamptz",
}
local function type_name(tok)
   if not tok then return "?column?" end
   local v = tok.t == "qword" and tok.v or tok.v:lower()
   return type_names[v] or v
end

-- Words that are never a bare alias (they end expressions).
local not_alias = {}
for w in ("null true false end and or not is isnull notnull between in like ilike similar escape " ..
          "collate at zone time precision varying asc desc distinct unknown then else"):gmatch("%S+") do
   not_alias[w] = true
end
local value_funcs = {}
for w in ("current_date current_time current_timestamp localtime localtimestamp current_user " ..
          "current_role current_catalog current_schema session_user user"):gmatch("%S+") do
   value_funcs[w] = true
end

local figure

-- The name of one primary expression toks[i..] and the index after it,
-- or "?column?".
local function primary(toks, i)
   local t = toks[i]
   if not t then return "?column?", i end
   if is_op(t, "(") then
      local e = skip_group(toks, i, "(", ")")
      local inner = {}
      for j = i + 1, e - 2 do inner[#inner + 1] = toks[j] end
      if kw(inner[1], "select") or kw(inner[1], "with") or kw(inner[1], "values") then
         local names = M.of_tokens(inner)
         return (names and names[1]) or "?column?", e
      end
      return figure(inner), e
   end
   if t.t == "word" then
      local w = t.v:lower()
      if w == "case" then
         local depth, j = 0, i
         while toks[j] do
            if kw(toks[j], "case") then depth = depth + 1
            elseif kw(toks[j], "end") then depth = depth - 1; if depth == 0 then break end end
            j = j + 1
         end
         return "case", j + 1
      end
      if w == "cast" and is_op(toks[i + 1], "(") then
         local e = skip_group(toks, i + 1, "(", ")")
         local inner, depth, as_at = {}, 0, nil
         for j = i + 2, e - 2 do
            if is_op(toks[j], "(") then depth = depth + 1 elseif is_op(toks[j], ")") then depth = depth - 1 end
            if depth == 0 and kw(toks[j], "as") and not as_at then as_at = j end
            if not as_at then inner[#inner + 1] = toks[j] end
         end
         local name = figure(inner)
         if name == "?column?" and as_at then name = type_name(toks[as_at + 1]) end
         return name, e
      end
      if w == "array" and (is_op(toks[i + 1], "[") or is_op(toks[i + 1], "(")) then
         return "array", skip_group(toks, i + 1, toks[i + 1].v, toks[i + 1].v == "[" and "]" or ")")
      end
      if w == "exists" or w == "row" then
         if is_op(toks[i + 1], "(") then return w, skip_group(toks, i + 1, "(", ")") end
      end
      if not_alias[w] and w ~= "distinct" then return "?column?", i + 1 end
      if value_funcs[w] and not is_op(toks[i + 1], "(") and not is_op(toks[i + 1], ".") then
         return w, i + 1
      end
   end
   if t.t == "word" or t.t == "qword" then -- a name, a.b.c, or f(...)
      local name, j = t.t == "qword" and t.v or t.v:lower(), i + 1
      while is_op(toks[j], ".") and toks[j + 1] and (toks[j + 1].t == "word" or toks[j + 1].t == "qword") do
         name = toks[j + 1].t == "qword" and toks[j + 1].v or toks[j + 1].v:lower()
         j = j + 2
      end
      if is_op(toks[j], ".") and is_op(toks[j + 1], "*") then return nil, j + 2 end
      if is_op(toks[j], "(") then j = skip_group(toks, j, "(", ")") end
      -- a type name before a string literal: int '1', date '...'
      if toks[j] and toks[j].t == "str" and j == i + 1 then return type_name(t), j + 1 end
      return name, j
   end
   if is_op(t, "*") then return nil, i + 1 end
   return "?column?", i + 1
end

-- The name of an expression (a list of tokens) without its alias.
figure = function(toks)
   local name, j = primary(toks, 1)
   if name == nil then return nil end
   while toks[j] do
      if is_op(toks[j], "[") then j = skip_group(toks, j, "[", "]")
      elseif is_op(toks[j], "::") then -- x::type, x::double precision, x::varchar(9)
         local tt, tn = toks[j + 1], nil
         j = j + 2
         if kw(tt, "double") and kw(toks[j], "precision") then tn = "float8"; j = j + 1
         elseif kw(tt, "character") and kw(toks[j], "varying") then tn = "varchar"; j = j + 1
         else tn = type_name(tt) end
         if is_op(toks[j], "(") then j = skip_group(toks, j, "(", ")") end
         if name == "?column?" then name = tn end
      else return "?column?" end
   end
   return name
end

-- The name of one target-list item, or nil for '*'.
local function item_name(item)
   local n = #item
   if n >= 2 and kw(item[n - 1], "as") and (item[n].t == "word" or item[n].t == "qword") then
      return item[n].t == "qword" and item[n].v or item[n].v:lower()
   end
   local last, prev = item[n], item[n - 1]
   if n >= 2 and (last.t == "qword" or (last.t == "word" and not not_alias[last.v:lower()])) and
      not is_op(prev, ".") and not is_op(prev, "::") and
      (prev.t ~= "op" or prev.v == ")" or prev.v == "]") and not kw(prev, "as") then
      return last.t == "qword" and last.v or last.v:lower()
   end
   return figure(item)
end

local function names_of_list(items, what)
   local names = {}
   for _, item in ipairs(items) do
      local name = item_name(item)
      if name == nil then return nil, "\\" .. what .. " cannot name the columns of SELECT *" end
      names[#names + 1] = name
   end
   names.rows = true
   return names
end

-- The names of the answer of a statement's tokens, or nil and why.
function M.of_tokens(toks, what)
   what = what or "gset"
   local i = 1
   while is_op(toks[i], "(") do i = i + 1 end -- (SELECT ...) UNION ...
   if kw(toks[i], "with") then -- skip the common table expressions
      i = i + 1
      if kw(toks[i], "recursive") then i = i + 1 end
      while toks[i] do
         while toks[i] and not is_op(toks[i], "(") do i = i + 1 end
         if kw(toks[i - 1], "as") or kw(toks[i - 1], "materialized") then
            i = skip_group(toks, i, "(", ")")
            if is_op(toks[i], ",") then i = i + 1 else break end
         else
            i = skip_group(toks, i, "(", ")") -- the CTE's column list
         end
      end
      while is_op(toks[i], "(") do i = i + 1 end
   end
   local verb = toks[i] and toks[i].t == "word" and toks[i].v:lower()
   if verb == "select" then
      i = i + 1
      if kw(toks[i], "all") then i = i + 1
      elseif kw(toks[i], "distinct") then
         i = i + 1
         if kw(toks[i], "on") then i = skip_group(toks, i + 1, "(", ")") end
      end
      return names_of_list(target_list(toks, i), what)
   elseif verb == "values" then
      local e = skip_group(toks, i + 1, "(", ")")
      local row = {}
      for j = i + 2, e - 2 do row[#row + 1] = toks[j] end
      local names = {}
      local items = target_list(row, 1)
      for k = 1, #items do names[k] = "column" .. k end
      names.rows = true
      return names
   elseif verb == "table" then
      return nil, "\\" .. what .. " cannot name the columns of TABLE"
   end
   -- INSERT/UPDATE/DELETE/MERGE ... RETURNING, else no row at all
   local depth = 0
   for j = i, #toks do
      if is_op(toks[j], "(") then depth = depth + 1 elseif is_op(toks[j], ")") then depth = depth - 1 end
      if depth == 0 and kw(toks[j], "returning") then
         return names_of_list(target_list(toks, j + 1), what)
      end
   end
   return {}
end

-- names(sql, what) -> the list of column names of sql's answer (its
-- field `rows` true when the statement answers rows: SELECT, VALUES,
-- RETURNING), or nil and one line saying why they cannot be known.
function M.names(sql, what)
   return M.of_tokens(tokens(sql), what)
end

-- valid(name): pgbench accepts it as a variable's name (ASCII letters,
-- digits, '_' and any non-ASCII byte); "?column?" is not.
function M.valid(name)
   return name ~= "" and not name:find("[^%w_\128-\255]")
end

return M
