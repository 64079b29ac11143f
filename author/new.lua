-- author/new.lua: `sbench new NAME`'s generator, run in a Lua state of its
-- own (author/new.c).  new_plain(name, template, dialect) fills the
-- template kept in workloads/templates/; new_from_tables(name, tables,
-- dialect, query) reads each table's columns, primary key and key range
-- through query(sql) -> rows (each row an array of strings or nil) and
-- writes a workload of point selects, range scans, updates and inserts
-- on them, its parameters typed as the columns are.

function new_plain(name, template, dialect)
  local fill = {NAME = name, PREFIX = name, TABLE = name,
                DIALECT = dialect and string.format("%q", dialect) or "nil"}
  return (template:gsub("@(%u+)@", fill))
end

local function q(s) return "'" .. tostring(s):gsub("'", "''") .. "'" end

-- The columns of table t: {name=, type=, maxlen=, pk=}, in order.
local function columns(query, dialect, t)
  local cols = {}
  if dialect == "sqlite" then
    for _, r in ipairs(query("PRAGMA table_info(" .. q(t) .. ")")) do
      cols[#cols + 1] = {name = r[2], type = (r[3] or ""):lower(), pk = tonumber(r[6]) and tonumber(r[6]) > 0,
                         maxlen = tonumber((r[3] or ""):match("%((%d+)%)"))}
    end
    return cols
  end
  local schema = dialect == "mysql" and "DATABASE()" or "current_schema()"
  for _, r in ipairs(query("SELECT column_name, data_type, character_maximum_length FROM " ..
      "information_schema.columns WHERE table_schema = " .. schema .. " AND table_name = " .. q(t) ..
      " ORDER BY ordinal_position")) do
    cols[#cols + 1] = {name = r[1], type = (r[2] or ""):lower(), maxlen = tonumber(r[3])}
  end
  local pk = dialect == "mysql"
    and "SELECT column_name FROM information_schema.key_column_usage WHERE table_schema = DATABASE() " ..
        "AND table_name = " .. q(t) .. " AND constraint_name = 'PRIMARY'"
    or "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND " ..
       "a.attnum = ANY(i.indkey) WHERE i.indrelid = " .. q(t) .. "::regclass AND i.indisprimary"
  local keys = {}
  for _, r in ipairs(query(pk)) do keys[r[1]] = true end
  for _, c in ipairs(cols) do c.pk = keys[c.name] or false end
  return cols
end

-- sbench's parameter type for a column type, and whether it is an integer.
local function param_type(ty)
  if ty:find("int") or ty == "serial" or ty == "bigserial" then return "INT", true end
  if ty:find("float") or ty:find("double") or ty:find("real") or ty:find("numeric") or ty:find("decimal") then
    return "DOUBLE", false
  end
  return "VARCHAR", false
end

-- A random value of a column's type, as Lua source.
local function random_value(c)
  local ty = param_type(c.type)
  if c.type:find("timestamp") or c.type:find("datetime") then return '"2024-01-01 00:00:00"' end
  if c.type:find("date") then return '"2024-01-01"' end
  if c.type:find("time") then return '"00:00:00"' end
  if ty == "INT" then return "sbench.rand.uniform(1, 1000000)" end
  if ty == "DOUBLE" then return "sbench.rand.uniform(1, 1000000) / 100" end
  local n = math.max(1, math.min(c.maxlen or 16, 32))
  return string.format("sbench.rand.string(%q)", string.rep("@", n))
end

local function describe(query, dialect, t)
  local cols = columns(query, dialect, t)
  if #cols == 0 then error("table '" .. t .. "' not found (or it has no columns)", 0) end
  local keys = {}
  for _, c in ipairs(cols) do if c.pk then keys[#keys + 1] = c end end
  local d = {name = t, cols = cols}
  if #keys == 1 and select(2, param_type(keys[1].type)) then
    d.key = keys[1]
    local r = query("SELECT min(" .. d.key.name .. "), max(" .. d.key.name .. "), count(*) FROM " .. t)[1] or {}
    d.min, d.max, d.rows = tonumber(r[1]) or 1, tonumber(r[2]) or 1, tonumber(r[3]) or 0
  end
  return d
end

local function emit(out, fmt, ...) out[#out + 1] = fmt:format(...) end

local function table_code(out, d, prefix)
  local names, marks, others = {}, {}, {}
  for _, c in ipairs(d.cols) do
    names[#names + 1] = c.name
    marks[#marks + 1] = "?"
    if not c.pk then others[#others + 1] = c end
  end
  local k, cols = d.key.name, table.concat(names, ", ")
  emit(out, "   s.%s = {}", prefix)
  emit(out, "   s.%s.point = bind(con:prepare(%q, %q), {%q})", prefix,
       "SELECT " .. cols .. " FROM " .. d.name .. " WHERE " .. k .. " = ?", d.name .. "_point_select", "INT")
  emit(out, "   s.%s.range = bind(con:prepare(%q, %q), {%q, %q})", prefix,
       "SELECT " .. cols .. " FROM " .. d.name .. " WHERE " .. k .. " BETWEEN ? AND ?", d.name .. "_range", "INT", "INT")
  if others[1] then
    local ty = param_type(others[1].type)
    emit(out, "   s.%s.update = bind(con:prepare(%q, %q), {%q, %q})", prefix,
         "UPDATE " .. d.name .. " SET " .. others[1].name .. " = ? WHERE " .. k .. " = ?", d.name .. "_update", ty, "INT")
  end
  local types = {}
  for _, c in ipairs(d.cols) do types[#types + 1] = string.format("%q", (param_type(c.type))) end
  emit(out, "   s.%s.insert = bind(con:prepare(%q, %q), {%s})", prefix,
       "INSERT INTO " .. d.name .. " (" .. cols .. ") VALUES (" .. table.concat(marks, ", ") .. ")",
       d.name .. "_insert", table.concat(types, ", "))
  emit(out, "   s.%s.delete = bind(con:prepare(%q, %q), {%q})", prefix,
       "DELETE FROM " .. d.name .. " WHERE " .. k .. " = ?", d.name .. "_delete", "INT")
end

local function event_code(out, d, prefix)
  local others = {}
  for _, c in ipairs(d.cols) do if not c.pk then others[#others + 1] = c end end
  emit(out, "   do -- %s: keys %d..%d (%d rows when written)", d.name, d.min, d.max, d.rows)
  emit(out, "      local st, lo, hi = s.%s, sbench.opt.%s_min_key, sbench.opt.%s_max_key", prefix, prefix, prefix)
  emit(out, "      for _ = 1, sbench.opt.%s_point_selects do", prefix)
  emit(out, "         run(st.point, sbench.rand.default(lo, hi))")
  emit(out, "      end")
  emit(out, "      local a = sbench.rand.default(lo, hi)")
  emit(out, "      run(st.range, a, math.min(hi, a + sbench.opt.%s_range_size - 1))", prefix)
  if others[1] then
    emit(out, "      for _ = 1, sbench.opt.%s_updates do", prefix)
    emit(out, "         run(st.update, %s, sbench.rand.default(lo, hi))", random_value(others[1]))
    emit(out, "      end")
  end
  local vals = {}
  for _, c in ipairs(d.cols) do vals[#vals + 1] = c.pk and "key" or random_value(c) end
  emit(out, "      for i = 1, sbench.opt.%s_inserts do -- a new key above the range, removed again", prefix)
  emit(out, "         local key = hi + 1 + client_id + (i - 1) * 1000000")
  emit(out, "         run(st.insert, %s)", table.concat(vals, ", "))
  emit(out, "         run(st.delete, key)")
  emit(out, "      end")
  emit(out, "   end")
end

function new_from_tables(name, tables, dialect, query)
  local ds, skipped = {}, {}
  for t in tables:gmatch("[^,%s]+") do
    if not t:match("^[%a_][%w_]*$") then error("table name '" .. t .. "': letters, digits and _ only", 0) end
    local d = describe(query, dialect, t)
    if d.key then ds[#ds + 1] = d else skipped[#skipped + 1] = t end
  end
  if #ds == 0 then
    error("no table with a one-column integer primary key among " .. tables .. ": nothing to look rows up by", 0)
  end
  local out = {}
  emit(out, "-- %s.lua: written by `sbench new %s --from-tables=%s` from the tables as they were", name, name, tables)
  emit(out, "-- on a %s server (edit it freely).  Each event is one transaction over the", dialect)
  emit(out, "-- tables: point selects and a range scan by primary key, updates, and an insert")
  emit(out, "-- of a new key that the same transaction deletes again (the tables keep their rows).")
  emit(out, "--   sbench %s.lua trace --trace-rollback   see what an event sends, changing nothing", name)
  emit(out, "--   sbench %s.lua run                       the benchmark", name)
  if #skipped > 0 then
    emit(out, "-- Left out (no one-column integer primary key): %s.", table.concat(skipped, ", "))
  end
  emit(out, "")
  emit(out, "sbench.cmdline.options = {")
  for _, d in ipairs(ds) do
    local p = d.name
    emit(out, "   %s_min_key = {%q, %d},", p, "Smallest key of " .. d.name .. " to read", d.min)
    emit(out, "   %s_max_key = {%q, %d},", p, "Largest key of " .. d.name .. " to read", d.max)
    emit(out, "   %s_point_selects = {%q, 4},", p, "Point selects on " .. d.name .. " per event")
    emit(out, "   %s_range_size = {%q, 10},", p, "Rows of a range scan on " .. d.name)
    emit(out, "   %s_updates = {%q, 1},", p, "Updates of " .. d.name .. " per event")
    emit(out, "   %s_inserts = {%q, 1},", p, "Inserts (deleted again) into " .. d.name .. " per event")
  end
  emit(out, "}")
  emit(out, "")
  emit(out, "local T = sbench.sql.type")
  emit(out, "")
  emit(out, "-- A prepared statement with parameters of the given types.")
  emit(out, "local function bind(st, types)")
  emit(out, "   local ps = {}")
  emit(out, "   for i, ty in ipairs(types) do")
  emit(out, "      ps[i] = ty == \"VARCHAR\" and st:bind_create(T.VARCHAR, 255) or st:bind_create(T[ty])")
  emit(out, "   end")
  emit(out, "   st:bind_param(table.unpack(ps))")
  emit(out, "   return {st = st, ps = ps}")
  emit(out, "end")
  emit(out, "")
  emit(out, "local function run(b, ...)")
  emit(out, "   for i, v in ipairs({...}) do b.ps[i]:set(v) end")
  emit(out, "   return b.st:execute()")
  emit(out, "end")
  emit(out, "")
  emit(out, "function thread_init(thread_id)")
  emit(out, "   client_id = thread_id")
  emit(out, "   con = sbench.sql.driver():connect()")
  emit(out, "   s = {}")
  for _, d in ipairs(ds) do table_code(out, d, d.name) end
  emit(out, "end")
  emit(out, "")
  emit(out, "function event()")
  emit(out, "   con:begin()")
  for _, d in ipairs(ds) do event_code(out, d, d.name) end
  emit(out, "   con:commit()")
  emit(out, "end")
  emit(out, "")
  emit(out, "function thread_done()")
  emit(out, "   con:disconnect()")
  emit(out, "end")
  return table.concat(out, "\n") .. "\n"
end
