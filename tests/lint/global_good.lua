-- global-in-event, clean: locals, a global set in thread_init, a
-- temporary written before it is read, a table field
local served = 0
function thread_init()
   con = sbench.sql.driver():connect()
   sent = 0
   stats = {}
end
function event()
   local id = sbench.rand.uniform(1, 10)
   served = served + 1
   sent = sent + 1
   tmp = id * 2
   con:query("SELECT " .. tmp)
   stats.last = id
end
