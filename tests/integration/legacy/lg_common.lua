-- lg_common.lua: the shared half of a legacy (sysbench 0.5-style) test
-- workload, loaded by lg_oltp.lua the way 0.5-era scripts load their
-- common file: dofile() next to the script named by the global `test`.
-- Tables lgtest1..N (id, k, c) with k = id after prepare; table lglog
-- gets one row per committed event.  Options arrive as globals (strings):
-- --oltp-tables-count, --oltp-table-size.

function set_vars()
   oltp_tables_count = tonumber(oltp_tables_count) or 2
   oltp_table_size = tonumber(oltp_table_size) or 100
end

function prepare()
   set_vars()
   db_connect()
   print("prepare: db_driver=" .. db_driver .. " thread_id=" .. thread_id)
   for i = 1, oltp_tables_count do
      db_query("CREATE TABLE lgtest" .. i ..
               " (id INTEGER NOT NULL, k INTEGER NOT NULL, c CHAR(20) NOT NULL, PRIMARY KEY (id))")
      db_bulk_insert_init("INSERT INTO lgtest" .. i .. " (id, k, c) VALUES")
      for id = 1, oltp_table_size do
         db_bulk_insert_next(string.format("(%d, %d, 'c-%d')", id, id, id))
      end
      db_bulk_insert_done()
   end
   db_query("CREATE TABLE lglog (thread_id INTEGER NOT NULL, num_threads INTEGER NOT NULL, " ..
            "tries INTEGER NOT NULL, engine VARCHAR(20) NOT NULL, max_rows INTEGER NOT NULL)")
   return 0
end

function cleanup()
   set_vars()
   for i = 1, oltp_tables_count do
      db_query("DROP TABLE IF EXISTS lgtest" .. i)
   end
   db_query("DROP TABLE IF EXISTS lglog")
end
