-- options, clean: every declared option read, sbench's own options
-- (--threads) and a driver's (--pgsql-host) read without declaring them
sbench.cmdline.options = {
   rows = {"rows to read", 10},
   ["skip-it"] = {"skip", false},
}
function thread_init()
   con = sbench.sql.driver():connect()
end
function event()
   if not sbench.opt.skip_it then
      con:query("SELECT " .. sbench.opt.rows .. " + " .. sbench.opt.threads)
   end
   local _ = sbench.opt.pgsql_host
end
