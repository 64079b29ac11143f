-- cpu: sysbench's cpu test.  Each event tests every number from 3 to
-- --cpu-max-prime for primality by trial division up to its square root
-- (sysbench's documented work, in C: builtin/cpu.c through sbench.builtin).
-- The report adds sysbench's "CPU speed: events per second:" before the
-- general statistics; every output (JSON, CSV, HDR log, Prometheus, merge)
-- is the one of any workload.
--
--   sbench cpu run                      # sysbench cpu run
--   sbench --threads=4 --cpu-max-prime=20000 --time=30 cpu run

local builtin = require("builtin_common")

sysbench.cmdline.database = false
sysbench.cmdline.options = {
   cpu_max_prime = { "upper limit for primes generator", 10000 },
}

builtin.commands("cpu")

local max_prime

function init()
   if sysbench.opt.cpu_max_prime < 0 then
      builtin.fatal("Invalid value of cpu-max-prime: " .. sysbench.opt.cpu_max_prime .. ".")
   end
   builtin.notice("Prime numbers limit: " .. sysbench.opt.cpu_max_prime)
   builtin.notice("")
end

function thread_init()
   max_prime = sysbench.opt.cpu_max_prime
end

local cpu = sbench.builtin.cpu

function event()
   cpu(max_prime)
end

sysbench.hooks.report_lead = function(stat)
   print("CPU speed:")
   print(string.format("    events per second: %8.2f", stat.events / stat.time_interval))
end
