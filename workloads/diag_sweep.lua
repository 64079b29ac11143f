-- diag_sweep: one step of the diagnostic client sweep (workloads/diag.lua
-- runs it with --threads=1, 2, 4, ...), jbench's parallel client test as an
-- sbench run: each event is one transaction of a point SELECT, an INSERT, an
-- UPDATE and a COMMIT on the tables `diag prepare` made, so the run's
-- statement kinds give the average and p95 latency of each.
--
--   sbench [driver options] --threads=8 --time=10 diag_sweep run
--
-- Each thread first records the server's own id of its session in
-- diag_seen (clients = --threads), so the clients the server saw can be
-- counted afterwards.

local dsql = require("diag_sql")

sbench.cmdline.options = {
   sweep_rows = { "Rows of the sweep's table (diag_data, as loaded by 'diag prepare')", 10000 },
}

function thread_init()
   con = sbench.sql.driver():connect()
   local q = dsql.new(con:dialect())
   local backend = q.backend_id and tonumber((con:query_row(q.backend_id))) or 0
   local seen = con:prepare(q.seen_insert)
   local a, b, c = seen:bind_create(sbench.sql.type.INT), seen:bind_create(sbench.sql.type.INT),
      seen:bind_create(sbench.sql.type.BIGINT)
   seen:bind_param(a, b, c)
   a:set(sbench.opt.threads)
   b:set(sbench.tid)
   c:set(backend)
   seen:execute()
   seen:close()
   sel = con:prepare(q.sweep_select, "sweep_select")
   sel_id = sel:bind_create(sbench.sql.type.INT)
   sel:bind_param(sel_id)
   ins = con:prepare(q.sweep_insert, "sweep_insert")
   ins_t, ins_k = ins:bind_create(sbench.sql.type.INT), ins:bind_create(sbench.sql.type.INT)
   ins_c = ins:bind_create(sbench.sql.type.VARCHAR, 60)
   ins:bind_param(ins_t, ins_k, ins_c)
   upd = con:prepare(q.sweep_update, "sweep_update")
   upd_id = upd:bind_create(sbench.sql.type.INT)
   upd:bind_param(upd_id)
   ins_t:set(sbench.tid)
end

function event()
   local rows = sbench.opt.sweep_rows
   con:begin()
   sel_id:set(sbench.rand.uniform(1, rows))
   sel:execute()
   ins_k:set(sbench.rand.uniform(1, rows))
   ins_c:set_rand_str("@@@@@@@@@@@@@@@@@@@@")
   ins:execute()
   upd_id:set(sbench.rand.uniform(1, rows))
   upd:execute()
   con:commit()
end

function thread_done()
   con:disconnect()
end
