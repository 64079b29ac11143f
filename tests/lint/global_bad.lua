-- global-in-event: a global carried from one event to the next that
-- nothing else sets
function thread_init()
   con = sbench.sql.driver():connect()
end
local function bump()
   return 1
end
function count_it()
   hits = (hits or 0) + bump() -- lint: global-in-event
end
function event()
   total = (total or 0) + 1 -- lint: global-in-event
   count_it()
end
