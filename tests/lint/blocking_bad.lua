-- blocking-call: calls that block the thread (all its clients)
function thread_init()
   con = sbench.sql.driver():connect()
end
local function pause()
   os.execute("true") -- lint: blocking-call
end
function event()
   pause()
   local line = io.read("l") -- lint: blocking-call
end
