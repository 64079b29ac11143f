-- sbk: SBK's (Storage Benchmark Kit) writers and readers of fixed-size
-- records, on any driver: each event of a writer inserts one record of
-- --record-size bytes (event type `write`), each event of a reader reads
-- the next record in key order (event type `read`), concurrently.  A
-- reader alone stops at the table's end, as SBK's readers do (--read-loop=on:
-- from the first record again); beside writers it waits there for their
-- next record (event type `read_miss`), as SBK's stream readers do, so its
-- rate is over the time it ran.  Only those events are counted as
-- records: the writer's startup query for its next id is no record.
-- Every reporting window prints SBK's line per role (records, records/s,
-- MB/s of the bytes really written or read, average and max latency,
-- percentiles 10th .. 99.99th), and the end
-- a Total line per role; the JSON and CSV reports and Prometheus carry the
-- same counts (the event types, and the writers' `insert` statements).
--
--   sbench [driver options] sbk prepare                      # the table (and --records to read)
--   sbench [driver options] --threads=2 --readers=1 --record-size=100 \
--          --time=60 --report-interval=5 sbk run             # 1 writer, 1 reader
--   sbench [driver options] sbk cleanup
--
-- --threads is the number of writers plus readers (SBK's -writers and
-- -readers): the first --threads minus --readers threads write, the others
-- read.  --writers, when given, must agree.

local dsql = require("diag_sql")

sbench.cmdline.options = {
   writers = { "Writers (threads that insert records); default: --threads minus --readers", -1 },
   readers = { "Readers (threads that read records in key order)", 0 },
   record_size = { "Bytes of each record (SBK's -size)", 100 },
   records = { "Records prepare loads (for readers without writers)", 0 },
   read_loop = { "Readers start again at the first record after the last " ..
                 "(SBK's readers stop at the table's end)", false },
}

local SPAN = 1 << 40 -- each writer owns the ids [(w+1) * SPAN, (w+2) * SPAN)

local function roles()
   local o = sbench.opt
   local readers = o.readers
   local writers = o.writers >= 0 and o.writers or o.threads - readers
   if readers < 0 or writers < 0 or writers + readers ~= o.threads or writers + readers == 0 then
      error(string.format("sbk: --writers=%d and --readers=%d need --threads=%d (writers + readers); " ..
                          "--threads is %d", writers, readers, math.max(writers + readers, 1), o.threads), 0)
   end
   return writers, readers
end

local function create_sql(q)
   local data = q.blob_type
   local engine = q.dialect == "mysql" and " ENGINE=InnoDB" or ""
   return "CREATE TABLE sbk_records (id BIGINT NOT NULL PRIMARY KEY, data " .. data .. " NOT NULL)" .. engine
end

function prepare()
   local con = sbench.sql.driver():connect()
   local q = dsql.new(con:dialect())
   con:query(create_sql(q))
   local n = sbench.opt.records
   if n > 0 then
      sbench.progress.expect(n)
      con:bulk_load_init("sbk_records", { "id", "data" }, { sbench.sql.type.BIGINT, sbench.sql.type.VARCHAR })
      local tmpl = string.rep("@", sbench.opt.record_size)
      for i = 1, n do con:bulk_load_row(SPAN + i, sbench.rand.string(tmpl)) end
      con:bulk_load_done()
   end
   print(string.format("sbk: table sbk_records created, %d records of %d bytes", n, sbench.opt.record_size))
end

function cleanup()
   local con = sbench.sql.driver():connect()
   con:query("DROP TABLE sbk_records")
end

function init()
   local _, readers = roles() -- a clear error before any thread starts
   if readers > 0 and sbench.cmdline.command == "run" then
      local con = sbench.sql.driver():connect()
      local n = tonumber((con:query_row("SELECT COUNT(*) FROM sbk_records")))
      con:disconnect()
      if n == 0 then
         error("sbk: readers need records to read: run 'sbk prepare' with --records=N first", 0)
      end
   end
end

local writer, next_id, last_id

local RECORD_BYTES -- a writer's record size, the units of its events
local have_writers -- a reader at the table's end waits for the writers' next record

function thread_init()
   RECORD_BYTES = sbench.opt.record_size
   local writers = roles()
   have_writers = writers > 0
   writer = sbench.tid < writers
   con = sbench.sql.driver():connect()
   if writer then
      local lo = (sbench.tid + 1) * SPAN
      next_id = tonumber((con:query_row(string.format(
         "SELECT COALESCE(MAX(id), %d) FROM sbk_records WHERE id >= %d AND id < %d", lo, lo, lo + SPAN)))) + 1
      st = con:prepare("INSERT INTO sbk_records (id, data) VALUES (?, ?)", "sbk_write")
      p_id = st:bind_create(sbench.sql.type.BIGINT)
      p_data = st:bind_create(sbench.sql.type.VARCHAR, sbench.opt.record_size)
      st:bind_param(p_id, p_data)
      tmpl = string.rep("@", sbench.opt.record_size)
   else
      last_id = 0
      local q = dsql.new(con:dialect())
      local sql = q.dialect == "db2" and
         "SELECT id, data FROM sbk_records WHERE id > ? ORDER BY id FETCH FIRST 1 ROWS ONLY" or
         "SELECT id, data FROM sbk_records WHERE id > ? ORDER BY id LIMIT 1"
      st = con:prepare(sql, "sbk_read")
      p_id = st:bind_create(sbench.sql.type.BIGINT)
      st:bind_param(p_id)
   end
end

local set_type = sbench.event_type

function event()
   if writer then
      set_type("write", RECORD_BYTES) -- units: the bytes of the record written
      p_id:set(next_id)
      p_data:set_rand_str(tmpl)
      st:execute()
      next_id = next_id + 1
   else
      p_id:set(last_id)
      local rs = st:execute()
      local row = rs:fetch_row()
      rs:free()
      if row then
         set_type("read", row[2] and #row[2] or 0) -- units: the bytes read, whatever size prepare wrote
         last_id = tonumber(row[1])
      elseif sbench.opt.read_loop then
         set_type("read_miss") -- past the last record: no record read, from the start again
         last_id = 0
      elseif have_writers then
         -- caught up with the writers: no record read; wait for the next
         -- one, as SBK's readers of a stream do, so that the readers run as
         -- long as the writers and their rate is over the time they ran
         set_type("read_miss")
      else
         return true -- past the last record: this reader is done (not counted)
      end
   end
end

function thread_done()
   con:disconnect()
end

-- ---- SBK's report lines ----

local PCTS = { "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99" }

-- One SBK line for the events of type k (stat.types[name]), or none.
local function sbk_line(prefix, what, k, seconds)
   if not k or k.count == 0 then return end
   local mb = k.units / 1048576 -- the bytes each record really carried (event units)
   local p = {}
   for i, key in ipairs(PCTS) do p[i] = string.format("%.3f ms %sth", k.percentiles[key], key) end
   -- SBK's fields in SBK's order; sbench's histogram keeps every latency,
   -- so none is invalid or discarded
   print(string.format("%s%s %s %d records, %.1f records/sec, %.2f MB/sec, %.3f ms avg latency, " ..
                       "%.3f ms max latency; 0 invalid latencies; Discarded Latencies: 0 lower, 0 higher; %s.", prefix, sbench.sql.driver():name(), what, k.count,
                       k.count / seconds, mb / seconds, k.latency_avg, k.latency_max, table.concat(p, ", ")))
end

local function report(stat, prefix)
   local types = stat.types or {}
   sbk_line(prefix, "Writing", types.write, stat.time_interval)
   sbk_line(prefix, "Reading", types.read, stat.time_interval)
end

sbench.hooks.report_intermediate = function(stat) report(stat, "") end
sbench.hooks.report_cumulative = function(stat)
   report(stat, "Total : ")
end
