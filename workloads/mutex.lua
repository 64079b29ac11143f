-- mutex: sysbench's mutex test.  Each thread runs one event: --mutex-locks
-- times, an empty loop of --mutex-loops iterations, then a random one of
-- --mutex-num mutexes locked, a shared counter incremented, the mutex
-- unlocked (C: builtin/locks.c through sbench.builtin).  The run ends
-- when every thread has run its event (the event limit is --threads).
--
--   sbench --threads=4 mutex run        # sysbench --threads=4 mutex run

local builtin = require("builtin_common")

sysbench.cmdline.database = false
sysbench.cmdline.options = {
   mutex_num = { "total size of mutex array", 4096 },
   mutex_locks = { "number of mutex locks to do per thread", 50000 },
   mutex_loops = { "number of empty loops to do outside mutex lock", 10000 },
}

builtin.commands("mutex")

local function check()
   local o = sysbench.opt
   for _, n in ipairs({ "mutex_num", "mutex_locks", "mutex_loops" }) do
      if o[n] < (n == "mutex_num" and 1 or 0) then
         builtin.fatal(string.format("Invalid value for %s: %d", n:gsub("_", "-"), o[n]))
      end
   end
end

function init()
   check()
   sbench.builtin.locks(sysbench.opt.mutex_num)
   sbench.builtin.limit_events(sysbench.opt.threads)
end

local x

function thread_init()
   sbench.builtin.locks(sysbench.opt.mutex_num)
   local o = sysbench.opt
   x = sbench.builtin.mutex(o.mutex_num, o.mutex_locks, o.mutex_loops, sysbench.rand.uniform(1, 2147483647))
end

function event()
   x:event()
end
