-- A workload written the way scripts for sysbench's LuaJIT are written:
-- the bit module for derived values, string.format("%d") of non-integral
-- numbers, "%s" of floats, ffi.cdef'd sysbench C functions (sb_counter_inc,
-- usleep) called through ffi.C, unpack, table.getn, math.pow.  It runs
-- unchanged under sysbench 1.0.20 and sbench; tests/integration/
-- luajit-script.sh runs it with both into two tables and compares the
-- rows, the reports' counters, and the rows with values computed in Python.
--
--   prepare   creates the table and loads --rows rows (values from row())
--   run       event n: reads row n % rows + 1, rewrites its k and f, and
--             counts through ffi.C.sb_counter_inc
--   cleanup   drops the table

ffi.cdef[[
void sb_counter_inc(int, sb_counter_type);
int usleep(unsigned int);
]]

sysbench.cmdline.options = {
   rows = {"Rows in the table", 500},
   table_name = {"Name of the table", "ljtest"},
}

-- The values of row id (columns id, k, h, f, c).
local function row(id)
   -- id * 2654435761 is beyond 32 bits: bit wraps it as LuaJIT does
   local k = bit.band(bit.bxor(id * 2654435761, bit.rshift(id, 3)), 0xffff)
   local h = bit.tohex(bit.bxor(id, 0x5bd1e995), id % 2 == 0 and 8 or -8)
   -- LuaJIT truncates id / 3 and id * 2.5 under %d and %x, and prints
   -- id / 2 under %s without a ".0"
   local f = string.format("%d:%x:%s", id / 3, id * 2.5, id / 2)
   local parts = {}
   for i = 1, id % 4 + 1 do
      parts[table.getn(parts) + 1] = string.format("%d", math.pow(2, i + id % 7))
   end
   return id, k, h, f, table.concat(parts, "-")
end

local function table_name()
   return sysbench.opt.table_name
end

function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS " .. table_name())
   con:query("CREATE TABLE " .. table_name() .. " (id INTEGER NOT NULL PRIMARY KEY, " ..
                "k INTEGER NOT NULL, h VARCHAR(16) NOT NULL, f VARCHAR(40) NOT NULL, " ..
                "c VARCHAR(120) NOT NULL)")
   con:bulk_insert_init("INSERT INTO " .. table_name() .. " (id, k, h, f, c) VALUES")
   for id = 1, sysbench.opt.rows do
      local values = {row(id)}
      con:bulk_insert_next(string.format("(%d, %d, '%s', '%s', '%s')", unpack(values)))
   end
   con:bulk_insert_done()
   con:disconnect()
end

function cleanup()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS " .. table_name())
end

local n = 0

function thread_init()
   con = sysbench.sql.driver():connect()
end

function event()
   n = n + 1
   local id = n % sysbench.opt.rows + 1
   local k, f = con:query_row(string.format("SELECT k, f FROM %s WHERE id = %d",
                                            table_name(), id))
   assert(k ~= nil and f ~= nil, "row " .. id .. " is missing")
   local newk = bit.band(bit.lshift(n, 7) + bit.arshift(-n, 2), 0x7fffffff) % 100000
   con:query(string.format("UPDATE %s SET k = %d, f = '%s' WHERE id = %d",
                           table_name(), newk, n / 4, id))
   -- counted as sysbench 1.0.20 counts them: each counter by one, and
   -- SB_CNT_TRX (its event counter) on every 10th event
   ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_READ)
   ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_WRITE)
   ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_OTHER)
   if n % 10 == 0 then
      ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_TRX)
   end
   if n % 25 == 0 then
      ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_ERROR)
      ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_RECONNECT)
   end
   ffi.C.usleep(n / 1000) -- a non-integral argument: truncated (0 µs)
end
