-- threads: sysbench's threads test (scheduler and mutex contention).
-- Each event locks one of --thread-locks mutexes (thread id modulo their
-- number), yields the processor and unlocks, --thread-yields times (C:
-- builtin/locks.c through sbench.builtin).
--
--   sbench --threads=8 threads run      # sysbench --threads=8 threads run

local builtin = require("builtin_common")

sysbench.cmdline.database = false
sysbench.cmdline.options = {
   thread_yields = { "number of yields to do per request", 1000 },
   thread_locks = { "number of locks per thread", 8 },
}

builtin.commands("threads")

local function check()
   if sysbench.opt.thread_locks < 1 then
      builtin.fatal("Invalid value for thread-locks: " .. sysbench.opt.thread_locks)
   end
   if sysbench.opt.thread_yields < 0 then
      builtin.fatal("Invalid value for thread-yields: " .. sysbench.opt.thread_yields)
   end
end

function init()
   check()
   sbench.builtin.locks(sysbench.opt.thread_locks)
end

local lock, yields
local threads = sbench.builtin.threads

function thread_init()
   sbench.builtin.locks(sysbench.opt.thread_locks)
   lock = sysbench.tid % sysbench.opt.thread_locks
   yields = sysbench.opt.thread_yields
end

function event()
   threads(lock, yields)
end
