-- select_random_points: one SELECT per event on sbtest1 looking up
-- --random-points random values of k with IN (...).  Each thread draws
-- from its own slice of the k range.  Tables come from oltp_common's
-- prepare.
local oltp = require("oltp_common")

sbench.cmdline.options.random_points =
   { "Number of values in the IN() list of each SELECT", 10 }

local stmt, params, npoints
local rmin, rmax
local rand_default

oltp.uses = {}
oltp.extra = {
   open = function(con, q, s)
      npoints = s.random_points
      stmt, params = oltp.prepare_ints(con, q.random_points(1, npoints), npoints)
      rmin, rmax = oltp.thread_slice(s)
      rand_default = sbench.rand.default
   end,
   close = function()
      stmt:close()
      stmt = nil
   end,
}

function event()
   for i = 1, npoints do
      params[i]:set(rand_default(rmin, rmax))
   end
   stmt:execute()
end
