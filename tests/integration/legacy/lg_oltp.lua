-- lg_oltp.lua: a legacy (sysbench 0.5-style) workload for the legacy
-- test (tests/integration/legacy.sh).  Every event is one transaction:
-- two point selects (db_query), two k = k + 1 updates through a prepared
-- statement (db_prepare / db_bind_param / db_execute), and a row in lglog
-- (who ran it: thread_id, num_threads; how many tries).  So after a run
-- sum(k) - sum(id) over all tables is exactly 2 x the events committed.
--
-- Each thread's first event sends a duplicate key after its updates; the
-- error (ignorable under --db-ignore-sqlstates) leaves event() and the
-- event restarts: its updates must be rolled back.  Its second event
-- catches the same error in a legacy retry loop (pcall, errcode ==
-- DB_ERROR_RESTART_TRANSACTION, ROLLBACK, try again): lglog.tries = 2.

pathtest = string.match(test, "(.*/)")
if pathtest then
   dofile(pathtest .. "lg_common.lua")
else
   require("lg_common")
end

function thread_init()
   set_vars()
   stmts, params = {}, {}
   for i = 1, oltp_tables_count do
      stmts[i] = db_prepare("UPDATE lgtest" .. i .. " SET k = k + ? WHERE id = ?")
      params[i] = {1, 1}
      db_bind_param(stmts[i], params[i])
   end
   events_done = 0
end

local function transaction(t, dup)
   db_query("BEGIN")
   for _ = 1, 2 do
      db_query("SELECT c FROM lgtest" .. t .. " WHERE id = " .. sb_rand(1, oltp_table_size))
   end
   -- in id order: two events never wait for each other in a cycle
   local a = sb_rand_uniform(1, oltp_table_size)
   local b = sb_rand_uniform(1, oltp_table_size)
   if b < a then a, b = b, a end
   for _, id in ipairs({a, b}) do
      params[t][2] = id
      local rs = db_execute(stmts[t])
      db_store_results(rs)
      db_free_results(rs)
   end
   if dup then
      db_query("INSERT INTO lgtest" .. t .. " (id, k, c) VALUES (1, 1, 'dup')")
   end
end

function event()
   local t = sb_rand_uniform(1, oltp_tables_count)
   events_done = events_done + 1
   local tries = 1
   if events_done == 1 then
      transaction(t, true) -- fails: the event restarts
   elseif events_done == 2 then
      local ok, err = pcall(transaction, t, true)
      if ok or type(err) ~= "table" or err.errcode ~= DB_ERROR_RESTART_TRANSACTION then
         error("the retry loop expected errcode " .. DB_ERROR_RESTART_TRANSACTION ..
               ", got " .. tostring(ok) .. " " .. tostring(type(err) == "table" and err.errcode or err))
      end
      db_query("ROLLBACK")
      tries = 2
      transaction(t, false)
   else
      transaction(t, false)
   end
   db_query(string.format("INSERT INTO lglog VALUES (%d, %d, %d, '%s', %d)",
                          thread_id, num_threads, tries, mysql_table_engine, myisam_max_rows))
   db_query("COMMIT")
end
