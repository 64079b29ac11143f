-- oltp_delete: one DELETE of a random id per event, no transaction.
local oltp = require("oltp_common")

oltp.uses = { "delete" }

local delete = oltp.delete

function event()
   delete()
end
