-- lg_globals.lua: prints what a legacy (sysbench 0.5-style) script sees,
-- one "G where: what" line each, for tests/integration/legacy.sh to
-- compare sbench's lines with sysbench 1.0.20's for the same script and
-- command line.  Uses table lgprobe.

print("G load: oltp_x=" .. tostring(oltp_x) .. " thread_id=" .. tostring(thread_id) ..
      " test=" .. tostring(test) .. " db_query=" .. type(db_query))

local names = {"test", "thread_id", "num_threads", "db_driver", "oltp_x", "oltp_flag", "threads",
               "time", "events", "rand_type", "db_ps_mode", "mysql_table_engine",
               "myisam_max_rows", "DB_ERROR_NONE", "DB_ERROR_FAILED"}

local function show(where)
   for _, name in ipairs(names) do
      local v = _G[name]
      print(string.format("G %s: %s = %s (%s)", where, name, tostring(v), type(v)))
   end
   -- the restart mark: 1 in sysbench, a unique value in sbench
   print(string.format("G %s: DB_ERROR_RESTART_TRANSACTION is sysbench.error.RESTART_EVENT: %s",
                       where, tostring(DB_ERROR_RESTART_TRANSACTION == sysbench.error.RESTART_EVENT and
                                       DB_ERROR_RESTART_TRANSACTION ~= nil)))
end

function prepare()
   show("prepare")
   db_query("DROP TABLE IF EXISTS lgprobe")
   print("G db_query returns " .. select("#", db_query("CREATE TABLE lgprobe (id INTEGER PRIMARY KEY, v INTEGER)")) .. " values")
   db_query("INSERT INTO lgprobe VALUES (1, 10)")
   local ok, err = pcall(db_query, "INSERT INTO lgprobe VALUES (1, 11)")
   -- PostgreSQL's unique violation restarts the event (sysbench's rule),
   -- MariaDB's does not
   print("G duplicate key: ok=" .. tostring(ok) .. " restarts=" ..
         tostring(type(err) == "table" and err.errcode == DB_ERROR_RESTART_TRANSACTION))
   local s = db_prepare("UPDATE lgprobe SET v = ? WHERE id = ?")
   local p = {20, 1}
   db_bind_param(s, p)
   db_execute(s)
   p[1] = 30
   local rs = db_execute(s)
   db_store_results(rs)
   db_free_results(rs)
   db_close(s)
   -- drawn from the unique 32-bit numbers until one is in range (as
   -- sysbench): a wide range, or this takes billions of draws
   local u = sb_rand_uniq(1000, 3000000000)
   print("G sb_rand_uniq(1000, 3e9) in range: " .. tostring(u >= 1000 and u <= 3000000000))
   db_disconnect()
   db_query("INSERT INTO lgprobe VALUES (2, 20)") -- connects again
end

function thread_init()
   show("thread_init")
end

function event()
end

function cleanup()
   db_query("DROP TABLE IF EXISTS lgprobe")
end
