-- fatal_once.lua: every event inserts one row whose key no other statement
-- of the run carries (client or thread number, event number), with a
-- prepared INSERT; client (or thread) 0 raises an error in its 200th
-- event, a fatal stop while the others' inserts are in flight.  Used by
-- tests/integration/fatal_once.sh: a statement sent twice shows as a
-- duplicate key, one executed but not counted as a row sbench did not
-- report.
function thread_init()
   con = sysbench.sql.driver():connect()
   ins = con:prepare("INSERT INTO sbtest_once (k) VALUES (?)")
   key = ins:bind_create(sysbench.sql.type.BIGINT)
   ins:bind_param(key)
   n = 0
end

function event()
   n = n + 1
   local id = sbench.cid or sysbench.tid
   if id == 0 and n == 200 then
      error("fatal_once: the injected fatal error")
   end
   key:set(id * 1000000000 + n)
   ins:execute()
end
