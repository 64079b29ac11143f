-- A PostgreSQL-only statement (the :: cast): on another database the run
-- stops with the database's error and this file's line 5.
\set a 5
SELECT 1;
SELECT :a::int;
