-- oltp_write_only: per event, in one transaction: index updates, non-index
-- updates and DELETE+INSERT pairs.
local oltp = require("oltp_common")

oltp.uses = { "index_update", "non_index_update", "delete", "insert" }

local begin, commit = oltp.begin, oltp.commit
local index_updates = oltp.index_updates
local non_index_updates = oltp.non_index_updates
local delete_inserts = oltp.delete_inserts

function event()
   begin()
   index_updates()
   non_index_updates()
   delete_inserts()
   commit()
end
