-- pgbench: pgbench's built-in workloads and its script files, on every
-- database sbench drives.
--
--   sbench --db-driver=pgsql pgbench prepare --scale=10          # pgbench -i -s 10
--   sbench --db-driver=mysql pgbench run --builtin=simple-update  # pgbench -N
--   sbench pgbench run --file=mine.sql@2 --builtin=select-only@1 -D k=5
--
-- The built-ins are pgbench 15's scripts as text, run by the same parser
-- and interpreter as a user's file (pgbench_script, pgbench_run).  Every
-- script is parsed and checked in init(), before any connection: a
-- malformed one stops the run with "FILE:LINE: what".  One event is one
-- pass over one script, chosen by weight.

local S = require("pgbench_script")
local Run = require("pgbench_run")
local E = require("pgbench_expr")
local Rnd = require("pgbench_rand")
local Init = require("pgbench_init")
local Report = require("pgbench_report")
local Fail = require("pgbench_fail")

local T = sbench.cmdline
sbench.cmdline.options = {
   scale = { "Scale factor: 100,000 accounts per unit (pgbench -s); in run, the :scale " ..
                "of the scripts (default: read from pgbench_branches)", 0 },
   builtin = { "Built-in scripts NAME[@WEIGHT]: tpcb-like, simple-update, select-only " ..
                  "(pgbench -b)", {}, T.ARG_LIST },
   file = { "Script files FILE[@WEIGHT] (pgbench -f)", {}, T.ARG_LIST },
   define = { "Variables NAME=VALUE (pgbench -D)", {}, T.ARG_LIST },
   query_mode = { "simple, extended or prepared (pgbench -M)", "simple" },
   init_steps = { "prepare: init steps, of d t g G v p f (pgbench -I)", "dtgvp" },
   fillfactor = { "prepare: fillfactor of accounts, tellers, branches (pgbench -F)", 100 },
   foreign_keys = { "prepare: add foreign keys (pgbench --foreign-keys)", false },
   unlogged_tables = { "prepare: unlogged tables, PostgreSQL (pgbench --unlogged-tables)", false },
   partitions = { "prepare: partitions of pgbench_accounts, PostgreSQL (pgbench --partitions)", 0 },
   partition_method = { "prepare: range or hash (pgbench --partition-method)", "range" },
   random_seed = { "Seed of the scripts' random functions, an integer, as pgbench --random-seed " ..
                      "(default: --rand-seed, or the time)", "" },
   transactions = { "run: transactions per client, then the client stops (pgbench -t; 0: no limit, " ..
                       "use --time/--events)", 0 },
   pgbench_report = { "Print pgbench's report instead of sbench's text report, and follow " ..
                         "pgbench's failure model (--max-tries; set by `sbench pgbench`)", false },
   report_per_command = { "run: per-command latencies, failures and retries in pgbench's report " ..
                             "(pgbench -r)", false },
   failures_detailed = { "run: failures by kind in pgbench's report (pgbench --failures-detailed)",
                         false },
   max_tries = { "run: tries of a transaction after serialization failures and deadlocks " ..
                    "(pgbench --max-tries; 0: no limit, with --time or --latency-limit)", 1 },
   continue_on_error = { "run: an error other than a serialization failure or a deadlock " ..
                            "fails the transaction instead of aborting the client " ..
                            "(pgbench --continue-on-error)", false },
   exit_on_abort = { "run: a client aborted stops the whole run (pgbench --exit-on-abort)", false },
   verbose_errors = { "run: a line for each transaction retried or failed (pgbench --verbose-errors)",
                      false },
   log = { "run: write pgbench's per-transaction log, one file per thread (pgbench -l)", false },
   log_prefix = { "run: prefix of the log files (pgbench --log-prefix)", "pgbench_log" },
   aggregate_interval = { "run: seconds per line of the aggregated log (pgbench --aggregate-interval)",
                          0 },
   sampling_rate = { "run: share of transactions written to the log, in (0, 1] " ..
                        "(pgbench --sampling-rate)", 1.0 },
   show_script = { "Print built-in script NAME (a unique prefix) on stderr and exit " ..
                      "(pgbench --show-script)", "" },
   vacuum_all = { "run: vacuum pgbench_accounts too before the run (pgbench -v)", false },
   no_vacuum = { "run: do not vacuum branches and tellers nor empty history first (pgbench -n)", false },
}

local BUILTIN = {
   ["tpcb-like"] = [[
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
]],
   ["simple-update"] = [[
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
]],
   ["select-only"] = [[
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
]],
}

-- pgbench's descriptions of its built-ins (-b list, --show-script).
local DESCRIPTION = {
   ["tpcb-like"] = "<builtin: TPC-B (sort of)>",
   ["simple-update"] = "<builtin: simple update>",
   ["select-only"] = "<builtin: select only>",
}

local function settings()
   local s = {}
   for name in pairs(sbench.cmdline.options) do s[name] = sbench.opt[name] end
   s.threads = sbench.opt.threads or 1
   s.clients = math.max(sbench.opt.clients or 0, s.threads)
   return s
end

-- NAME[@WEIGHT] -> name, weight (pgbench's default weight is 1).
local function weighted(item, what)
   local name, w = item:match("^(.*)@(%d+)$")
   if not name then return item, 1 end
   w = math.tointeger(tonumber(w))
   if not w or w > 2147483647 then error("invalid weight in " .. what .. " " .. item, 0) end
   return name, w
end

local function builtin_named(name)
   if BUILTIN[name] then return name end
   local found
   for full in pairs(BUILTIN) do -- pgbench accepts a unique prefix
      if full:sub(1, #name) == name then
         if found then error("ambiguous builtin name: " .. name, 0) end
         found = full
      end
   end
   if not found or name == "" then
      error("no builtin script found for name \"" .. name ..
               "\" (available: tpcb-like, simple-update, select-only)", 0)
   end
   return found
end

-- The scripts of the run with their weights, parsed and checked.
local function load_scripts(s)
   local list = {}
   for _, item in ipairs(s.builtin) do
      local name, w = weighted(item, "--builtin")
      name = builtin_named(name)
      list[#list + 1] = { script = S.parse(BUILTIN[name], "<builtin: " .. name .. ">"), weight = w, name = name,
                          builtin = true }
   end
   for _, item in ipairs(s.file) do
      local path, w = weighted(item, "--file")
      local f, why = io.open(path, "r")
      if not f then error("could not open file \"" .. path .. "\": " .. tostring(why), 0) end
      local text = f:read("a"); f:close()
      list[#list + 1] = { script = S.parse(text, path), weight = w, name = path:match("([^/]+)$") }
   end
   if #list == 0 then
      list[1] = { script = S.parse(BUILTIN["tpcb-like"], "<builtin: tpcb-like>"), weight = 1, name = "tpcb-like",
                  builtin = true }
   end
   local total = 0
   for _, e in ipairs(list) do total = total + e.weight end
   if total == 0 then error("total script weight must not be zero", 0) end
   return list, total
end

-- -D NAME=VALUE -> { name = "value" }.
-- The -D variables.  The option's list is split at commas: a piece with
-- no "=" continues the value before it (-D list=1,2,3 is one value).
local function defines(s)
   local vars, last = {}, nil
   for _, d in ipairs(s.define) do
      local name, value = d:match("^([^=]+)=(.*)$")
      if name then
         vars[name], last = value, name
      elseif last then
         vars[last] = vars[last] .. "," .. d
      else
         error("invalid variable definition: \"" .. d .. "\" (expected NAME=VALUE)", 0)
      end
   end
   return vars
end

local function check_mode(s)
   local m = s.query_mode
   if m ~= "simple" and m ~= "extended" and m ~= "prepared" then
      error("invalid query mode (-M/--query-mode=" .. tostring(m) .. "): expected simple, extended or prepared", 0)
   end
end

local function base_seed(s)
   local r = tostring(s.random_seed)
   if r == "" then
      local rs = sbench.opt.rand_seed
      if type(rs) == "number" and rs ~= 0 then return math.tointeger(rs) end
      return os.time()
   end
   local v = math.tointeger(tonumber(r))
   if not v or not r:match("^%d+$") then
      error("unrecognized random seed option \"" .. r .. "\": expected an unsigned integer", 0)
   end
   return v
end

-- Variables every client has: -D, :scale, :client_id, :random_seed,
-- :default_seed (unless -D set them).
local function names_defined(s)
   local d = defines(s)
   for _, n in ipairs({ "scale", "client_id", "random_seed", "default_seed" }) do d[n] = true end
   return d
end

-- The log options as pgbench allows them.
local function check_log(s)
   local function no(msg) error(msg, 0) end
   if not s.log then
      if s.sampling_rate ~= 1.0 then no("log sampling (--sampling-rate) is allowed only when logging transactions (-l)") end
      if s.aggregate_interval ~= 0 then no("log aggregation is allowed only when actually logging transactions") end
      if s.log_prefix ~= "pgbench_log" then no("log file prefix (--log-prefix) is allowed only when logging transactions (-l)") end
      return
   end
   if not (s.sampling_rate > 0 and s.sampling_rate <= 1) then no("invalid sampling rate: " .. s.sampling_rate .. " (expected (0, 1])") end
   if s.aggregate_interval < 0 or math.type(s.aggregate_interval) ~= "integer" then
      no("invalid number of seconds for aggregation: " .. s.aggregate_interval)
   end
   if s.sampling_rate ~= 1.0 and s.aggregate_interval > 0 then
      no("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
   end
   if (sbench.opt.rate or 0) > 0 then
      no("-l/--log with --rate is not implemented (the log's schedule lag); see docs/pgbench.md")
   end
end

function init()
   local s = settings()
   check_mode(s)
   check_log(s)
   if s.pgbench_report then Fail.check(s) end
   defines(s)
   base_seed(s)
   local list = load_scripts(s)
   local d = names_defined(s)
   for _, e in ipairs(list) do
      S.check_vars(e.script, d)
      if e.script.pipeline and s.query_mode == "simple" then
         error(e.script.source .. ": cannot use pipeline mode with the simple query protocol", 0)
      end
      if s.query_mode ~= "simple" then S.check_params(e.script) end
   end
end

----------------------------------------------------------------------------
-- prepare (pgbench -i) and cleanup
----------------------------------------------------------------------------

local function init_settings()
   local s = settings()
   if s.scale == 0 then s.scale = 1 end
   return s
end

function prepare_cmd()
   local s = init_settings()
   local con = sbench.sql.driver():connect()
   local dialect = con:dialect()
   Init.check(dialect, s)
   Init.run(con, dialect, s)
   con:disconnect()
end

sbench.cmdline.commands = {
   prepare = { prepare_cmd, sbench.cmdline.PARALLEL_COMMAND },
}

function cleanup()
   local con = sbench.sql.driver():connect()
   local q = Init.sql(con:dialect(), init_settings())
   for _, sql in ipairs(q.drop) do con:query(sql) end
   con:disconnect()
end

----------------------------------------------------------------------------
-- run
----------------------------------------------------------------------------

local con, runner, scripts, total_weight, ctx, choose_rs, fail
local typed
local done_count, limit = 0, 0 -- transactions of this client, --transactions
-- pgbench -l: this thread's log, the client's number, its transactions,
-- --sampling-rate, the running transaction's start, whether the log has
-- the retries field (--max-tries other than 1)
local txlog, log_client, log_count, sample, tx_start, log_retries
-- pgbench's failure model (`sbench pgbench`, pgbench's report), or sbench's
-- own rules: --max-retries, --db-ignore-sqlstates, another error stops the run
local pgmodel
local retrying -- a transaction may have more than one try (fail:start and finish then)
local restarting = false
local cur -- the script of the transaction running, kept across its retries

-- Whether the run uses a built-in script (pgbench's internal_script_used).
local function uses_builtin(list)
   for _, e in ipairs(list) do
      if e.builtin then return true end
   end
   return false
end

-- The :scale of the run: with a built-in script the rows of
-- pgbench_branches (pgbench ignores -s outside -i then, with a warning
-- init() prints), else --scale, else 1 (as pgbench).
local function run_scale(s, c)
   if not uses_builtin(scripts) then return s.scale > 0 and s.scale or 1 end
   local n = c:query_row("select count(*) from pgbench_branches")
   n = math.tointeger(tonumber(n))
   if not n or n < 1 then
      error("could not count the rows of pgbench_branches (run prepare first)", 0)
   end
   return n
end

function thread_init()
   local s = settings()
   scripts, total_weight = load_scripts(s)
   con = sbench.sql.driver():connect()
   local dialect = con:dialect()
   runner = Run.new(con, { mode = s.query_mode, dialect = dialect, timed = s.report_per_command })
   pgmodel = s.pgbench_report
   if not pgmodel then s.max_tries = 0 end -- the core's rules (--max-retries) decide
   fail = Fail.new(s, dialect)
   retrying = s.max_tries ~= 1 or s.verbose_errors -- else one try, nothing to tell
   if s.report_per_command then
      for i, e in ipairs(scripts) do
         e.script.slots, e.script.index = {}, i
         for j = 1, #e.script.commands do
            e.script.slots[j] = sbench.named_slot(string.format("pgbench %d %d", i, j))
         end
      end
   end
   local client = sbench.cid or sbench.tid or 0
   local seed = base_seed(s)
   local rs, default_seed = Rnd.client_state(seed, s.clients, client)
   local vars = defines(s)
   local function default(name, v) if vars[name] == nil then vars[name] = v end end
   default("scale", run_scale(s, con))
   default("client_id", client)
   default("random_seed", seed)
   default("default_seed", default_seed)
   ctx = { vars = vars, rs = rs }
   choose_rs = Rnd.new(seed ~ (client * 0x9E3779B97F4A7C15 + 1))
   typed = #scripts > 1
   limit = s.transactions
   for i, e in ipairs(scripts) do e.index = i - 1 end
   if s.log then
      txlog = sbench.txlog.open(s.log_prefix, sbench.tid or 0, s.aggregate_interval)
      log_client, sample = client, s.sampling_rate
      log_retries = pgmodel and s.max_tries ~= 1 or (sbench.opt.max_retries or 0) > 0
   end
end

-- pgbench -r's failures and retries per command: named slots "pgbench
-- I J failed|retried", created on a command's first error (one allocation
-- per command and outcome in a run), each error counted once.
local error_slots = {}
local function count_command_error(script, how)
   if not (script.slots and runner.at_index) then return end
   local key = string.format("pgbench %d %d %s", script.index, runner.at_index, how)
   local slot = error_slots[key]
   if not slot then slot = sbench.named_slot(key); error_slots[key] = slot end
   sbench.named_record(slot, 1000)
end

-- An aborted client: its line (pgbench's words), its transaction rolled
-- back, its loop ended; the report counts the aborted clients (named slot
-- "pgbench aborted") and `sbench pgbench` then exits 2.  With
-- --exit-on-abort the process ends there, as pgbench 17's thread does:
-- its line "Run was aborted due to an error in thread N", exit status 2,
-- no report (this thread's -l log written out first).
local aborted = false
local function abort_client(msg)
   local id = sbench.cid or sbench.tid or 0
   io.stderr:write(string.format("pgbench: error: client %d %s\n", id, msg))
   aborted = true
   sbench.named_record(sbench.named_slot("pgbench aborted"), 1000)
   pcall(con.rollback, con)
   if sbench.opt.exit_on_abort then
      if txlog then txlog:close(); txlog = nil end
      io.stderr:write(string.format("pgbench: error: Run was aborted due to an error in thread %d\n",
                                    sbench.tid or 0))
      io.stdout:flush()
      io.stderr:flush()
      os.exit(2)
   end
   return true
end

-- The transaction that ended, in pgbench -l's log: its time, or its
-- failure's word in place of it.
local function log_tx(e, failure)
   log_count = (log_count or 0) + 1
   if sample >= 1 or math.random() < sample then
      txlog:tx(log_client, log_count, sbench.clock_ns() - tx_start, e.index,
               log_retries and fail:retries() or -1, failure)
   end
end

-- The transaction of script e raised err: a script's failure (an
-- expression's error, a \shell that failed) aborts the client; an SQL
-- error is retried, fails the transaction or aborts the client
-- (workloads/pgbench_fail.lua); anything else stops the run.
local function transaction_failed(e, err)
   local c = runner.at
   if type(err) == "table" and err.script_error then
      count_command_error(e.script, "failed")
      return abort_client(string.format("aborted in command %d (%s) of script %d; %s",
                                        (runner.at_index or 1) - 1, c and c.kind or "?", e.index,
                                        err.message))
   end
   if not pgmodel or type(err) ~= "table" or not err.sql_errmsg then
      count_command_error(e.script, type(err) == "table" and err.errcode == sbench.error.RESTART_EVENT
                             and (sbench.opt.max_retries or 0) > 0 and "retried" or "failed")
      error(runner.locate(e.script, err), 0)
   end
   local act, kind = fail:on_error(e, err)
   if act == "drop" then -- -T is over: neither retried nor failed (the core stops it)
      err.errcode = sbench.error.RESTART_EVENT
      error(err, 0)
   end
   count_command_error(e.script, act == "retry" and "retried" or "failed")
   if act == "abort" and kind == "lost" then
      return abort_client(string.format("aborted in command %d (SQL) of script %d; perhaps the " ..
                                        "backend died while processing", (runner.at_index or 1) - 1,
                                        e.index))
   elseif act == "abort" then
      local msg = tostring(err.sql_errmsg)
      if not msg:match("^[A-Z]+:  ") then msg = "ERROR:  " .. msg end
      return abort_client(string.format("script %d aborted in command %d query %d: %s", e.index,
                                        (runner.at_index or 1) - 1, runner.at_part(), msg))
   end
   if act ~= "abort" then fail:tell(e, err, act, (runner.at_index or 1) - 1) end
   if act == "fail" then
      if txlog then log_tx(e, fail:log_word(kind)) end
      err.give_up = true -- counted as failed (core/event.h)
   else
      err.errcode = sbench.error.RESTART_EVENT
   end
   error(err, 0)
end

function event()
   if aborted then return true end
   local e = cur
   if not restarting then
      if limit > 0 then -- -t counts transactions (processed or failed), not tries
         if done_count >= limit then return true end -- ends this client's loop
         done_count = done_count + 1
      end
      e = scripts[1]
      if typed then
         local r = Rnd.uniform(choose_rs, 0, total_weight - 1)
         for _, x in ipairs(scripts) do
            if r < x.weight then e = x; break end
            r = r - x.weight
         end
         sbench.event_type(e.name) -- kept by a restart
      end
      cur = e
      if txlog then tx_start = sbench.clock_ns() end
   end
   if retrying then fail:start(ctx.rs, restarting) end
   restarting = false
   local ok, err = pcall(runner.run, e.script, ctx) -- ok: err is whether it left a BEGIN open
   if not ok then return transaction_failed(e, runner.script_error(e.script, err)) end
   if retrying then fail:finish(e) end
   if txlog then log_tx(e) end
   if err then -- counted as processed, then the client aborts (as pgbench 15)
      local why = "aborted: end of script reached without completing the last transaction"
      if not pgmodel then -- sbench's rule: the run stops
         error(string.format("%s: client %d %s", e.script.source, sbench.cid or sbench.tid or 0, why), 0)
      end
      abort_client(why)
   end
end

function thread_done()
   if txlog then txlog:close(); txlog = nil end
   runner.close()
   con:disconnect()
end

sbench.hooks = sbench.hooks or {}
function sbench.hooks.before_restart_event(err)
   restarting = true
   if type(err) == "table" and err.class == "lost" then runner.close() end
end

-- pgbench's pre-run cleanup (unless --no-vacuum): vacuum branches and
-- tellers, empty history; a failure is printed and ignored, as pgbench
-- does (a script of one's own may not use these tables).
local function prerun_vacuum()
   local s = settings()
   if s.no_vacuum or sbench.cmdline.command ~= "run" then return end
   local con0 = sbench.sql.driver():connect()
   local d = con0:dialect()
   if d == "postgresql" then
      con0:query("vacuum pgbench_branches")
      con0:query("vacuum pgbench_tellers")
      if s.vacuum_all then con0:query("vacuum pgbench_accounts") end
      con0:query("truncate pgbench_history")
   elseif d == "mysql" then
      con0:query("truncate table pgbench_history")
   else
      con0:query("delete from pgbench_history")
   end
   con0:disconnect()
end

-- A user's mistake stops the run with its one line, without a traceback.
local plain_error = { __tostring = function(e) return e.message end }
local function plain(f)
   local ok, err = pcall(f)
   if not ok then
      if type(err) == "string" then
         err = setmetatable({ message = err, no_traceback = true }, plain_error)
      end
      error(err, 0)
   end
end

local base_init, base_thread_init, base_prepare = init, thread_init, prepare_cmd
function thread_init() plain(base_thread_init) end
sbench.cmdline.commands.prepare[1] = function() plain(base_prepare) end

-- pgbench 15's report and progress lines (workloads/pgbench_report.lua).
local report_scale -- the :scale the clients read from pgbench_branches
local run_aborted -- a client aborted: `sbench pgbench` exits 2, as pgbench
local function pgbench_report(stat)
   local s = settings()
   run_aborted = Report.report(stat, s, load_scripts(s), report_scale)
end
local function pgbench_progress(stat) Report.progress(stat, scripts and #scripts or 1) end

-- After the report: pgbench's exit status 2 when a client aborted (the
-- report and --output are complete by then).
function done()
   if run_aborted then
      io.stdout:flush()
      os.exit(2)
   end
end

-- pgbench --show-script=NAME: "-- NAME: DESCRIPTION", the script's text
-- and an empty line on stderr, exit status 0, nothing else done.
local function show_script(name)
   local ok, full = pcall(builtin_named, name)
   if not ok then
      io.stderr:write("pgbench: error: " .. tostring(full) .. "\n")
      os.exit(1)
   end
   io.stderr:write(string.format("-- %s: %s\n%s\n", full, DESCRIPTION[full], BUILTIN[full]))
   io.stderr:flush()
   os.exit(0)
end

function init()
   if (sbench.opt.show_script or "") ~= "" then show_script(sbench.opt.show_script) end
   if sbench.opt.pgbench_report then
      sbench.hooks.report_cumulative = pgbench_report
      sbench.hooks.report_intermediate = pgbench_progress
   end
   plain(base_init)
   if sbench.cmdline.command == "run" then
      local s = settings()
      scripts = load_scripts(s)
      if uses_builtin(scripts) then
         pcall(function()
            local c = sbench.sql.driver():connect()
            report_scale = run_scale(s, c)
            c:disconnect()
         end)
         if s.scale > 0 and report_scale then
            io.stderr:write(string.format("pgbench: warning: scale option ignored, using count " ..
                                          "from pgbench_branches table (%d)\n", report_scale))
         end
      end
   end
   local ok, err = pcall(prerun_vacuum)
   if not ok then
      local msg = type(err) == "table" and (err.sql_errmsg or tostring(err)) or tostring(err)
      print("pgbench: the pre-run vacuum failed (use --no-vacuum): " .. msg)
      if type(err) ~= "table" then error(err, 0) end
   end
end
