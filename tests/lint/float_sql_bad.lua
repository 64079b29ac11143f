-- float-sql: a float formatted or concatenated into SQL
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   local n = sbench.rand.uniform(1, 100)
   con:query("SELECT c FROM sbtest1 WHERE id = " .. n / 2) -- lint: float-sql
   con:query(string.format("SELECT c FROM sbtest1 WHERE id = %.0f", n)) -- lint: float-sql
   con:query("SELECT c FROM sbtest1 WHERE id BETWEEN " .. n .. " AND " .. n + 0.5) -- lint: float-sql
end
