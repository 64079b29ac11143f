-- Every meta-command of pgbench's script language, portable SQL only:
-- run by pgbench on PostgreSQL and by sbench on every database, the rows
-- of meta_out must agree (tests/integration/pgbench.sh).
\set base :client_id * 1000
\set n random(1, 10)
\if :n > 6
\set branch 1
\elif :n > 3
\set branch 2
\else
\set branch 3
\endif
\if :branch = 1 AND :n = 10
\set deep 1
\else
  \if :branch = 3
  \set deep 3
  \endif
\set deep2 0
\endif
\setshell sh echo 41
\set sh :sh + 1
\shell true
\sleep 1 ms
\sleep :n us
SELECT :n * 2 AS doubled, :n + 100 AS plus \gset p_
SELECT * FROM (SELECT 7 AS seven) s \aset
\set h abs(hash(:n)) % 7
\set pm permute(:n, 10)
\startpipeline
INSERT INTO meta_out
  VALUES (:client_id, :base, :n, :branch, :sh, :p_doubled, :p_plus, :seven, :h, :scale, :k);
INSERT INTO meta_out VALUES (:client_id, -1, :pm, 0, 0, 0, 0, 0, 0, 0, 0);
\endpipeline
