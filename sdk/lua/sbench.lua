---@meta
-- sbench.lua: the workload API of sbench (docs/lua-api.md) for
-- lua-language-server: completion and types of every sbench.* function
-- and of the objects they return; `sysbench` is the same table.  Put the
-- directory holding this file in your workspace's "Lua.workspace.library".
-- tests/cli/meta.sh checks it against the live API: a function that
-- exists in one and not the other fails the suite.

---@class sbench.Driver
local Driver = {}
---@return sbench.Connection
function Driver:connect() end
---@return "pgsql"|"mysql"|"odbc"|"sqlite"|"null"
function Driver:name() end

---@class sbench.Result
---@field nrows integer rows of the result (0 without a result set)
---@field nfields integer columns of the result
local Result = {}
---@return any[]|nil row the values (integers as integers, NULL as nil), nil after the last row
function Result:fetch_row() end
---@return boolean, string
function Result:free() end

---@class sbench.Param
local Param = {}
---@param v integer|number|string|nil
function Param:set(v) end
---@param template string '#' a digit, '@' a letter
function Param:set_rand_str(template) end
---Sets params[k] to vars[names[k]] for k = 1, 2, ... while the value is an
---integer and the parameter an integer one, in one call (called as
---params[1].set_vars(params, vars, names), not as a method).
---@param vars table<string, any>
---@param names string[]
---@return integer k the first parameter left for the caller to set, 0 when all are set
function Param:set_vars(vars, names) end

---@class sbench.Statement
local Statement = {}
---@param type integer a sbench.sql.type
---@param maxlen? integer longest value of a CHAR/VARCHAR parameter
---@return sbench.Param
function Statement:bind_create(type, maxlen) end
---@param ... sbench.Param in placeholder order
function Statement:bind_param(...) end
---@return sbench.Result|integer result a result object, or the rows affected
function Statement:execute() end
function Statement:close() end

---@class sbench.Connection
local Connection = {}
---@param sql string
---@return sbench.Result|integer result a result object, or the rows affected
function Connection:query(sql) end
---@param sql string
---@return sbench.Result
function Connection:query_stream(sql) end
---@param sql string
---@return any ... the first row's values (nil if no row)
function Connection:query_row(sql) end
---@param sql string with ? placeholders
---@param name? string the statement's name in the report ("Statements by name")
---@return sbench.Statement
function Connection:prepare(sql, name) end
function Connection:begin() end
function Connection:commit() end
function Connection:rollback() end
function Connection:disconnect() end
function Connection:reconnect() end
---@return "postgresql"|"mysql"|"sqlite"|"db2"|"ansi"
function Connection:dialect() end
---@return string
function Connection:server_version() end
---@param sql string "INSERT INTO t(a,b) VALUES"
function Connection:bulk_insert_init(sql) end
---@param values string "(1,'x')"
function Connection:bulk_insert_next(values) end
function Connection:bulk_insert_done() end
---@param table string
---@param columns string[]
---@param types integer[] sbench.sql.type values
function Connection:bulk_load_init(table, columns, types) end
---@param ... any one row's values
function Connection:bulk_load_row(...) end
function Connection:bulk_load_done() end

---@class sbench.Histogram
local Histogram = {}
---@param value number
function Histogram:update(value) end
---@param p number 0..100
---@return number
function Histogram:percentile(p) end
---@return integer
function Histogram:count() end
function Histogram:print() end

---@class sbench.ReportSectionRow
---@field kind "per_minute"|"share"|"mix"|"percentile"
---@field label string
---@field types string type names separated by commas, or "*"
---@field of? string
---@field percentile? number
---@field limit_pct? number
---@field limit_ms? number
---@field limit_count? integer
---@field units? boolean
---@field of_each? integer

---@class sbench
---@field tid integer this thread's (client's) id
---@field version string
---@field version_string string
---@field opt table<string, any> the options, --name-with-dashes as name_with_dashes
---@field hooks table report_intermediate, report_cumulative, report_extra, sql_error_ignorable
---@field error table
---@field shard table
sbench = {}
---@type sbench
sysbench = sbench

---Waits until every thread of a PARALLEL_COMMAND reached it.
function sbench.barrier() end
---@return integer ns the monotonic clock
function sbench.clock_ns() end
---@return boolean more whether the thread_run loop may run another event
function sbench.more_events() end
function sbench.event_start() end
function sbench.event_stop() end
---@param name string at most 16 types of up to 39 characters
---@param units? integer what the event counts (default 1)
function sbench.event_type(name, units) end
---@return boolean stopping whether the run is ending (--time or --events reached, Ctrl-C)
function sbench.stopping() end
---@param name string
---@return integer slot
function sbench.named_slot(name) end
---@param slot integer
---@param ns integer
function sbench.named_record(slot, ns) end
---@param section {title: string, rows: sbench.ReportSectionRow[]}
function sbench.report_section(section) end
---@param stat table
function sbench.report_default(stat) end
---@param stat table
function sbench.report_csv(stat) end
---@param stat table
function sbench.report_json(stat) end

sbench.cmdline = {}
---@type table<string, table> name = {help, default}
sbench.cmdline.options = {}
---@type table<string, table> name = {func, sbench.cmdline.PARALLEL_COMMAND?}
sbench.cmdline.commands = {}
---@param name string
---@return boolean
function sbench.cmdline.command_defined(name) end
---@param name string
---@return boolean
function sbench.cmdline.command_parallel(name) end
---@param name string
function sbench.cmdline.call_command(name) end
function sbench.cmdline.print_test_options() end
function sbench.cmdline.read_cmdline_options() end

sbench.sql = {}
---@param name? string
---@return sbench.Driver
function sbench.sql.driver(name) end
---@type {NONE: integer, TINYINT: integer, SMALLINT: integer, INT: integer, BIGINT: integer, FLOAT: integer, DOUBLE: integer, TIME: integer, DATE: integer, DATETIME: integer, TIMESTAMP: integer, CHAR: integer, VARCHAR: integer, BLOB: integer}
sbench.sql.type = {}
---@type {NONE: integer, IGNORABLE: integer, FATAL: integer}
sbench.sql.error = {}

sbench.rand = {}
---@param a integer
---@param b integer
---@return integer a number of --rand-type's distribution in [a, b]
function sbench.rand.default(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.uniform(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.gaussian(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.special(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.pareto(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.zipfian(a, b) end
---@param a integer
---@param b integer
---@return integer
function sbench.rand.rand_uniform(a, b) end
---@return number in [0, 1)
function sbench.rand.uniform_double() end
---@return integer
function sbench.rand.uniform_uint64() end
---@return integer a number no other call of the run returned
function sbench.rand.unique() end
---@param template string '#' a digit, '@' a letter
---@return string
function sbench.rand.string(template) end
---@param min integer
---@param max integer
---@return string
function sbench.rand.varstring(min, max) end

---pgbench 15's random draws in C (the state st is { s0 = int, s1 = int }),
---giving the numbers `sbench pgbench` scripts draw.
sbench.pgbench_rand = {}
---@param st table
---@param lo integer
---@param hi integer
---@return integer
function sbench.pgbench_rand.uniform(st, lo, hi) end
---@param st table
---@param lo integer
---@param hi integer
---@return integer|nil value nil (and no draw) unless lo, hi are integers with hi - lo < 2^63 - 1
function sbench.pgbench_rand.uniform_fast(st, lo, hi) end
---@param st table
---@return number value in [0, 1)
function sbench.pgbench_rand.double(st) end
---@param st table
---@param lo integer
---@param hi integer
---@param param number
---@return integer
function sbench.pgbench_rand.exponential(st, lo, hi, param) end
---@param st table
---@param lo integer
---@param hi integer
---@param param number
---@return integer
function sbench.pgbench_rand.gaussian(st, lo, hi, param) end
---@param st table
---@param lo integer
---@param hi integer
---@param s number
---@return integer
function sbench.pgbench_rand.zipfian(st, lo, hi, s) end
---@param val integer
---@param size integer
---@param seed integer
---@return integer
function sbench.pgbench_rand.permute(val, size, seed) end
---@param val integer
---@param seed integer
---@return integer
function sbench.pgbench_rand.hash_fnv1a(val, seed) end
---@param val integer
---@param seed integer
---@return integer
function sbench.pgbench_rand.hash_murmur2(val, seed) end

---A pgbench script's plain commands run in C (`sbench pgbench`'s hot path,
---workloads/pgbench_run.lua builds the plan): \set (random() drawn in C),
---\if/\else/\endif, prepared statements with integer parameters.
sbench.pgbench_script = {}
---@class sbench.pgbench_program
local pgbench_program = {}
---@param vars table the client's variables
---@param ctx table { vars = vars, rs = rs }, the expressions' argument
---@param rs table the client's random state { s0 = int, s1 = int }
---@return boolean in_tx a BEGIN left open
function pgbench_program:run(vars, ctx, rs) end
---@return integer cmd the script's command the last run stopped at (after an error)
function pgbench_program:at() end
---@param plan table one op per command (see lua/l_pgscript.c)
---@return sbench.pgbench_program
function sbench.pgbench_script.compile(plan) end

sbench.histogram = {}
---@param size integer
---@param min number
---@param max number
---@return sbench.Histogram
function sbench.histogram.new(size, min, max) end

sbench.progress = {}
---@param total integer what prepare will load, for its progress line
function sbench.progress.expect(total) end

sbench.txlog = {}
---@param prefix string
---@param thread integer
---@param aggregate_s number
---@return table log pgbench's transaction log of this worker
function sbench.txlog.open(prefix, thread, aggregate_s) end

-- sysbench 0.5's sbench.db.* (docs/lua-api.md, the legacy API)
sbench.db = {}
function sbench.db.connect() end
function sbench.db.disconnect() end
---@param sql string
function sbench.db.query(sql) end
---@param sql string
function sbench.db.prepare(sql) end
function sbench.db.bind_param(...) end
function sbench.db.bind_result(...) end
function sbench.db.execute(...) end
function sbench.db.close(...) end
function sbench.db.store_results(...) end
function sbench.db.free_results(...) end
---@param sql string
function sbench.db.bulk_insert_init(sql) end
---@param values string
function sbench.db.bulk_insert_next(values) end
function sbench.db.bulk_insert_done() end

-- the diag workload's helpers
sbench.diag = {}
---@return number seconds of the monotonic clock
function sbench.diag.now() end
---@return string the path of the sbench executable
function sbench.diag.exe() end
function sbench.diag.free_bytes(...) end
function sbench.diag.open(...) end
function sbench.diag.unlink(...) end

-- sysbench's built-in tests in C (the cpu, memory, threads, mutex and fileio workloads)
sbench.builtin = {}
function sbench.builtin.cpu(...) end
function sbench.builtin.memory(...) end
function sbench.builtin.threads(...) end
function sbench.builtin.mutex(...) end
function sbench.builtin.locks(...) end
function sbench.builtin.limit_events(...) end
function sbench.builtin.open(...) end
function sbench.builtin.unlink(...) end
function sbench.builtin.free_bytes(...) end
function sbench.builtin.fsync_count(...) end
function sbench.builtin.fsync_take(...) end
function sbench.builtin.rw_is_read(...) end
