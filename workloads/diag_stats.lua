-- diag_stats: latencies of the diagnostic workloads (diag, fileio) in ms:
-- exact count, min, max and sum, percentiles from an sbench histogram
-- (<= 1% relative error).
--
--   local lat = require("diag_stats")
--   local l = lat.new(); lat.add(l, 0.25); lat.summary(l)  --> {count, min, avg, max, p50, p95, p99}

local M = {}

function M.new()
   return { n = 0, sum = 0, min = math.huge, max = 0, h = sbench.histogram.new() }
end

function M.add(l, ms)
   l.n = l.n + 1
   l.sum = l.sum + ms
   if ms < l.min then l.min = ms end
   if ms > l.max then l.max = ms end
   l.h:update(ms)
end

function M.summary(l)
   if l.n == 0 then return { count = 0, min = 0, avg = 0, max = 0, p50 = 0, p95 = 0, p99 = 0 } end
   return { count = l.n, min = l.min, avg = l.sum / l.n, max = l.max,
            p50 = l.h:percentile(50), p95 = l.h:percentile(95), p99 = l.h:percentile(99) }
end

return M
