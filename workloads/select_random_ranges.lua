-- select_random_ranges: one SELECT COUNT(k) per event on sbtest1 over
-- --number-of-ranges ranges "k BETWEEN x AND x + delta" ORed together.
-- Each thread draws from its own slice of the k range.  Tables come from
-- oltp_common's prepare.
local oltp = require("oltp_common")

sbench.cmdline.options.number_of_ranges =
   { "Number of BETWEEN ranges in each SELECT", 10 }
sbench.cmdline.options.delta =
   { "Width of each BETWEEN range", 5 }

local stmt, params, nparams, delta
local rmin, rmax
local rand_default

oltp.uses = {}
oltp.extra = {
   open = function(con, q, s)
      nparams = 2 * s.number_of_ranges
      delta = s.delta
      stmt, params = oltp.prepare_ints(con, q.random_ranges(1, s.number_of_ranges), nparams)
      rmin, rmax = oltp.thread_slice(s)
      rand_default = sbench.rand.default
   end,
   close = function()
      stmt:close()
      stmt = nil
   end,
}

function event()
   for i = 1, nparams, 2 do
      local low = rand_default(rmin, rmax)
      params[i]:set(low)
      params[i + 1]:set(low + delta)
   end
   stmt:execute()
end
