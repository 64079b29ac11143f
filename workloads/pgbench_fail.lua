-- pgbench_fail: pgbench's failure model for workloads/pgbench.lua, one
-- state per client.
--
--   local F = require("pgbench_fail")
--   F.check(s)                          -- --max-tries and its companions
--   local f = F.new(s, dialect)         -- in thread_init
--   f:start(rs, restarting)             -- before each try (unless --max-tries=1)
--   local act, kind = f:on_error(e, err) -- "retry", "fail" or "abort"
--   f:finish(e)                         -- the transaction ended
--
-- As pgbench 15 (docs "Failures and Serialization/Deadlock Retries"): a
-- serialization failure (SQLSTATE 40001) or a deadlock (40P01) rolls the
-- transaction back and runs it again, with the same random numbers, while
-- it has tries left (--max-tries, default 1: none; 0: no limit) and, with
-- --latency-limit, while its time so far is within the limit; then it
-- counts as failed and the client goes on.  Any other error aborts the
-- client (pgbench exits 2), unless --continue-on-error (pgbench 19): then
-- it counts as failed ("other") and the client goes on.  On a database
-- other than PostgreSQL, MariaDB's deadlock (1213) is a deadlock and any
-- other error its driver calls retryable (a lock wait timeout, SQLite's
-- busy) a serialization failure.
--
-- The counts are named slots (one allocation per script and kind, on its
-- first use): "pgbench I serialization|deadlock|other" (failures),
-- "pgbench I retried" (transactions tried more than once, failed or not)
-- and "pgbench I retries"; workloads/pgbench_report.lua prints them.

local M = {}

-- The checks pgbench makes of --max-tries.
function M.check(s)
   local n = s.max_tries
   if math.type(n) ~= "integer" or n < 0 then
      error("invalid number of maximum tries: \"" .. tostring(n) .. "\"", 0)
   end
   if n == 0 and (sbench.opt.latency_limit or 0) <= 0 and s.transactions > 0 then
      error("an unlimited number of transaction tries can only be used with --latency-limit " ..
               "or a duration (-T)", 0)
   end
end

-- The kind of an SQL error: "serialization", "deadlock", "lost" or "other".
local function kind_of(err, dialect)
   if err.class == "lost" then return "lost" end
   local state = err.sql_state
   if state == "40P01" then return "deadlock" end
   if dialect == "mysql" and err.sql_errno == 1213 then return "deadlock" end -- ER_LOCK_DEADLOCK
   if state == "40001" then return "serialization" end
   if err.class == "retry" and dialect ~= "postgresql" then return "serialization" end
   return "other"
end

local F = {}
F.__index = F

function M.new(s, dialect)
   local limit_ms = sbench.opt.latency_limit or 0
   return setmetatable({
      max_tries = s.max_tries, continue = s.continue_on_error, detailed = s.failures_detailed,
      verbose = s.verbose_errors, limit_ms = limit_ms,
      dialect = dialect, limit_ns = limit_ms > 0 and math.floor(limit_ms * 1e6) or nil,
      tries = 1, t0 = 0, saved = { s0 = 0, s1 = 0 }, slots = {},
   }, F)
end

-- count(e, what): one more in the named slot "pgbench I what".
function F:count(e, what)
   local key = e.index + 1 .. " " .. what
   local slot = self.slots[key]
   if not slot then
      slot = sbench.named_slot("pgbench " .. key)
      self.slots[key] = slot
   end
   sbench.named_record(slot, 1000)
end

-- start(rs, restarting): a transaction's first try keeps its random state
-- (and, with --latency-limit, its start), a retry gets them back.
function F:start(rs, restarting)
   local saved = self.saved
   if restarting then
      rs.s0, rs.s1 = saved.s0, saved.s1
   else
      saved.s0, saved.s1 = rs.s0, rs.s1
      self.tries = 0
      if self.limit_ns then self.t0 = sbench.clock_ns() end
   end
   self.tries = self.tries + 1
end

-- May the transaction that just failed be tried again?
function F:may_retry()
   if self.max_tries ~= 0 and self.tries >= self.max_tries then return false end
   if self.limit_ns and sbench.clock_ns() - self.t0 > self.limit_ns then return false end
   return true
end

-- on_error(e, err): what follows an SQL error of script e's transaction:
-- "retry", "fail" (the failure's kind counted), "abort" (the client
-- stops) or, once the run was told to stop (-T is over), "drop" for an
-- error that would be retried or failed: pgbench's timer_exceeded ends
-- the client without counting the transaction; and the error's kind.
function F:on_error(e, err)
   local kind = kind_of(err, self.dialect)
   local retryable = kind == "serialization" or kind == "deadlock"
   if (retryable or (self.continue and kind ~= "lost")) and sbench.stopping() then
      return "drop", kind -- pgbench: the time is over, the client is done, nothing counted
   end
   if retryable then
      if self:may_retry() then return "retry", kind end
   elseif kind == "lost" or not self.continue then
      return "abort", kind
   end
   self:count(e, kind)
   self:finish(e)
   return "fail", kind
end

-- finish(e): the transaction ended (committed or failed): counted as
-- retried, with its retries, when it took more than one try (counted at
-- its end, as pgbench, so a transaction dropped at the end of -T counts
-- no retry).
function F:finish(e)
   if self.tries > 1 then
      self:count(e, "retried")
      for _ = 2, self.tries do self:count(e, "retries") end
   end
end

-- pgbench --verbose-errors' lines (stderr) for a transaction retried
-- (act "retry") or failed ("fail") after err in command `command`.
function F:tell(e, err, act, command)
   if not self.verbose then return end
   local id = sbench.cid or sbench.tid or 0
   local msg = tostring(err.sql_errmsg)
   if not msg:match("^[A-Z]+:  ") then msg = "ERROR:  " .. msg end
   local try = "try " .. self.tries
   if self.max_tries ~= 0 then try = try .. "/" .. self.max_tries end
   if self.limit_ns then
      try = try .. string.format(", %.3f%% of the maximum time of tries was used",
                                 100.0 * (sbench.clock_ns() - self.t0) / self.limit_ns)
   end
   local what = act == "retry" and "repeats the transaction after the error" or
      "ends the failed transaction"
   io.stderr:write(string.format("pgbench: client %d got an error in command %d (SQL) of script " ..
                                    "%d; %s\npgbench: client %d %s (%s)\n", id, command, e.index,
                                 msg, id, what, try))
end

-- The retries of the transaction that ended (the log's field).
function F:retries() return self.tries > 0 and self.tries - 1 or 0 end

-- The log's word for a failed transaction of this kind.
function F:log_word(kind)
   if self.detailed and (kind == "serialization" or kind == "deadlock") then return kind end
   return "failed"
end

return M
