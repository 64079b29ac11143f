-- oltp_update_index: --index-updates updates of the indexed column k per
-- event, no transaction.
local oltp = require("oltp_common")

oltp.uses = { "index_update" }

local index_updates = oltp.index_updates

function event()
   index_updates()
end
