-- prepare_error.lua: con:prepare of a statement the server refuses; the
-- error a pcall catches must quote the statement's text (it once quoted
-- the freed copy: tests/reliability/asan_prepare.sh runs this under ASan).
local drv = sysbench.sql.driver()
local con = drv:connect()
local sql = "SELECT no_col_29 FROM no_such_table_29"
local ok, err = pcall(con.prepare, con, sql)
assert(not ok, "prepare of a missing table succeeded")
print("query: " .. tostring(type(err) == "table" and err.query or err))
con:disconnect()
