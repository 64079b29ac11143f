-- @NAME@.lua: a workload written by `sbench new @NAME@` (edit it freely).
-- A key/value table read by key and updated in short transactions.
--   sbench @NAME@.lua prepare        create and load the table
--   sbench @NAME@.lua trace          see the statements an event sends
--   sbench @NAME@.lua run            the benchmark
--   sbench @NAME@.lua cleanup        drop the table
-- `sbench lint @NAME@.lua` checks it for the usual traps.

sbench.cmdline.options = {
   @PREFIX@_rows = {"Rows in table @TABLE@", 10000},
   @PREFIX@_write_pct = {"Percentage of events that update a row", 20},
}

-- The SQL of the database it was written for (--dialect), or of the one
-- it runs on.
local function create_table_sql(dialect)
   if dialect == "mysql" then
      return "CREATE TABLE @TABLE@ (k INTEGER NOT NULL PRIMARY KEY, v VARCHAR(64) NOT NULL) ENGINE=InnoDB"
   end
   return "CREATE TABLE @TABLE@ (k INTEGER NOT NULL PRIMARY KEY, v VARCHAR(64) NOT NULL)"
end

-- prepare and cleanup run once, in the control state.
function prepare()
   local con = sbench.sql.driver():connect()
   con:query(create_table_sql(@DIALECT@ or con:dialect()))
   sbench.progress.expect(sbench.opt.@PREFIX@_rows)
   con:bulk_load_init("@TABLE@", {"k", "v"}, {sbench.sql.type.INT, sbench.sql.type.VARCHAR})
   for k = 1, sbench.opt.@PREFIX@_rows do
      con:bulk_load_row(k, sbench.rand.string("value-##########"))
   end
   con:bulk_load_done()
end

function cleanup()
   local con = sbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS @TABLE@")
end

-- Each thread (each client under --clients) connects once and prepares
-- its statements once: nothing is prepared in event().
function thread_init()
   con = sbench.sql.driver():connect()
   get = con:prepare("SELECT v FROM @TABLE@ WHERE k = ?", "point_select")
   get_k = get:bind_create(sbench.sql.type.INT)
   get:bind_param(get_k)
   put = con:prepare("UPDATE @TABLE@ SET v = ? WHERE k = ?", "update")
   put_v = put:bind_create(sbench.sql.type.VARCHAR, 64)
   put_k = put:bind_create(sbench.sql.type.INT)
   put:bind_param(put_v, put_k)
end

-- One event = one transaction; its latency is what the report shows.
function event()
   local key = sbench.rand.default(1, sbench.opt.@PREFIX@_rows)
   if sbench.rand.uniform(1, 100) <= sbench.opt.@PREFIX@_write_pct then
      sbench.event_type("write")
      con:begin()
      put_v:set_rand_str("value-##########")
      put_k:set(key)
      put:execute()
      con:commit()
   else
      sbench.event_type("read")
      get_k:set(key)
      get:execute()
   end
end

function thread_done()
   con:disconnect()
end

-- A section of the final report, computed by sbench from the event types.
sbench.report_section{title = "@NAME@:", rows = {
   {kind = "mix", label = "Event mix", types = "read,write"},
   {kind = "percentile", label = "95th percentile of the writes", types = "write", percentile = 95},
}}
