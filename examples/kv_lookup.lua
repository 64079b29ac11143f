-- kv_lookup.lua: a complete sbench workload in one file, as an example of
-- the Lua API.  A key/value table, looked up by key (80%) and updated
-- (20%) in short transactions.  Run it like any workload:
--   sbench --kv-rows=50000 examples/kv_lookup.lua prepare
--   sbench --threads=4 --time=10 examples/kv_lookup.lua run
--   sbench examples/kv_lookup.lua cleanup

sbench.cmdline.options = {
   kv_rows = {"Rows in the kv table", 10000},
   kv_write_pct = {"Percentage of events that update a value", 20},
}

-- prepare and cleanup run once, in the control state.
function prepare()
   local con = sbench.sql.driver():connect()
   con:query("CREATE TABLE kv (k INTEGER NOT NULL PRIMARY KEY, v VARCHAR(64) NOT NULL)")
   sbench.progress.expect(sbench.opt.kv_rows)
   con:bulk_load_init("kv", {"k", "v"}, {sbench.sql.type.INT, sbench.sql.type.VARCHAR})
   for k = 1, sbench.opt.kv_rows do
      con:bulk_load_row(k, sbench.rand.string("value-##########"))
   end
   con:bulk_load_done()
   print(string.format("kv: %d rows", sbench.opt.kv_rows))
end

function cleanup()
   local con = sbench.sql.driver():connect()
   con:query("DROP TABLE kv")
end

-- Each worker thread connects once and prepares its statements once.
function thread_init()
   con = sbench.sql.driver():connect()
   get = con:prepare("SELECT v FROM kv WHERE k = ?")
   get_k = get:bind_create(sbench.sql.type.INT)
   get:bind_param(get_k)
   put = con:prepare("UPDATE kv SET v = ? WHERE k = ?")
   put_v = put:bind_create(sbench.sql.type.VARCHAR, 64)
   put_k = put:bind_create(sbench.sql.type.INT)
   put:bind_param(put_v, put_k)
end

-- One event = one transaction; its latency is what the report shows.
function event()
   local key = sbench.rand.default(1, sbench.opt.kv_rows)
   if sbench.rand.uniform(1, 100) <= sbench.opt.kv_write_pct then
      con:begin()
      put_v:set_rand_str("value-##########")
      put_k:set(key)
      put:execute()
      con:commit()
   else
      get_k:set(key)
      local rs = get:execute()
      local row = rs:fetch_row()
      assert(row and #row[1] == 16, "missing key " .. key)
   end
end

function thread_done()
   con:disconnect()
end
