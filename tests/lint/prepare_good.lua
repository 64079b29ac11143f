-- prepare-in-event, clean: prepared once in thread_init, executed in event
function thread_init()
   con = sbench.sql.driver():connect()
   st = con:prepare("SELECT c FROM sbtest1 WHERE id = ?")
   id = st:bind_create(sbench.sql.type.INT)
   st:bind_param(id)
end
function event()
   id:set(1)
   st:execute()
end
