-- bulk_insert: every connection appends rows (id, k) = (i, i), i = 1, 2,
-- ... to its own table with multi-row INSERTs: sbtest<tid+1>, or with
-- --clients sbtest<cid+1> (one table per client).  prepare creates sbtest1
-- .. sbtest<max(threads, clients)>; cleanup drops them.
local oltp_sql = require("oltp_sql")

-- Tables: one per connection.
local function ntables()
   local c = sbench.opt.clients or 0
   return c > sbench.opt.threads and c or sbench.opt.threads
end

sbench.cmdline.options = {
   force = { "prepare: drop existing sbtest tables instead of refusing " ..
                "to overwrite them", false },
}

local function connect()
   local con = sbench.sql.driver():connect()
   return con, oltp_sql.new(con:dialect())
end

function prepare()
   local con, q = connect()
   for n = 1, ntables() do
      local name = q.table_name(n)
      if oltp_sql.table_exists(con, q, n) then
         if not sbench.opt.force then
            error("table '" .. name .. "' already exists: run cleanup " ..
                     "first, or prepare with --force to drop and recreate " ..
                     "it", 0)
         end
         print("Dropping existing table '" .. name .. "' (--force)...")
         oltp_sql.exec(con, q.drop_table(n))
      end
      print("Creating table '" .. name .. "'...")
      oltp_sql.exec(con, q.create_bulk_table(n))
   end
   con:disconnect()
end

function cleanup()
   local con, q = connect()
   for n = 1, ntables() do
      print("Dropping table '" .. q.table_name(n) .. "'...")
      if q.drop_if_exists or oltp_sql.table_exists(con, q, n) then
         oltp_sql.exec(con, q.drop_table(n))
      end
   end
   con:disconnect()
end

local con, prefix
local rows = 0

function thread_init()
   local q
   con, q = connect()
   -- a client multiplexed on a thread has sbench.cid; a connection with
   -- its own thread is known by its thread id
   prefix = q.bulk_insert_prefix((sbench.cid or sbench.tid) + 1)
   rows = 0
end

function event()
   if rows == 0 then
      con:bulk_insert_init(prefix)
   end
   rows = rows + 1
   con:bulk_insert_next("(" .. rows .. "," .. rows .. ")")
end

function thread_done()
   if rows > 0 then
      con:bulk_insert_done()
   end
   con:disconnect()
end
