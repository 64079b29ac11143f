-- blocking-call, clean: the server waits (a statement), os.execute and
-- io.read outside what event runs
function prepare()
   os.execute("true")
   local _ = io.read and 1
end
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   con:query("SELECT 1")
end
