-- option-unread / option-undeclared
sbench.cmdline.options = {
   rows = {"rows to read", 10},
   spare = {"an option nothing reads", 1}, -- lint: option-unread
}
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   con:query("SELECT " .. sbench.opt.rows)
   if sbench.opt.verbose_rows then -- lint: option-undeclared
      print("rows")
   end
end
