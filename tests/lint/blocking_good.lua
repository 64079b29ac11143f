-- blocking-call, clean: sbench's own sleep in event, os.execute and io.read
-- outside what event runs
function prepare()
   os.execute("true")
   local _ = io.read and 1
end
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   sbench.sleep(0)
end
