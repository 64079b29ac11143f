-- oltp_point_select: one primary key lookup per event, no transaction.
local oltp = require("oltp_common")

-- One query per event, whatever --point-selects says.
oltp.override.point_selects = 1
oltp.uses = { "point_select" }

-- the helper itself, so that an event is one Lua call
event = oltp.point_selects
