-- oltp_update_non_index: --non-index-updates updates of column c per event,
-- no transaction.
local oltp = require("oltp_common")

oltp.uses = { "non_index_update" }

local non_index_updates = oltp.non_index_updates

function event()
   non_index_updates()
end
