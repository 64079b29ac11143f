-- dialect: one database's SQL and no branch on the database
function prepare()
   local con = sbench.sql.driver():connect()
   con:query("CREATE TABLE kv (id INTEGER AUTO_INCREMENT PRIMARY KEY, v INT)") -- lint: dialect
   con:query("INSERT INTO kv (v) VALUES (1) ON CONFLICT DO NOTHING") -- lint: dialect
end
function event()
end
