-- A script the C runner (lua/l_pgscript.c) takes whole: \set with
-- random() and arithmetic, nested \if/\else/\endif, prepared statements
-- with integer parameters inside BEGIN/END.  Its rows are compared with
-- pgbench's own for the same seed (tests/integration/pgbench.sh).
\set n random(1, 10)
\set m random(1, 3 * :scale)
\set w :n * 7 + :m
\if :n > 5
\set b 1
\if :m = 1
\set c 10
\else
\set c 20
\endif
\else
\set b 2
\set c :n - 100
\endif
BEGIN;
INSERT INTO fast_out VALUES (:client_id, :n, :m, :w, :b, :c);
END;
