-- diag_sql: the SQL of the diagnostic workloads (diag, diag_sweep, sbk),
-- per SQL dialect, and the server settings `params` reads.
--
-- A pure module: it builds strings and never calls sbench, so a test can
-- print all of it.
--
--   local dsql = require("diag_sql")
--   local q = dsql.new("postgresql")
--   q.blob_type                      --> "BYTEA"
--   q.create.blob                    --> "CREATE TABLE diag_blob (...)"
--   dsql.settings.postgresql         --> { "shared_buffers", ... }

local M = {}

M.dialects = { "postgresql", "mysql", "sqlite", "db2", "ansi" }

-- The settings that decide benchmark results, per dialect: jbench's list
-- for PostgreSQL and more; what decides durability, memory, I/O and
-- concurrency on MariaDB/MySQL; the PRAGMAs of SQLite; the DB2 database
-- and instance configuration (SYSIBMADM.DBCFG / DBMCFG, IBM's names).
M.settings = {
   postgresql = {
      "shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
      "temp_buffers", "max_connections", "synchronous_commit", "fsync",
      "full_page_writes", "wal_level", "wal_buffers", "wal_compression", "wal_sync_method",
      "commit_delay", "max_wal_size", "min_wal_size", "checkpoint_timeout",
      "checkpoint_completion_target", "random_page_cost", "seq_page_cost",
      "effective_io_concurrency", "default_statistics_target", "jit", "autovacuum",
      "default_transaction_isolation", "huge_pages", "max_worker_processes",
      "max_parallel_workers", "max_parallel_workers_per_gather",
      "max_locks_per_transaction", "default_toast_compression", "shared_preload_libraries",
      "track_io_timing", "data_checksums", "block_size", "ssl",
   },
   mysql = {
      "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_log_file_size",
      "innodb_log_buffer_size", "innodb_flush_log_at_trx_commit", "innodb_flush_method",
      "innodb_doublewrite", "innodb_io_capacity", "innodb_io_capacity_max",
      "innodb_read_io_threads", "innodb_write_io_threads", "innodb_thread_concurrency",
      "innodb_adaptive_hash_index", "innodb_change_buffering", "innodb_file_per_table",
      "innodb_lock_wait_timeout", "innodb_page_size", "sync_binlog", "log_bin",
      "binlog_format", "max_connections", "thread_handling", "thread_cache_size",
      "thread_pool_size", "transaction_isolation", "tx_isolation", "table_open_cache",
      "query_cache_type", "query_cache_size", "max_allowed_packet", "tmp_table_size",
      "max_heap_table_size", "sort_buffer_size", "join_buffer_size", "performance_schema",
      "default_storage_engine", "skip_name_resolve",
   },
   sqlite = {
      "journal_mode", "synchronous", "page_size", "cache_size", "locking_mode",
      "temp_store", "mmap_size", "wal_autocheckpoint", "busy_timeout", "foreign_keys",
      "auto_vacuum",
   },
   db2 = {
      "logfilsiz", "logprimary", "logsecond", "logbufsz", "locklist", "maxlocks",
      "locktimeout", "sortheap", "sheapthres_shr", "database_memory", "self_tuning_mem",
      "pckcachesz", "catalogcache_sz", "num_iocleaners", "num_ioservers", "cur_commit",
      "dft_degree", "auto_runstats", "mincommit", "blk_log_dsk_ful",
   },
}

-- SQLite has no catalogue of its PRAGMAs: one line each, from sqlite.org.
M.sqlite_descriptions = {
   journal_mode = "Rollback journal or write-ahead log mode of the database.",
   synchronous = "How often SQLite syncs to disk (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA).",
   page_size = "Page size of the database file, in bytes.",
   cache_size = "Page cache size (positive: pages; negative: KiB).",
   locking_mode = "NORMAL releases file locks after each transaction, EXCLUSIVE keeps them.",
   temp_store = "Where temporary tables and indices live (0 DEFAULT, 1 FILE, 2 MEMORY).",
   mmap_size = "Bytes of the database file accessed through memory-mapped I/O.",
   wal_autocheckpoint = "WAL pages after which a checkpoint runs automatically.",
   busy_timeout = "Milliseconds a statement waits for a lock before SQLITE_BUSY.",
   foreign_keys = "Whether foreign key constraints are enforced.",
   auto_vacuum = "Whether freed pages are returned to the file system (0 NONE, 1 FULL, 2 INCREMENTAL).",
}

local function quoted_list(names, upper)
   local t = {}
   for i, n in ipairs(names) do t[i] = "'" .. (upper and n:upper() or n) .. "'" end
   return table.concat(t, ",")
end

-- The statements `params` runs, per dialect: version (one value), then
-- the settings as rows of (name, value, unit, description).  `fallback`
-- (MySQL, which has no information_schema.SYSTEM_VARIABLES) is run when the
-- first form fails, giving rows of (name, value).  SQLite: one PRAGMA per
-- setting (`pragma`).
function M.params(dialect)
   local s = M.settings[dialect]
   if dialect == "postgresql" then
      return {
         version = "SELECT version()",
         settings = "SELECT name, setting, COALESCE(unit, ''), short_desc, source FROM pg_settings " ..
            "WHERE name IN (" .. quoted_list(s) .. ") ORDER BY name",
      }
   elseif dialect == "mysql" then
      return {
         version = "SELECT CONCAT(VERSION(), ' ', @@version_comment)",
         settings = "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE, '', VARIABLE_COMMENT, GLOBAL_VALUE_ORIGIN " ..
            "FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN (" ..
            quoted_list(s, true) .. ") ORDER BY 1",
         fallback = "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" .. quoted_list(s) .. ")",
      }
   elseif dialect == "sqlite" then
      return { version = "SELECT 'SQLite ' || sqlite_version()", pragma = s }
   elseif dialect == "db2" then
      -- IBM Db2 11.5 documentation: SYSIBMADM.ENV_INST_INFO (SERVICE_LEVEL),
      -- SYSIBMADM.DBCFG and DBMCFG (NAME, VALUE, DATATYPE), one row per
      -- member; SYSCAT.BUFFERPOOLS (BPNAME, NPAGES, PAGESIZE).
      return {
         version = "SELECT SERVICE_LEVEL FROM SYSIBMADM.ENV_INST_INFO",
         settings = "SELECT NAME, MAX(VALUE), MAX(DATATYPE), 'database configuration' " ..
            "FROM SYSIBMADM.DBCFG WHERE NAME IN (" .. quoted_list(s) .. ") GROUP BY NAME " ..
            "UNION ALL SELECT NAME, MAX(VALUE), MAX(DATATYPE), 'instance configuration' " ..
            "FROM SYSIBMADM.DBMCFG WHERE NAME IN ('instance_memory','intra_parallel'," ..
            "'sheapthres','max_querydegree') GROUP BY NAME " ..
            "UNION ALL SELECT 'bufferpool ' || RTRIM(BPNAME), " ..
            "CAST(NPAGES AS VARCHAR(20)) || ' x ' || CAST(PAGESIZE AS VARCHAR(10)), " ..
            "'pages x bytes', 'buffer pool size' FROM SYSCAT.BUFFERPOOLS ORDER BY 1",
      }
   end
   return {} -- ansi: only what the driver reports (con:server_version())
end

-- MariaDB/MySQL settings in bytes (the server reports no unit).
M.byte_settings = {
   innodb_buffer_pool_size = true, innodb_log_file_size = true, innodb_log_buffer_size = true,
   max_allowed_packet = true, tmp_table_size = true, max_heap_table_size = true,
   sort_buffer_size = true, join_buffer_size = true, query_cache_size = true,
   innodb_page_size = true, mmap_size = true,
}

local byte_units = { B = 1, kB = 1024, MB = 1024 ^ 2, GB = 1024 ^ 3, TB = 1024 ^ 4 }
local time_units = { us = 1e-6, ms = 1e-3, s = 1, min = 60, h = 3600, d = 86400 }

-- Bytes as the largest binary unit that keeps them readable: "1 GiB",
-- "1.5 MiB", "512 B".
local function human_bytes(b)
   local names = { "B", "KiB", "MiB", "GiB", "TiB" }
   local i = 1
   while i < #names and b >= 1024 do b = b / 1024; i = i + 1 end
   return (b == math.floor(b) and string.format("%d %s", math.floor(b), names[i]))
      or string.format("%.1f %s", b, names[i])
end

local function human_seconds(t)
   for _, u in ipairs({ { 86400, "d" }, { 3600, "h" }, { 60, "min" }, { 1, "s" }, { 1e-3, "ms" } }) do
      if t >= u[1] and (t / u[1]) == math.floor(t / u[1]) then
         return string.format("%d %s", math.floor(t / u[1]), u[2])
      end
   end
   return string.format("%g s", t)
end

-- The value in human units from its raw value and unit (PostgreSQL's
-- "8kB", "MB", "ms", ..., which multiply the value: 131072 of 8kB is
-- 1 GiB), or nil when there is nothing to add (no unit, not a number,
-- negative: PostgreSQL's -1 is "default" or "off").  name marks MariaDB's
-- byte-sized settings, which have no unit.
function M.human(value, unit, name)
   local v = tonumber(value)
   if not v or v < 0 then return nil end
   local mult, base = (unit or ""):match("^(%d*)(%a+)$")
   if not base and M.byte_settings[name] then mult, base = "", "B" end
   if not base then return nil end
   mult = tonumber(mult) or 1
   if byte_units[base] then return human_bytes(v * mult * byte_units[base]) end
   if time_units[base] then return human_seconds(v * mult * time_units[base]) end
   return nil
end

-- Where a setting's value came from, in words: PostgreSQL's
-- pg_settings.source, MariaDB's GLOBAL_VALUE_ORIGIN.
local source_words = {
   default = "default", ["configuration file"] = "configuration file", override = "override (server)",
   ["environment variable"] = "environment variable", client = "client", session = "session",
   ["command line"] = "command line", database = "ALTER DATABASE", user = "ALTER ROLE",
   ["database user"] = "ALTER ROLE IN DATABASE", interactive = "interactive",
   ["COMPILE-TIME"] = "default", CONFIG = "configuration file", ["COMMAND-LINE"] = "command line",
   AUTO = "set by the server", SQL = "SET GLOBAL",
}
function M.source_text(src)
   if src == nil or src == "" then return "" end
   return source_words[src] or tostring(src)
end

-- The server's version and settings on connection con, as { version,
-- dialect, driver, server (what the driver reports), settings = { {name,
-- value, unit, description, human (nil when the value needs none),
-- source}, ... } sorted by name, not_read = { names of M.settings this
-- user could not read or the server does not have } }.  Used by `sbench
-- params` and by every run's JSON metadata (run.server_settings, read by
-- the Lua binding before the run).  Raises when the settings query fails.
function M.read_params(con)
   local dialect = con:dialect()
   local p = M.params(dialect)
   local r = { dialect = dialect, driver = sbench.sql.driver():name(),
               server = con:server_version(), settings = {}, not_read = {} }
   local function add(name, value, unit, desc, source)
      name = tostring(name)
      r.settings[#r.settings + 1] = { name = name, value = tostring(value or ""),
                                      unit = tostring(unit or ""), description = tostring(desc or ""),
                                      human = M.human(value, unit, name), source = M.source_text(source) }
   end
   if p.version then r.version = tostring((con:query_row(p.version))) end
   if p.pragma then
      for _, name in ipairs(p.pragma) do
         local ok, v = pcall(con.query_row, con, "PRAGMA " .. name)
         if ok and v ~= nil then add(name, v, "", M.sqlite_descriptions[name]) end
      end
   elseif p.settings then
      local ok, rs = pcall(con.query, con, p.settings)
      if not ok and p.fallback then
         ok, rs = pcall(con.query, con, p.fallback)
      end
      if not ok then error(rs, 0) end
      local row = rs:fetch_row()
      while row do
         add(row[1], row[2], row[3], row[4], row[5])
         row = rs:fetch_row()
      end
      table.sort(r.settings, function(a, b) return a.name < b.name end)
   end
   if p.settings or p.pragma then
      local seen = {}
      for _, st in ipairs(r.settings) do seen[st.name:lower()] = true end
      for _, name in ipairs(M.settings[dialect] or {}) do
         if not seen[name] then r.not_read[#r.not_read + 1] = name end
      end
   end
   return r
end

local blob_types = {
   postgresql = "BYTEA", mysql = "LONGBLOB", sqlite = "BLOB", db2 = "BLOB(1G)", ansi = "BLOB",
}

-- new(dialect) -> the diagnostic tables and statements of one dialect.
function M.new(dialect)
   if not blob_types[dialect] then
      error(string.format("unknown SQL dialect %q (expected one of: %s)", tostring(dialect),
                          table.concat(M.dialects, ", ")), 2)
   end
   local q = { dialect = dialect, blob_type = blob_types[dialect] }
   local pad = dialect == "sqlite" and "TEXT" or "CHAR(60)"
   local engine = dialect == "mysql" and " ENGINE=InnoDB" or ""
   q.tables = { "diag_blob", "diag_big", "diag_data", "diag_log", "diag_seen" }
   q.create = {
      diag_blob = "CREATE TABLE diag_blob (id INTEGER NOT NULL PRIMARY KEY, b " ..
         q.blob_type .. ")" .. engine,
      diag_big = "CREATE TABLE diag_big (id INTEGER NOT NULL PRIMARY KEY, k INTEGER NOT NULL, " ..
         "pad " .. pad .. " NOT NULL)" .. engine,
      diag_data = "CREATE TABLE diag_data (id INTEGER NOT NULL PRIMARY KEY, k INTEGER NOT NULL, " ..
         "c VARCHAR(60) NOT NULL)" .. engine,
      diag_log = "CREATE TABLE diag_log (tid INTEGER NOT NULL, k INTEGER NOT NULL, " ..
         "c VARCHAR(60) NOT NULL)" .. engine,
      diag_seen = "CREATE TABLE diag_seen (clients INTEGER NOT NULL, tid INTEGER NOT NULL, " ..
         "backend BIGINT NOT NULL)" .. engine,
   }
   q.drop = function(t) return "DROP TABLE " .. t end
   -- what the server calls this session, for the sweep's check that each
   -- step ran with the clients the server saw (0 where there is no server)
   q.backend_id = ({ postgresql = "SELECT pg_backend_pid()", mysql = "SELECT CONNECTION_ID()",
                     db2 = "SELECT MON_GET_APPLICATION_HANDLE() FROM SYSIBM.SYSDUMMY1" })[dialect]
   q.select_one = dialect == "db2" and "SELECT 1 FROM SYSIBM.SYSDUMMY1" or "SELECT 1"
   -- a temporary table that lives until the end of the session
   if dialect == "postgresql" then
      q.create_temp = "CREATE TEMPORARY TABLE diag_tmp (id INTEGER NOT NULL, k INTEGER NOT NULL, " ..
         "c VARCHAR(60) NOT NULL)"
      q.temp_name = "diag_tmp"
   elseif dialect == "mysql" then
      q.create_temp = "CREATE TEMPORARY TABLE diag_tmp (id INTEGER NOT NULL, k INTEGER NOT NULL, " ..
         "c VARCHAR(60) NOT NULL)"
      q.temp_name = "diag_tmp"
   elseif dialect == "sqlite" then
      q.create_temp = "CREATE TEMP TABLE diag_tmp (id INTEGER NOT NULL, k INTEGER NOT NULL, " ..
         "c VARCHAR(60) NOT NULL)"
      q.temp_name = "diag_tmp"
   else -- DB2 and ANSI: a declared global temporary table
      q.create_temp = "DECLARE GLOBAL TEMPORARY TABLE diag_tmp (id INTEGER NOT NULL, " ..
         "k INTEGER NOT NULL, c VARCHAR(60) NOT NULL) ON COMMIT PRESERVE ROWS NOT LOGGED"
      q.temp_name = "SESSION.diag_tmp"
   end
   q.drop_temp = "DROP TABLE " .. q.temp_name
   q.temp_insert = "INSERT INTO " .. q.temp_name .. " (id, k, c) VALUES (?, ?, ?)"
   q.temp_sorted = "SELECT id, k, c FROM " .. q.temp_name .. " ORDER BY k, c"
   -- the large scan: one cursor on PostgreSQL (FETCH in batches, rows
   -- stream from the server); elsewhere pages by key over the primary key
   q.scan_cursor = dialect == "postgresql"
   q.scan_declare = "DECLARE diag_scan NO SCROLL CURSOR FOR SELECT id, k, pad FROM diag_big " ..
      "WHERE id > 0 ORDER BY id"
   q.scan_fetch = function(n) return "FETCH FORWARD " .. n .. " FROM diag_scan" end
   q.scan_close = "CLOSE diag_scan"
   q.scan_all = "SELECT id, k, pad FROM diag_big WHERE id > 0 ORDER BY id"
   q.scan_page = function(n)
      if dialect == "db2" then
         return "SELECT id, k, pad FROM diag_big WHERE id > ? ORDER BY id FETCH FIRST " .. n ..
            " ROWS ONLY"
      end
      return "SELECT id, k, pad FROM diag_big WHERE id > ? ORDER BY id LIMIT " .. n
   end
   q.blob_insert = "INSERT INTO diag_blob (id, b) VALUES (?, ?)"
   q.blob_select = "SELECT b FROM diag_blob WHERE id = ?"
   q.blob_delete = "DELETE FROM diag_blob"
   q.blob_bytes = ({ postgresql = "SELECT COALESCE(SUM(octet_length(b)), 0) FROM diag_blob",
                     mysql = "SELECT COALESCE(SUM(LENGTH(b)), 0) FROM diag_blob",
                     sqlite = "SELECT COALESCE(SUM(length(CAST(b AS BLOB))), 0) FROM diag_blob" })[dialect]
      or "SELECT COALESCE(SUM(LENGTH(b)), 0) FROM diag_blob"
   -- 1 when the server stores exactly the bytes given in hex (upper case),
   -- sent as text, apart from the binary parameter path: the server's own
   -- MD5 of both on PostgreSQL and MariaDB/MySQL, the hex on SQLite
   local same = ({ postgresql = "md5(b) = md5(decode('%s', 'hex'))", mysql = "MD5(b) = MD5(UNHEX('%s'))",
                   sqlite = "typeof(b) = 'blob' AND hex(b) = '%s'" })[dialect]
   if same then
      q.blob_same = function(id, hex)
         return string.format("SELECT COUNT(*) FROM diag_blob WHERE id = %d AND " .. same, id, hex)
      end
   end
   -- the sweep's transaction (jbench's statement kinds)
   q.sweep_select = "SELECT k, c FROM diag_data WHERE id = ?"
   q.sweep_insert = "INSERT INTO diag_log (tid, k, c) VALUES (?, ?, ?)"
   q.sweep_update = "UPDATE diag_data SET k = k + 1 WHERE id = ?"
   q.seen_insert = "INSERT INTO diag_seen (clients, tid, backend) VALUES (?, ?, ?)"
   return q
end

return M
