-- compare_pg_mariadb_sqlite.lua: PostgreSQL vs MariaDB vs SQLite on the same
-- machine, oltp_read_only from 1 to 8 threads, 5 interleaved repeats of 20 s
-- per point (about 45 minutes).  One command:
--
--   sbench compare examples/compare_pg_mariadb_sqlite.lua
--
-- prints the verdicts and writes compare_pg_mariadb_sqlite-results/report.html
-- (open it in a browser).  Quicker look: add --repeats=4 --time=5.
-- Interrupted?  Run the same command again: it goes on where it stopped.
--
-- Connections come from the environment (defaults in brackets); passwords
-- only from the environment, never from this file:
--   PGHOST [127.0.0.1] PGPORT [5432] PGUSER [sbtest] PGDATABASE [sbtest] PGPASSWORD
--   MYSQL_HOST [127.0.0.1] MYSQL_PORT [3306] (or MYSQL_SOCKET) MYSQL_USER [sbtest]
--   MYSQL_DB [sbtest] MYSQL_PWD
--   SQLITE_DB [compare-sqlite.db]
-- The tables are prepared once per target (cleanup + prepare) and left for
-- the next comparison; 'sbench ... oltp_read_only cleanup' drops them.
local env = os.getenv
return {
    title = "PostgreSQL vs MariaDB vs SQLite: oltp_read_only",
    targets = {
        { name = "postgresql", options = {
            db_driver = "pgsql",
            pgsql_host = env("PGHOST") or "127.0.0.1",
            pgsql_port = env("PGPORT") or 5432,
            pgsql_user = env("PGUSER") or "sbtest",
            pgsql_db = env("PGDATABASE") or "sbtest",
        } },
        { name = "mariadb", options = {
            db_driver = "mysql",
            mysql_socket = env("MYSQL_SOCKET"),          -- nil: not set
            mysql_host = env("MYSQL_SOCKET") == nil and (env("MYSQL_HOST") or "127.0.0.1") or nil,
            mysql_port = env("MYSQL_SOCKET") == nil and (env("MYSQL_PORT") or 3306) or nil,
            mysql_user = env("MYSQL_USER") or "sbtest",
            mysql_db = env("MYSQL_DB") or "sbtest",
        } },
        { name = "sqlite", options = {
            db_driver = "sqlite",
            sqlite_db = env("SQLITE_DB") or "compare-sqlite.db",
        } },
    },
    workloads = {
        { name = "oltp_read_only", options = { tables = 4, table_size = 10000 } },
    },
    threads = { 1, 2, 4, 8 },
    time = 20,
    warmup = 5,
    repeats = 5,
}
