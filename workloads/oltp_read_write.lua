-- oltp_read_write: per event, in one transaction: the reads of
-- oltp_read_only, then index updates, non-index updates and DELETE+INSERT
-- pairs.
local oltp = require("oltp_common")

oltp.uses = { "point_select", "simple_range", "sum_range", "order_range",
              "distinct_range", "index_update", "non_index_update", "delete",
              "insert" }

local begin, commit = oltp.begin, oltp.commit
local point_selects, range_selects = oltp.point_selects, oltp.range_selects
local index_updates = oltp.index_updates
local non_index_updates = oltp.non_index_updates
local delete_inserts = oltp.delete_inserts

function event()
   begin()
   point_selects()
   range_selects()
   index_updates()
   non_index_updates()
   delete_inserts()
   commit()
end
