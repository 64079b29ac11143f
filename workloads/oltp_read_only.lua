-- oltp_read_only: per event, in one transaction: point selects and the four
-- kinds of range selects.
local oltp = require("oltp_common")

oltp.uses = { "point_select", "simple_range", "sum_range", "order_range",
              "distinct_range" }

local begin, commit = oltp.begin, oltp.commit
local point_selects, range_selects = oltp.point_selects, oltp.range_selects

function event()
   begin()
   point_selects()
   range_selects()
   commit()
end
