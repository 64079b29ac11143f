-- soak.lua: oltp_read_write for bench/soak.sh, plus one statement in the
-- same transaction: this client's row of soak_events gets n = n + 1.  The
-- server's sum of n is then a count of the committed events that does not
-- come from sbench: every event sbench counts as done must be in it.
-- soak.sh creates soak_events (ids 0 .. clients-1) before the run.
local oltp = require("oltp_common")

oltp.uses = { "point_select", "simple_range", "sum_range", "order_range",
              "distinct_range", "index_update", "non_index_update", "delete",
              "insert" }

local base_thread_init = thread_init
local count, id

function thread_init()
   base_thread_init()
   count = oltp.connection():prepare("UPDATE soak_events SET n = n + 1 WHERE id = ?",
                                     "soak_count")
   id = count:bind_create(sbench.sql.type.INT)
   count:bind_param(id)
end

function event()
   oltp.begin()
   oltp.point_selects()
   oltp.range_selects()
   oltp.index_updates()
   oltp.non_index_updates()
   oltp.delete_inserts()
   id:set(sbench.tid)
   count:execute()
   oltp.commit()
end
