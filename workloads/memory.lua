-- memory: sysbench's memory test.  Each event reads, writes or leaves
-- alone one block of --memory-block-size bytes, word by word, in order or
-- at random words (C: builtin/memory.c through sbench.builtin), in one
-- block all threads share (--memory-scope=global) or one per thread
-- (local).  The run stops after --memory-total-size bytes, shared out
-- between the threads as sysbench 1.0.20 does (or --time; --events is
-- ignored, as sysbench ignores it); the report adds sysbench's "Total operations:" and
-- "MiB transferred (N MiB/sec)" before the general statistics.
--
--   sbench memory run                   # sysbench memory run
--   sbench --memory-block-size=1M --memory-total-size=10G --memory-oper=read memory run

local builtin = require("builtin_common")

sysbench.cmdline.database = false
sysbench.cmdline.options = {
   memory_block_size = { "size of memory block for test", "1K", sysbench.cmdline.ARG_SIZE },
   memory_total_size = { "total size of data to transfer", "100G", sysbench.cmdline.ARG_SIZE },
   memory_scope = { "memory access scope {global,local}", "global" },
   memory_hugetlb = { "allocate memory from HugeTLB pool", false }, -- accepted, a note: ordinary pages
   memory_oper = { "type of memory operations {read, write, none}", "write" },
   memory_access_mode = { "memory access mode {seq,rnd}", "seq" },
}

builtin.commands("memory")

local function choice(name, allowed)
   local v = sysbench.opt[name]
   for _, a in ipairs(allowed) do
      if v == a then return v end
   end
   builtin.fatal(string.format("Invalid value for %s: %s (expected one of %s)",
                               name:gsub("_", "-"), tostring(v), table.concat(allowed, ", ")))
end

local function settings()
   local o = sysbench.opt
   return o.memory_block_size, o.memory_total_size, choice("memory_scope", { "global", "local" }),
      choice("memory_oper", { "read", "write", "none" }), choice("memory_access_mode", { "seq", "rnd" })
end

-- sysbench 1.0.20's share of --memory-total-size: each thread does
-- (total // threads) // block events, so the run does threads times that
-- (10K in 1K blocks on 4 threads: 8); --events is ignored; a total of 0
-- sets no limit (--time ends the run).
local function events_per_thread(block, total)
   return (total // sysbench.opt.threads) // block
end

function init()
   local block, total, scope, oper = settings()
   -- sysbench's rule and its message: a power of two of at least one word
   if block < 8 or block & (block - 1) ~= 0 then
      builtin.fatal("Invalid value for memory-block-size: " .. (builtin.given("memory-block-size") or block))
   end
   if sysbench.opt.memory_hugetlb then
      io.stderr:write("sbench: note: --memory-hugetlb is accepted and ignored: the block is in ordinary pages\n")
   end
   builtin.notice("Running memory speed test with the following options:")
   builtin.notice(string.format("  block size: %dKiB", block // 1024))
   builtin.notice(string.format("  total size: %dMiB", total // (1024 * 1024)))
   builtin.notice("  operation: " .. oper)
   builtin.notice("  scope: " .. scope)
   builtin.notice("")
   if total > 0 then
      sbench.builtin.limit_events(sysbench.opt.threads * events_per_thread(block, total), true)
   else
      sbench.builtin.limit_events(0, true)
   end
end

local mem, none

function thread_init()
   local block, total, scope, oper, mode = settings()
   mem = sbench.builtin.memory(block, scope, oper, mode, sysbench.rand.uniform(1, 2147483647))
   -- a total below one block per thread: no event at all, as sysbench
   none = total > 0 and events_per_thread(block, total) == 0
end

function event()
   if none then return true end -- ends this thread's loop, not counted
   mem:event()
end

sysbench.hooks.report_lead = function(stat)
   local secs = stat.time_interval
   local mib = stat.events * sysbench.opt.memory_block_size / (1024 * 1024)
   print(string.format("Total operations: %d (%8.2f per second)", stat.events, stat.events / secs))
   print()
   print(string.format("%4.2f MiB transferred (%4.2f MiB/sec)", mib, mib / secs))
   print()
end
