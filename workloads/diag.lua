-- diag: what an operator runs on a new database server (jbench's `pg`
-- suite, on every driver): the server's settings, connection-open
-- latency, trivial SELECT with and without fetching the row, BLOB upload
-- and download bandwidth, a large indexed scan's time to first and to last
-- row, a temporary table's insert and sorted read, and a client sweep
-- 1, 2, 4, ... N with average and p95 latency per statement kind.
--
--   sbench [driver options] diag prepare      # tables (diag_*), the large one loaded
--   sbench [driver options] diag run          # every test, then one summary
--   sbench [driver options] diag scan         # one test: connect, select, blob, scan, temp, sweep
--   sbench [driver options] params            # the server's settings (= diag params)
--   sbench [driver options] diag cleanup
--
-- Each test prints its own report lines, or with --report-format=json one
-- JSON object per test ({"type":"diag","test":...}; docs/report-json.md).
-- The tests run in this control state, one connection at a time; the
-- sweep's steps are sbench runs of diag_sweep with --threads=1, 2, 4, ...
-- (so each step has the run command's threads, statistics and report).

local dsql = require("diag_sql")
local json = require("diag_json")
local lat = require("diag_stats")
local now = sbench.diag.now

sbench.cmdline.options = {
   diag_time = { "Seconds of each timed test (trivial SELECT with and without fetch)", 2 },
   connects = { "Connections the connection test opens and closes", 20 },
   blob_size = { "Bytes of each BLOB the BLOB test uploads and downloads", 1048576 },
   blobs = { "BLOBs the BLOB test uploads and downloads", 8 },
   scan_rows = { "Rows of the large table (prepare loads them; the scan reads them all)", 1000000 },
   scan_fetch = { "Rows per FETCH (PostgreSQL cursor) or per page by key (other databases)", 1000 },
   scan_method = { "How the scan reads: auto (a cursor on PostgreSQL, one streamed SELECT on the mysql " ..
                   "driver, pages by key elsewhere), cursor, stream (one SELECT whose rows are read as " ..
                   "they arrive: mysql_use_result), pages, or one (one SELECT whose result the client " ..
                   "library buffers whole before the first row, as JDBC drivers do by default)", "auto" },
   temp_rows = { "Rows the temporary-table test inserts and reads sorted, one test per size",
                 { "1000", "100000" } },
   temp_batch = { "Rows per INSERT statement of the temporary-table test (a batch, as jbench's " ..
                  "JDBC batch; 1: one row per round trip; at most 85: 3 parameters a row)", 80 },
   diag_repeats = { "Times each test (but the sweep) runs: the summary gives the median and " ..
                    "the spread (min to max)", 3 },
   sweep_clients = { "Largest client count of the sweep: 1, 2, 4, ... up to it", 64 },
   sweep_time = { "Seconds of each sweep step", 3 },
   sweep_rows = { "Rows of the sweep's table (diag_data)", 10000 },
   tests = { "Tests 'run' runs, in order", { "connect", "select", "blob", "scan", "temp", "sweep" } },
}

-- --report-format=json: JSON lines instead of text (read when a command runs)
local json_out = false
local out_lines = {} -- JSON lines for --output

-- ---- output ----

-- One test's result: its text lines, or its JSON object.
local function emit(data, lines)
   data.type = "diag"
   if json_out then
      local line = json.encode(data)
      if sbench.opt.output then out_lines[#out_lines + 1] = line else print(line) end
   else
      for _, l in ipairs(lines) do print(l) end
   end
end

-- Writes the JSON lines to --output whole (a temporary file renamed), so a
-- run that stops half way leaves no file that looks complete.
local function flush_output()
   local path = sbench.opt.output
   if not (json_out and path) then return end
   local tmp = path .. ".tmp"
   local f = assert(io.open(tmp, "w"))
   f:write(table.concat(out_lines, "\n"), #out_lines > 0 and "\n" or "")
   assert(f:close())
   assert(os.rename(tmp, path))
end

local function fmt_ms(v) return string.format("%.3f ms", v) end

-- Stops with one line (a user's bad option: no Lua traceback after it).
local plain_error = { __tostring = function(e) return e.message end }
local function bad_option(fmt, ...)
   error(setmetatable({ message = string.format(fmt, ...), no_traceback = true }, plain_error), 0)
end

local tests = {} -- the tests by name (below)

-- The options the tests read, checked before any test runs.
local function check_options()
   local o = sbench.opt
   if math.type(o.diag_repeats) ~= "integer" or o.diag_repeats < 1 then
      bad_option("--diag-repeats=%s: expected a whole number of at least 1", tostring(o.diag_repeats))
   end
   if math.type(o.temp_batch) ~= "integer" or o.temp_batch < 1 or o.temp_batch > 85 then
      bad_option("--temp-batch=%s: expected 1 to 85 rows (3 parameters a row, at most 256 a statement)",
                 tostring(o.temp_batch))
   end
   for _, sz in ipairs(o.temp_rows) do
      local n = math.tointeger(tonumber(sz))
      if not n or n < 1 then bad_option("--temp-rows: '%s' is not a positive integer", tostring(sz)) end
   end
   for _, name in ipairs(o.tests) do
      if not tests[name] then
         bad_option("--tests: unknown test '%s' (connect, select, blob, scan, temp, sweep)", name)
      end
   end
   local m = o.scan_method
   if m ~= "auto" and m ~= "pages" and m ~= "one" and m ~= "cursor" and m ~= "stream" then
      bad_option("--scan-method=%s: expected auto, cursor (PostgreSQL), stream, pages or one", tostring(m))
   end
end

-- ---- connections and SQL ----

local function connect()
   local con = sbench.sql.driver():connect()
   return con, dsql.new(con:dialect())
end

local function query_value(con, sql)
   return (con:query_row(sql))
end

local function drop_if_exists(con, q, t)
   local ok = pcall(con.query, con, q.drop(t))
   return ok
end

-- ---- prepare / cleanup ----

function prepare()
   local con, q = connect()
   for _, t in ipairs(q.tables) do
      con:query(q.create[t])
   end
   if q.dialect == "postgresql" then -- measure the transfer, not pglz
      con:query("ALTER TABLE diag_blob ALTER COLUMN b SET STORAGE EXTERNAL")
   end
   local rows, srows = sbench.opt.scan_rows, sbench.opt.sweep_rows
   sbench.progress.expect(rows + srows)
   local INT, VARCHAR = sbench.sql.type.INT, sbench.sql.type.VARCHAR
   con:bulk_load_init("diag_big", { "id", "k", "pad" }, { INT, INT, VARCHAR })
   for id = 1, rows do
      con:bulk_load_row(id, sbench.rand.uniform(1, rows), sbench.rand.string(string.rep("#", 59)))
   end
   con:bulk_load_done()
   con:bulk_load_init("diag_data", { "id", "k", "c" }, { INT, INT, VARCHAR })
   for id = 1, srows do
      con:bulk_load_row(id, 0, sbench.rand.string(string.rep("@", 59)))
   end
   con:bulk_load_done()
   print(string.format("diag: tables %s created; diag_big %d rows, diag_data %d rows",
                       table.concat(q.tables, ", "), rows, srows))
end

function cleanup()
   local con, q = connect()
   local dropped = {}
   for _, t in ipairs(q.tables) do
      if drop_if_exists(con, q, t) then dropped[#dropped + 1] = t end
   end
   print("diag: dropped " .. (#dropped > 0 and table.concat(dropped, ", ") or "nothing"))
end

-- ---- params ----

-- The server's version and settings (diag_sql.read_params), the settings
-- list encoded as a JSON array.
local function read_params(con)
   local r = dsql.read_params(con)
   setmetatable(r.settings, json.array_mt)
   return r
end

-- params only reads: on SQLite, whose driver creates a missing database
-- file when it connects (as prepare and run want), a missing file is an
-- error here rather than a new empty database.
local function check_params_db()
   if sbench.sql.driver():name() ~= "sqlite" then return end
   local path = sbench.opt.sqlite_db
   if path == nil or path == ":memory:" then return end
   local f = io.open(path, "rb")
   if f then f:close() return end
   error(string.format("SQLite database '%s' does not exist (params reads an existing database; " ..
                       "prepare or run creates it)", path), 0)
end

local function params_cmd()
   check_params_db()
   local con, q = connect()
   local r = read_params(con)
   setmetatable(r.not_read, json.array_mt)
   local lines = { "Server: " .. (r.version or r.server),
                   string.format("Driver: %s (reports %s), SQL dialect %s", r.driver, r.server, r.dialect),
                   "Settings (value as the server stores it, in its unit; where it came from):" }
   local w, vw, sw = 8, 16, 6
   local shown = {}
   for i, s in ipairs(r.settings) do
      local v = s.value .. (s.unit ~= "" and " (" .. s.unit .. ")" or "")
      if s.human then v = v .. " = " .. s.human end
      shown[i] = v
      w, vw, sw = math.max(w, #s.name), math.max(vw, #v), math.max(sw, #s.source)
   end
   for i, s in ipairs(r.settings) do
      local d = #s.description > 70 and s.description:sub(1, 67) .. "..." or s.description
      lines[#lines + 1] = string.format("    %-" .. w .. "s | %-" .. vw .. "s | %-" .. sw .. "s | %s", s.name,
                                        shown[i], s.source, d)
   end
   if #r.settings == 0 then lines[#lines + 1] = "    (none this database reports through SQL)" end
   if #r.not_read > 0 then
      lines[#lines + 1] = "Not read (this user may not read them, or this server has no such setting): " ..
         table.concat(r.not_read, ", ")
   end
   r.test = "params"
   emit(r, lines)
   con:disconnect()
   return r
end

-- ---- the tests ----

-- Connection open latency: N connects, each closed at once (pgbench -C's
-- "average connection time").
function tests.connect()
   local l = lat.new()
   for _ = 1, sbench.opt.connects do
      local t0 = now()
      local c = sbench.sql.driver():connect()
      lat.add(l, (now() - t0) * 1000)
      c:disconnect()
   end
   local s = lat.summary(l)
   emit({ test = "connect", connects = s.count, connect_ms = s }, {
      "Connection open latency:",
      string.format("    connections:     %d", s.count),
      "    min:             " .. fmt_ms(s.min),
      "    avg:             " .. fmt_ms(s.avg),
      "    95th percentile: " .. fmt_ms(s.p95),
      "    max:             " .. fmt_ms(s.max),
   })
   return string.format("%-26s avg %s, p95 %s, min %s, max %s (%d connects)", "connection open",
                        fmt_ms(s.avg), fmt_ms(s.p95), fmt_ms(s.min), fmt_ms(s.max), s.count),
      { { "connection open avg", s.avg, "ms" } }
end

-- Trivial SELECT as fast as one connection goes, --diag-time seconds each:
-- reading the row, and leaving it unread.
function tests.select()
   local con, q = connect()
   local st = con:prepare(q.select_one)
   local res, summary = {}, {}
   for _, fetch in ipairs({ true, false }) do
      local l = lat.new()
      local t_end = now() + sbench.opt.diag_time
      local t0 = now()
      local t = t0
      repeat
         local rs = st:execute()
         if fetch then
            local row = rs:fetch_row()
            assert(row and tonumber(row[1]) == 1, "SELECT 1 returned no 1")
         end
         rs:free()
         local t1 = now()
         lat.add(l, (t1 - t) * 1000)
         t = t1
      until t >= t_end
      local s = lat.summary(l)
      local name = fetch and "with_fetch" or "no_fetch"
      res[name] = { queries = s.count, seconds = t - t0, qps = s.count / (t - t0), latency_ms = s }
      summary[#summary + 1] = string.format("%-26s %.0f qps, avg %s, p95 %s, min %s",
                                            "trivial SELECT " .. (fetch and "with fetch" or "no fetch"),
                                            s.count / (t - t0), fmt_ms(s.avg), fmt_ms(s.p95), fmt_ms(s.min))
   end
   st:close()
   con:disconnect()
   local lines = {}
   for _, k in ipairs({ "with_fetch", "no_fetch" }) do
      local r = res[k]
      lines[#lines + 1] = string.format("Trivial SELECT test %s: %.2f qps", k == "with_fetch" and "with fetch" or "NO fetch", r.qps)
      lines[#lines + 1] = string.format("    queries: %d in %.3fs; latency min %s, avg %s, 95th %s, max %s",
                                        r.queries, r.seconds, fmt_ms(r.latency_ms.min), fmt_ms(r.latency_ms.avg),
                                        fmt_ms(r.latency_ms.p95), fmt_ms(r.latency_ms.max))
   end
   emit({ test = "select", with_fetch = res.with_fetch, no_fetch = res.no_fetch }, lines)
   -- the pair a reader compares: fetching the row costs (with - no) qps
   return table.concat(summary, "\n"),
      { { "trivial SELECT with fetch", res.with_fetch.qps, "qps", pair = "trivial SELECT no fetch" },
        { "trivial SELECT no fetch", res.no_fetch.qps, "qps" } }
end

-- size random bytes, every byte value among them: each 256 bytes a
-- shuffle of 0..255 (the last block cut short).
local function random_bytes(size)
   local parts, block = {}, {}
   for i = 1, 256 do block[i] = i - 1 end
   for at = 1, size, 256 do
      for i = 256, 2, -1 do
         local j = sbench.rand.uniform(1, i)
         block[i], block[j] = block[j], block[i]
      end
      parts[#parts + 1] = string.char(table.unpack(block, 1, math.min(256, size - at + 1)))
   end
   return table.concat(parts)
end

local hex_of = {}
for i = 0, 255 do hex_of[string.char(i)] = string.format("%02X", i) end

local function to_hex(s)
   return (s:gsub(".", hex_of))
end

-- BLOB upload and download bandwidth: --blobs values of --blob-size
-- random binary bytes (all 256 byte values) inserted through a binary
-- parameter one per statement (autocommit), then read back one by one and
-- compared byte for byte with what was sent, and on the server with the
-- same bytes sent as hex text (q.blob_same).
function tests.blob()
   local con, q = connect()
   local size, n = sbench.opt.blob_size, sbench.opt.blobs
   con:query(q.blob_delete)
   local data = {}
   for i = 1, n do data[i] = random_bytes(size) end
   local ins = con:prepare(q.blob_insert)
   local pid = ins:bind_create(sbench.sql.type.INT)
   local pb = ins:bind_create(sbench.sql.type.BLOB, size)
   ins:bind_param(pid, pb)
   local up = 0
   for i = 1, n do
      pid:set(i)
      pb:set(data[i])
      local t0 = now()
      ins:execute()
      up = up + (now() - t0)
   end
   ins:close()
   local sel = con:prepare(q.blob_select)
   local sid = sel:bind_create(sbench.sql.type.INT)
   sel:bind_param(sid)
   local down, read_bytes, same, as_hex = 0, 0, 0, false
   for i = 1, n do
      sid:set(i)
      local t0 = now()
      local rs = sel:execute()
      local row = rs:fetch_row()
      rs:free()
      down = down + (now() - t0)
      local v = row and row[1] or ""
      if #v == 2 * #data[i] and not v:find("[^%x]") then
         -- ODBC hands a binary column to a character buffer as hex text
         v = v:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
         as_hex = true
      end
      read_bytes = read_bytes + #v
      if v == data[i] then same = same + 1 end
   end
   sel:close()
   local server_same = nil
   if q.blob_same then
      server_same = 0
      for i = 1, n do server_same = server_same + tonumber(query_value(con, q.blob_same(i, to_hex(data[i])))) end
   end
   local server_bytes = tonumber(query_value(con, q.blob_bytes))
   con:disconnect()
   local mb = size * n / 1048576
   local r = { test = "blob", blob_type = q.blob_type, blob_size = size, blobs = n,
               bytes_written = size * n, bytes_read = read_bytes, server_bytes = server_bytes,
               identical = same == n, server_identical = server_same, read_as_hex = as_hex, upload_mb_s = mb / up, download_mb_s = mb / down,
               upload_seconds = up, download_seconds = down }
   r.content = "binary"
   emit(r, {
      string.format("BLOB bandwidth (%s, %d x %d random binary bytes; MB = 1,048,576 bytes):",
                    q.blob_type, n, size),
      string.format("    BLOB upload:     %.2f MB/s (%.3fs)", r.upload_mb_s, up),
      string.format("    BLOB download:   %.2f MB/s (%.3fs)", r.download_mb_s, down),
      string.format("    bytes written %d, stored on the server %d, read back %d%s, identical: %s",
                    r.bytes_written, server_bytes or -1, read_bytes,
                    as_hex and " (as hex text, decoded)" or "", r.identical and "yes" or "NO"),
      server_same and string.format("    stored bytes equal to the same bytes sent as hex text (server-side check): %d of %d",
                                    server_same, n) or nil,
   })
   if not r.identical then
      error(string.format("diag blob: %d of %d BLOBs read back differ from what was written", n - same, n), 0)
   end
   if server_same and server_same ~= n then
      error(string.format("diag blob: the server stores %d of %d BLOBs differently from what was written",
                          n - server_same, n), 0)
   end
   return string.format("%-26s upload %.2f MB/s, download %.2f MB/s (%d x %d binary bytes, read back identical)",
                        "BLOB " .. q.blob_type, r.upload_mb_s, r.download_mb_s, n, size),
      { { "BLOB upload", r.upload_mb_s, "MB/s", pair = "BLOB download" }, { "BLOB download", r.download_mb_s, "MB/s" } }
end

-- The large table read whole in key order: time to the first row and to
-- the last.  PostgreSQL: one cursor, FETCH --scan-fetch rows at a time
-- (rows stream from one snapshot); other databases: pages of --scan-fetch
-- rows by key (WHERE id > last ORDER BY id LIMIT n), each an indexed range.
function tests.scan()
   local con, q = connect()
   local batch = sbench.opt.scan_fetch
   local rows, first, last, fetches, last_id = 0, nil, nil, 0, 0
   local t0
   -- reads one batch's rows: counts them, notes the first row's time and
   -- the last key; returns how many came
   local function drain(rs)
      fetches = fetches + 1
      local got = 0
      local row = rs:fetch_row()
      while row do
         got = got + 1
         if not first then first = now() - t0 end
         last_id = tonumber(row[1])
         row = rs:fetch_row()
      end
      rs:free()
      rows = rows + got
      return got
   end
   local method = sbench.opt.scan_method
   if method == "auto" then
      method = q.scan_cursor and "cursor" or sbench.sql.driver():name() == "mysql" and "stream" or "pages"
   end
   if method == "cursor" and not q.scan_cursor then
      con:disconnect()
      bad_option("--scan-method=cursor: only on PostgreSQL (here: auto, pages or one)")
   end
   if method == "one" then
      t0 = now()
      drain(con:query(q.scan_all))
      last = now() - t0
   elseif method == "stream" then
      t0 = now()
      local rs, streamed = con:query_stream(q.scan_all)
      drain(rs)
      last = now() - t0
      if not streamed then method = "one" end -- the driver buffered it whole
   elseif method == "cursor" then
      con:begin()
      t0 = now()
      con:query(q.scan_declare)
      local fetch = q.scan_fetch(batch)
      while true do
         local got = drain(con:query(fetch))
         if got < batch then break end
      end
      last = now() - t0
      con:query(q.scan_close)
      con:commit()
   else
      local st = con:prepare(q.scan_page(batch))
      local p = st:bind_create(sbench.sql.type.INT)
      st:bind_param(p)
      t0 = now()
      while true do
         p:set(last_id)
         local got = drain(st:execute())
         if got < batch then break end
      end
      last = now() - t0
      st:close()
   end
   con:disconnect()
   first = first or last
   local how = ({ cursor = string.format("one server-side cursor, FETCH %d", batch),
                  pages = string.format("%d queries of %d rows by key, NOT one streamed result", fetches, batch),
                  stream = "one SELECT, its rows streamed as they arrive",
                  one = "one SELECT, its result buffered whole by the client before the first row" })[method]
   local notes = {
      pages = "    NOTE: this driver buffers each result whole, so the scan reads pages by key; its " ..
         "first-row time is one page's, not comparable with a streamed cursor's" ..
         (sbench.sql.driver():name() == "odbc" and
          " (ODBC: MariaDB's driver streams only from 3.1.17 with NO_CACHE, Debian 12 has 3.1.15; " ..
          "SQLite's buffers; on PostgreSQL the scan is one server-side cursor)" or ""),
      one = "    NOTE: the first row comes after the whole result (a JDBC driver's default on " ..
         "MariaDB/MySQL); not comparable with a streamed cursor's",
   }
   local r = { test = "scan", rows = rows, fetches = fetches, fetch_size = (method == "cursor" or method == "pages") and batch or nil,
               method = ({ cursor = "cursor", pages = "key_pages", one = "one_buffered", stream = "stream" })[method],
               first_row_ms = first * 1000, last_row_ms = last * 1000,
               rows_per_s = rows / last }
   emit(r, {
      string.format("Select from large table (%s):", how),
      string.format("    Time to first row LARGE tab, indexed: %.3f ms", r.first_row_ms),
      string.format("    Time to last row LARGE tab, indexed:  %.3f ms", r.last_row_ms),
      string.format("    Rows: %d (%.0f rows/s, %d fetches)", rows, r.rows_per_s, fetches),
      notes[method],
   })
   return string.format("%-26s first row %.1f ms, last row %.1f ms (%d rows, %s)", "large scan",
                        r.first_row_ms, r.last_row_ms, rows, how),
      { { "large scan first row", r.first_row_ms, "ms" }, { "large scan last row", r.last_row_ms, "ms" } }
end

-- Temporary table: --temp-rows rows inserted in one transaction, in
-- batches of --temp-batch rows per INSERT (one prepared multi-row INSERT;
-- what jbench's JDBC batch sends), read back sorted on a non-key column,
-- commit.

-- A prepared INSERT of n rows into the temporary table and its n x 3
-- parameters (id, k, c per row).
local function temp_insert_of(con, q, n)
   local rows = {}
   for i = 1, n do rows[i] = "(?, ?, ?)" end
   local st = con:prepare("INSERT INTO " .. q.temp_name .. " (id, k, c) VALUES " .. table.concat(rows, ", "))
   local INT, VARCHAR, ps = sbench.sql.type.INT, sbench.sql.type.VARCHAR, {}
   for i = 1, n do
      ps[3 * i - 2], ps[3 * i - 1], ps[3 * i] = st:bind_create(INT), st:bind_create(INT), st:bind_create(VARCHAR, 60)
   end
   st:bind_param(table.unpack(ps))
   return { st = st, ps = ps, rows = n }
end

-- Inserts rows first .. first + ins.rows - 1 with one execute of ins.
local function temp_insert_batch(ins, first, n_all)
   local ps = ins.ps
   for i = 1, ins.rows do
      ps[3 * i - 2]:set(first + i - 1)
      ps[3 * i - 1]:set(sbench.rand.uniform(1, n_all))
      ps[3 * i]:set(sbench.rand.string("@@@@@@@@@@@@@@@@@@@@"))
   end
   ins.st:execute()
end

function tests.temp()
   local con, q = connect()
   local batch = sbench.opt.temp_batch
   pcall(con.query, con, q.drop_temp)
   con:query(q.create_temp)
   local full = temp_insert_of(con, q, batch)
   local sizes, lines, summary, figures = {}, {}, {}, {}
   for _, sz in ipairs(sbench.opt.temp_rows) do
      local n = math.tointeger(tonumber(sz))
      local rest = n % batch
      local tail = rest > 0 and temp_insert_of(con, q, rest) or nil
      con:query("DELETE FROM " .. q.temp_name)
      con:begin()
      local t0 = now()
      local id, statements = 1, 0
      while id + batch - 1 <= n do
         temp_insert_batch(full, id, n)
         id, statements = id + batch, statements + 1
      end
      if tail then temp_insert_batch(tail, id, n); statements = statements + 1 end
      local t1 = now()
      local rs = con:query(q.temp_sorted)
      local got, prev, sorted = 0, nil, true
      local row = rs:fetch_row()
      while row do
         got = got + 1
         local k = tonumber(row[2])
         if prev and k < prev then sorted = false end
         prev = k
         row = rs:fetch_row()
      end
      rs:free()
      local t2 = now()
      con:commit()
      local t3 = now()
      if tail then tail.st:close() end
      if got ~= n or not sorted then
         error(string.format("diag temp: read %d rows back (%s), inserted %d", got,
                             sorted and "in order" or "NOT in order", n), 0)
      end
      local r = { rows = n, batch = batch, insert_statements = statements, insert_ms = (t1 - t0) * 1000,
                  sort_ms = (t2 - t1) * 1000, commit_ms = (t3 - t2) * 1000 }
      sizes[#sizes + 1] = r
      lines[#lines + 1] = string.format("TemporaryTable insert size %d. Insert: %.1f ms. Sort: %.1f ms. Commit: %.1f ms " ..
                                        "(batches of %d rows, %d INSERTs)",
                                        n, r.insert_ms, r.sort_ms, r.commit_ms, batch, statements)
      summary[#summary + 1] = string.format("%-26s insert %.1f ms (batches of %d rows), sorted read %.1f ms, commit %.1f ms",
                                            "temp table " .. n .. " rows", r.insert_ms, batch, r.sort_ms, r.commit_ms)
      figures[#figures + 1] = { "temp " .. n .. " rows insert", r.insert_ms, "ms" }
      figures[#figures + 1] = { "temp " .. n .. " rows sorted read", r.sort_ms, "ms" }
   end
   full.st:close()
   pcall(con.query, con, q.drop_temp)
   con:disconnect()
   emit({ test = "temp", batch = batch, sizes = sizes }, lines)
   return table.concat(summary, "\n"), figures
end

-- ---- the sweep: one sbench run of diag_sweep per client count ----

local function shell_quote(s)
   return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- The options a step passes on: the driver's and the db-* ones, the search
-- paths, the seed.  A password goes through a file only this user can
-- read (os.tmpname makes it 0600), never on a command line.  Returns the
-- argument text and the files to remove.
local function child_options()
   local drv = sbench.sql.driver():name()
   local args, files = {}, {}
   local names = {}
   for k in pairs(sbench.opt) do names[#names + 1] = k end
   table.sort(names)
   for _, k in ipairs(names) do
      local v = sbench.opt[k]
      local dash = k:gsub("_", "-")
      local pass = dash:find("^db%-") or dash:find("^" .. drv .. "%-") or dash == "driver-path" or
         dash == "workload-path" or dash == "rand-seed" or dash == "histogram-precision" or
         dash == "sweep-rows"
      if pass and v ~= nil then
         if type(v) == "boolean" then v = v and "on" or "off" end
         if type(v) == "table" then v = table.concat(v, ",") end
         if dash:find("%-password$") then
            if v ~= "" then
               local f = os.tmpname()
               local h = assert(io.open(f, "w"))
               h:write(v, "\n")
               h:close()
               files[#files + 1] = f
               args[#args + 1] = "--" .. dash .. "-file=" .. shell_quote(f)
            end
         else
            args[#args + 1] = "--" .. dash .. "=" .. shell_quote(v)
         end
      end
   end
   if sbench.opt.db_driver == nil then args[#args + 1] = "--db-driver=" .. drv end
   return table.concat(args, " "), files
end

local function read_file(path)
   local f = io.open(path, "r")
   if not f then return nil end
   local s = f:read("a")
   f:close()
   return s
end

local function sweep_steps(max)
   local steps, c = {}, 1
   while c < max do steps[#steps + 1] = c; c = c * 2 end
   steps[#steps + 1] = max
   return steps
end

function tests.sweep()
   local con, q = connect()
   con:query("DELETE FROM diag_seen")
   local exe = sbench.diag.exe()
   local opts, files = child_options()
   local dir = os.tmpname()
   os.remove(dir)
   local steps, lines, summary = {}, {}, {}
   local ok, err = pcall(function()
      for _, k in ipairs(sweep_steps(sbench.opt.sweep_clients)) do
         local out, log = dir .. "-" .. k .. ".json", dir .. "-" .. k .. ".log"
         local cmd = string.format("%s %s --threads=%d --time=%d --report-format=json --output=%s " ..
                                   "--db-server-counters=off diag_sweep run >%s 2>&1",
                                   shell_quote(exe), opts, k, sbench.opt.sweep_time, shell_quote(out),
                                   shell_quote(log))
         local okx, how, code = os.execute(cmd)
         local text = read_file(out)
         os.remove(out)
         if not okx or not text then
            local l = read_file(log) or ""
            os.remove(log)
            error(string.format("diag sweep: the step with %d clients failed (%s %s):\n%s", k,
                                tostring(how), tostring(code), l:sub(-1500)), 0)
         end
         os.remove(log)
         local rep = json.decode(text)
         local seen, rows = con:query_row(string.format(
            "SELECT COUNT(DISTINCT backend), COUNT(*) FROM diag_seen WHERE clients = %d", k))
         local kinds = {}
         for _, kind in ipairs({ "select", "insert", "update", "commit" }) do
            local kk = rep.kinds[kind]
            kinds[kind] = { count = kk.count, avg_ms = kk.latency_ms.avg,
                            p95_ms = kk.latency_ms.percentiles["95"] }
         end
         local s = { clients = k, threads = rep.threads, transactions = rep.transactions, tps = rep.tps,
                     seconds = rep.seconds, statements = rep.queries.total, kinds = kinds,
                     server_sessions = q.backend_id and tonumber(seen) or nil,
                     sessions_recorded = tonumber(rows), latency_ms = rep.latency_ms }
         steps[#steps + 1] = s
         local line = string.format("%7d %10.1f %10.1f   %7.3f/%-7.3f %7.3f/%-7.3f %7.3f/%-7.3f %7.3f/%-7.3f %s",
                                    k, s.tps, s.statements / s.seconds,
                                    kinds.select.avg_ms, kinds.select.p95_ms,
                                    kinds.insert.avg_ms, kinds.insert.p95_ms,
                                    kinds.update.avg_ms, kinds.update.p95_ms,
                                    kinds.commit.avg_ms, kinds.commit.p95_ms,
                                    s.server_sessions and tostring(s.server_sessions) or "-")
         lines[#lines + 1] = line
         if not json_out then io.stderr:write(string.format("  sweep: %d clients done\n", k)) end
      end
   end)
   for _, f in ipairs(files) do os.remove(f) end
   con:disconnect()
   local head = {
      string.format("Client sweep (%ds per step; a transaction = select, insert, update, commit):", sbench.opt.sweep_time),
      "clients        tps   stmts/s   select avg/p95  insert avg/p95  update avg/p95  commit avg/p95 (ms) server sessions",
   }
   for _, l in ipairs(lines) do head[#head + 1] = l end
   emit({ test = "sweep", step_seconds = sbench.opt.sweep_time,
          steps = setmetatable(steps, json.array_mt) }, head)
   if not ok then error(err, 0) end
   summary[#summary + 1] = "client sweep:"
   for i = 2, #head do summary[#summary + 1] = head[i] end
   return table.concat(summary, "\n")
end

-- ---- commands ----

-- ---- repetitions and their spread ----

local NOISE = 0.10 -- a relative spread above this is called out: it is what a DBA acts on

local function median(v)
   local t = {}
   for i, x in ipairs(v) do t[i] = x end
   table.sort(t)
   local m = #t // 2
   return #t % 2 == 1 and t[m + 1] or (t[m] + t[m + 1]) / 2
end

-- The spread of each figure over the repetitions: { {label, unit, median,
-- min, max, values}, ... } in the tests' order, and the warning lines.
local function spread_of(runs)
   local order, by = {}, {}
   for _, figs in ipairs(runs) do
      for _, f in ipairs(figs) do
         local e = by[f[1]]
         if not e then
            e = { label = f[1], unit = f[3], pair = f.pair, values = setmetatable({}, json.array_mt) }
            by[f[1]] = e
            order[#order + 1] = e
         end
         e.values[#e.values + 1] = f[2]
      end
   end
   local warnings = {}
   for _, e in ipairs(order) do
      e.median, e.min, e.max = median(e.values), math.min(table.unpack(e.values)), math.max(table.unpack(e.values))
      e.spread = e.max - e.min
      e.spread_pct = e.median ~= 0 and 100 * e.spread / math.abs(e.median) or 0
   end
   for _, e in ipairs(order) do
      local p = e.pair and by[e.pair]
      if p and #e.values > 1 then
         local diff = math.abs(e.median - p.median)
         if math.max(e.spread, p.spread) > diff then
            warnings[#warnings + 1] = string.format("WARNING: %s and %s differ by %.3g %s, less than their spread " ..
               "over %d runs (%.3g %s): the difference between them is noise", e.label, p.label, diff, e.unit,
               #e.values, math.max(e.spread, p.spread), e.unit)
         end
      end
      if #e.values > 1 and e.spread_pct > 100 * NOISE then
         warnings[#warnings + 1] = string.format("WARNING: %s varied by %.0f%% over %d runs (%.3g to %.3g %s): " ..
            "a difference under %.0f%% from another server or setting is noise", e.label, e.spread_pct,
            #e.values, e.min, e.max, e.unit, e.spread_pct)
      end
   end
   return order, warnings
end

-- The run whose first figure is the median of the runs' (for an even
-- number of runs, the lower of the two middle ones), so that a summary
-- headline is a median run, not whichever ran last; nil without figures.
local function median_run(runs)
   local idx = {}
   for i, figs in ipairs(runs) do
      if figs[1] == nil then return nil end
      idx[#idx + 1] = i
   end
   table.sort(idx, function(a, b)
      local x, y = runs[a][1][2], runs[b][1][2]
      if x ~= y then return x < y end
      return a < b
   end)
   return idx[(#idx + 1) // 2]
end

-- Runs test `name` --diag-repeats times (the sweep once: each of its steps
-- is a run of its own); returns the median run's summary text (by its
-- first figure; the last run's when a test has no figures) followed by
-- the spread of each figure and the warnings, and emits the spread.
local function repeated(name)
   local n = name == "sweep" and 1 or sbench.opt.diag_repeats
   local texts, runs = {}, {}
   for i = 1, n do
      if n > 1 and not json_out then print(string.format("[%s: run %d of %d]", name, i, n)) end
      local t, figs = tests[name]()
      texts[i], runs[i] = t, figs or {}
   end
   if n == 1 then return texts[1] end
   local mi = median_run(runs)
   local text = mi and texts[mi] or texts[n]
   local figs, warnings = spread_of(runs)
   local lines = { string.format("Spread of %s over %d runs (median, min .. max):", name, n) }
   local out = { text, mi and string.format("  (the run shown is run %d of %d, the median by %s)", mi, n,
                                            runs[mi][1][1]) or nil }
   for _, e in ipairs(figs) do
      local l = string.format("    %-32s %.3f %s, %.3f .. %.3f (spread %.1f%%)", e.label, e.median, e.unit,
                              e.min, e.max, e.spread_pct)
      lines[#lines + 1] = l
      out[#out + 1] = "  " .. l
   end
   for _, w in ipairs(warnings) do lines[#lines + 1] = w; out[#out + 1] = "  " .. w end
   setmetatable(figs, json.array_mt)
   emit({ test = "spread", of = name, runs = n, median_run = mi, figures = figs,
          warnings = setmetatable(warnings, json.array_mt) }, lines)
   return table.concat(out, "\n")
end

local function one(name)
   return function()
      json_out = sbench.opt.report_format == "json"
      check_options()
      local ok, err = pcall(repeated, name)
      flush_output()
      if not ok then error(err, 0) end
   end
end

local function run_all()
   json_out = sbench.opt.report_format == "json"
   check_options()
   local con = sbench.sql.driver():connect()
   local server = con:server_version()
   con:disconnect()
   local pr = params_cmd()
   local summary, failed = {}, {}
   local interrupted
   for _, name in ipairs(sbench.opt.tests) do
      if not json_out then print("") end
      local ok, res = pcall(repeated, name)
      if ok then
         summary[#summary + 1] = res
      else
         local msg = type(res) == "table" and (res.sql_errmsg or tostring(res)) or tostring(res)
         failed[#failed + 1] = name .. ": " .. msg
         summary[#summary + 1] = string.format("%-26s FAILED: %s", name, msg:match("[^\n]*"))
         if msg:find("interrupted") then interrupted = res break end
      end
   end
   if not json_out then
      print("")
      print(string.rep("=", 100))
      print(string.format("Diagnosis of %s (driver %s, %d settings read; 'sbench params' lists them)",
                          server, sbench.sql.driver():name(), #pr.settings))
      print(string.rep("=", 100))
      for _, s in ipairs(summary) do print(s) end
   end
   emit({ test = "summary", tests = sbench.opt.tests, failed = setmetatable(failed, json.array_mt) }, {})
   flush_output()
   if interrupted then error(interrupted, 0) end
   if #failed > 0 then error(string.format("diag: %d test(s) failed", #failed), 0) end
end

sbench.cmdline.commands = {
   run = { run_all },
   params = { function()
      json_out = sbench.opt.report_format == "json"
      params_cmd()
      flush_output()
   end },
   connect = { one("connect") },
   select = { one("select") },
   blob = { one("blob") },
   scan = { one("scan") },
   temp = { one("temp") },
   sweep = { one("sweep") },
}
