-- float-sql, clean: integers (// and math.floor), %d, a bound parameter,
-- a float in text that is not SQL
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   local n = sbench.rand.uniform(1, 100)
   con:query("SELECT c FROM sbtest1 WHERE id = " .. n // 2)
   con:query("SELECT c FROM sbtest1 WHERE id = " .. math.floor(n / 2))
   con:query(string.format("SELECT c FROM sbtest1 WHERE id = %d", n))
   print(string.format("took %.2f ms", n / 3))
end
