-- pgbench_jobs_clients.lua: pgbench's -j (client threads) against -c (database
-- sessions), the seed experiment ("How to use the jobs and clients
-- parameters in pgbench") on PostgreSQL and on MariaDB: select-only and
-- tpcb-like with 16 clients (-c 16) on 1, 2, 4, 8 and 16 threads (-j N).
-- One command:
--
--   sbench compare examples/pgbench_jobs_clients.lua
--
-- (quicker look: add --repeats=4 --time=5).  Connections from the
-- environment as in examples/pgbench_connect.lua.
local env = os.getenv
return {
    title = "pgbench -j against -c: 16 clients on 1 to 16 threads, PostgreSQL and MariaDB",
    targets = {
        { name = "postgresql_c16", options = {
            db_driver = "pgsql",
            pgsql_host = env("PGHOST") or "127.0.0.1",
            pgsql_port = env("PGPORT") or 5432,
            pgsql_user = env("PGUSER") or "sbtest",
            pgsql_db = env("PGDATABASE") or "sbtest",
            pgsql_sslmode = "disable",
            clients = 16,
        } },
        { name = "mariadb_c16", options = {
            db_driver = "mysql",
            mysql_socket = env("MYSQL_SOCKET"),
            mysql_host = env("MYSQL_SOCKET") == nil and (env("MYSQL_HOST") or "127.0.0.1") or nil,
            mysql_port = env("MYSQL_SOCKET") == nil and (env("MYSQL_PORT") or 3306) or nil,
            mysql_user = env("MYSQL_USER") or "sbtest",
            mysql_db = env("MYSQL_DB") or "sbtest",
            clients = 16,
        } },
    },
    workloads = {
        { name = "pgbench", label = "select_only", options = { builtin = "select-only", scale = 10 } },
        { name = "pgbench", label = "tpcb_like", options = { builtin = "tpcb-like", scale = 10 } },
    },
    threads = { 1, 2, 4, 8, 16 },
    time = 20, warmup = 5, repeats = 5,
}
