-- hostile.lua: the statements tests/hostile/hostile.sh has sbench send to
-- tests/hostile/hostile_server.py, one stage of each kind: a prepare in
-- thread_init, then per event an execute whose rows are all fetched
-- (--hostile_query=on: and a plain query), and the command `load`, a bulk
-- load (COPY FROM STDIN on PostgreSQL, LOAD DATA LOCAL on MySQL).
-- --hostile_fatal=on (with --clients): client 0 sends nothing and raises
-- an error in its second event, a fatal stop while the other clients'
-- executes are in flight.
sbench.cmdline.options = {
   hostile_query = {"also run a plain SELECT in every event", false},
   hostile_fatal = {"client 0 stops the run with an error in its second event", false},
}
local fatal_events = 0

function thread_init()
   con = sbench.sql.driver():connect()
   stmt = con:prepare("SELECT c FROM sbtest1 WHERE id = ?", "select")
   id = stmt:bind_create(sbench.sql.type.INT)
   stmt:bind_param(id)
end

function event()
   if sbench.opt.hostile_fatal and sbench.cid == 0 then
      fatal_events = fatal_events + 1
      if fatal_events == 2 then error("hostile_fatal: the injected fatal error") end
      return
   end
   id:set(1)
   local rs = stmt:execute()
   while rs:fetch_row() do end
   if sbench.opt.hostile_query then
      local q = con:query("SELECT 1")
      while q:fetch_row() do end
   end
end

function thread_done()
   con:disconnect()
end

local function load()
   local c = sbench.sql.driver():connect()
   local T = sbench.sql.type
   c:bulk_load_init("sbtest1", {"id", "c"}, {T.INT, T.VARCHAR})
   for i = 1, 1000 do
      c:bulk_load_row(i, "row " .. i)
   end
   c:bulk_load_done()
   c:disconnect()
   print("loaded 1000 rows")
end

sbench.cmdline.commands = { load = {load} }
