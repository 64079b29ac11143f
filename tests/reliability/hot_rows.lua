-- hot_rows.lua: a contention workload for the retry tests.  Table
-- hot(id, v) with --hot-rows rows; each event adds 1 to v of two different
-- random rows in one transaction, in random order (in id order
-- with --hot-ordered).  Under serializable
-- isolation (PostgreSQL) this gives serialization failures, on InnoDB
-- deadlocks.  Every committed event adds exactly 2 to sum(v), so after a
-- run sum(v) must be 2 * the transactions sbench reports.
sbench.cmdline.options = {
   hot_rows = {"Rows in table hot", 5},
   hot_ordered = {"Update the two rows in id order (no deadlocks, which cost "
                  .. "PostgreSQL's deadlock_timeout each)", false},
}

function prepare()
   local con = sbench.sql.driver():connect()
   con:query("CREATE TABLE hot (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL)")
   for i = 1, sbench.opt.hot_rows do
      con:query(string.format("INSERT INTO hot (id, v) VALUES (%d, 0)", i))
   end
end

function cleanup()
   local con = sbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS hot")
end

function thread_init()
   con = sbench.sql.driver():connect()
end

function event()
   local n = sbench.opt.hot_rows
   local a = sbench.rand.uniform(1, n)
   local b = sbench.rand.uniform(1, n - 1)
   if b >= a then b = b + 1 end
   if sbench.opt.hot_ordered and b < a then a, b = b, a end
   con:begin()
   con:query(string.format("UPDATE hot SET v = v + 1 WHERE id = %d", a))
   con:query(string.format("UPDATE hot SET v = v + 1 WHERE id = %d", b))
   con:commit()
end

function thread_done()
   con:disconnect()
end
