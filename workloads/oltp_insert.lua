-- oltp_insert: one INSERT per event, no transaction.  With --auto-inc the
-- database generates the id; without, ids come from sbench.rand.unique().
local oltp = require("oltp_common")

oltp.uses = function(s)
   return { s.auto_inc and "insert_auto" or "insert" }
end

-- Without --auto-inc, prepare creates empty tables: loaded ids 1..N could
-- collide with the ids the run generates.
sbench.cmdline.commands.prepare = {
   function()
      if sbench.opt.auto_inc then
         oltp.cmd_prepare()
      else
         oltp.cmd_prepare({ table_size = 0 })
      end
   end,
   sbench.cmdline.PARALLEL_COMMAND,
}

local insert = oltp.insert

function event()
   insert()
end
