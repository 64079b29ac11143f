-- prepare-in-event: a statement prepared in every event
function thread_init()
   con = sbench.sql.driver():connect()
end
local function lookup(id)
   local st = con:prepare("SELECT c FROM sbtest1 WHERE id = ?") -- lint: prepare-in-event
   return st
end
function event()
   lookup(1)
end
