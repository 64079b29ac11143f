-- pgbench_connect.lua: the cost of a connection per transaction (pgbench -C),
-- straight to PostgreSQL, through PgBouncer, and straight to MariaDB; and
-- PostgreSQL with persistent connections for reference.  The seed
-- experiment (`pgbench -c 20 -t 1000 -C -f select1.sql`, with and without
-- PgBouncer) with sbench's pgbench workload, 20 clients on 1 to 4 threads.
-- One command:
--
--   sbench compare examples/pgbench_connect.lua
--
-- (quicker look: add --repeats=4 --time=5).  Connections come from the
-- environment, passwords only from the environment (PGPASSWORD, MYSQL_PWD):
--   PGHOST [127.0.0.1] PGPORT [5432] BOUNCER_PORT [6432] (a PgBouncer in
--   front of the same server, in transaction or session pooling;
--   scripts/pgbouncer-server.sh starts one) PGUSER [sbtest] PGDATABASE [sbtest]
--   MYSQL_SOCKET, or MYSQL_HOST [127.0.0.1] MYSQL_PORT [3306]; MYSQL_USER
--   [sbtest] MYSQL_DB [sbtest]
-- Run it from the source tree (the script file is examples/pgbench_select1.sql).
local env = os.getenv
local script = "examples/pgbench_select1.sql"
local function pg(port, extra)
    local o = {
        db_driver = "pgsql",
        pgsql_host = env("PGHOST") or "127.0.0.1",
        pgsql_port = port,
        pgsql_user = env("PGUSER") or "sbtest",
        pgsql_db = env("PGDATABASE") or "sbtest",
        pgsql_sslmode = "disable",
    }
    for k, v in pairs(extra or {}) do o[k] = v end
    return o
end
return {
    title = "pgbench -C: a connection per transaction, direct, through PgBouncer, on MariaDB",
    targets = {
        { name = "pg_direct_C", options = pg(env("PGPORT") or 5432, { reconnect = "transaction" }) },
        { name = "pg_pgbouncer_C", options = pg(env("BOUNCER_PORT") or 6432, { reconnect = "transaction" }),
          prepare = false },                                  -- the same server's tables
        { name = "pg_persistent", options = pg(env("PGPORT") or 5432), prepare = false },
        { name = "mariadb_direct_C", options = {
            db_driver = "mysql",
            mysql_socket = env("MYSQL_SOCKET"),
            mysql_host = env("MYSQL_SOCKET") == nil and (env("MYSQL_HOST") or "127.0.0.1") or nil,
            mysql_port = env("MYSQL_SOCKET") == nil and (env("MYSQL_PORT") or 3306) or nil,
            mysql_user = env("MYSQL_USER") or "sbtest",
            mysql_db = env("MYSQL_DB") or "sbtest",
            reconnect = "transaction",
        } },
    },
    workloads = {
        { name = "pgbench", label = "select1", options = { file = script, scale = 1, no_vacuum = true } },
    },
    threads = { 1, 2, 4 },
    time = 20, warmup = 5, repeats = 5,
    options = { clients = 20 },
}
