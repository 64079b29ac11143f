-- The statement of the connection-cost experiment (pgbench -C -f select1.sql):
-- examples/pgbench_connect.lua runs it once per connection.
SELECT 1;
