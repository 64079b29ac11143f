-- dialect, clean: the same SQL under a branch on the database
function prepare()
   local con = sbench.sql.driver():connect()
   if sbench.sql.driver():name() == "mysql" then
      con:query("CREATE TABLE kv (id INTEGER AUTO_INCREMENT PRIMARY KEY, v INT)")
   else
      con:query("CREATE TABLE kv (id SERIAL PRIMARY KEY, v INT)")
   end
end
function event()
end
