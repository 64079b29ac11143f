-- pgbench_report: pgbench 15's report and progress lines (-P), printed
-- by workloads/pgbench.lua's report hooks from the stat table the core
-- gives them (docs/lua-api.md "Reports"): the run's settings,
-- transactions, failures, retries, late transactions, latency average and
-- stddev, connection time, tps, each script's share and -r's statement
-- latencies (the named statements "pgbench I J [failed|retried]").

local M = {}

local DESCR = { ["tpcb-like"] = "<builtin: TPC-B (sort of)>",
                ["simple-update"] = "<builtin: simple update>",
                ["select-only"] = "<builtin: select only>" }

local function total_weight_of(list)
   local w = 0
   for _, e in ipairs(list) do w = w + e.weight end
   return w
end

local function pct(n, of) return of > 0 and 100.0 * n / of or 0 end

-- The failure model's counts of script i (workloads/pgbench_fail.lua), or
-- of all scripts (i = nil): failures by kind, retried, retries.
local function fail_counts(stat, nscripts, i)
   local named = stat.named or {}
   local c = { serialization = 0, deadlock = 0, other = 0, retried = 0, retries = 0 }
   for k = i or 1, i or nscripts do
      for what in pairs(c) do
         local x = named[string.format("pgbench %d %s", k, what)]
         c[what] = c[what] + (x and x.count or 0)
      end
   end
   c.failed = c.serialization + c.deadlock + c.other
   return c
end

-- pgbench -r's block for one script: each command's average time, its
-- failures (and retries with --max-tries above 1).
local function per_command_lines(stat, e, i, retries)
   print(retries and "statement latencies in milliseconds, failures and retries:"
         or "statement latencies in milliseconds and failures:")
   local named = stat.named or {}
   for j, c in ipairs(e.script.commands) do
      local function n(suffix)
         local x = named[string.format("pgbench %d %d%s", i, j, suffix)]
         return x and x.count or 0
      end
      local x = named[string.format("pgbench %d %d", i, j)]
      local avg = x and x.avg * 1000 or 0
      if retries then
         print(string.format("%14.3f%12d%12d  %s", avg, n(" failed"), n(" retried"), c.text))
      else
         print(string.format("%14.3f%12d  %s", avg, n(" failed"), c.text))
      end
   end
end

-- With several scripts, each one's block: weight, share, failures and
-- retries, latency, -r's lines.
local function per_script_lines(stat, s, list, total, t, tries)
   for i, e in ipairs(list) do
      local n = stat.types and stat.types[e.name] and stat.types[e.name].count or 0
      print(string.format("SQL script %d: %s", i, DESCR[e.name] or e.script.source))
      print(string.format(" - weight: %d (targets %.1f%% of total)", e.weight,
                          pct(e.weight, total_weight_of(list))))
      print(string.format(" - %d transactions (%.1f%% of total, tps = %f)", n,
                          pct(n, total), t > 0 and n / t or 0))
      local ty = stat.types and stat.types[e.name] or {}
      local sc = fail_counts(stat, #list, i)
      local tf = sc.failed
      print(string.format(" - number of failed transactions: %d (%.3f%%)", tf, pct(tf, n + tf)))
      if s.failures_detailed then
         print(string.format(" - number of serialization failures: %d (%.3f%%)", sc.serialization,
                             pct(sc.serialization, n + tf)))
         print(string.format(" - number of deadlock failures: %d (%.3f%%)", sc.deadlock,
                             pct(sc.deadlock, n + tf)))
      end
      if tries ~= 1 then
         print(string.format(" - number of transactions retried: %d (%.3f%%)", sc.retried,
                             pct(sc.retried, n + tf)))
         print(" - total number of retries: " .. sc.retries)
      end
      print(string.format(" - latency average = %.3f ms", ty.latency_avg or 0))
      print(string.format(" - latency stddev = %.3f ms", ty.latency_stddev or 0))
      if s.report_per_command then
         io.write(" - ")
         per_command_lines(stat, e, i, tries ~= 1)
      end
   end
end

-- report(stat, s, list, scale): pgbench's final report; s = the
-- workload's settings, list = its scripts (load_scripts), scale = the
-- :scale the clients read from pgbench_branches (nil: --scale or 1).
-- Returns true when a client aborted (pgbench then exits 2).
function M.report(stat, s, list, report_scale)
   local total = stat.events or 0
   local fc = fail_counts(stat, #list)
   local failed = stat.failed or fc.failed -- the core's count of events given up
   local tries = s.max_tries
   print("transaction type: " .. (#list > 1 and "multiple scripts" or
                                   DESCR[list[1].name] or list[1].script.source))
   print("scaling factor: " .. (report_scale or (s.scale > 0 and s.scale) or 1))
   print("query mode: " .. s.query_mode)
   print("number of clients: " .. s.clients)
   print("number of threads: " .. s.threads)
   print("maximum number of tries: " .. tries)
   if s.transactions > 0 then
      print("number of transactions per client: " .. s.transactions)
      print(string.format("number of transactions actually processed: %d/%d", total,
                          s.transactions * s.clients))
   else
      print(string.format("duration: %d s", math.floor((sbench.opt.time or 0) + 0.5)))
      print("number of transactions actually processed: " .. total)
   end
   local all = total + failed
   print(string.format("number of failed transactions: %d (%.3f%%)", failed, pct(failed, all)))
   if s.failures_detailed then
      local ser, dead = fc.serialization, fc.deadlock
      print(string.format("number of serialization failures: %d (%.3f%%)", ser, pct(ser, all)))
      print(string.format("number of deadlock failures: %d (%.3f%%)", dead, pct(dead, all)))
      if s.continue_on_error then -- pgbench 19's line
         print(string.format("number of other failures: %d (%.3f%%)", fc.other, pct(fc.other, all)))
      end
   end
   if tries ~= 1 then
      print(string.format("number of transactions retried: %d (%.3f%%)", fc.retried, pct(fc.retried, all)))
      print("total number of retries: " .. fc.retries)
   end
   local limit = (stat.latency_limit or 0) * 1000
   if limit > 0 then
      print(string.format("number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)",
                          limit, stat.late or 0, total, pct(stat.late or 0, total)))
   end
   local rate = (sbench.opt.rate or 0) > 0
   local stats_shown = rate or limit > 0 or (sbench.opt.report_interval or 0) > 0
   local t = stat.time_total or 0
   if stats_shown then -- the transactions' own latencies
      print(string.format("latency average = %.3f ms", (stat.latency_avg or 0) * 1000))
   else -- pgbench's figure from the run's time: failures and -C's connections in it
      print(string.format("latency average = %.3f ms%s", all > 0 and 1000 * t * s.clients / all or 0,
                          failed > 0 and " (including failures)" or ""))
   end
   if stats_shown then
      print(string.format("latency stddev = %.3f ms", (stat.latency_stddev or 0) * 1000))
   end
   if rate and stat.lag_avg then
      print(string.format("rate limit schedule lag: avg %.3f (max %.3f) ms", stat.lag_avg * 1000,
                          stat.lag_max * 1000))
   end
   local connects = stat.connects or 0
   if sbench.opt.reconnect == "transaction" then
      print(string.format("average connection time = %.3f ms",
                          connects > 0 and (stat.connect_time or 0) * 1000 / connects or 0))
      print(string.format("tps = %f (including reconnection times)", t > 0 and total / t or 0))
   else
      -- each thread opens its clients' connections one after the other
      print(string.format("initial connection time = %.3f ms",
                          (stat.connect_time or 0) * 1000 / math.max(s.threads, 1)))
      print(string.format("tps = %f (without initial connection time)", t > 0 and total / t or 0))
   end
   if #list > 1 then
      per_script_lines(stat, s, list, total, t, tries)
   elseif s.report_per_command then
      per_command_lines(stat, list[1], 1, tries ~= 1)
   end
   local aborted_clients = stat.named and stat.named["pgbench aborted"]
   if aborted_clients and aborted_clients.count > 0 then
      io.stderr:write("pgbench: error: Run was aborted; the above results are incomplete.\n")
      return true
   end
   return false
end

-- pgbench 15's progress line (-P), on stderr as pgbench writes it; its
-- failed, retried and retries are the window's counts of the failure
-- model (stat.named in a window: the counts in it), as the final report's.
function M.progress(stat, nscripts)
   local dt = stat.time_interval or 0
   local fc = fail_counts(stat, nscripts)
   local line = string.format("progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed",
                              stat.time_total or 0, dt > 0 and (stat.events or 0) / dt or 0,
                              (stat.latency_avg or 0) * 1000, (stat.latency_stddev or 0) * 1000,
                              fc.failed)
   if (sbench.opt.rate or 0) > 0 then
      line = line .. string.format(", lag %.3f ms", (stat.lag_avg or 0) * 1000)
   end
   if (sbench.opt.max_tries or 1) ~= 1 then
      line = line .. string.format(", %d retried, %d retries", fc.retried, fc.retries)
   end
   io.stderr:write(line, "\n")
end

return M
