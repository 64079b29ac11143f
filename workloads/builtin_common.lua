-- builtin_common: what sysbench's built-in tests (cpu, memory, threads,
-- mutex) share as sbench workloads: a command is required (as sysbench:
-- "The 'cpu' test requires a command argument", exit 1), and prepare and
-- cleanup are refused as sysbench refuses them ("'cpu' test does not
-- implement the 'prepare' command.", exit 1).  A library module, not a
-- workload.

local M = {}

local function refuse(message)
   io.stdout:flush()
   io.stderr:write(message, "\n")
   os.exit(1)
end

-- M.notice(line): a line of the run's header ("Prime numbers limit: N"),
-- printed where sbench prints its own: not under --verbosity below 3, and
-- not when a JSON or CSV report takes the standard output.
function M.notice(line)
   local o = sysbench.opt
   if (o.verbosity or 3) >= 3 and (o.report_format == "text" or (o.output or "") ~= "") then
      print(line)
   end
end

-- M.fatal(message): sysbench's one "FATAL:" line for a bad option value,
-- exit status 1 (checked in init(), before any thread starts).
function M.fatal(message)
   io.stdout:flush()
   io.stderr:write("FATAL: ", message, "\n")
   os.exit(1)
end

-- M.given(name): the value of --name as the command line spelled it ("3K"
-- where sysbench.opt has 3072), the last one given; nil when not given
-- there (a --config-file value, the default).  sysbench's messages quote it.
function M.given(name)
   local argv, v = sbench.cmdline.argv or {}, nil
   local prefix = "--" .. name .. "="
   for i = 1, #argv do
      if argv[i]:sub(1, #prefix) == prefix then v = argv[i]:sub(#prefix + 1) end
   end
   return v
end

-- M.commands(name): the command checks of test `name`; `prepare` and
-- `cleanup` are refused unless `keep` names them.
function M.commands(name, keep)
   keep = keep or {}
   local cmd = sysbench.cmdline.command
   if cmd == nil then
      refuse(string.format("The '%s' test requires a command argument. See 'sbench %s help'", name, name))
   end
   for _, c in ipairs({ "prepare", "cleanup" }) do
      if not keep[c] then
         _G[c] = function()
            refuse(string.format("'%s' test does not implement the '%s' command.", name, c))
         end
      end
   end
end

return M
